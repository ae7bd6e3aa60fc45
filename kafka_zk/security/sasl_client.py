"""A client's SASL login (GSSAPI, PLAIN, SCRAM-SHA-256/512, unsecured OAUTHBEARER) from Kafka client properties, as
an exchange of SaslHandshake v1 and SaslAuthenticate requests that any connection (sync or Twisted) can drive.

Properties: ``security.protocol`` (SASL_PLAINTEXT or SASL_SSL turn SASL on), ``sasl.mechanism`` (GSSAPI by default:
a Krb5LoginModule's keyTab and principal, and ``sasl.kerberos.service.name``), ``sasl.jaas.config`` (the login
module's username/password, or the unsecuredLogin* options of OAUTHBEARER; ScramLoginModule's ``tokenauth="true"``
logs in with a delegation token), or librdkafka's ``sasl.username``/``sasl.password``.
"""

from __future__ import annotations

from typing import Callable, Mapping, NamedTuple, Optional

from kafka_zk.protocol.errors import Errors
from kafka_zk.security import gssapi_mechanism, oauthbearer, plain, scram
from kafka_zk.security.jaas import JaasError, parse_jaas_config
from kafka_zk.security.sasl_errors import SaslFailure

SASL_PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")
SASL_HANDSHAKE_KEY, SASL_AUTHENTICATE_KEY = 17, 36
MECHANISMS = ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")


class SaslClientError(Exception):
    """The login failed: Kafka's SaslAuthenticationException / UnsupportedSaslMechanismException / a config error."""


class ClientSasl(NamedTuple):
    mechanism: str
    username: Optional[str] = None
    password: Optional[str] = None
    options: Mapping[str, str] = {}


def client_sasl(properties: Mapping[str, str]) -> Optional[ClientSasl]:
    """The SASL login the properties ask for, or None when security.protocol is not SASL_*."""
    protocol = str(properties.get("security.protocol", "PLAINTEXT")).strip().upper()
    if protocol not in SASL_PROTOCOLS:
        return None
    mechanism = str(properties.get("sasl.mechanism", properties.get("sasl.mechanisms", "GSSAPI"))).strip()
    if mechanism not in MECHANISMS:
        raise SaslClientError(
            "SASL mechanism %s is not supported by this client (supported: %s)" % (mechanism, ", ".join(MECHANISMS))
        )
    options = {}
    jaas = properties.get("sasl.jaas.config")
    if jaas:
        try:
            options = dict(parse_jaas_config(jaas)[0].options)
        except JaasError as error:
            raise SaslClientError("Invalid sasl.jaas.config: %s" % error) from None
    if mechanism == "GSSAPI":
        return _gssapi_login(properties, options)
    username = options.get("username", properties.get("sasl.username"))
    password = options.get("password", properties.get("sasl.password"))
    if mechanism != "OAUTHBEARER" and (username is None or password is None):
        raise SaslClientError(
            "SASL mechanism %s needs a username and password: set sasl.jaas.config (or "
            "sasl.username and sasl.password)" % mechanism
        )
    return ClientSasl(mechanism, username, password, options)


def _gssapi_login(properties: Mapping[str, str], options: Mapping[str, str]) -> ClientSasl:
    """GSSAPI from the Krb5LoginModule's keyTab and principal (or librdkafka's sasl.kerberos.keytab and
    sasl.kerberos.principal) and sasl.kerberos.service.name (also the JAAS serviceName option)."""
    options = dict(options)
    for option, librdkafka in (("keyTab", "sasl.kerberos.keytab"), ("principal", "sasl.kerberos.principal")):
        if not options.get(option) and properties.get(librdkafka):
            options[option] = str(properties[librdkafka])
    service = properties.get("sasl.kerberos.service.name") or options.get("serviceName")
    if not service:
        raise SaslClientError("SASL mechanism GSSAPI needs sasl.kerberos.service.name (e.g. kafka)")
    if not options.get("keyTab") or not options.get("principal"):
        raise SaslClientError(
            "SASL mechanism GSSAPI needs a keytab and a principal: sasl.jaas.config with Krb5LoginModule "
            'useKeyTab=true keyTab="..." principal="..."'
        )
    options["serviceName"] = str(service)
    return ClientSasl("GSSAPI", options.get("principal"), None, options)


class _GssapiClient:
    def __init__(self, sasl, now_ms, host):
        if host is None:
            raise SaslClientError("SASL mechanism GSSAPI needs the broker's host name")
        self.client = gssapi_mechanism.GssapiClient(
            sasl.options["principal"], sasl.options["keyTab"], sasl.options["serviceName"], host
        )
        self.initial = self.client.initial

    def respond(self, challenge):
        return self.client.respond(challenge)


class _PlainClient:
    def __init__(self, sasl, now_ms, host=None):
        self.initial = plain.client_token(sasl.username, sasl.password)

    def respond(self, challenge):
        return None


class _ScramClient:
    def __init__(self, sasl, now_ms, host=None):
        # ScramLoginModule's tokenauth="true": log in with a delegation token (id as username, HMAC as password)
        token_auth = str(sasl.options.get(scram.TOKEN_AUTH_EXTENSION, "")).lower() == "true"
        self.client = scram.ScramClient(
            scram.MECHANISMS[sasl.mechanism],
            sasl.username,
            sasl.password,
            extensions={scram.TOKEN_AUTH_EXTENSION: "true"} if token_auth else None,
        )
        self.initial = self.client.first_message()
        self.step = 0

    def respond(self, challenge):
        self.step += 1
        if self.step == 1:
            return self.client.final_message(challenge)
        self.client.verify(challenge)
        return None


class _OAuthBearerClient:
    def __init__(self, sasl, now_ms, host=None):
        token = sasl.options.get("token") or oauthbearer.unsecured_token(sasl.options, now_ms())
        self.initial = oauthbearer.client_initial_response(token)

    def respond(self, challenge):
        if challenge:  # an error challenge: acknowledge it, the broker then fails the exchange
            return oauthbearer.CONTROL_A.encode()
        return None


_CLIENTS = {
    "GSSAPI": _GssapiClient,
    "PLAIN": _PlainClient,
    "SCRAM-SHA-256": _ScramClient,
    "SCRAM-SHA-512": _ScramClient,
    "OAUTHBEARER": _OAuthBearerClient,
}


def exchange(sasl: ClientSasl, now_ms: Callable[[], int], host: Optional[str] = None):
    """A generator of requests (api_key, version, body); send it each response body; ``host``: the broker's host
    name (GSSAPI's service principal is ``<service>/<host>``). It returns the session
    lifetime the broker granted (ms, 0: none) and raises SaslClientError when the login fails."""
    response = yield (SASL_HANDSHAKE_KEY, 1, {"mechanism": sasl.mechanism})
    if response["error_code"] == Errors.UNSUPPORTED_SASL_MECHANISM:
        raise SaslClientError(
            "Client SASL mechanism '%s' not enabled in the server, enabled mechanisms are %s"
            % (sasl.mechanism, response["mechanisms"])
        )
    if response["error_code"] != Errors.NONE:
        raise SaslClientError("SaslHandshake failed with error code %d" % response["error_code"])
    try:
        client = _CLIENTS[sasl.mechanism](sasl, now_ms, host)
        token = client.initial
        while token is not None:
            response = yield (SASL_AUTHENTICATE_KEY, 1, {"auth_bytes": token})
            if response["error_code"] != Errors.NONE:
                raise SaslClientError(
                    response.get("error_message") or "SASL authentication failed (error %d)" % response["error_code"]
                )
            token = client.respond(bytes(response["auth_bytes"] or b""))
    except (SaslFailure, ValueError, gssapi_mechanism.GssapiConfigError) as error:
        raise SaslClientError(str(error)) from None
    return response.get("session_lifetime_ms", 0)
