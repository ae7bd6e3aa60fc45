"""ControlledShutdown (key 7): a broker about to stop asks the controller to move its leaderships away."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors

API_KEY = 7


@defer.inlineCallbacks
def handle(request, *, controller):
    body = request.body
    if not controller().is_active:
        return {"error_code": Errors.NOT_CONTROLLER, "remaining_partitions": []}
    error, remaining = yield controller().controlled_shutdown(body["broker_id"], body["broker_epoch"])
    return {"error_code": error,
            "remaining_partitions": [{"topic_name": topic, "partition_index": partition}
                                     for topic, partition in sorted(remaining)]}
