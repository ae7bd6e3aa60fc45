"""OffsetDelete (key 47): delete a group's offsets of partitions it no longer consumes."""

from kafka_zk.protocol.errors import Errors

API_KEY = 47


def handle(request, *, metadata_cache, group_coordinator):
    body = request.body
    requested, unknown = [], {}
    for topic in body["topics"]:
        for p in topic["partitions"]:
            tp = (topic["name"], p["partition_index"])
            if metadata_cache.partition_info(*tp) is None:
                unknown[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                requested.append(tp)
    error, errors = group_coordinator.handle_delete_offsets(body["group_id"], requested)
    if error != Errors.NONE:
        return {"error_code": error, "throttle_time_ms": 0, "topics": []}
    errors = dict(errors)
    errors.update(unknown)
    topics = {}
    for topic in body["topics"]:
        for p in topic["partitions"]:
            tp = (topic["name"], p["partition_index"])
            topics.setdefault(tp[0], []).append({"partition_index": tp[1], "error_code": errors.get(tp, Errors.NONE)})
    return {"error_code": Errors.NONE, "throttle_time_ms": 0,
            "topics": [{"name": name, "partitions": parts} for name, parts in topics.items()]}
