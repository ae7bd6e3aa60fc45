"""AlterPartitionReassignments (key 45): start or cancel partition moves through the controller."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 45


@defer.inlineCallbacks
def handle(request, *, controller, authorizer=None):
    if not cluster_authorized(authorizer, request, AclOperation.ALTER):
        return _denied(request.body["topics"])
    if not controller().is_active:  # as Kafka 2.5's controller: a top-level error, no partitions
        moved = Errors.NOT_CONTROLLER
        return {"throttle_time_ms": 0, "error_code": moved, "error_message": moved.message, "responses": []}
    targets = {
        (topic["name"], partition["partition_index"]): partition["replicas"]
        for topic in request.body["topics"]
        for partition in topic["partitions"]
    }
    results = yield controller().alter_reassignments(targets)
    topics = {}
    for (topic, index), code in sorted(results.items()):
        message = None if code == Errors.NONE else Errors.from_code(code).message
        topics.setdefault(topic, []).append({"partition_index": index, "error_code": code, "error_message": message})
    return {
        "throttle_time_ms": 0,
        "error_code": Errors.NONE,
        "error_message": "",  # Kafka 2.5's text beside a success
        "responses": [{"name": topic, "partitions": partitions} for topic, partitions in topics.items()],
    }


def _denied(topics):
    """Kafka's error response: the top-level error, and each named partition's."""
    denied = Errors.CLUSTER_AUTHORIZATION_FAILED
    return {
        "throttle_time_ms": 0,
        "error_code": denied,
        "error_message": denied.message,
        "responses": [
            {
                "name": topic["name"],
                "partitions": [
                    {
                        "partition_index": partition["partition_index"],
                        "error_code": denied,
                        "error_message": denied.message,
                    }
                    for partition in topic["partitions"]
                ],
            }
            for topic in topics
        ],
    }
