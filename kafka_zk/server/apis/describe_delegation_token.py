"""DescribeDelegationToken (key 41): the tokens of the given owners (null: all) that the requester owns, renews,
or may Describe as a DelegationToken resource (Kafka 2.5's handleDescribeTokensRequest)."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType, is_authorized
from kafka_zk.security.delegation_tokens import describable, token_requests_allowed
from kafka_zk.security.principal import ANONYMOUS, KafkaPrincipal

API_KEY = 41


def _principal(principal):
    return {"principal_type": principal.principal_type, "principal_name": principal.name}


def _token_entry(token):
    info = token.info
    return {
        **_principal(info.owner),
        "issue_timestamp": info.issue_timestamp,
        "expiry_timestamp": info.expiry_timestamp,
        "max_timestamp": info.max_timestamp,
        "token_id": info.token_id,
        "hmac": token.hmac,
        "renewers": [_principal(r) for r in info.renewers],
    }


def handle(request, *, token_manager, authorizer):
    def answer(error, tokens=()):
        return {"error_code": error, "tokens": [_token_entry(token) for token in tokens], "throttle_time_ms": 0}

    if not token_requests_allowed(request.security_protocol, request.principal):
        return answer(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
    if not token_manager.enabled:
        return answer(Errors.DELEGATION_TOKEN_AUTH_DISABLED)
    owners = request.body["owners"]
    if owners is not None and not owners:
        return answer(Errors.NONE)
    owners = None if owners is None else [KafkaPrincipal(o["principal_type"], o["principal_name"]) for o in owners]
    requester = request.principal or ANONYMOUS

    def authorize_token(token_id):
        return is_authorized(authorizer, request, AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, token_id)

    return answer(
        Errors.NONE, token_manager.describe_tokens(lambda info: describable(requester, owners, info, authorize_token))
    )
