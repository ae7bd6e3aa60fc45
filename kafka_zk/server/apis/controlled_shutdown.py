"""ControlledShutdown (key 7): a broker about to stop asks the controller to move its leaderships away."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 7


@defer.inlineCallbacks
def handle(request, *, controller, authorizer=None):
    body = request.body
    if not cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION):
        return {"error_code": Errors.CLUSTER_AUTHORIZATION_FAILED, "remaining_partitions": []}
    if not controller().is_active:  # Kafka 2.5's ControllerMovedException, whose code is STALE_CONTROLLER_EPOCH
        return {"error_code": Errors.STALE_CONTROLLER_EPOCH, "remaining_partitions": []}
    error, remaining = yield controller().controlled_shutdown(body["broker_id"], body["broker_epoch"])
    return {
        "error_code": error,
        "remaining_partitions": [
            {"topic_name": topic, "partition_index": partition} for topic, partition in sorted(remaining)
        ],
    }
