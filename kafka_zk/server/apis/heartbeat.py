"""Heartbeat (key 12): a member says it is alive; the answer tells it when to rejoin."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 12


def handle(request, *, group_coordinator, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        return {"throttle_time_ms": 0, "error_code": Errors.GROUP_AUTHORIZATION_FAILED}
    error = group_coordinator.handle_heartbeat(
        body["group_id"], body["member_id"], body.get("group_instance_id"), body["generation_id"]
    )
    return {"throttle_time_ms": 0, "error_code": error}
