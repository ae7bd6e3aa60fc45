"""SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka speaks them: credentials, server, client.

A credential is stored as Kafka's ScramCredentialUtils writes it in /config/users/<user>:
``salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>``. Kafka's client-first message may carry
extensions after the nonce; ``tokenauth=true`` asks for delegation-token authentication, answered by a
``token_lookup`` (the broker's delegation token cache; without one such a login fails).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from typing import Callable, NamedTuple, Optional

from kafka_zk.security.sasl_errors import IllegalSaslState, SaslAuthenticationFailure, SaslFailure

TOKEN_AUTH_EXTENSION = "tokenauth"
DEFAULT_ITERATIONS = 4096


class ScramMechanism(NamedTuple):
    name: str
    hash_name: str
    min_iterations: int


MECHANISMS = {
    "SCRAM-SHA-256": ScramMechanism("SCRAM-SHA-256", "sha256", 4096),
    "SCRAM-SHA-512": ScramMechanism("SCRAM-SHA-512", "sha512", 4096),
}


class ScramCredential(NamedTuple):
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def format_credential(credential: ScramCredential) -> str:
    return "salt=%s,stored_key=%s,server_key=%s,iterations=%d" % (
        _b64(credential.salt),
        _b64(credential.stored_key),
        _b64(credential.server_key),
        credential.iterations,
    )


def parse_credential(text: str) -> ScramCredential:
    """The stored form back into a credential; ValueError when a field is missing or malformed."""
    fields = dict(item.split("=", 1) for item in text.split(",") if "=" in item)
    try:
        return ScramCredential(
            _unb64(fields["salt"]),
            _unb64(fields["stored_key"]),
            _unb64(fields["server_key"]),
            int(fields["iterations"]),
        )
    except (KeyError, ValueError) as error:
        raise ValueError("Invalid SCRAM credential %r: %s" % (text, error)) from None


def salted_password(mechanism: ScramMechanism, password: str, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac(mechanism.hash_name, password.encode("utf-8"), salt, iterations)


def _hmac(mechanism: ScramMechanism, key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, mechanism.hash_name).digest()


def _hash(mechanism: ScramMechanism, data: bytes) -> bytes:
    return hashlib.new(mechanism.hash_name, data).digest()


def credential_from_password(
    mechanism: ScramMechanism, password: str, iterations: int = DEFAULT_ITERATIONS, salt: Optional[bytes] = None
) -> ScramCredential:
    salt = salt if salt is not None else secrets.token_bytes(24)
    salted = salted_password(mechanism, password, salt, iterations)
    client_key = _hmac(mechanism, salted, b"Client Key")
    return ScramCredential(salt, _hash(mechanism, client_key), _hmac(mechanism, salted, b"Server Key"), iterations)


def _xor(left: bytes, right: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(left, right))


def escape_username(username: str) -> str:
    return username.replace("=", "=3D").replace(",", "=2C")


def unescape_username(sasl_name: str) -> str:
    username = sasl_name.replace("=2C", ",")
    if "=" in username.replace("=3D", ""):
        raise SaslFailure("Invalid username: %s" % sasl_name)
    return username.replace("=3D", "=")


def random_nonce() -> str:
    """Printable, without commas: what RFC 5802 allows in a nonce."""
    return secrets.token_urlsafe(24)


_NONCE = r"[\x21-\x2b\x2d-\x7e]+"
_CLIENT_FIRST = re.compile(
    r"n,(?:a=(?P<authzid>[^,]*))?,(?:m=[^,]*,)?n=(?P<saslname>[^,]*),r=(?P<nonce>%s)"
    r"(?P<extensions>(?:,[a-zA-Z]+=[^,]*)*)" % _NONCE
)
_SERVER_FIRST = re.compile(
    r"(?:m=[^,]*,)?r=(?P<nonce>%s),s=(?P<salt>[A-Za-z0-9+/]+=*),i=(?P<iterations>[0-9]+)"
    r"(?:,.*)?" % _NONCE
)
_CLIENT_FINAL = re.compile(
    r"c=(?P<channel>[A-Za-z0-9+/]+=*),r=(?P<nonce>%s)(?:,[a-zA-Z]+=[^,]*)*?"
    r",p=(?P<proof>[A-Za-z0-9+/]+=*)" % _NONCE
)
_SERVER_FINAL = re.compile(r"(?:e=(?P<error>[^,]*)|v=(?P<signature>[A-Za-z0-9+/]+=*))(?:,.*)?")


def _text(token: bytes) -> str:
    try:
        return bytes(token).decode("utf-8")
    except UnicodeDecodeError:
        raise SaslFailure("SCRAM message is not UTF-8") from None


class ScramServer:
    """The broker's side of one SCRAM exchange: evaluate(client token) -> server token, until complete.

    ``credential_lookup(username)`` gives the user's ScramCredential or None; ``token_lookup(token id)`` gives
    (owner name, ScramCredential, expiry ms) of a live delegation token, or None; without it tokenauth fails."""

    def __init__(
        self,
        mechanism: ScramMechanism,
        credential_lookup: Callable,
        token_lookup: Optional[Callable] = None,
        nonce_source: Callable[[], str] = random_nonce,
    ):
        self.mechanism = mechanism
        self.credential_lookup = credential_lookup
        self.token_lookup = token_lookup
        self.nonce_source = nonce_source
        self.complete = False
        self.authorization_id = None
        self.token_authenticated = False
        self.credential_expiry_ms = None
        self._expect = "client-first"

    def evaluate(self, token: bytes) -> bytes:
        try:
            if self._expect == "client-first":
                return self._client_first(_text(token))
            if self._expect == "client-final":
                return self._client_final(_text(token))
            raise IllegalSaslState("Unexpected challenge in Sasl server state %s" % self._expect)
        except SaslFailure:
            self._expect = "failed"
            self._credential = None
            raise

    def _client_first(self, message: str) -> bytes:
        match = _CLIENT_FIRST.fullmatch(message)
        if match is None:
            raise SaslFailure("Invalid SCRAM client first message format: %s" % message)
        username = unescape_username(match.group("saslname"))
        extensions = dict(item.split("=", 1) for item in match.group("extensions").split(",") if item)
        if extensions.get(TOKEN_AUTH_EXTENSION, "").lower() == "true":
            found = self.token_lookup(username) if self.token_lookup is not None else None
            if found is None:
                raise SaslFailure("Token Authentication failed: Invalid tokenId : %s" % username)
            self.authorization_id, credential, self.credential_expiry_ms = found
            self.token_authenticated = True
        else:
            credential = self.credential_lookup(username)
            self.authorization_id = username
        if credential is None:
            raise SaslFailure("Authentication failed: Invalid user credentials")
        authzid = match.group("authzid") or ""
        if authzid and authzid != username:
            raise SaslAuthenticationFailure(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        if credential.iterations < self.mechanism.min_iterations:
            raise SaslFailure(
                "Iterations %d is less than the minimum %d for %s"
                % (credential.iterations, self.mechanism.min_iterations, self.mechanism.name)
            )
        self._credential = credential
        self._nonce = match.group("nonce") + self.nonce_source()
        self._client_first_bare = message[match.start("saslname") - 2 :]
        self._server_first = "r=%s,s=%s,i=%d" % (self._nonce, _b64(credential.salt), credential.iterations)
        self._expect = "client-final"
        return self._server_first.encode("utf-8")

    def _client_final(self, message: str) -> bytes:
        match = _CLIENT_FINAL.fullmatch(message)
        if match is None:
            raise SaslFailure("Invalid SCRAM client final message format: %s" % message)
        # Kafka 2.5 did not check the nonce at all (CVE-2024-56128); Kafka 3.8.1's check is "ends with", which
        # refuses a replayed final message yet accepts librdkafka < 2.6.1, which repeats the client nonce.
        if not match.group("nonce").endswith(self._nonce):
            raise SaslFailure("Invalid client nonce in the final client message.")
        mechanism, credential = self.mechanism, self._credential
        auth_message = (
            "%s,%s,%s" % (self._client_first_bare, self._server_first, message[: match.start("proof") - 3])
        ).encode("utf-8")
        proof = _unb64(match.group("proof"))
        client_signature = _hmac(mechanism, credential.stored_key, auth_message)
        if len(proof) != len(client_signature) or not hmac.compare_digest(
            _hash(mechanism, _xor(client_signature, proof)), credential.stored_key
        ):
            raise SaslFailure("Invalid client credentials")
        server_signature = _hmac(mechanism, credential.server_key, auth_message)
        self._credential = None
        self._expect = "done"
        self.complete = True
        return ("v=%s" % _b64(server_signature)).encode("utf-8")


class ScramClient:
    """A client's side: first_message(), final_message(server first), verify(server final)."""

    def __init__(
        self,
        mechanism: ScramMechanism,
        username: str,
        password: str,
        nonce: Optional[str] = None,
        extensions: Optional[dict] = None,
    ):
        self.mechanism = mechanism
        self.username = username
        self.password = password
        self.nonce = nonce or random_nonce()
        self.extensions = extensions or {}
        self.complete = False

    def first_message(self) -> bytes:
        extensions = "".join(",%s=%s" % item for item in sorted(self.extensions.items()))
        self._client_first_bare = "n=%s,r=%s%s" % (escape_username(self.username), self.nonce, extensions)
        return ("n,," + self._client_first_bare).encode("utf-8")

    def final_message(self, server_first: bytes) -> bytes:
        text = _text(server_first)
        match = _SERVER_FIRST.fullmatch(text)
        if match is None:
            raise SaslFailure("Invalid SCRAM server first message format: %s" % text)
        nonce = match.group("nonce")
        if not nonce.startswith(self.nonce) or nonce == self.nonce:
            raise SaslFailure("Invalid server nonce: does not start with client nonce")
        iterations = int(match.group("iterations"))
        if iterations < self.mechanism.min_iterations:
            raise SaslFailure(
                "Requested iterations %d is less than the minimum %d for %s"
                % (iterations, self.mechanism.min_iterations, self.mechanism.name)
            )
        mechanism = self.mechanism
        salted = salted_password(mechanism, self.password, _unb64(match.group("salt")), iterations)
        without_proof = "c=biws,r=%s" % nonce
        auth_message = ("%s,%s,%s" % (self._client_first_bare, text, without_proof)).encode("utf-8")
        client_key = _hmac(mechanism, salted, b"Client Key")
        proof = _xor(client_key, _hmac(mechanism, _hash(mechanism, client_key), auth_message))
        self._expected_signature = _hmac(mechanism, _hmac(mechanism, salted, b"Server Key"), auth_message)
        return ("%s,p=%s" % (without_proof, _b64(proof))).encode("utf-8")

    def verify(self, server_final: bytes) -> None:
        text = _text(server_final)
        match = _SERVER_FINAL.fullmatch(text)
        if match is None:
            raise SaslFailure("Invalid SCRAM server final message format: %s" % text)
        if match.group("error") is not None:
            raise SaslFailure(
                "Sasl authentication using %s failed with error: %s" % (self.mechanism.name, match.group("error"))
            )
        if not hmac.compare_digest(_unb64(match.group("signature")), self._expected_signature):
            raise SaslFailure("Invalid server signature in server final message")
        self.complete = True
