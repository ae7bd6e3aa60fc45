"""LeaveGroup (key 13): members leave a group (one member before v3, a batch from v3)."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 13


def handle(request, *, group_coordinator, authorizer=None):
    body = request.body
    if not authorized(authorizer, request, AclOperation.READ, ResourceType.GROUP, body["group_id"]):
        return {"throttle_time_ms": 0, "error_code": Errors.GROUP_AUTHORIZATION_FAILED, "members": []}
    if request.api_version < 3:
        leaving = [(body["member_id"], None)]
    else:
        leaving = [(m["member_id"], m.get("group_instance_id")) for m in body["members"]]
    error, members = group_coordinator.handle_leave_group(body["group_id"], leaving)
    if request.api_version < 3:
        if error == Errors.NONE and members:
            error = members[0][2]
        return {"throttle_time_ms": 0, "error_code": error}
    return {
        "throttle_time_ms": 0,
        "error_code": error,
        "members": [{"member_id": m, "group_instance_id": i, "error_code": e} for m, i, e in members],
    }
