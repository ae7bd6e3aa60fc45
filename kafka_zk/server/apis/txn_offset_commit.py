"""TxnOffsetCommit (key 28): a transactional producer's consumed offsets, pending in the group coordinator
until the transaction's COMMIT marker reaches `__consumer_offsets` (dropped on ABORT)."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.apis.offset_commit import commit_response

API_KEY = 28


def handle(server, request):
    body = request.body
    offsets, unknown, order = {}, {}, []
    for topic in body["topics"]:
        for p in topic["partitions"]:
            tp = (topic["name"], p["partition_index"])
            order.append(tp)
            if server.metadata_cache.partition_info(*tp) is None:
                unknown[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                offsets[tp] = (p["committed_offset"], p.get("committed_leader_epoch", -1), p["committed_metadata"])
    if offsets:
        result = server.group_coordinator.handle_txn_commit_offsets(
            body["group_id"], body["producer_id"], body["producer_epoch"], body.get("member_id") or "",
            body.get("group_instance_id"), body.get("generation_id", -1), offsets)
    else:
        result = defer.succeed({})
    return result.addCallback(commit_response, unknown, order)
