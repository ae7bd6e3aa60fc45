"""OffsetCommit (key 8): store a group's consumed offsets in `__consumer_offsets` (acks=-1); v0 in ZooKeeper."""

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.coordinator.group.zk_consumer_offsets import commit_v0
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, authorized_names

API_KEY = 8


def handle(request, *, metadata_cache, group_coordinator, zk, clock, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        return defer.succeed(denied_response(body, Errors.GROUP_AUTHORIZATION_FAILED))
    now = milliseconds(clock)
    retention = body.get("retention_time_ms", -1)
    expire = None if retention is None or retention == -1 else now + retention
    order, unknown, known = split_partitions(metadata_cache, body, readable_topics(authorizer, request, body))
    offsets = {}
    for tp, p in known:
        commit_ts = p.get("commit_timestamp", -1)
        offsets[tp] = (
            p["committed_offset"],
            p.get("committed_leader_epoch", -1),
            p["committed_metadata"],
            now if commit_ts in (None, -1) else commit_ts,
            expire,
        )
    if request.api_version == 0:
        result = commit_v0(
            zk,
            group_coordinator.config.max_metadata_bytes,
            body["group_id"],
            {tp: (offset, metadata) for tp, (offset, _, metadata, _, _) in offsets.items()},
        )
    elif not offsets:
        result = defer.succeed({})
    else:
        result = group_coordinator.handle_commit_offsets(
            body["group_id"],
            body.get("member_id", ""),
            body.get("group_instance_id"),
            body.get("generation_id", -1),
            offsets,
        )
    return result.addCallback(commit_response, unknown, order)


def readable_topics(authorizer, request, body):
    """The topics of an OffsetCommit or TxnOffsetCommit the principal may Read (commit offsets of)."""
    return authorized_names(
        authorizer, request, AclOperation.READ, ResourceType.TOPIC, [topic["name"] for topic in body["topics"]]
    )


def denied_response(body, error):
    """Every partition of an OffsetCommit or TxnOffsetCommit answers ``error`` (the group or transactional id
    is not authorized); nothing is committed."""
    order = [(topic["name"], p["partition_index"]) for topic in body["topics"] for p in topic["partitions"]]
    return commit_response({tp: error for tp in order}, {}, order)


def split_partitions(metadata_cache, body, readable=None):
    """An OffsetCommit or TxnOffsetCommit's partitions: (all in request order, {tp: error} for those of topics
    not ``readable`` (TOPIC_AUTHORIZATION_FAILED; None: all are) or the cluster does not have
    (UNKNOWN_TOPIC_OR_PARTITION), [(tp, partition entry)] for the others)."""
    order, unknown, known = [], {}, []
    for topic in body["topics"]:
        for p in topic["partitions"]:
            tp = (topic["name"], p["partition_index"])
            order.append(tp)
            if readable is not None and tp[0] not in readable:
                unknown[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif metadata_cache.partition_info(*tp) is None:
                unknown[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                known.append((tp, p))
    return order, unknown, known


def commit_response(errors, unknown, order):
    """An OffsetCommit or TxnOffsetCommit answer: one error per partition, in the request's order."""
    errors = dict(errors)
    errors.update(unknown)
    topics = {}
    for tp in order:
        topics.setdefault(tp[0], []).append({"partition_index": tp[1], "error_code": errors[tp]})
    return {"throttle_time_ms": 0, "topics": [{"name": name, "partitions": parts} for name, parts in topics.items()]}
