"""The broker's listeners: a port for every entry of ``listeners``, TLS on SSL and SASL_SSL listeners (their
keystores replaced through the dynamic broker config), and the TLS client side of the listeners other brokers
are reached on (inter-broker, control plane)."""

import logging

from kafka_zk.net.socket_server import KafkaServerFactory, Listener
from kafka_zk.security.ssl_config import is_tls, listener_prefix, ssl_settings
from kafka_zk.security.tls_transport import ServerTls, client_tls_for, principal_builder
from kafka_zk.server.config.dynamic_broker_config import DYNAMIC_SECURITY_CONFIGS
from kafka_zk.server.services import ListeningPort

log = logging.getLogger(__name__)


def effective_props(dynamic_config):
    """Every broker setting as raw values: server.properties under the dynamic cluster default under the
    dynamic per-broker configs (listener.name.<l>.ssl.* included)."""
    props = dict(dynamic_config.static.originals)
    props.update(dynamic_config.cluster_default)
    props.update(dynamic_config.per_broker)
    return props


def listener_ssl_settings(dynamic_config, listener_name):
    return ssl_settings(effective_props(dynamic_config), listener_name)


def client_tls(config, dynamic_config, listener_name):
    """The TLS client side for connecting to other brokers' ``listener_name`` with this broker's settings for
    that listener (``listener.name.<l>.ssl.*`` over ``ssl.*``); None for a plaintext listener."""
    protocol = config.protocol_map.get(listener_name, listener_name)
    return client_tls_for(protocol, listener_ssl_settings(dynamic_config, listener_name))


class BrokerListeners:
    """One ListeningPort per configured listener, each with its Listener (name, security protocol, principal
    builder) and, on TLS listeners, its ServerTls."""

    def __init__(
        self,
        config,
        dynamic_config,
        reactor,
        dispatcher,
        max_frame_size,
        authenticator_factory_of=lambda listener_name: None,
        socket_metrics=None,
    ):
        """``authenticator_factory_of(listener name)``: a SASL listener's per-connection authenticator factory
        (None on the others); ``socket_metrics``: the net.request_metrics.SocketServerMetrics requests and
        connections are measured in (None: not measured)."""
        self.dynamic_config = dynamic_config
        self.ports = {}
        self.server_tls = {}
        self._settings = {}
        for endpoint in config.listeners:
            name, protocol = endpoint.listener_name, endpoint.security_protocol
            settings = listener_ssl_settings(dynamic_config, name)
            builder = principal_builder(protocol, settings)
            listener = Listener(name, protocol, authenticator_factory=authenticator_factory_of(name))
            if builder is not None:
                listener.principal_builder = builder
            factory = KafkaServerFactory(dispatcher, reactor, max_frame_size, listener, socket_metrics)
            if is_tls(protocol):
                tls = self.server_tls[name] = ServerTls(settings)
                self._settings[name] = settings
                factory = tls.wrap(factory)
            self.ports[name] = ListeningPort(
                "listener %s" % name, reactor, endpoint.port, factory, endpoint.host or "0.0.0.0"
            )

    def follow_dynamic_configs(self):
        """Reload a TLS listener's keystore and truststore when its listener.name.<l>.ssl.* configs change."""
        for name in self.server_tls:
            prefix = listener_prefix(name)
            self.dynamic_config.add_listener(
                sorted(prefix + config for config in DYNAMIC_SECURITY_CONFIGS),
                lambda _values, name=name: self._reconfigure(name),
            )

    def _reconfigure(self, name):
        settings = listener_ssl_settings(self.dynamic_config, name)
        if settings == self._settings[name]:
            return
        try:
            self.server_tls[name].reconfigure(settings)
        except Exception as error:  # a keystore that does not load: keep serving with the current one
            log.error("listener %s keeps its TLS configuration: the new one failed to load: %s", name, error)
            return
        self._settings[name] = settings
        log.info(
            "listener %s: new TLS configuration (keystore %s) for new connections",
            name,
            settings["ssl.keystore.location"],
        )

    def bound_port(self, name):
        return self.ports[name].bound_port
