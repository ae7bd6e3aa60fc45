"""SASL/GSSAPI (RFC 4752, Kerberos V5) as Kafka 2.5 speaks it, over MIT Kerberos through the ``gssapi`` binding.

The server accepts the client's context with the key of its service principal (the JAAS Krb5LoginModule's
``principal`` and ``keyTab``), then offers the security layer "none" only (Kafka's qop is ``auth``) in a wrapped
4-octet message; the client's wrapped answer must choose it. The session's principal is the client's Kerberos name
mapped by ``sasl.kerberos.principal.to.local.rules``. As Kafka 2.5's callback handler, an authorization id the client
sends is not checked: the authenticated name is the one authorized. The client side does the same from a keytab
(``sasl.kerberos.service.name`` and the broker's host name the service principal, ``<service>/<host>``).

KRB5_CONFIG names the realm's krb5.conf; ``-Djava.security.krb5.conf=<file>`` in KAFKA_OPTS sets it, as a JVM takes it.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from typing import Any, Mapping, Optional

from kafka_zk.security.kerberos_names import KerberosName, KerberosShortNamer, NoMatchingRule, default_realm
from kafka_zk.security.sasl_errors import IllegalSaslState, SaslFailure

# The [kerberos] extra's binding, imported at the first GSSAPI login (_require_binding): loading it costs every
# process ~0.1 s, and most never speak GSSAPI. Without it a broker or client serves every mechanism but GSSAPI.
gssapi: Any = None

KRB5_CONF_PROPERTY = "java.security.krb5.conf"
LOGIN_MODULE = "Krb5LoginModule"
NO_SECURITY_LAYER = 0x01

ACCEPT_CONTEXT, EXPECT_EMPTY, EXPECT_LAYER, COMPLETE = range(4)


class GssapiConfigError(ValueError):
    """A JAAS Krb5LoginModule entry that GSSAPI cannot use (no principal, no keytab, no host part)."""


def krb5_conf_path(environ: Mapping[str, str]) -> Optional[str]:
    """The krb5.conf a process uses: ``-Djava.security.krb5.conf`` in KAFKA_OPTS, else KRB5_CONFIG."""
    for word in shlex.split(environ.get("KAFKA_OPTS", "")):
        if word.startswith("-D%s=" % KRB5_CONF_PROPERTY):
            return word.split("=", 1)[1]
    return environ.get("KRB5_CONFIG")


def use_krb5_conf(environ: Mapping[str, str]) -> Optional[str]:
    """Points this process's Kerberos library at the krb5.conf ``environ`` names (see ``krb5_conf_path``)."""
    path = krb5_conf_path(environ)
    if path:
        os.environ["KRB5_CONFIG"] = path
    return path


def realm_of(krb5_conf: Optional[str]) -> str:
    """The default realm of a krb5.conf ('' when it has none or cannot be read)."""
    try:
        with open(krb5_conf or "/etc/krb5.conf") as handle:
            return default_realm(handle.read()) or ""
    except OSError:
        return ""


def _require_binding() -> None:
    global gssapi
    if gssapi is not None:
        return
    try:
        import gssapi.exceptions  # sets the global: the package, its exceptions loaded
    except ImportError:  # pragma: no cover - depends on the installation
        raise GssapiConfigError(
            "GSSAPI needs the gssapi package: pip install 'kafka-zk[kerberos]' (scripts/_venv.sh's ensure_kerberos)"
        ) from None


def _keytab_login(options: Mapping[str, str]) -> tuple[str, str]:
    principal = options.get("principal")
    keytab = options.get("keyTab")
    if not principal or not keytab:
        raise GssapiConfigError('a Krb5LoginModule entry needs principal="..." and keyTab="..." (useKeyTab=true)')
    return principal.strip(), keytab.strip()


def _principal_name(principal: str) -> "gssapi.Name":
    return gssapi.Name(principal, gssapi.NameType.kerberos_principal)


class GssapiServer:
    """One GSSAPI exchange on the broker side; the SaslServerAuthenticator's mechanism server."""

    token_authenticated = False
    credential_expiry_ms = None

    def __init__(self, principal: str, keytab: str, short_namer: KerberosShortNamer):
        self.principal = principal
        self.keytab = keytab
        self.short_namer = short_namer
        self.complete = False
        self.authorization_id: Optional[str] = None
        self.peer: Optional[str] = None
        self._stage = ACCEPT_CONTEXT
        self._context: Optional["gssapi.SecurityContext"] = None

    def evaluate(self, token: bytes) -> Optional[bytes]:
        """The next challenge; None after the last token (a v0 exchange then sends nothing, as Kafka)."""
        try:
            return self._evaluate(bytes(token))
        except gssapi.exceptions.GSSError as error:
            raise SaslFailure("GSSAPI: %s" % error) from None

    def _evaluate(self, token: bytes) -> Optional[bytes]:
        if self._stage == ACCEPT_CONTEXT:
            if self._context is None:
                credentials = gssapi.Credentials(
                    name=_principal_name(self.principal), usage="accept", store={"keytab": self.keytab}
                )
                self._context = gssapi.SecurityContext(creds=credentials, usage="accept")
            output = self._context.step(token) or b""
            if not self._context.complete:
                return output
            self.peer = str(self._context.initiator_name)
            if output:
                self._stage = EXPECT_EMPTY
                return output
            return self._offer_layers()
        if self._stage == EXPECT_EMPTY:
            if token:
                raise SaslFailure("GSSAPI: expected an empty response after the context was established")
            return self._offer_layers()
        if self._stage == EXPECT_LAYER:
            return self._choose_layer(token)
        raise IllegalSaslState("Unexpected challenge in Sasl server state COMPLETE")

    def _offer_layers(self) -> bytes:
        assert self._context is not None
        self._stage = EXPECT_LAYER
        return bytes(self._context.wrap(bytes([NO_SECURITY_LAYER, 0, 0, 0]), False).message)

    def _choose_layer(self, token: bytes) -> None:
        assert self._context is not None and self.peer is not None
        message = bytes(self._context.unwrap(token).message)
        if len(message) < 4:
            raise SaslFailure("GSSAPI: the client's security layer message is %d bytes, not 4 or more" % len(message))
        if message[0] != NO_SECURITY_LAYER:
            raise SaslFailure("GSSAPI: the client chose security layer 0x%02x; only 'none' is offered" % message[0])
        try:
            self.authorization_id = self.short_namer.short_name(KerberosName.parse(self.peer))
        except (NoMatchingRule, ValueError) as error:
            raise SaslFailure("GSSAPI: %s" % error) from None
        self._stage = COMPLETE
        self.complete = True
        return None


def server_factory(options: Mapping[str, str], rules, environ: Mapping[str, str]):
    """What makes a GssapiServer per connection, from the listener's Krb5LoginModule options and the broker's rules;
    GssapiConfigError when the entry cannot serve."""
    principal, keytab = _keytab_login(options)
    name = KerberosName.parse(principal)
    if name.host_name is None:
        raise GssapiConfigError(
            "Kerberos principal name %s does NOT have the expected hostname part (service/host@REALM)" % principal
        )
    if not os.path.isfile(keytab):
        raise GssapiConfigError("the keytab %s of principal %s does not exist" % (keytab, principal))
    _require_binding()
    conf = use_krb5_conf(environ)
    namer = KerberosShortNamer(realm_of(conf) or name.realm or "", rules)
    return lambda: GssapiServer(principal, keytab, namer)


def _cache_key(principal: str, keytab: str) -> str:
    return hashlib.sha256(("%s\0%s" % (principal, os.path.abspath(keytab))).encode("utf-8")).hexdigest()[:16]


class GssapiClient:
    """One GSSAPI login on the client side, from a keytab into a credential cache of its own (in memory)."""

    def __init__(
        self, principal: str, keytab: str, service_name: str, host: str, authorization_id: Optional[str] = None
    ):
        """``authorization_id``: sent in the last token (Kafka's clients send none; the broker ignores it)."""
        _require_binding()
        self.authorization_id = authorization_id
        use_krb5_conf(os.environ)  # a tool's KAFKA_OPTS may name the realm's krb5.conf, as for Kafka's own tools
        credentials = gssapi.Credentials(
            name=_principal_name(principal),
            usage="initiate",
            # one in-memory cache per login in this process: a connection reuses the ticket-granting ticket
            store={"client_keytab": keytab, "ccache": "MEMORY:kafka-zk-%s" % _cache_key(principal, keytab)},
        )
        target = gssapi.Name("%s@%s" % (service_name, host), gssapi.NameType.hostbased_service)
        self._context = gssapi.SecurityContext(
            name=target,
            creds=credentials,
            usage="initiate",
            flags=gssapi.RequirementFlag.mutual_authentication | gssapi.RequirementFlag.integrity,
        )
        self.initial: Optional[bytes] = bytes(self._context.step() or b"")
        self._done = False

    @property
    def complete(self) -> bool:
        """The last token (the security layer chosen) is made: the server answers it with no challenge in v0."""
        return self._done

    def respond(self, challenge: bytes) -> Optional[bytes]:
        if self._done:
            return None
        if not self._context.complete:
            return bytes(self._context.step(challenge) or b"")
        offer = bytes(self._context.unwrap(challenge).message)
        if len(offer) != 4 or not offer[0] & NO_SECURITY_LAYER:
            raise SaslFailure("GSSAPI: the server does not offer the security layer 'none'")
        self._done = True
        answer = bytes([NO_SECURITY_LAYER, 0, 0, 0]) + (self.authorization_id or "").encode("utf-8")
        return bytes(self._context.wrap(answer, False).message)
