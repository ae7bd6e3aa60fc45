"""ListPartitionReassignments (key 46): the partition moves the controller is running."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 46


@defer.inlineCallbacks
def handle(request, *, controller, authorizer=None):
    if not cluster_authorized(authorizer, request, AclOperation.DESCRIBE):
        denied = Errors.CLUSTER_AUTHORIZATION_FAILED
        return {"throttle_time_ms": 0, "error_code": denied, "error_message": denied.message, "topics": []}
    requested = request.body["topics"]
    partitions = (
        None
        if requested is None
        else [(topic["name"], index) for topic in requested for index in topic["partition_indexes"]]
    )
    moves = yield controller().list_reassignments(partitions)
    if moves is None:
        return {
            "throttle_time_ms": 0,
            "error_code": Errors.NOT_CONTROLLER,
            "error_message": Errors.NOT_CONTROLLER.message,
            "topics": [],
        }
    topics = {}
    for (topic, index), replicas, adding, removing in moves:
        topics.setdefault(topic, []).append(
            {"partition_index": index, "replicas": replicas, "adding_replicas": adding, "removing_replicas": removing}
        )
    return {
        "throttle_time_ms": 0,
        "error_code": Errors.NONE,
        "error_message": "",  # Kafka 2.5's text beside a success
        "topics": [{"name": topic, "partitions": partitions} for topic, partitions in topics.items()],
    }
