"""Heartbeat (key 12): a member says it is alive; the answer tells it when to rejoin."""

API_KEY = 12


def handle(request, *, group_coordinator):
    body = request.body
    error = group_coordinator.handle_heartbeat(body["group_id"], body["member_id"],
                                               body.get("group_instance_id"), body["generation_id"])
    return {"throttle_time_ms": 0, "error_code": error}
