"""ListGroups (key 16): the groups this broker coordinates."""

API_KEY = 16


def handle(request, *, group_coordinator):
    error, groups = group_coordinator.handle_list_groups()
    return {"throttle_time_ms": 0, "error_code": error,
            "groups": [{"group_id": g, "protocol_type": t} for g, t in groups]}
