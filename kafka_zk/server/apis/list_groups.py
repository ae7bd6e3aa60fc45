"""ListGroups (key 16): the groups this broker coordinates."""

from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, cluster_authorized

API_KEY = 16


def handle(request, *, group_coordinator, authorizer=None):
    error, groups = group_coordinator.handle_list_groups()
    # Describe on the cluster lists every group (kept for compatibility); otherwise those the principal may Describe.
    if not cluster_authorized(authorizer, request, AclOperation.DESCRIBE):
        groups = [
            (g, t) for g, t in groups if authorized(authorizer, request, AclOperation.DESCRIBE, ResourceType.GROUP, g)
        ]
    return {
        "throttle_time_ms": 0,
        "error_code": error,
        "groups": [{"group_id": g, "protocol_type": t} for g, t in groups],
    }
