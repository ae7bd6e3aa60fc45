"""DeleteAcls (key 31): remove the ACL bindings each filter selects, answering what each filter deleted."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, PatternType
from kafka_zk.server.apis.acl_bindings import CLUSTER_DENIED, NO_AUTHORIZER, cluster_allowed, entry_fields, filter_of

API_KEY = 31


@defer.inlineCallbacks
def handle(request, *, authorizer):
    filters = request.body["filters"]
    if not cluster_allowed(authorizer, request, AclOperation.ALTER):
        return _all(filters, *CLUSTER_DENIED)
    if authorizer is None:
        return _all(filters, Errors.SECURITY_DISABLED, NO_AUTHORIZER)
    binding_filters = [filter_of(f) for f in filters]
    valid = [i for i, f in enumerate(binding_filters) if not f.has_unknown()]
    deleted = yield authorizer.delete_acls([binding_filters[i] for i in valid])
    results = [
        {
            "error_code": Errors.INVALID_REQUEST,
            "error_message": "The filter contains UNKNOWN elements",
            "matching_acls": [],
        }
        for _ in filters
    ]
    for index, matches in zip(valid, deleted):
        if request.api_version == 0 and any(b.pattern.pattern_type != PatternType.LITERAL for b, _, _ in matches):
            results[index] = {
                "error_code": Errors.UNSUPPORTED_VERSION,
                "matching_acls": [],
                "error_message": "Version 0 only supports literal resource pattern types",
            }
            continue
        results[index] = {
            "error_code": Errors.NONE,
            "error_message": None,
            "matching_acls": [
                dict(
                    entry_fields(binding.entry),
                    error_code=error,
                    error_message=message,
                    resource_type=int(binding.pattern.resource_type),
                    resource_name=binding.pattern.name,
                    pattern_type=int(binding.pattern.pattern_type),
                )
                for binding, error, message in matches
            ],
        }
    return {"throttle_time_ms": 0, "filter_results": results}


def _all(filters, error, message):
    return {
        "throttle_time_ms": 0,
        "filter_results": [{"error_code": error, "error_message": message, "matching_acls": []} for _ in filters],
    }
