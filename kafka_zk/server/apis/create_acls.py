"""CreateAcls (key 30): add ACL bindings; each creation answers its own error."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.acl_bindings import CLUSTER_DENIED, NO_AUTHORIZER, binding_of, cluster_allowed

API_KEY = 30


@defer.inlineCallbacks
def handle(request, *, authorizer):
    creations = request.body["creations"]
    if not cluster_allowed(authorizer, request, AclOperation.ALTER):
        return _all(creations, *CLUSTER_DENIED)
    if authorizer is None:
        return _all(creations, Errors.SECURITY_DISABLED, NO_AUTHORIZER)
    results = yield authorizer.create_acls([binding_of(creation) for creation in creations])
    return {
        "throttle_time_ms": 0,
        # Kafka 2.5 answers an empty text, not null, beside a success
        "results": [
            {"error_code": error, "error_message": "" if message is None else message} for error, message in results
        ],
    }


def _all(creations, error, message):
    return {"throttle_time_ms": 0, "results": [{"error_code": error, "error_message": message} for _ in creations]}
