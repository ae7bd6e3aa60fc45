"""DeleteGroups (key 42): delete empty groups and their offsets."""

API_KEY = 42


def handle(request, *, group_coordinator):
    names = list(dict.fromkeys(request.body["groups_names"]))
    errors = group_coordinator.handle_delete_groups(names)
    return {"throttle_time_ms": 0, "results": [{"group_id": g, "error_code": errors[g]} for g in names]}
