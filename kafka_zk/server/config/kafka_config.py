"""Broker configuration: server.properties names, types and Kafka 2.5 defaults, and topic-level LogConfig."""

from collections import namedtuple

from kafka_zk.common.properties import read_properties
from kafka_zk.security.acls import AUTHORIZER_CLASS_NAMES

ConfigKey = namedtuple("ConfigKey", "name type default validator")

# replica.selector.class values: Kafka's class names of the selectors replication/replica_selector.py implements.
RACK_AWARE_REPLICA_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector"
REPLICA_SELECTOR_CLASSES = (RACK_AWARE_REPLICA_SELECTOR,)


class ConfigError(ValueError):
    """A config value that does not parse or is out of range."""


def _at_least(minimum):
    def check(name, value):
        if value < minimum:
            raise ConfigError(
                "Invalid value %s for configuration %s: Value must be at least %s" % (value, name, minimum)
            )

    return check


def check_one_of(name, value, choices):
    """Kafka's ValidString, and its ValidList over a list's items. An empty list is refused as one empty item
    (Kafka's own message for `compact,`): every list checked here needs at least one item."""
    for item in (value or [""]) if isinstance(value, list) else [value]:
        if item not in choices:
            raise ConfigError(
                "Invalid value %s for configuration %s: String must be one of: %s" % (item, name, ", ".join(choices))
            )


def _one_of(*choices):
    def check(name, value):
        check_one_of(name, value, choices)

    return check


def _authorizer_class(name, value):
    if value.strip() and value.strip() not in AUTHORIZER_CLASS_NAMES:
        raise ConfigError(
            "Invalid value %s for configuration %s: Class %s cannot be found (supported: %s)"
            % (value, name, value, ", ".join(AUTHORIZER_CLASS_NAMES))
        )


_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")

BROKER_CONFIGS = [
    ConfigKey(*entry)
    for entry in [
        ("broker.id", "int", -1, None),
        ("broker.id.generation.enable", "bool", True, None),
        ("reserved.broker.max.id", "int", 1000, _at_least(0)),
        ("broker.rack", "string", None, None),
        ("listeners", "list", ["PLAINTEXT://:9092"], None),
        ("advertised.listeners", "list", None, None),
        (
            "listener.security.protocol.map",
            "list",
            ["PLAINTEXT:PLAINTEXT", "SSL:SSL", "SASL_PLAINTEXT:SASL_PLAINTEXT", "SASL_SSL:SASL_SSL"],
            None,
        ),
        ("inter.broker.listener.name", "string", None, None),
        ("security.inter.broker.protocol", "string", "PLAINTEXT", None),
        ("control.plane.listener.name", "string", None, None),
        ("inter.broker.protocol.version", "string", "2.5", None),
        ("log.dirs", "list", None, None),
        ("log.dir", "list", ["/tmp/kafka-logs"], None),
        ("zookeeper.connect", "string", None, None),
        ("zookeeper.session.timeout.ms", "int", 18000, _at_least(1)),
        ("zookeeper.connection.timeout.ms", "int", None, None),
        ("zookeeper.max.in.flight.requests", "int", 10, _at_least(1)),
        ("zookeeper.set.acl", "bool", False, None),
        ("zookeeper.ssl.client.enable", "bool", False, None),
        ("zookeeper.clientCnxnSocket", "string", None, None),
        ("zookeeper.ssl.keystore.location", "string", None, None),
        ("zookeeper.ssl.keystore.password", "password", None, None),
        ("zookeeper.ssl.keystore.type", "string", None, None),
        ("zookeeper.ssl.truststore.location", "string", None, None),
        ("zookeeper.ssl.truststore.password", "password", None, None),
        ("zookeeper.ssl.truststore.type", "string", None, None),
        ("zookeeper.ssl.protocol", "string", "TLSv1.2", None),
        ("zookeeper.ssl.enabled.protocols", "list", None, None),
        ("zookeeper.ssl.cipher.suites", "list", None, None),
        ("zookeeper.ssl.endpoint.identification.algorithm", "string", "HTTPS", None),
        ("zookeeper.ssl.crl.enable", "bool", False, None),
        ("zookeeper.ssl.ocsp.enable", "bool", False, None),
        ("num.partitions", "int", 1, _at_least(1)),
        ("default.replication.factor", "int", 1, _at_least(1)),
        ("auto.create.topics.enable", "bool", True, None),
        ("delete.topic.enable", "bool", True, None),
        ("min.insync.replicas", "int", 1, _at_least(1)),
        ("unclean.leader.election.enable", "bool", False, None),
        ("replica.lag.time.max.ms", "long", 30000, _at_least(0)),
        ("replica.fetch.max.bytes", "int", 1048576, _at_least(0)),
        ("replica.fetch.response.max.bytes", "int", 10485760, _at_least(0)),
        ("replica.fetch.wait.max.ms", "int", 500, _at_least(0)),
        ("replica.fetch.min.bytes", "int", 1, _at_least(0)),
        ("replica.fetch.backoff.ms", "int", 1000, _at_least(0)),
        ("replica.socket.timeout.ms", "int", 30000, None),
        ("replica.high.watermark.checkpoint.interval.ms", "long", 5000, _at_least(1)),
        ("num.replica.fetchers", "int", 1, _at_least(1)),
        ("replica.selector.class", "string", None, _one_of(*REPLICA_SELECTOR_CLASSES)),
        ("leader.replication.throttled.rate", "long", 9223372036854775807, _at_least(0)),
        ("follower.replication.throttled.rate", "long", 9223372036854775807, _at_least(0)),
        ("replica.alter.log.dirs.io.max.bytes.per.second", "long", 9223372036854775807, _at_least(0)),
        ("replication.quota.window.num", "int", 11, _at_least(1)),
        ("replication.quota.window.size.seconds", "int", 1, _at_least(1)),
        ("num.network.threads", "int", 3, _at_least(1)),
        ("num.io.threads", "int", 8, _at_least(1)),
        ("num.recovery.threads.per.data.dir", "int", 1, _at_least(1)),
        ("log.segment.bytes", "int", 1073741824, _at_least(14)),
        ("log.roll.ms", "long", None, _at_least(1)),
        ("log.roll.hours", "int", 168, _at_least(1)),
        ("log.retention.ms", "long", None, None),
        ("log.retention.minutes", "int", None, None),
        ("log.retention.hours", "int", 168, None),
        ("log.retention.bytes", "long", -1, None),
        ("log.retention.check.interval.ms", "long", 300000, _at_least(1)),
        ("log.segment.delete.delay.ms", "long", 60000, _at_least(0)),
        ("log.index.interval.bytes", "int", 4096, _at_least(0)),
        ("log.index.size.max.bytes", "int", 10485760, _at_least(4)),
        ("log.cleanup.policy", "list", ["delete"], _one_of("compact", "delete")),
        ("log.cleaner.enable", "bool", True, None),
        ("log.cleaner.threads", "int", 1, _at_least(0)),
        ("log.cleaner.dedupe.buffer.size", "long", 134217728, None),
        ("log.cleaner.io.buffer.size", "int", 524288, _at_least(0)),
        ("log.cleaner.io.buffer.load.factor", "double", 0.9, None),
        ("log.cleaner.io.max.bytes.per.second", "double", 1.7976931348623157e308, None),
        ("log.cleaner.backoff.ms", "long", 15000, _at_least(0)),
        ("log.cleaner.min.cleanable.ratio", "double", 0.5, None),
        ("log.cleaner.delete.retention.ms", "long", 86400000, None),
        ("log.cleaner.min.compaction.lag.ms", "long", 0, None),
        ("log.cleaner.max.compaction.lag.ms", "long", 9223372036854775807, None),
        ("log.flush.interval.messages", "long", 9223372036854775807, _at_least(1)),
        ("log.flush.interval.ms", "long", None, None),
        ("log.flush.scheduler.interval.ms", "long", 9223372036854775807, None),
        ("log.flush.offset.checkpoint.interval.ms", "int", 60000, _at_least(0)),
        ("log.flush.start.offset.checkpoint.interval.ms", "int", 60000, _at_least(0)),
        ("log.message.timestamp.type", "string", "CreateTime", _one_of(*_TIMESTAMP_TYPES)),
        ("log.message.timestamp.difference.max.ms", "long", 9223372036854775807, _at_least(0)),
        ("log.message.format.version", "string", "2.5", None),
        ("log.preallocate", "bool", False, None),
        ("compression.type", "string", "producer", _one_of(*_COMPRESSION_TYPES)),
        ("message.max.bytes", "int", 1048588, _at_least(0)),
        ("socket.request.max.bytes", "int", 104857600, _at_least(1)),
        # ours: where the broker serves its metrics to Prometheus (http://host:port; empty: not served), and whether
        # it records them at all (false only to measure what recording costs)
        ("metrics.prometheus.listener", "string", None, None),
        ("metrics.enabled", "bool", True, None),
        ("socket.send.buffer.bytes", "int", 102400, None),
        ("socket.receive.buffer.bytes", "int", 102400, None),
        ("connections.max.idle.ms", "long", 600000, None),
        ("request.timeout.ms", "int", 30000, None),
        ("offsets.topic.num.partitions", "int", 50, _at_least(1)),
        ("offsets.topic.replication.factor", "short", 3, _at_least(1)),
        ("offsets.topic.segment.bytes", "int", 104857600, _at_least(1)),
        ("offsets.retention.minutes", "int", 10080, _at_least(1)),
        ("offsets.retention.check.interval.ms", "long", 600000, _at_least(1)),
        ("offsets.commit.timeout.ms", "int", 5000, _at_least(1)),
        ("offsets.commit.required.acks", "short", -1, None),
        ("offsets.load.buffer.size", "int", 5242880, _at_least(1)),
        ("offsets.topic.compression.codec", "int", 0, None),
        ("offset.metadata.max.bytes", "int", 4096, None),
        ("transaction.state.log.num.partitions", "int", 50, _at_least(1)),
        ("transaction.state.log.replication.factor", "short", 3, _at_least(1)),
        ("transaction.state.log.min.isr", "int", 2, _at_least(1)),
        ("transaction.state.log.segment.bytes", "int", 104857600, _at_least(1)),
        ("transaction.state.log.load.buffer.size", "int", 5242880, _at_least(1)),
        ("transaction.max.timeout.ms", "int", 900000, _at_least(1)),
        ("transaction.abort.timed.out.transaction.cleanup.interval.ms", "int", 10000, _at_least(1)),
        ("transaction.remove.expired.transaction.cleanup.interval.ms", "int", 3600000, _at_least(1)),
        ("transactional.id.expiration.ms", "int", 604800000, _at_least(1)),
        ("producer.id.expiration.ms", "int", 86400000, _at_least(1)),
        ("group.initial.rebalance.delay.ms", "int", 3000, None),
        ("group.min.session.timeout.ms", "int", 6000, None),
        ("group.max.session.timeout.ms", "int", 1800000, None),
        ("group.max.size", "int", 2147483647, _at_least(1)),
        ("controlled.shutdown.enable", "bool", True, None),
        ("authorizer.class.name", "string", "", _authorizer_class),
        ("super.users", "string", None, None),
        ("allow.everyone.if.no.acl.found", "bool", False, None),
        ("controlled.shutdown.max.retries", "int", 3, None),
        ("controlled.shutdown.retry.backoff.ms", "long", 5000, None),
        ("controller.socket.timeout.ms", "int", 30000, None),
        ("auto.leader.rebalance.enable", "bool", True, None),
        ("leader.imbalance.check.interval.seconds", "long", 300, _at_least(1)),
        ("leader.imbalance.per.broker.percentage", "int", 10, None),
        ("fetch.max.bytes", "int", 57671680, _at_least(1024)),
        ("max.incremental.fetch.session.cache.slots", "int", 1000, _at_least(0)),
        ("queued.max.requests", "int", 500, _at_least(1)),
        ("quota.window.num", "int", 11, _at_least(1)),
        ("quota.window.size.seconds", "int", 1, _at_least(1)),
        ("delegation.token.master.key", "password", None, None),
        ("delegation.token.max.lifetime.ms", "long", 604800000, _at_least(1)),
        ("delegation.token.expiry.time.ms", "long", 86400000, _at_least(1)),
        ("delegation.token.expiry.check.interval.ms", "long", 3600000, _at_least(1)),
    ]
]

BROKER_CONFIGS += [
    ConfigKey(*entry)
    for entry in [  # SASL; security.sasl_config reads listener.name.<l>.* overrides
        ("sasl.enabled.mechanisms", "list", ["GSSAPI"], None),
        ("sasl.mechanism.inter.broker.protocol", "string", "GSSAPI", None),
        ("sasl.jaas.config", "string", None, None),
        ("connections.max.reauth.ms", "long", 0, None),
        ("connection.failed.authentication.delay.ms", "int", 100, _at_least(0)),
    ]
]

_BY_NAME = {key.name: key for key in BROKER_CONFIGS}


def _parse(key, raw):
    if raw is None:
        return None
    kind = key.type
    text = raw.strip() if isinstance(raw, str) else raw
    try:
        if kind in ("int", "long", "short"):
            return int(text)
        if kind == "bool":
            lowered = str(text).lower()
            if lowered not in ("true", "false"):
                raise ValueError(text)
            return lowered == "true"
        if kind == "list":
            if isinstance(text, list):
                return text
            return [item.strip() for item in text.split(",") if item.strip()]
        if kind == "double":
            return float(text)
        return text
    except ValueError:
        raise ConfigError(
            "Invalid value %s for configuration %s: Expected value to be a %s"
            % (raw, key.name, {"list": "list", "bool": "boolean"}.get(kind, "number") if kind != "string" else "string")
        ) from None


Endpoint = namedtuple("Endpoint", "listener_name host port security_protocol")

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


def parse_endpoints(values, protocol_map, config_name="listeners"):
    """Kafka's CoreUtils.listenerListToEndPoints: NAME://host:port entries with distinct names and ports."""
    endpoints = []
    for value in values:
        if "://" not in value:
            raise ConfigError("Unable to parse %s to a broker endpoint" % value)
        name, rest = value.split("://", 1)
        host, _, port = rest.rpartition(":")
        if not port.lstrip("-").isdigit():
            raise ConfigError("Unable to parse %s to a broker endpoint" % value)
        name = name.upper()
        if name not in protocol_map:
            raise ConfigError("No security protocol defined for listener %s" % name)
        endpoints.append(Endpoint(name, host.strip("[]"), int(port), protocol_map[name]))
    text = ",".join(values)
    if len({endpoint.listener_name for endpoint in endpoints}) != len(endpoints):
        raise ConfigError("requirement failed: Each listener must have a different name, %s: %s" % (config_name, text))
    ports = [endpoint.port for endpoint in endpoints if endpoint.port != 0]
    if len(set(ports)) != len(ports):
        raise ConfigError("requirement failed: Each listener must have a different port, %s: %s" % (config_name, text))
    return endpoints


def parse_protocol_map(entries):
    """listener.security.protocol.map as {LISTENER: PROTOCOL}, with Kafka's messages."""
    protocol_map = {}
    for entry in entries:
        name, separator, protocol = entry.partition(":")
        if not separator or not name.strip():
            raise ConfigError(
                "Error parsing configuration property 'listener.security.protocol.map': Malformed "
                "key-value pair: %s" % entry
            )
        protocol = protocol.strip().upper()
        if protocol not in SECURITY_PROTOCOLS:
            raise ConfigError(
                "Invalid security protocol `%s` defined in listener.security.protocol.map" % protocol.strip()
            )
        protocol_map[name.strip().upper()] = protocol
    return protocol_map


def _names(endpoints):
    return ",".join(endpoint.listener_name for endpoint in endpoints)


class KafkaConfig:
    """Typed, validated broker configuration; unknown keys are kept (Kafka logs and ignores them)."""

    def __init__(self, props):
        self.originals = dict(props)
        self.values = {}
        for key in BROKER_CONFIGS:
            value = _parse(key, props.get(key.name)) if key.name in props else key.default
            if value is not None and key.validator is not None:
                key.validator(key.name, value)
            self.values[key.name] = value
        if not self.values["zookeeper.connect"]:
            raise ConfigError('Missing required configuration "zookeeper.connect" which has no default value.')
        protocol_map = parse_protocol_map(self.values["listener.security.protocol.map"])
        self.protocol_map = protocol_map
        self.listeners = parse_endpoints(self.values["listeners"], protocol_map)
        advertised = self.values["advertised.listeners"]
        self.advertised_listeners = (
            parse_endpoints(advertised, protocol_map, "advertised.listeners") if advertised else list(self.listeners)
        )
        self._check_listener_names(props)

        if self.broker_id < -1:
            raise ConfigError("Invalid value %d for configuration broker.id: must be >= -1" % self.broker_id)
        self._check_replica_fetch_timing()

    def _check_replica_fetch_timing(self):
        wait = self.values["replica.fetch.wait.max.ms"]
        if wait > self.values["replica.socket.timeout.ms"]:
            raise ConfigError(
                "requirement failed: replica.socket.timeout.ms should always be at least "
                "replica.fetch.wait.max.ms to prevent unnecessary socket timeouts"
            )
        if wait > self.values["replica.lag.time.max.ms"]:
            raise ConfigError(
                "requirement failed: replica.fetch.wait.max.ms should always be less than or equal to "
                "replica.lag.time.max.ms to prevent frequent changes in ISR"
            )

    def _check_listener_names(self, props):
        """The inter-broker and control plane listeners, as Kafka's KafkaConfig checks them."""
        protocol_map = self.protocol_map
        name = self.values["inter.broker.listener.name"]
        if name is not None:
            if "security.inter.broker.protocol" in props:
                raise ConfigError(
                    "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set."
                )
            name = name.strip().upper()
            if name not in protocol_map:
                raise ConfigError(
                    "Listener with name %s defined in inter.broker.listener.name not found in "
                    "listener.security.protocol.map." % name
                )
        else:
            protocol = self.values["security.inter.broker.protocol"].strip().upper()
            if protocol not in SECURITY_PROTOCOLS:
                raise ConfigError(
                    "Invalid security protocol `%s` defined in security.inter.broker.protocol"
                    % self.values["security.inter.broker.protocol"]
                )
            name = protocol
        self.inter_broker_listener_name = name
        self.inter_broker_security_protocol = protocol_map.get(name, name)
        advertised_names = {endpoint.listener_name for endpoint in self.advertised_listeners}
        if name not in advertised_names:
            raise ConfigError(
                "requirement failed: inter.broker.listener.name must be a listener name defined in "
                "advertised.listeners. The valid options based on currently configured listeners are "
                "%s" % _names(self.advertised_listeners)
            )
        if not advertised_names <= {endpoint.listener_name for endpoint in self.listeners}:
            raise ConfigError(
                "requirement failed: advertised.listeners listener names must be equal to or a subset "
                "of the ones defined in listeners. Found %s. The valid options based on the current "
                "configuration are %s" % (_names(self.advertised_listeners), _names(self.listeners))
            )
        if any(endpoint.host == "0.0.0.0" for endpoint in self.advertised_listeners):
            raise ConfigError(
                "requirement failed: advertised.listeners cannot use the nonroutable meta-address "
                "0.0.0.0. Use a routable IP address."
            )
        control = self.values["control.plane.listener.name"]
        self.control_plane_listener_name = None
        if control is not None:
            control = control.strip().upper()
            if control not in protocol_map:
                raise ConfigError(
                    "Listener with %s defined in control.plane.listener.name not found in "
                    "listener.security.protocol.map." % control
                )
            if control not in advertised_names:
                raise ConfigError(
                    "requirement failed: control.plane.listener.name must be a listener name defined "
                    "in advertised.listeners. The valid options based on currently configured "
                    "listeners are %s" % _names(self.advertised_listeners)
                )
            if control == name:
                raise ConfigError(
                    "requirement failed: control.plane.listener.name, when defined, should have a "
                    "different value from the inter broker listener name. Currently they both have "
                    "the value %s" % control
                )
            self.control_plane_listener_name = control

    @property
    def controller_listener_name(self):
        """Where the controller sends its requests (KIP-291): the control plane listener, else inter-broker."""
        return self.control_plane_listener_name or self.inter_broker_listener_name

    def advertised_endpoint(self, listener_name):
        return next((e for e in self.advertised_listeners if e.listener_name == listener_name), None)

    @classmethod
    def from_file(cls, path, overrides=None):
        props = read_properties(path)
        props.update(overrides or {})
        return cls(props)

    def __getitem__(self, name):
        if name in self.values:
            return self.values[name]
        return self.originals[name]

    def get(self, name, default=None):
        if name in self.values:
            return self.values[name]
        return self.originals.get(name, default)

    @property
    def broker_id(self):
        return self.values["broker.id"]

    @property
    def log_dirs(self):
        return self.values["log.dirs"] or self.values["log.dir"]

    @property
    def zookeeper_session_timeout_ms(self):
        return self.values["zookeeper.session.timeout.ms"]

    @property
    def zookeeper_connection_timeout_ms(self):
        return self.values["zookeeper.connection.timeout.ms"] or self.zookeeper_session_timeout_ms

    @property
    def log_roll_ms(self):
        return self.values["log.roll.ms"] or self.values["log.roll.hours"] * 3600 * 1000

    @property
    def log_retention_ms(self):
        if self.values["log.retention.ms"] is not None:
            return self.values["log.retention.ms"]
        if self.values["log.retention.minutes"] is not None:
            return self.values["log.retention.minutes"] * 60 * 1000
        return self.values["log.retention.hours"] * 3600 * 1000

    def log_config_defaults(self):
        """Broker-level defaults for every topic-level config (values as typed Python objects)."""
        return {
            "segment.bytes": self["log.segment.bytes"],
            "segment.ms": self.log_roll_ms,
            "segment.jitter.ms": 0,
            "segment.index.bytes": self["log.index.size.max.bytes"],
            "index.interval.bytes": self["log.index.interval.bytes"],
            "retention.ms": self.log_retention_ms,
            "retention.bytes": self["log.retention.bytes"],
            "max.message.bytes": self["message.max.bytes"],
            "cleanup.policy": ",".join(self["log.cleanup.policy"]),
            "min.insync.replicas": self["min.insync.replicas"],
            "unclean.leader.election.enable": self["unclean.leader.election.enable"],
            "message.timestamp.type": self["log.message.timestamp.type"],
            "message.timestamp.difference.max.ms": self["log.message.timestamp.difference.max.ms"],
            "compression.type": self["compression.type"],
            "file.delete.delay.ms": self["log.segment.delete.delay.ms"],
            "flush.messages": self["log.flush.interval.messages"],
            "flush.ms": self["log.flush.interval.ms"]
            if self["log.flush.interval.ms"] is not None
            else 9223372036854775807,
            "message.format.version": self["log.message.format.version"],
            "preallocate": self["log.preallocate"],
            "delete.retention.ms": self["log.cleaner.delete.retention.ms"],
            "min.compaction.lag.ms": self["log.cleaner.min.compaction.lag.ms"],
            "max.compaction.lag.ms": self["log.cleaner.max.compaction.lag.ms"],
            "min.cleanable.dirty.ratio": self["log.cleaner.min.cleanable.ratio"],
            "message.downconversion.enable": True,
            "leader.replication.throttled.replicas": "",
            "follower.replication.throttled.replicas": "",
        }
