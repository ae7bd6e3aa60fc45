"""OffsetDelete (key 47): delete a group's offsets of partitions it no longer consumes."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, authorized_names

API_KEY = 47


def handle(request, *, metadata_cache, group_coordinator, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.DELETE, ResourceType.GROUP, body["group_id"]):
        return {"error_code": Errors.GROUP_AUTHORIZATION_FAILED, "throttle_time_ms": 0, "topics": []}
    readable = authorized_names(
        authorizer, request, AclOperation.READ, ResourceType.TOPIC, [topic["name"] for topic in body["topics"]]
    )
    requested, unknown = [], {}
    for topic in body["topics"]:
        for p in topic["partitions"]:
            tp = (topic["name"], p["partition_index"])
            if topic["name"] not in readable:
                unknown[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif metadata_cache.partition_info(*tp) is None:
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
    return {
        "error_code": Errors.NONE,
        "throttle_time_ms": 0,
        "topics": [{"name": name, "partitions": parts} for name, parts in topics.items()],
    }
