"""DescribeAcls (key 29): the ACL bindings a filter selects, grouped by resource pattern."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import group_by_pattern
from kafka_zk.security.authorizer import AclOperation, PatternType
from kafka_zk.server.apis.acl_bindings import CLUSTER_DENIED, NO_AUTHORIZER, cluster_allowed, entry_fields, filter_of

API_KEY = 29


def handle(request, *, authorizer):
    if not cluster_allowed(authorizer, request, AclOperation.DESCRIBE):
        return _error(*CLUSTER_DENIED)
    if authorizer is None:
        return _error(Errors.SECURITY_DISABLED, NO_AUTHORIZER)
    binding_filter = filter_of(request.body)
    # a filter with UNKNOWN elements matches no ACL: Kafka 2.5 answers no error and no resources
    bindings = [] if binding_filter.has_unknown() else authorizer.acls(binding_filter)
    if request.api_version == 0:
        bindings = [b for b in bindings if b.pattern.pattern_type == PatternType.LITERAL]
    resources = [
        {
            "resource_type": int(pattern.resource_type),
            "resource_name": pattern.name,
            "pattern_type": int(pattern.pattern_type),
            "acls": [entry_fields(e) for e in entries],
        }
        for pattern, entries in group_by_pattern(bindings).items()
    ]
    return {"throttle_time_ms": 0, "error_code": Errors.NONE, "error_message": "", "resources": resources}


def _error(error, message):
    return {"throttle_time_ms": 0, "error_code": error, "error_message": message, "resources": []}
