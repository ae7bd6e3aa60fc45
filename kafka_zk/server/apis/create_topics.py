"""CreateTopics (key 19): validate, write the assignment to ZooKeeper, wait for leaders."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors

API_KEY = 19


@defer.inlineCallbacks
def handle(request, *, admin):
    body = request.body
    version = request.api_version
    seen = set()
    duplicates = set()
    for topic in body["topics"]:
        (duplicates if topic["name"] in seen else seen).add(topic["name"])
    specs = []
    for topic in body["topics"]:
        if topic["name"] in duplicates:
            continue
        assignment = {entry["partition_index"]: list(entry["broker_ids"]) for entry in topic["assignments"]}
        configs = {entry["name"]: entry["value"] for entry in topic["configs"]}
        specs.append((topic["name"], topic["num_partitions"], topic["replication_factor"], assignment, configs))
    outcomes = yield admin.create_topics(specs, body["timeout_ms"], body.get("validate_only", False))
    results = []
    for name in sorted(duplicates):
        results.append({"name": name, "error_code": Errors.INVALID_REQUEST,
                        "error_message": "Create topics request from client `%s` contains multiple entries "
                                         "for the following topics: %s" % (request.client_id, name),
                        "num_partitions": -1, "replication_factor": -1, "configs": None})
    for outcome in outcomes:
        entry = {"name": outcome.name, "error_code": outcome.error,
                 "error_message": outcome.message if version >= 1 else None,
                 "num_partitions": outcome.num_partitions, "replication_factor": outcome.replication_factor,
                 "configs": None}
        if version >= 5 and outcome.error == Errors.NONE:
            entry["configs"] = [{"name": name, "value": str(value), "read_only": False,
                                 "config_source": source, "is_sensitive": False}
                                for name, (value, source) in sorted(outcome.configs.items())]
        results.append(entry)
    return {"throttle_time_ms": 0, "topics": results}
