"""SyncGroup (key 14): the leader hands out assignments; every member waits for its own."""

from twisted.internet import defer

from kafka_zk.coordinator.group.group_coordinator import sync_result
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 14


def handle(request, *, group_coordinator, authorizer=None):
    body = request.body
    version = request.api_version
    if version >= 5 and (body.get("protocol_type") is None or body.get("protocol_name") is None):
        # KIP-559: from v5 both are mandatory.
        return {
            "throttle_time_ms": 0,
            "error_code": Errors.INCONSISTENT_GROUP_PROTOCOL,
            "protocol_type": None,
            "protocol_name": None,
            "assignment": b"",
        }
    assignments = {a["member_id"]: bytes(a["assignment"]) for a in body["assignments"]}
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        result = defer.succeed(sync_result(Errors.GROUP_AUTHORIZATION_FAILED))
    else:
        result = group_coordinator.handle_sync_group(
            body["group_id"],
            body["generation_id"],
            body["member_id"],
            body.get("group_instance_id"),
            assignments,
            body.get("protocol_type"),
            body.get("protocol_name"),
        )

    def build(outcome):
        response = dict(outcome)
        response["throttle_time_ms"] = 0
        return response

    return result.addCallback(build)
