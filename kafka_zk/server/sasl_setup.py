"""A broker's SASL: each SASL listener's authenticator, the SCRAM credential cache kept up to date from
/config/users, and the login hook of the broker's own inter-broker connections."""

import logging
import os

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.security.credential_cache import CredentialCache
from kafka_zk.security.delegation_tokens import DelegationTokenCache
from kafka_zk.security.inter_broker import sasl_authenticate_hook
from kafka_zk.security.sasl_config import BrokerSasl, SaslConfigError, sasl_listeners
from kafka_zk.security.sasl_server import SaslServerAuthenticator
from kafka_zk.security.scram import MECHANISMS as SCRAM_MECHANISMS
from kafka_zk.server.config.kafka_config import ConfigError
from kafka_zk.zk.znodes import ConfigEntityTypeZNode, desanitize

log = logging.getLogger(__name__)


class BrokerSaslSetup:
    """Built when the broker is: a SASL listener without a usable JAAS entry, or an inter-broker SASL login that
    cannot work, is a ConfigError naming what is missing."""

    def __init__(self, config, clock, environ=None):
        self.clock = clock
        self.credentials = CredentialCache()
        self.tokens = DelegationTokenCache()  # the token manager's cache: SCRAM logins with tokenauth=true
        sasl = BrokerSasl(config.get, os.environ if environ is None else environ)
        now_ms = lambda: milliseconds(clock)  # noqa: E731
        try:
            self.settings = {
                endpoint.listener_name: sasl.server_settings(
                    endpoint.listener_name, self.credentials, now_ms, self.tokens
                )
                for endpoint in sasl_listeners(config.listeners)
            }
            # the broker's own logins to the listeners it connects to: inter-broker and control plane
            self._logins = {
                name: sasl_authenticate_hook(sasl.inter_broker_login(name), clock)
                for name in {config.inter_broker_listener_name, config.controller_listener_name}
                if name in self.settings
            }
        except SaslConfigError as error:
            raise ConfigError(str(error)) from None

    def authenticator_factory(self, listener_name):
        """What makes a new SASL authenticator for each connection of a SASL listener; None on the others."""
        settings = self.settings.get(listener_name)
        return (lambda: SaslServerAuthenticator(settings)) if settings is not None else None

    def login(self, listener_name):
        """The broker's login hook for connections to other brokers' ``listener_name`` (net.broker_client's
        ``authenticate``); None where that listener is not SASL."""
        return self._logins.get(listener_name)


class ScramCredentialConfigs:
    """Loads every user's SCRAM credentials from /config/users into the cache, and re-reads the users that a
    /config/changes notification names (entity path users/<sanitized user>)."""

    def __init__(self, zk, credentials):
        self.zk = zk
        self.credentials = credentials

    @defer.inlineCallbacks
    def load(self):
        users = yield self.zk.get_children(ConfigEntityTypeZNode.path("users"))
        yield self.reload(["users/" + name for name in users])

    @defer.inlineCallbacks
    def reload(self, entity_paths):
        for entity_path in entity_paths:
            parts = entity_path.split("/")
            if len(parts) != 2 or parts[0] != "users":
                continue
            config = yield self.zk.get_entity_config("users", parts[1])
            self.credentials.update_user(desanitize(parts[1]), config)
            log.debug("SCRAM credentials of %s: %s", parts[1], [m for m in SCRAM_MECHANISMS if m in config])
