"""TxnOffsetCommit (key 28): a transactional producer's consumed offsets, pending in the group coordinator
until the transaction's COMMIT marker reaches `__consumer_offsets` (dropped on ABORT)."""

from twisted.internet import defer

from kafka_zk.server.apis.offset_commit import commit_response, split_partitions

API_KEY = 28


def handle(request, *, metadata_cache, group_coordinator):
    body = request.body
    order, unknown, known = split_partitions(metadata_cache, body)
    offsets = {tp: (p["committed_offset"], p.get("committed_leader_epoch", -1), p["committed_metadata"])
               for tp, p in known}
    if offsets:
        result = group_coordinator.handle_txn_commit_offsets(
            body["group_id"], body["producer_id"], body["producer_epoch"], body.get("member_id") or "",
            body.get("group_instance_id"), body.get("generation_id", -1), offsets)
    else:
        result = defer.succeed({})
    return result.addCallback(commit_response, unknown, order)
