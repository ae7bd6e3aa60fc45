"""SASL/PLAIN (RFC 4616) as Kafka's PlainSaslServer checks it: users and passwords from the JAAS options
``user_<name>="<password>"`` of the broker's PlainLoginModule."""

from __future__ import annotations

import hmac
from typing import Callable, Mapping

from kafka_zk.security.sasl_errors import IllegalSaslState, SaslAuthenticationFailure

USER_OPTION_PREFIX = "user_"


def jaas_users(options: Mapping[str, str]) -> dict[str, str]:
    """{user: password} from a PlainLoginModule's options."""
    return {
        key[len(USER_OPTION_PREFIX) :]: value for key, value in options.items() if key.startswith(USER_OPTION_PREFIX)
    }


def users_checker(users: Mapping[str, str]) -> Callable[[str, str], bool]:
    def authenticate(username: str, password: str) -> bool:
        expected = users.get(username)
        return expected is not None and hmac.compare_digest(expected.encode("utf-8"), password.encode("utf-8"))

    return authenticate


class PlainServer:
    """One PLAIN exchange: a single client token ``authzid NUL authcid NUL password``."""

    def __init__(self, authenticate: Callable[[str, str], bool]):
        self.authenticate = authenticate
        self.complete = False
        self.authorization_id = None
        self.token_authenticated = False
        self.credential_expiry_ms = None

    def evaluate(self, token: bytes) -> bytes:
        if self.complete:
            raise IllegalSaslState("Unexpected challenge in Sasl server state COMPLETE")
        try:
            parts = bytes(token).decode("utf-8").split("\0")
        except UnicodeDecodeError:
            raise SaslAuthenticationFailure("Invalid SASL/PLAIN response: not UTF-8") from None
        if len(parts) != 3:
            raise SaslAuthenticationFailure("Invalid SASL/PLAIN response: expected 3 tokens, got %d" % len(parts))
        authorization_id, username, password = parts
        if not username:
            raise SaslAuthenticationFailure("Authentication failed: username not specified")
        if not password:
            raise SaslAuthenticationFailure("Authentication failed: password not specified")
        if not self.authenticate(username, password):
            raise SaslAuthenticationFailure("Authentication failed: Invalid username or password")
        if authorization_id and authorization_id != username:
            raise SaslAuthenticationFailure(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        self.authorization_id = username
        self.complete = True
        return b""


def client_token(username: str, password: str, authorization_id: str = "") -> bytes:
    return ("%s\0%s\0%s" % (authorization_id, username, password)).encode("utf-8")
