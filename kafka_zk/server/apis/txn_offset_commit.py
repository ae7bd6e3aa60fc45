"""TxnOffsetCommit (key 28): a transactional producer's consumed offsets, pending in the group coordinator
until the transaction's COMMIT marker reaches `__consumer_offsets` (dropped on ABORT)."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized
from kafka_zk.server.apis.offset_commit import commit_response, denied_response, readable_topics, split_partitions

API_KEY = 28


def handle(request, *, metadata_cache, group_coordinator, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body["transactional_id"]):
        return defer.succeed(denied_response(body, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        return defer.succeed(denied_response(body, Errors.GROUP_AUTHORIZATION_FAILED))
    order, unknown, known = split_partitions(metadata_cache, body, readable_topics(authorizer, request, body))
    offsets = {
        tp: (p["committed_offset"], p.get("committed_leader_epoch", -1), p["committed_metadata"]) for tp, p in known
    }
    if offsets:
        result = group_coordinator.handle_txn_commit_offsets(
            body["group_id"],
            body["producer_id"],
            body["producer_epoch"],
            body.get("member_id") or "",
            body.get("group_instance_id"),
            body.get("generation_id", -1),
            offsets,
        )
    else:
        result = defer.succeed({})
    return result.addCallback(commit_response, unknown, order)
