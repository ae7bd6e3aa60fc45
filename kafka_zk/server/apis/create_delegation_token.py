"""CreateDelegationToken (key 38): issue a token owned by the requesting principal, as Kafka 2.5's
handleCreateTokenRequest."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.delegation_tokens import ERROR_TIMESTAMP, invalid_renewers, token_requests_allowed
from kafka_zk.security.principal import ANONYMOUS, KafkaPrincipal

API_KEY = 38


def _response(owner, error, token=None):
    info = token.info if token is not None else None
    return {
        "error_code": error,
        "principal_type": owner.principal_type,
        "principal_name": owner.name,
        "issue_timestamp_ms": info.issue_timestamp if info else ERROR_TIMESTAMP,
        "expiry_timestamp_ms": info.expiry_timestamp if info else ERROR_TIMESTAMP,
        "max_timestamp_ms": info.max_timestamp if info else ERROR_TIMESTAMP,
        "token_id": info.token_id if info else "",
        "hmac": token.hmac if token else b"",
        "throttle_time_ms": 0,
    }


@defer.inlineCallbacks
def handle(request, *, token_manager):
    owner = request.principal or ANONYMOUS
    if not token_requests_allowed(request.security_protocol, request.principal):
        return _response(owner, Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
    renewers = [KafkaPrincipal(r["principal_type"], r["principal_name"]) for r in request.body["renewers"]]
    if invalid_renewers(renewers):
        return _response(owner, Errors.INVALID_PRINCIPAL_TYPE)
    token = yield token_manager.create_token(KafkaPrincipal(*owner), renewers, request.body["max_lifetime_ms"])
    if token is None:
        return _response(owner, Errors.DELEGATION_TOKEN_AUTH_DISABLED)
    return _response(owner, Errors.NONE, token)
