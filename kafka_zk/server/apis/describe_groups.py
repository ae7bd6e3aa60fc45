"""DescribeGroups (key 15): state, protocol and members of groups this broker coordinates."""

API_KEY = 15
# No authorizer: every group operation Kafka supports (READ 3, DELETE 6, DESCRIBE 8) is allowed.
ALL_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8)
NOT_REQUESTED = -2147483648


def handle(request, *, group_coordinator):
    body = request.body
    operations = ALL_GROUP_OPERATIONS if body.get("include_authorized_operations") else NOT_REQUESTED
    groups = []
    for group_id in body["groups"]:
        error, summary = group_coordinator.handle_describe_group(group_id)
        groups.append({"error_code": error, "group_id": group_id, "group_state": summary.state,
                       "protocol_type": summary.protocol_type, "protocol_data": summary.protocol,
                       "members": [{"member_id": m, "group_instance_id": i, "client_id": c, "client_host": h,
                                    "member_metadata": meta, "member_assignment": assignment}
                                   for m, i, c, h, meta, assignment in summary.members],
                       "authorized_operations": operations})
    return {"throttle_time_ms": 0, "groups": groups}
