"""OffsetCommit v0 / OffsetFetch v0: offsets kept in ZooKeeper under /consumers/<group>/offsets/<topic>/<p>.

Kafka 2.5 serves version 0 of both APIs on any broker (no coordinator), straight from ZooKeeper, for the old
ZooKeeper-based consumers; later versions go to the group coordinator and `__consumer_offsets`.
"""

import logging

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)


@defer.inlineCallbacks
def commit_v0(zk, max_metadata_bytes, group_id, commits):
    """``commits``: {tp: (offset, metadata)} of known partitions -> Deferred of {tp: error}."""
    errors = {}
    for tp, (offset, metadata) in commits.items():
        if metadata is not None and len(metadata.encode("utf-16-le")) // 2 > max_metadata_bytes:
            errors[tp] = Errors.OFFSET_METADATA_TOO_LARGE
            continue
        try:
            yield zk.set_or_create_consumer_offset(group_id, tp[0], tp[1], offset)
            errors[tp] = Errors.NONE
        except Exception as exc:  # Kafka answers the exception's error code for that partition
            log.warning("Failed to store offset of group %s for %s-%d in ZooKeeper: %s", group_id, tp[0], tp[1], exc)
            errors[tp] = Errors.UNKNOWN_SERVER_ERROR
    return errors


@defer.inlineCallbacks
def fetch_v0(zk, metadata_cache, group_id, partitions):
    """-> Deferred of {tp: (offset, leader_epoch, metadata, error)}; a partition unknown to the metadata cache or
    without a znode answers -1 with UNKNOWN_TOPIC_OR_PARTITION."""
    unknown = (-1, -1, "", Errors.UNKNOWN_TOPIC_OR_PARTITION)
    known = [tp for tp in partitions if metadata_cache.partition_info(*tp) is not None]
    found = {}
    failed = None
    if known:
        try:
            found = yield zk.get_consumer_offsets(group_id, known)
        except Exception as exc:
            log.warning("Failed to read offsets of group %s from ZooKeeper: %s", group_id, exc)
            failed = (-1, -1, "", Errors.UNKNOWN_SERVER_ERROR)
    result = {}
    for tp in partitions:
        if tp not in known:
            result[tp] = unknown
        elif failed is not None:
            result[tp] = failed
        elif found.get(tp) is None:
            result[tp] = unknown
        else:
            result[tp] = (found[tp], -1, "", Errors.NONE)
    return result
