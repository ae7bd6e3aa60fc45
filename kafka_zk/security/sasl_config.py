"""A broker's SASL setup from its configuration and JAAS: each SASL listener's mechanisms and their servers, and
the login the broker itself uses on the inter-broker listener.

Kafka's names: ``sasl.enabled.mechanisms`` (GSSAPI) and its ``listener.name.<listener>.`` override,
``connections.max.reauth.ms`` (also per ``listener.name.<listener>.<mechanism>.``),
``connection.failed.authentication.delay.ms``, ``sasl.mechanism.inter.broker.protocol``; the JAAS entry of a
mechanism comes from ``listener.name.<listener>.<mechanism>.sasl.jaas.config``, then ``sasl.jaas.config``, then the
JAAS file (``<listener>.KafkaServer`` before ``KafkaServer``) named by KAFKA_OPTS.
"""

from __future__ import annotations

import logging
from typing import Callable

from kafka_zk.security import gssapi_mechanism, oauthbearer, plain, scram
from kafka_zk.security.jaas import (
    LOGIN_CONFIG_PROPERTY,
    JaasError,
    login_config_path,
    parse_jaas_config,
    read_jaas_file,
    server_section,
)
from kafka_zk.security.kerberos_names import rules_from_config
from kafka_zk.security.sasl_client import ClientSasl
from kafka_zk.security.sasl_server import SaslServerSettings

log = logging.getLogger(__name__)

SUPPORTED = ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
LOGIN_MODULES = {
    "GSSAPI": "Krb5LoginModule",
    "PLAIN": "PlainLoginModule",
    "SCRAM-SHA-256": "ScramLoginModule",
    "SCRAM-SHA-512": "ScramLoginModule",
    "OAUTHBEARER": "OAuthBearerLoginModule",
}


class SaslConfigError(ValueError):
    """A SASL listener that cannot work as configured (no JAAS entry, ...)."""


def _as_list(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value if str(item).strip()]
    return [item.strip() for item in str(value).split(",") if item.strip()]


class BrokerSasl:
    """Reads what a broker's SASL needs: ``get(name)`` the broker's config (a KafkaConfig's get), ``environ`` for
    the JAAS file named in KAFKA_OPTS."""

    def __init__(self, get: Callable, environ):
        self.get = get
        self.environ = environ
        self._file_sections = None

    def enabled_mechanisms(self, listener_name: str) -> list[str]:
        override = _as_list(self.get("listener.name.%s.sasl.enabled.mechanisms" % listener_name.lower()))
        return override if override is not None else _as_list(self.get("sasl.enabled.mechanisms")) or ["GSSAPI"]

    def _jaas_file(self):
        if self._file_sections is None:
            path = login_config_path(self.environ)
            self._file_sections = read_jaas_file(path) if path else {}
        return self._file_sections

    def login_modules(self, listener_name: str, mechanism: str):
        """The JAAS login modules for one mechanism of one listener; SaslConfigError when there are none."""
        prefix = "listener.name.%s." % listener_name.lower()
        text = self.get(prefix + "%s.sasl.jaas.config" % mechanism.lower()) or self.get("sasl.jaas.config")
        try:
            if text:
                return parse_jaas_config(str(text))
            modules = server_section(self._jaas_file(), listener_name)
        except JaasError as error:
            raise SaslConfigError(
                "Invalid JAAS configuration for listener %s, mechanism %s: %s" % (listener_name, mechanism, error)
            ) from None
        if modules is None:
            path = login_config_path(self.environ)
            raise SaslConfigError(
                "Could not find a '%s.KafkaServer' or 'KafkaServer' entry in the JAAS configuration for SASL "
                "listener %s (mechanism %s): set %s%s.sasl.jaas.config, or name a JAAS file with "
                "-D%s=<file> in KAFKA_OPTS. System property '%s' is %s"
                % (
                    listener_name.lower(),
                    listener_name,
                    mechanism,
                    prefix,
                    mechanism.lower(),
                    LOGIN_CONFIG_PROPERTY,
                    LOGIN_CONFIG_PROPERTY,
                    path or "not set",
                )
            )
        return modules

    def module_options(self, listener_name: str, mechanism: str) -> dict:
        """The options of the mechanism's login module (PlainLoginModule, ScramLoginModule, ...), else the first."""
        modules = self.login_modules(listener_name, mechanism)
        wanted = LOGIN_MODULES.get(mechanism, "")
        for module in modules:
            if module.class_name.rsplit(".", 1)[-1] == wanted:
                return dict(module.options)
        return dict(modules[0].options)

    def max_reauth_ms(self, listener_name: str, mechanism: str) -> int:
        value = self.get("listener.name.%s.%s.connections.max.reauth.ms" % (listener_name.lower(), mechanism.lower()))
        if value is None:
            value = self.get("connections.max.reauth.ms")
        return int(value or 0)

    def server_settings(
        self, listener_name: str, credentials, now_ms: Callable[[], int], tokens=None
    ) -> SaslServerSettings:
        """``credentials``: the CredentialCache SCRAM looks users up in; ``now_ms()`` the time OAUTHBEARER checks
        token expiry against; ``tokens``: the DelegationTokenCache SCRAM logins with tokenauth=true look tokens up
        in (None: such logins fail)."""
        mechanisms = self.enabled_mechanisms(listener_name)
        servers = {}
        for mechanism in mechanisms:
            if mechanism not in SUPPORTED:
                log.warning(
                    "SASL mechanism %s of listener %s is not supported: clients asking for it are answered "
                    "UNSUPPORTED_SASL_MECHANISM",
                    mechanism,
                    listener_name,
                )
                continue
            options = self.module_options(listener_name, mechanism)
            if mechanism == "GSSAPI":
                servers[mechanism] = self._gssapi_server_factory(listener_name, options)
                continue
            servers[mechanism] = _server_factory(mechanism, options, credentials, now_ms, tokens)
        delay = self.get("connection.failed.authentication.delay.ms")
        return SaslServerSettings(
            mechanisms,
            servers,
            {mechanism: self.max_reauth_ms(listener_name, mechanism) for mechanism in mechanisms},
            100 if delay is None else int(delay),
        )

    def _gssapi_server_factory(self, listener_name: str, options: dict):
        try:
            return gssapi_mechanism.server_factory(
                options, rules_from_config(self.get("sasl.kerberos.principal.to.local.rules")), self.environ
            )
        except (gssapi_mechanism.GssapiConfigError, ValueError) as error:
            raise SaslConfigError("GSSAPI on listener %s: %s" % (listener_name, error)) from None

    def inter_broker_login(self, listener_name: str) -> ClientSasl:
        """The broker's own login on the inter-broker listener: sasl.mechanism.inter.broker.protocol with the
        username and password of its JAAS entry, as Kafka."""
        mechanism = str(self.get("sasl.mechanism.inter.broker.protocol") or "GSSAPI").strip()
        if mechanism not in SUPPORTED:
            raise SaslConfigError(
                "sasl.mechanism.inter.broker.protocol=%s is not supported (supported: %s)"
                % (mechanism, ", ".join(SUPPORTED))
            )
        if mechanism not in self.enabled_mechanisms(listener_name):
            raise SaslConfigError(
                "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms "
                "when SASL is used for inter-broker communication"
            )
        options = self.module_options(listener_name, mechanism)
        if mechanism == "GSSAPI":
            return self._gssapi_inter_broker_login(listener_name, options)
        if mechanism != "OAUTHBEARER" and ("username" not in options or "password" not in options):
            raise SaslConfigError(
                "the JAAS entry of listener %s for %s needs username and password options: the "
                "broker logs in with them on the inter-broker listener" % (listener_name, mechanism)
            )
        return ClientSasl(mechanism, options.get("username"), options.get("password"), options)

    def _gssapi_inter_broker_login(self, listener_name: str, options: dict) -> ClientSasl:
        """The broker logs in with the principal and keytab it accepts with, to ``sasl.kerberos.service.name``."""
        service = self.get("sasl.kerberos.service.name") or options.get("serviceName")
        if not service:
            raise SaslConfigError(
                "No serviceName defined in either JAAS or Kafka config (sasl.kerberos.service.name): GSSAPI "
                "between brokers on listener %s needs it" % listener_name
            )
        if not options.get("principal") or not options.get("keyTab"):
            raise SaslConfigError(
                'the Krb5LoginModule entry of listener %s needs principal="..." and keyTab="..."' % listener_name
            )
        return ClientSasl("GSSAPI", options["principal"], None, dict(options, serviceName=str(service)))


def _server_factory(mechanism, options, credentials, now_ms, tokens=None):
    if mechanism == "PLAIN":
        check = plain.users_checker(plain.jaas_users(options))
        return lambda: plain.PlainServer(check)
    if mechanism == "OAUTHBEARER":
        return lambda: oauthbearer.OAuthBearerServer(now_ms, options)
    scram_mechanism = scram.MECHANISMS[mechanism]
    token_lookup = None if tokens is None else (lambda token_id: tokens.scram_login(token_id, mechanism, now_ms()))
    return lambda: scram.ScramServer(scram_mechanism, lambda user: credentials.get(mechanism, user), token_lookup)


def sasl_listeners(listeners) -> list:
    """The endpoints among ``listeners`` whose security protocol is SASL_PLAINTEXT or SASL_SSL."""
    return [endpoint for endpoint in listeners if endpoint.security_protocol in ("SASL_PLAINTEXT", "SASL_SSL")]
