"""JoinGroup (key 11): join a group, parked until the rebalance completes."""

from twisted.internet import defer

from kafka_zk.coordinator.group.group_coordinator import join_result
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 11


def handle(request, *, group_coordinator, authorizer=None):
    body = request.body
    version = request.api_version
    session_timeout = body["session_timeout_ms"]
    rebalance_timeout = session_timeout if version == 0 else body["rebalance_timeout_ms"]
    protocols = [(p["name"], bytes(p["metadata"])) for p in body["protocols"]]
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        result = defer.succeed(join_result("", Errors.GROUP_AUTHORIZATION_FAILED))
    else:
        result = group_coordinator.handle_join_group(
            body["group_id"],
            body["member_id"],
            body.get("group_instance_id"),
            version,
            request.client_id or "",
            "/" + (request.client_host or ""),
            rebalance_timeout,
            session_timeout,
            body["protocol_type"],
            protocols,
        )

    def build(outcome):
        response = dict(outcome)
        response["throttle_time_ms"] = 0
        if version < 7:
            response["protocol_name"] = outcome["protocol_name"] or ""
        if response["error_code"] != Errors.NONE:
            response["members"] = []
        return response

    return result.addCallback(build)
