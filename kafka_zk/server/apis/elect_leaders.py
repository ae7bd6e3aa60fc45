"""ElectLeaders (key 43): preferred or unclean leader elections run by the controller."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors

API_KEY = 43


@defer.inlineCallbacks
def handle(server, request):
    body = request.body
    requested = body["topic_partitions"]
    partitions = None if requested is None else [(entry["topic"], index) for entry in requested
                                                 for index in entry["partition_id"]]
    results = yield server.controller.elect_leaders(body.get("election_type", 0), partitions)
    topics = {}
    for (topic, index), code in sorted(results.items()):
        message = None if code == Errors.NONE else Errors.from_code(code).message
        topics.setdefault(topic, []).append({"partition_id": index, "error_code": code, "error_message": message})
    return {"throttle_time_ms": 0, "error_code": Errors.NONE,
            "replica_election_results": [{"topic": topic, "partition_result": entries}
                                         for topic, entries in topics.items()]}
