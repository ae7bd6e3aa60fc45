"""DescribeGroups (key 15): state, protocol and members of groups this broker coordinates."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import AUTHORIZED_OPERATIONS_OMITTED, authorized, authorized_operations

API_KEY = 15


def handle(request, *, group_coordinator, authorizer=None):
    body = request.body
    groups = []
    for group_id in body["groups"]:
        if not authorized(authorizer, request, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            groups.append(
                {
                    "error_code": Errors.GROUP_AUTHORIZATION_FAILED,
                    "group_id": group_id,
                    "group_state": "",
                    "protocol_type": "",
                    "protocol_data": "",
                    "members": [],
                    "authorized_operations": AUTHORIZED_OPERATIONS_OMITTED,
                }
            )
            continue
        error, summary = group_coordinator.handle_describe_group(group_id)
        operations = AUTHORIZED_OPERATIONS_OMITTED
        if body.get("include_authorized_operations") and error == Errors.NONE:
            operations = authorized_operations(authorizer, request, ResourceType.GROUP, group_id)
        groups.append(
            {
                "error_code": error,
                "group_id": group_id,
                "group_state": summary.state,
                "protocol_type": summary.protocol_type,
                "protocol_data": summary.protocol,
                "members": [
                    {
                        "member_id": m,
                        "group_instance_id": i,
                        "client_id": c,
                        "client_host": h,
                        "member_metadata": meta,
                        "member_assignment": assignment,
                    }
                    for m, i, c, h, meta, assignment in summary.members
                ],
                "authorized_operations": operations,
            }
        )
    return {"throttle_time_ms": 0, "groups": groups}
