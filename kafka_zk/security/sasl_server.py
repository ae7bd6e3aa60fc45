"""The broker's SASL authenticator for one connection: Kafka 2.5's SaslServerAuthenticator state machine.

Before authentication a connection may send ApiVersions (answered by the normal request path) and then
SaslHandshake; v0 of the handshake is followed by raw, size-prefixed SASL tokens (old clients), v1 by
SaslAuthenticate requests. Another request during a v1 exchange is answered ILLEGAL_SASL_STATE in its own error
response, as Kafka's getErrorResponse shapes it (Metadata's: each topic asked for), before the close; anything else
closes the connection. A failed authentication answers
SASL_AUTHENTICATION_FAILED (or UNSUPPORTED_SASL_MECHANISM for a mechanism not enabled); the connection is closed
after ``connection.failed.authentication.delay.ms``. With a session lifetime (``connections.max.reauth.ms``) a
client re-authenticates on the live connection with the same mechanism and principal (KIP-368).

The authenticator is pure: ``receive(frame, now_ms)`` answers a SaslStep saying what the connection does.
"""

from __future__ import annotations

from typing import Callable, Mapping, NamedTuple, Optional, Sequence

from kafka_zk.protocol import api_keys
from kafka_zk.protocol.error_responses import error_response, kafka_api_name
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_request_header, encode_response
from kafka_zk.security.delegation_tokens import TokenAuthenticatedPrincipal
from kafka_zk.security.principal import USER_TYPE, KafkaPrincipal, user
from kafka_zk.security.sasl_errors import IllegalSaslState, SaslAuthenticationFailure, SaslFailure

SASL_HANDSHAKE_KEY = 17
SASL_AUTHENTICATE_KEY = 36
API_VERSIONS_KEY = 18
MAX_RECEIVE_SIZE = 524288  # Kafka's cap on a frame before authentication completes
MIN_REAUTH_INTERVAL_MS = 1000

INITIAL, HANDSHAKE_OR_VERSIONS, HANDSHAKE, AUTHENTICATE, COMPLETE, FAILED, REAUTH_HANDSHAKE, REAUTH_BAD_MECHANISM = (
    "INITIAL_REQUEST",
    "HANDSHAKE_OR_VERSIONS_REQUEST",
    "HANDSHAKE_REQUEST",
    "AUTHENTICATE",
    "COMPLETE",
    "FAILED",
    "REAUTH_PROCESS_HANDSHAKE",
    "REAUTH_BAD_MECHANISM",
)


class SaslStep(NamedTuple):
    """What to do with one received frame: ``response`` (a payload to send in order, or None); ``dispatch``: hand
    the frame to the normal request path (ApiVersions); ``failed``: send ``response`` after the failed
    authentication delay, then close; ``close``: close now; ``principal`` once authentication completes."""

    response: Optional[bytes] = None
    dispatch: bool = False
    failed: bool = False
    close: bool = False
    principal: Optional[KafkaPrincipal] = None
    reason: str = ""


class SaslServerSettings(NamedTuple):
    """A listener's SASL setup: enabled mechanisms in order, ``servers[mechanism]()`` making one mechanism server
    (evaluate(token) -> bytes, complete, authorization_id, credential_expiry_ms), and connections.max.reauth.ms
    per mechanism (0: sessions do not expire)."""

    mechanisms: Sequence[str]
    servers: Mapping[str, Callable]
    max_reauth_ms: Mapping[str, int]
    failed_authentication_delay_ms: int = 100


def _close(reason):
    return SaslStep(close=True, reason=reason)


class SaslServerAuthenticator:
    max_receive_size = MAX_RECEIVE_SIZE

    def __init__(self, settings: SaslServerSettings):
        self.settings = settings
        self.state = INITIAL
        self.mechanism = None
        self.principal = None
        self.session_expiry_ms = None
        self._server = None
        self._headers = False  # SaslHandshake v1+: tokens come in SaslAuthenticate requests
        self._previous = None  # (mechanism, principal) while re-authenticating
        self._last_reauth_ms = None
        self._bad_mechanism_message = None

    @property
    def complete(self) -> bool:
        return self.state == COMPLETE

    def session_expired(self, now_ms: int) -> bool:
        return self.session_expiry_ms is not None and now_ms > self.session_expiry_ms

    def begin_reauthentication(self, now_ms: int) -> bool:
        """Called for a SaslHandshake on an authenticated connection: True when re-authentication starts (the
        session has a lifetime and the last one began at least a second ago); otherwise the request goes the
        normal way (and is answered ILLEGAL_SASL_STATE)."""
        if self.state != COMPLETE or self.session_expiry_ms is None:
            return False
        if self._last_reauth_ms is not None and now_ms - self._last_reauth_ms < MIN_REAUTH_INTERVAL_MS:
            return False
        self._last_reauth_ms = now_ms
        self._previous = (self.mechanism, self.principal)
        self._server = None
        self.state = REAUTH_HANDSHAKE
        return True

    def receive(self, frame: bytes, now_ms: int) -> SaslStep:
        try:
            if self.state in (INITIAL, HANDSHAKE_OR_VERSIONS, HANDSHAKE, REAUTH_HANDSHAKE):
                return self._kafka_request(frame)
            if self.state == REAUTH_BAD_MECHANISM:
                return self._fail(None, None, SaslAuthenticationFailure(self._bad_mechanism_message))
            if self.state == AUTHENTICATE:
                return self._token(frame, now_ms)
            return _close("unexpected frame in SASL state %s" % self.state)
        except Exception as error:  # garbage: a clean close, never an error escaping into the connection
            self.state = FAILED
            return _close("invalid SASL exchange: %s" % (error,))

    # -- handshake ---------------------------------------------------------------------------------

    def _kafka_request(self, frame):
        header, offset = decode_request_header(frame)
        if header.api_key not in (API_VERSIONS_KEY, SASL_HANDSHAKE_KEY):
            return _close("Unexpected Kafka request of type %s during SASL handshake." % _api_name(header.api_key))
        if header.api_key == API_VERSIONS_KEY:
            if self.state not in (INITIAL, HANDSHAKE_OR_VERSIONS):
                return _close(
                    "Unexpected ApiVersions request received during SASL authentication state %s" % self.state
                )
            spec = api_keys.API_SPECS[API_VERSIONS_KEY]
            if spec.min_version <= header.api_version <= spec.max_version:
                self.state = HANDSHAKE
            else:  # answered UNSUPPORTED_VERSION; the client may ask again with a version we serve
                self.state = HANDSHAKE_OR_VERSIONS
            return SaslStep(dispatch=True)
        spec = api_keys.API_SPECS[SASL_HANDSHAKE_KEY]
        if not spec.min_version <= header.api_version <= spec.max_version:
            return _close("unsupported SaslHandshake version %d" % header.api_version)
        body = spec.request.decode(memoryview(frame)[offset:], header.api_version)
        mechanism = body["mechanism"]
        self._headers = header.api_version >= 1
        enabled = list(self.settings.mechanisms)
        if mechanism not in enabled or mechanism not in self.settings.servers:
            response = encode_response(
                SASL_HANDSHAKE_KEY,
                header.api_version,
                header.correlation_id,
                {"error_code": Errors.UNSUPPORTED_SASL_MECHANISM, "mechanisms": enabled},
            )
            self.state = FAILED
            return SaslStep(response=response, failed=True, reason="Unsupported SASL mechanism %s" % mechanism)
        response = encode_response(
            SASL_HANDSHAKE_KEY,
            header.api_version,
            header.correlation_id,
            {"error_code": Errors.NONE, "mechanisms": enabled},
        )
        if self._previous is not None and mechanism != self._previous[0]:
            self._bad_mechanism_message = (
                "SASL mechanism '%s' requested by client is not supported for re-authentication of mechanism '%s'"
                % (mechanism, self._previous[0])
            )
            self.state = REAUTH_BAD_MECHANISM
            return SaslStep(response=response)
        self.mechanism = mechanism
        self._server = self.settings.servers[mechanism]()
        self.state = AUTHENTICATE
        return SaslStep(response=response)

    # -- tokens ------------------------------------------------------------------------------------

    def _token(self, frame, now_ms):
        if not self._headers:
            return self._evaluate(bytes(frame), None, now_ms)
        header, offset = decode_request_header(frame)
        if header.api_key != SASL_AUTHENTICATE_KEY:
            error = IllegalSaslState(
                "Unexpected Kafka request of type %s during SASL authentication." % _api_name(header.api_key)
            )
            self.state = FAILED
            response = _illegal_state_response(header, frame, offset, str(error))
            return SaslStep(response=response, failed=True, reason=str(error))
        spec = api_keys.API_SPECS[SASL_AUTHENTICATE_KEY]
        if not spec.min_version <= header.api_version <= spec.max_version:
            return _close("Version %d is not supported for apiKey SASL_AUTHENTICATE" % header.api_version)
        body = spec.request.decode(memoryview(frame)[offset:], header.api_version)
        return self._evaluate(bytes(body["auth_bytes"] or b""), header, now_ms)

    def _evaluate(self, token, header, now_ms):
        server = self._server
        try:
            challenge = server.evaluate(token)
            lifetime_ms = 0
            if server.complete:
                principal = (
                    TokenAuthenticatedPrincipal(USER_TYPE, server.authorization_id)
                    if getattr(server, "token_authenticated", False)
                    else user(server.authorization_id)
                )
                if self._previous is not None and principal != self._previous[1]:
                    raise SaslAuthenticationFailure(
                        "Cannot change principals during re-authentication from %s.%s: "
                        "%s.%s" % (*self._previous[1], *principal)
                    )
                lifetime_ms = self._session_lifetime_ms(server, now_ms)
        except IllegalSaslState as error:
            return self._fail(None, None, error)
        except SaslAuthenticationFailure as error:
            return self._fail(header, str(error), error)
        except SaslFailure as error:
            message = "Authentication failed during %s due to invalid credentials with SASL mechanism %s" % (
                "re-authentication" if self._previous is not None else "authentication",
                self.mechanism,
            )
            return self._fail(header, message, error)
        if header is None:
            response = challenge
        else:
            response = encode_response(
                SASL_AUTHENTICATE_KEY,
                header.api_version,
                header.correlation_id,
                {
                    "error_code": Errors.NONE,
                    "error_message": None,
                    "auth_bytes": challenge or b"",
                    "session_lifetime_ms": lifetime_ms,
                },
            )
        if not server.complete:
            return SaslStep(response=response)
        self.state = COMPLETE
        self.principal = principal
        self._previous = None
        self._server = None
        return SaslStep(response=response, principal=principal)

    def _session_lifetime_ms(self, server, now_ms):
        max_reauth_ms = self.settings.max_reauth_ms.get(self.mechanism, 0) or 0
        expiry_ms = getattr(server, "credential_expiry_ms", None)
        if expiry_ms is None and max_reauth_ms <= 0:
            self.session_expiry_ms = None
            return 0
        candidates = ([max_reauth_ms] if max_reauth_ms > 0 else []) + (
            [expiry_ms - now_ms] if expiry_ms is not None else []
        )
        lifetime_ms = max(0, min(candidates))
        self.session_expiry_ms = now_ms + lifetime_ms
        return lifetime_ms

    def _fail(self, header, message, error):
        """A failed authentication: the SaslAuthenticate error response (when the client speaks v1), sent after
        the delay, then the close."""
        self.state = FAILED
        response = None
        if header is not None and message is not None:
            response = encode_response(
                SASL_AUTHENTICATE_KEY,
                header.api_version,
                header.correlation_id,
                {
                    "error_code": Errors.SASL_AUTHENTICATION_FAILED,
                    "error_message": message,
                    "auth_bytes": b"",
                    "session_lifetime_ms": 0,
                },
            )
        return SaslStep(response=response, failed=True, reason=str(error))


def _illegal_state_response(header, frame, offset, message):
    """The request's own error response carrying ILLEGAL_SASL_STATE and ``message`` (None for a version we do not
    serve: the connection closes without an answer)."""
    spec = api_keys.API_SPECS.get(header.api_key)
    if spec is None or not spec.supports(header.api_version):
        return None
    body = spec.request.decode(memoryview(frame)[offset:], header.api_version)
    response = error_response(header.api_key, header.api_version, body, Errors.ILLEGAL_SASL_STATE, message)
    if response is None:
        return None
    return encode_response(header.api_key, header.api_version, header.correlation_id, response)


def _api_name(api_key):
    """Kafka's name for the API (its ApiKeys constant), as its messages quote it."""
    return kafka_api_name(api_key) if api_key in api_keys.API_SPECS else str(api_key)
