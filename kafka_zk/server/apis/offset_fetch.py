"""OffsetFetch (key 9): a group's committed offsets (all of them when topics is null, v2+); v0 from ZooKeeper."""

from kafka_zk.coordinator.group.zk_consumer_offsets import fetch_v0
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, authorized_names

API_KEY = 9
_UNAUTHORIZED = (-1, -1, "", Errors.TOPIC_AUTHORIZATION_FAILED)


def handle(request, *, group_coordinator, metadata_cache, zk, authorizer=None):
    body = request.body
    version = request.api_version
    requested = None
    if body["topics"] is not None:
        requested = [(t["name"], p) for t in body["topics"] for p in t["partition_indexes"]]
    if not authorized(authorizer, request, AclOperation.DESCRIBE, ResourceType.GROUP, body["group_id"]):
        return _error_response(requested, version, Errors.GROUP_AUTHORIZATION_FAILED)
    # Offsets of topics the principal may not Describe: named ones answer TOPIC_AUTHORIZATION_FAILED, and
    # "all of the group's" leaves them out.
    names = [tp[0] for tp in requested] if requested is not None else None
    describable = (
        None
        if names is None
        else authorized_names(authorizer, request, AclOperation.DESCRIBE, ResourceType.TOPIC, names)
    )
    denied = {} if requested is None else {tp: _UNAUTHORIZED for tp in requested if tp[0] not in describable}
    allowed = None if requested is None else [tp for tp in requested if tp not in denied]
    if version == 0:
        return fetch_v0(zk, metadata_cache, body["group_id"], allowed or []).addCallback(
            lambda found: _response({**found, **denied}, None)
        )
    error, offsets = group_coordinator.handle_fetch_offsets(body["group_id"], allowed)
    if error != Errors.NONE:
        return _error_response(requested, version, error)
    partitions = {tp: (offset, epoch, metadata, Errors.NONE) for tp, (offset, epoch, metadata) in offsets.items()}
    if requested is None:
        visible = authorized_names(
            authorizer, request, AclOperation.DESCRIBE, ResourceType.TOPIC, [tp[0] for tp in partitions]
        )
        partitions = {tp: value for tp, value in partitions.items() if tp[0] in visible}
    if body.get("require_stable"):
        # KIP-447: offsets with a transactional commit still pending answer UNSTABLE_OFFSET_COMMIT.
        group = group_coordinator.manager.get_group(body["group_id"])
        for tp in list(partitions):
            if group is not None and group.offsets.has_pending_txn(tp):
                partitions[tp] = (-1, -1, "", Errors.UNSTABLE_OFFSET_COMMIT)
    partitions.update(denied)
    return _response(partitions, Errors.NONE)


def _error_response(requested, version, error):
    """Kafka's OffsetFetchRequest.getErrorResponse: a top-level error from v2, each named partition's before."""
    partitions = {}
    if version < 2:
        partitions = {tp: (-1, -1, "", error) for tp in requested or []}
    return _response(partitions, error if version >= 2 else None)


def _response(partitions, error):
    topics = {}
    for (topic, index), (offset, epoch, metadata, code) in partitions.items():
        topics.setdefault(topic, []).append(
            {
                "partition_index": index,
                "committed_offset": offset,
                "committed_leader_epoch": epoch,
                "metadata": metadata,
                "error_code": code,
            }
        )
    response = {
        "throttle_time_ms": 0,
        "topics": [{"name": name, "partitions": parts} for name, parts in topics.items()],
    }
    if error is not None:
        response["error_code"] = error
    return response
