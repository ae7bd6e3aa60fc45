"""EndTxn (key 26): commit or abort a transaction; answered once PrepareCommit/PrepareAbort is in the log."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 26


def handle(request, *, txn_coordinator, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body["transactional_id"]):
        return defer.succeed({"throttle_time_ms": 0, "error_code": Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED})
    result = txn_coordinator.handle_end_txn(
        body["transactional_id"], body["producer_id"], body["producer_epoch"], body["committed"]
    )
    return result.addCallback(lambda error: {"throttle_time_ms": 0, "error_code": error})
