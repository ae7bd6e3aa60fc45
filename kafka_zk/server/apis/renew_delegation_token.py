"""RenewDelegationToken (key 39): move a token's expiry on, for its owner or a renewer (Kafka 2.5's
handleRenewTokenRequest)."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.delegation_tokens import ERROR_TIMESTAMP, token_requests_allowed
from kafka_zk.security.principal import ANONYMOUS

API_KEY = 39


@defer.inlineCallbacks
def handle(request, *, token_manager):
    if not token_requests_allowed(request.security_protocol, request.principal):
        error, expiry = Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, ERROR_TIMESTAMP
    else:
        error, expiry = yield token_manager.renew_token(
            request.principal or ANONYMOUS, request.body["hmac"], request.body["renew_period_ms"]
        )
    return {"error_code": error, "expiry_timestamp_ms": expiry, "throttle_time_ms": 0}
