"""Delegation tokens as Kafka 2.5 keeps them (pure): token information, its HMAC, the decisions of create, renew,
expire and describe, the SCRAM credentials a token gives, and the broker's cache of tokens.

A token is identified by its id (a random UUID as url-safe base64) and proven by its HMAC: HmacSHA512 of the id
keyed by ``delegation.token.master.key``. A client authenticates with it through SCRAM (the token id as user
name, the base64 HMAC as password, the extension ``tokenauth=true``); its principal is then the token's owner.
"""

from __future__ import annotations

import base64
import hashlib
import hmac as hmac_lib
import secrets
import uuid
from dataclasses import dataclass, replace
from typing import Callable, Iterable, NamedTuple

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.principal import ANONYMOUS, USER_TYPE, KafkaPrincipal
from kafka_zk.security.scram import MECHANISMS as SCRAM_MECHANISMS
from kafka_zk.security.scram import ScramCredential, credential_from_password
from kafka_zk.zk.security_znodes import StoredDelegationToken

ERROR_TIMESTAMP = -1
# ScramMechanism.minIterations, which DelegationTokenManager.prepareScramCredentials uses for a token's credentials.
TOKEN_SCRAM_ITERATIONS = 4096


class TokenSettings(NamedTuple):
    """The broker's limits: delegation.token.max.lifetime.ms and delegation.token.expiry.time.ms."""

    max_lifetime_ms: int = 604800000
    expiry_time_ms: int = 86400000


@dataclass(frozen=True)
class TokenInformation:
    token_id: str
    owner: KafkaPrincipal
    renewers: tuple[KafkaPrincipal, ...]
    issue_timestamp: int
    max_timestamp: int
    expiry_timestamp: int

    def owner_or_renewer(self, principal: KafkaPrincipal) -> bool:
        return principal == self.owner or principal in self.renewers

    def expired(self, now_ms: int) -> bool:
        return self.max_timestamp < now_ms or self.expiry_timestamp < now_ms

    def to_stored(self) -> StoredDelegationToken:
        return StoredDelegationToken(
            self.token_id,
            str(self.owner),
            tuple(str(r) for r in self.renewers),
            self.issue_timestamp,
            self.max_timestamp,
            self.expiry_timestamp,
        )

    @classmethod
    def from_stored(cls, stored: StoredDelegationToken) -> "TokenInformation":
        return cls(
            stored.token_id,
            KafkaPrincipal.parse(stored.owner),
            tuple(KafkaPrincipal.parse(r) for r in stored.renewers),
            stored.issue_timestamp,
            stored.max_timestamp,
            stored.expiry_timestamp,
        )


class DelegationToken(NamedTuple):
    info: TokenInformation
    hmac: bytes

    @property
    def hmac_base64(self) -> str:
        return base64.b64encode(self.hmac).decode("ascii")


class TokenAuthenticatedPrincipal(KafkaPrincipal):
    """A principal whose connection authenticated with a delegation token (Kafka's tokenAuthenticated flag). It
    equals, and hashes as, the plain KafkaPrincipal of the token's owner, so ACLs match it alike."""

    __slots__ = ()
    token_authenticated = True


def is_token_authenticated(principal) -> bool:
    return bool(getattr(principal, "token_authenticated", False))


def token_requests_allowed(security_protocol: str, principal) -> bool:
    """Kafka's allowTokenRequests: not on PLAINTEXT, not from 1-way SSL (ANONYMOUS), not over a connection that
    itself authenticated with a token."""
    if is_token_authenticated(principal) or security_protocol == "PLAINTEXT":
        return False
    return not (security_protocol == "SSL" and (principal is None or principal == ANONYMOUS))


def create_hmac(token_id: str, master_key: str) -> bytes:
    return hmac_lib.new(master_key.encode("utf-8"), token_id.encode("utf-8"), hashlib.sha512).digest()


def generate_token_id(uuid_bytes: bytes | None = None) -> str:
    """A random UUID's 16 bytes as url-safe base64 without padding, as CoreUtils.generateUuidAsBase64."""
    raw = uuid_bytes if uuid_bytes is not None else uuid.uuid4().bytes
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


# -- decisions -----------------------------------------------------------------------------------


class Outcome(NamedTuple):
    """What a renew or expire decided: the error, the token's new information (None: remove it; unchanged when
    the error is not NONE), and the expiry timestamp to answer."""

    error: Errors
    info: TokenInformation | None
    expiry_timestamp: int


def new_token_info(
    token_id: str,
    owner: KafkaPrincipal,
    renewers: Iterable[KafkaPrincipal],
    max_lifetime_ms: int,
    now_ms: int,
    settings: TokenSettings,
) -> TokenInformation:
    """A requested lifetime of 0 or less takes the broker's maximum; any other is capped by it."""
    lifetime = settings.max_lifetime_ms if max_lifetime_ms <= 0 else min(max_lifetime_ms, settings.max_lifetime_ms)
    max_timestamp = now_ms + lifetime
    return TokenInformation(
        token_id, owner, tuple(renewers), now_ms, max_timestamp, min(max_timestamp, now_ms + settings.expiry_time_ms)
    )


def invalid_renewers(renewers: Iterable[KafkaPrincipal]) -> bool:
    """Renewers must be users (else INVALID_PRINCIPAL_TYPE)."""
    return any(renewer.principal_type != USER_TYPE for renewer in renewers)


def decide_renew(
    info: TokenInformation | None, principal: KafkaPrincipal, renew_period_ms: int, now_ms: int, settings: TokenSettings
) -> Outcome:
    """A negative period renews by delegation.token.expiry.time.ms; never past the token's max timestamp."""
    if info is None:
        return Outcome(Errors.DELEGATION_TOKEN_NOT_FOUND, None, ERROR_TIMESTAMP)
    if not info.owner_or_renewer(principal):
        return Outcome(Errors.DELEGATION_TOKEN_OWNER_MISMATCH, info, ERROR_TIMESTAMP)
    if info.expired(now_ms):
        return Outcome(Errors.DELEGATION_TOKEN_EXPIRED, info, ERROR_TIMESTAMP)
    period = settings.expiry_time_ms if renew_period_ms < 0 else renew_period_ms
    expiry = min(info.max_timestamp, now_ms + period)
    return Outcome(Errors.NONE, replace(info, expiry_timestamp=expiry), expiry)


def decide_expire(
    info: TokenInformation | None, principal: KafkaPrincipal, expiry_period_ms: int, now_ms: int
) -> Outcome:
    """A negative period removes the token now (even an expired one); otherwise the expiry moves to now + period,
    never past the max timestamp."""
    if info is None:
        return Outcome(Errors.DELEGATION_TOKEN_NOT_FOUND, None, ERROR_TIMESTAMP)
    if not info.owner_or_renewer(principal):
        return Outcome(Errors.DELEGATION_TOKEN_OWNER_MISMATCH, info, ERROR_TIMESTAMP)
    if expiry_period_ms < 0:
        return Outcome(Errors.NONE, None, now_ms)
    if info.expired(now_ms):
        return Outcome(Errors.DELEGATION_TOKEN_EXPIRED, info, ERROR_TIMESTAMP)
    expiry = min(info.max_timestamp, now_ms + expiry_period_ms)
    return Outcome(Errors.NONE, replace(info, expiry_timestamp=expiry), expiry)


def describable(
    requester: KafkaPrincipal,
    owners: list[KafkaPrincipal] | None,
    info: TokenInformation,
    authorize_token: Callable[[str], bool],
) -> bool:
    """Kafka's filterToken: tokens of the requested owners (None: any) that the requester owns or renews, or may
    Describe as a DelegationToken resource."""
    if owners is not None and not any(info.owner_or_renewer(owner) for owner in owners):
        return False
    return info.owner_or_renewer(requester) or authorize_token(info.token_id)


# -- SCRAM credentials ---------------------------------------------------------------------------


def scram_salt() -> bytes:
    """As ScramFormatter.secureRandomBytes: a random 130-bit number in base 36, as ASCII."""
    number = secrets.randbits(130)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
        if number == 0:
            return text.encode("ascii")


# -- the cache -----------------------------------------------------------------------------------


class DelegationTokenCache:
    """The tokens a broker knows, by id and by HMAC, with the SCRAM credentials each gives (derived from the
    token's base64 HMAC as password, at the first lookup, then kept)."""

    def __init__(self):
        self._tokens = {}  # token id -> DelegationToken
        self._by_hmac = {}  # base64 HMAC -> token id
        self._credentials = {}  # (token id, mechanism) -> ScramCredential

    def update(self, token: DelegationToken) -> None:
        self.remove(token.info.token_id)
        self._tokens[token.info.token_id] = token
        self._by_hmac[token.hmac_base64] = token.info.token_id

    def remove(self, token_id: str) -> None:
        token = self._tokens.pop(token_id, None)
        if token is not None:
            self._by_hmac.pop(token.hmac_base64, None)
            for mechanism in SCRAM_MECHANISMS:
                self._credentials.pop((token_id, mechanism), None)

    def token(self, token_id: str) -> DelegationToken | None:
        return self._tokens.get(token_id)

    def token_for_hmac(self, hmac: bytes) -> DelegationToken | None:
        token_id = self._by_hmac.get(base64.b64encode(hmac).decode("ascii"))
        return None if token_id is None else self._tokens[token_id]

    def tokens(self) -> list[DelegationToken]:
        return list(self._tokens.values())

    def owner_of(self, token_id: str) -> KafkaPrincipal | None:
        token = self._tokens.get(token_id)
        return None if token is None else token.info.owner

    def scram_login(self, token_id: str, mechanism: str, now_ms: int):
        """What a SCRAM login with ``tokenauth=true`` authenticates as: (the owner's name, the token's credential,
        its expiry timestamp), or None for an unknown or expired token."""
        token = self._tokens.get(token_id)
        credential = self.scram_credential(token_id, mechanism)
        if token is None or credential is None or token.info.expired(now_ms):
            return None
        return token.info.owner.name, credential, token.info.expiry_timestamp

    def scram_credential(self, token_id: str, mechanism: str) -> ScramCredential | None:
        """The credential a SCRAM client using this token must prove; None for an unknown token or mechanism."""
        token = self._tokens.get(token_id)
        if token is None or mechanism not in SCRAM_MECHANISMS:
            return None
        key = (token_id, mechanism)
        if key not in self._credentials:
            self._credentials[key] = credential_from_password(
                SCRAM_MECHANISMS[mechanism], token.hmac_base64, TOKEN_SCRAM_ITERATIONS, scram_salt()
            )
        return self._credentials[key]
