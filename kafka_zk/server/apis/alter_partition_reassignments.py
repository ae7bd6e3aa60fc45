"""AlterPartitionReassignments (key 45): start or cancel partition moves through the controller."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors

API_KEY = 45


@defer.inlineCallbacks
def handle(request, *, controller):
    targets = {(topic["name"], partition["partition_index"]): partition["replicas"]
               for topic in request.body["topics"] for partition in topic["partitions"]}
    results = yield controller().alter_reassignments(targets)
    topics = {}
    for (topic, index), code in sorted(results.items()):
        message = None if code == Errors.NONE else Errors.from_code(code).message
        topics.setdefault(topic, []).append({"partition_index": index, "error_code": code, "error_message": message})
    return {"throttle_time_ms": 0, "error_code": Errors.NONE, "error_message": None,
            "responses": [{"name": topic, "partitions": partitions} for topic, partitions in topics.items()]}
