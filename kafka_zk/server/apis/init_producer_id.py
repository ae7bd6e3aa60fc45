"""InitProducerId (key 22): a producer id and epoch for idempotent producers."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors

API_KEY = 22


@defer.inlineCallbacks
def handle(server, request):
    body = request.body
    if body.get("transactional_id"):
        # Transactions need a transaction coordinator, which this broker does not run.
        return {"throttle_time_ms": 0, "error_code": Errors.COORDINATOR_NOT_AVAILABLE,
                "producer_id": -1, "producer_epoch": -1}
    producer_id = yield server.producer_ids.next_id()
    return {"throttle_time_ms": 0, "error_code": Errors.NONE, "producer_id": producer_id, "producer_epoch": 0}
