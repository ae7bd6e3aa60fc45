"""OffsetFetch (key 9): a group's committed offsets (all of them when topics is null, v2+); v0 from ZooKeeper."""

from kafka_zk.coordinator.group.zk_consumer_offsets import fetch_v0
from kafka_zk.protocol.errors import Errors

API_KEY = 9


def handle(request, *, group_coordinator, metadata_cache, zk):
    body = request.body
    version = request.api_version
    requested = None
    if body["topics"] is not None:
        requested = [(t["name"], p) for t in body["topics"] for p in t["partition_indexes"]]
    if version == 0:
        return fetch_v0(zk, metadata_cache, body["group_id"], requested or []).addCallback(_response, None)
    error, offsets = group_coordinator.handle_fetch_offsets(body["group_id"], requested)
    if error != Errors.NONE:
        partitions = {}
        if version < 2:
            partitions = {tp: (-1, -1, "", error) for tp in requested or []}
        return _response(partitions, error if version >= 2 else None)
    partitions = {tp: (offset, epoch, metadata, Errors.NONE) for tp, (offset, epoch, metadata) in offsets.items()}
    if body.get("require_stable"):
        # KIP-447: offsets with a transactional commit still pending answer UNSTABLE_OFFSET_COMMIT.
        group = group_coordinator.manager.get_group(body["group_id"])
        for tp in list(partitions):
            if group is not None and group.offsets.has_pending_txn(tp):
                partitions[tp] = (-1, -1, "", Errors.UNSTABLE_OFFSET_COMMIT)
    return _response(partitions, Errors.NONE)


def _response(partitions, error):
    topics = {}
    for (topic, index), (offset, epoch, metadata, code) in partitions.items():
        topics.setdefault(topic, []).append({"partition_index": index, "committed_offset": offset,
                                             "committed_leader_epoch": epoch, "metadata": metadata,
                                             "error_code": code})
    response = {"throttle_time_ms": 0,
                "topics": [{"name": name, "partitions": parts} for name, parts in topics.items()]}
    if error is not None:
        response["error_code"] = error
    return response
