"""SASL/OAUTHBEARER (RFC 7628) with Kafka's unsecured JWS tokens (``alg: none``): the broker's validator
(OAuthBearerUnsecuredValidatorCallbackHandler's options and checks) and the client's unsecured token.

Validator options (the broker's OAuthBearerLoginModule JAAS entry): unsecuredValidatorPrincipalClaimName (sub),
unsecuredValidatorScopeClaimName (scope), unsecuredValidatorRequiredScope (space-separated),
unsecuredValidatorAllowableClockSkewMs (0).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Mapping, Optional

from kafka_zk.security.sasl_errors import IllegalSaslState, SaslAuthenticationFailure

CONTROL_A = "\x01"
_INITIAL = re.compile(r"n,(?:a=(?P<authzid>[^,]*))?,\x01(?P<pairs>(?:[^\x01=]+=[^\x01]*\x01)*)\x01", re.S)


class InvalidToken(ValueError):
    pass


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def parse_unsecured_jws(token: str) -> dict:
    """The claims of a compact-serialized unsecured JWS (``header.payload.``); InvalidToken otherwise."""
    parts = token.split(".")
    if len(parts) != 3:
        raise InvalidToken("Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values")
    if parts[2]:
        raise InvalidToken("Unsecured JWS compact serializations must have an empty signature")
    try:
        header = json.loads(_b64url_decode(parts[0]))
        claims = json.loads(_b64url_decode(parts[1]))
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidToken("Invalid unsecured JWS: %s" % error) from None
    if not isinstance(header, dict) or header.get("alg") != "none":
        raise InvalidToken("Unsecured JWS must have an 'alg' header of 'none'")
    if not isinstance(claims, dict):
        raise InvalidToken("Unsecured JWS payload must be a JSON object")
    return claims


def validate_unsecured_token(token: str, now_ms: int, options: Mapping[str, str]) -> tuple[str, int]:
    """(principal name, expiry ms) of a valid token; InvalidToken naming what is wrong."""
    claims = parse_unsecured_jws(token)
    principal_claim = options.get("unsecuredValidatorPrincipalClaimName", "sub").strip() or "sub"
    scope_claim = options.get("unsecuredValidatorScopeClaimName", "scope").strip() or "scope"
    skew_ms = int(options.get("unsecuredValidatorAllowableClockSkewMs", "0") or 0)
    principal = claims.get(principal_claim)
    if not isinstance(principal, str) or not principal.strip():
        raise InvalidToken("Required claim missing or not a string: %s" % principal_claim)
    expiry = claims.get("exp")
    if not isinstance(expiry, (int, float)) or isinstance(expiry, bool):
        raise InvalidToken("Required claim missing or not a number: exp")
    expiry_ms = int(expiry * 1000)
    if now_ms >= expiry_ms + skew_ms:
        raise InvalidToken("The indicated time (%d ms) is not in the future" % expiry_ms)
    issued = claims.get("iat")
    if issued is not None:
        if not isinstance(issued, (int, float)) or isinstance(issued, bool):
            raise InvalidToken("Claim is not a number: iat")
        if issued * 1000 > expiry_ms:
            raise InvalidToken("The Issued At value (%d ms) is after the expiration time" % (issued * 1000))
    required = options.get("unsecuredValidatorRequiredScope", "").split()
    if required:
        scope = claims.get(scope_claim)
        granted = scope.split() if isinstance(scope, str) else scope if isinstance(scope, list) else []
        missing = [item for item in required if item not in granted]
        if missing:
            raise InvalidToken("The provided scope (%s) was missing a required scope (%s)" % (granted, missing))
    return principal, expiry_ms


class OAuthBearerServer:
    """One OAUTHBEARER exchange: the client's initial response carries ``auth=Bearer <token>``. An invalid token
    is answered with a JSON error challenge; the client's ``\\x01`` reply then ends the exchange as a failure."""

    def __init__(self, now_ms, options: Mapping[str, str]):
        self.now_ms = now_ms  # () -> current milliseconds
        self.options = options
        self.complete = False
        self.authorization_id = None
        self.token_authenticated = False
        self.credential_expiry_ms = None
        self._error = None

    def evaluate(self, token: bytes) -> bytes:
        if self.complete:
            raise IllegalSaslState("Authentication exchange has already completed")
        if token == CONTROL_A.encode() and self._error is not None:
            raise SaslAuthenticationFailure(self._error)
        self._error = None
        try:
            text = bytes(token).decode("utf-8")
        except UnicodeDecodeError:
            raise SaslAuthenticationFailure("Invalid OAUTHBEARER client first message: not UTF-8") from None
        match = _INITIAL.fullmatch(text)
        if match is None:
            raise SaslAuthenticationFailure("Invalid OAUTHBEARER client first message")
        pairs = dict(pair.split("=", 1) for pair in match.group("pairs").split(CONTROL_A) if pair)
        auth = pairs.get("auth", "")
        if not auth.startswith("Bearer "):
            raise SaslAuthenticationFailure("Invalid OAUTHBEARER client first message: no auth=Bearer token")
        try:
            principal, expiry_ms = validate_unsecured_token(auth[len("Bearer ") :].strip(), self.now_ms(), self.options)
        except InvalidToken:
            self._error = json.dumps({"status": "invalid_token"}, separators=(",", ":"))
            return self._error.encode("utf-8")
        authzid = match.group("authzid") or ""
        if authzid and authzid != principal:
            raise SaslAuthenticationFailure(
                "Authentication failed: Client requested an authorization id (%s) that is different from the "
                "token's principal name (%s)" % (authzid, principal)
            )
        self.authorization_id = principal
        self.credential_expiry_ms = expiry_ms
        self.complete = True
        return b""


def unsecured_token(options: Mapping[str, str], now_ms: int) -> str:
    """A client's unsecured token from OAuthBearerUnsecuredLoginCallbackHandler options:
    unsecuredLoginStringClaim_<name>, unsecuredLoginNumberClaim_<name>, unsecuredLoginListClaim_<name>,
    unsecuredLoginLifetimeSeconds (3600), unsecuredLoginPrincipalClaimName (sub)."""
    claims = {"iat": now_ms / 1000.0}
    lifetime_s = float(options.get("unsecuredLoginLifetimeSeconds", "3600"))
    claims["exp"] = claims["iat"] + lifetime_s
    for key, value in options.items():
        if key.startswith("unsecuredLoginStringClaim_"):
            claims[key[len("unsecuredLoginStringClaim_") :]] = value
        elif key.startswith("unsecuredLoginNumberClaim_"):
            claims[key[len("unsecuredLoginNumberClaim_") :]] = float(value)
        elif key.startswith("unsecuredLoginListClaim_"):
            separator, items = (value[0], value[1:]) if value else (",", "")
            claims[key[len("unsecuredLoginListClaim_") :]] = [item for item in items.split(separator) if item]
    principal_claim = options.get("unsecuredLoginPrincipalClaimName", "sub")
    if not claims.get(principal_claim):
        raise ValueError("unsecured OAUTHBEARER login needs the option unsecuredLoginStringClaim_%s" % principal_claim)
    header = _b64url_encode(json.dumps({"alg": "none"}).encode())
    return "%s.%s." % (header, _b64url_encode(json.dumps(claims).encode()))


def client_initial_response(token: str, extensions: Optional[Mapping[str, str]] = None) -> bytes:
    pairs = "".join("%s=%s%s" % (key, value, CONTROL_A) for key, value in sorted((extensions or {}).items()))
    return ("n,,%sauth=Bearer %s%s%s%s" % (CONTROL_A, token, CONTROL_A, pairs, CONTROL_A)).encode("utf-8")
