"""InitProducerId (key 22): a producer id and epoch; with a transactional id, from the transaction coordinator."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, cluster_authorized

API_KEY = 22
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1


def _answer(error, producer_id=-1, producer_epoch=-1):
    return {"throttle_time_ms": 0, "error_code": error, "producer_id": producer_id, "producer_epoch": producer_epoch}


@defer.inlineCallbacks
def handle(request, *, producer_ids, txn_coordinator, authorizer=None):
    body = request.body
    transactional_id = body.get("transactional_id")
    if transactional_id is not None:
        if not authorized(authorizer, request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
            return _answer(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    elif not cluster_authorized(authorizer, request, AclOperation.IDEMPOTENT_WRITE):
        return _answer(Errors.CLUSTER_AUTHORIZATION_FAILED)
    if transactional_id is None:
        # Idempotent producers get a fresh id whatever they had (Kafka 2.5's coordinator, KIP-360 aside).
        producer_id = yield producer_ids.next_id()
        return _answer(Errors.NONE, producer_id, 0)
    expected = (body.get("producer_id", NO_PRODUCER_ID), body.get("producer_epoch", NO_PRODUCER_EPOCH))
    if expected == (NO_PRODUCER_ID, NO_PRODUCER_EPOCH):
        expected = None
    elif expected[0] == NO_PRODUCER_ID or expected[1] == NO_PRODUCER_EPOCH:
        return _answer(Errors.INVALID_REQUEST)
    error, producer_id, producer_epoch = yield txn_coordinator.handle_init_producer_id(
        transactional_id, body["transaction_timeout_ms"], expected
    )
    return _answer(error, producer_id, producer_epoch)
