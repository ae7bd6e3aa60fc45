"""LeaveGroup (key 13): members leave a group (one member before v3, a batch from v3)."""

from kafka_zk.protocol.errors import Errors

API_KEY = 13


def handle(request, *, group_coordinator):
    body = request.body
    if request.api_version < 3:
        leaving = [(body["member_id"], None)]
    else:
        leaving = [(m["member_id"], m.get("group_instance_id")) for m in body["members"]]
    error, members = group_coordinator.handle_leave_group(body["group_id"], leaving)
    if request.api_version < 3:
        if error == Errors.NONE and members:
            error = members[0][2]
        return {"throttle_time_ms": 0, "error_code": error}
    return {"throttle_time_ms": 0, "error_code": error,
            "members": [{"member_id": m, "group_instance_id": i, "error_code": e} for m, i, e in members]}
