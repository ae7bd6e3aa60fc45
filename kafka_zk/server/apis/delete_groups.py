"""DeleteGroups (key 42): delete empty groups and their offsets."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names

API_KEY = 42


def handle(request, *, group_coordinator, authorizer=None):
    names = list(dict.fromkeys(request.body["groups_names"]))
    deletable = authorized_names(authorizer, request, AclOperation.DELETE, ResourceType.GROUP, names)
    errors = {name: Errors.GROUP_AUTHORIZATION_FAILED for name in names if name not in deletable}
    errors.update(group_coordinator.handle_delete_groups([name for name in names if name in deletable]))
    return {"throttle_time_ms": 0, "results": [{"group_id": g, "error_code": errors[g]} for g in names]}
