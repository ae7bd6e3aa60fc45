"""Dynamic broker configs (Kafka's DynamicBrokerConfig): which names are dynamic, validation, and precedence.

Effective value of a broker config, highest precedence first: the per-broker dynamic config
(/config/brokers/<id>), the cluster-wide dynamic default (/config/brokers/<default>), server.properties,
Kafka's default. Pure: no reactor, no ZooKeeper; the broker feeds update() from its config change listener
(on the reactor), and listeners are called synchronously from there.
"""

import logging

from kafka_zk.server.config.kafka_config import BROKER_CONFIGS, ConfigError, KafkaConfig

log = logging.getLogger(__name__)

LONG_MAX = 9223372036854775807
DEFAULT_ENTITY = "<default>"

# DescribeConfigs ConfigSource ids (Kafka 2.5).
DYNAMIC_TOPIC_CONFIG = 1
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

# Reconfigurable SSL configs (only per listener, with the listener.name.<l>. prefix) and listener configs.
DYNAMIC_SECURITY_CONFIGS = frozenset(
    [
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.key.password",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.password",
    ]
)
DYNAMIC_LISTENER_CONFIGS = frozenset(["advertised.listeners", "listeners", "listener.security.protocol.map"])
PER_BROKER_CONFIGS = DYNAMIC_SECURITY_CONFIGS | DYNAMIC_LISTENER_CONFIGS

# Replication quotas (DynamicConfig.Broker): also updatable through ZooKeeper while brokers run.
REPLICATION_QUOTA_CONFIGS = {
    "leader.replication.throttled.rate": ("long", LONG_MAX, 0),
    "follower.replication.throttled.rate": ("long", LONG_MAX, 0),
    "replica.alter.log.dirs.io.max.bytes.per.second": ("long", LONG_MAX, 0),
}

# The broker-level names of topic configs (LogConfig.TopicConfigSynonyms) but log.message.format.version.
DYNAMIC_LOG_CONFIGS = frozenset(
    [
        "log.segment.bytes",
        "log.roll.ms",
        "log.roll.jitter.ms",
        "log.index.size.max.bytes",
        "log.flush.interval.messages",
        "log.flush.interval.ms",
        "log.retention.bytes",
        "log.retention.ms",
        "message.max.bytes",
        "log.index.interval.bytes",
        "log.cleaner.delete.retention.ms",
        "log.cleaner.min.compaction.lag.ms",
        "log.cleaner.max.compaction.lag.ms",
        "log.segment.delete.delay.ms",
        "log.cleaner.min.cleanable.ratio",
        "log.cleanup.policy",
        "unclean.leader.election.enable",
        "min.insync.replicas",
        "compression.type",
        "log.preallocate",
        "log.message.timestamp.type",
        "log.message.timestamp.difference.max.ms",
        "log.message.downconversion.enable",
    ]
)

# name -> (type, Kafka default, minimum or None) for dynamic names our KafkaConfig does not define.
_EXTRA_DYNAMIC = {
    "log.cleaner.threads": ("int", 1, 0),
    "log.cleaner.dedupe.buffer.size": ("long", 134217728, None),
    "log.cleaner.io.buffer.load.factor": ("double", 0.9, None),
    "log.cleaner.io.buffer.size": ("int", 524288, 0),
    "log.cleaner.io.max.bytes.per.second": ("double", 1.7976931348623157e308, None),
    "log.cleaner.backoff.ms": ("long", 15000, 0),
    "log.cleaner.delete.retention.ms": ("long", 86400000, None),
    "log.cleaner.min.compaction.lag.ms": ("long", 0, None),
    "log.cleaner.max.compaction.lag.ms": ("long", LONG_MAX, None),
    "log.cleaner.min.cleanable.ratio": ("double", 0.5, None),
    "log.roll.jitter.ms": ("long", None, None),
    "log.message.downconversion.enable": ("bool", True, None),
    "background.threads": ("int", 10, 1),
    "metric.reporters": ("list", "", None),
    "max.connections.per.ip": ("int", 2147483647, 0),
    "max.connections.per.ip.overrides": ("string", "", None),
    "max.connections": ("int", 2147483647, 0),
}
_EXTRA_DYNAMIC.update(REPLICATION_QUOTA_CONFIGS)

DYNAMIC_THREAD_POOL_CONFIGS = frozenset(
    [
        "num.io.threads",
        "num.network.threads",
        "num.replica.fetchers",
        "num.recovery.threads.per.data.dir",
        "background.threads",
    ]
)

ALL_DYNAMIC_CONFIGS = (
    DYNAMIC_SECURITY_CONFIGS
    | DYNAMIC_LISTENER_CONFIGS
    | DYNAMIC_LOG_CONFIGS
    | DYNAMIC_THREAD_POOL_CONFIGS
    | frozenset(_EXTRA_DYNAMIC)
)

_STATIC_KEYS = {key.name: key for key in BROKER_CONFIGS}
# Every broker config name Kafka knows that may not be changed at runtime (a subset is enough to refuse).
NON_DYNAMIC_CONFIGS = frozenset(name for name in _STATIC_KEYS if name not in ALL_DYNAMIC_CONFIGS) | frozenset(
    [
        "log.retention.hours",
        "log.retention.minutes",
        "log.roll.hours",
        "log.roll.jitter.hours",
        "log.message.format.version",
        "num.replica.alter.log.dirs.threads",
        "log.cleaner.enable",
        "zookeeper.connection.timeout.ms",
        "auto.leader.rebalance.enable",
        "offsets.topic.replication.factor",
    ]
)

_TYPE_WORDS = {"int": "INT", "short": "SHORT", "long": "LONG", "double": "DOUBLE"}


def scala_set(names):
    """A set of names as Scala prints it: Set(a, b)."""
    return "Set(%s)" % ", ".join(sorted(names))


def config_type(name):
    if name in _EXTRA_DYNAMIC:
        return _EXTRA_DYNAMIC[name][0]
    if name in _STATIC_KEYS:
        return _STATIC_KEYS[name].type
    return "string"


def parse_value(name, raw):
    """Parse one broker config value given as a string, with Kafka's ConfigDef messages; raises ConfigError."""
    kind = config_type(name)
    text = str(raw).strip()
    try:
        if kind in ("int", "short", "long"):
            value = int(text)
        elif kind == "double":
            value = float(text)
        elif kind == "bool":
            if text.lower() not in ("true", "false"):
                raise ConfigError(
                    "Invalid value %s for configuration %s: Expected value to be either true or false" % (raw, name)
                )
            value = text.lower() == "true"
        elif kind == "list":
            value = [item.strip() for item in text.split(",") if item.strip()]
        else:
            value = text
    except ConfigError:
        raise
    except ValueError:
        raise ConfigError(
            "Invalid value %s for configuration %s: Not a number of type %s" % (raw, name, _TYPE_WORDS[kind])
        ) from None
    minimum = _EXTRA_DYNAMIC[name][2] if name in _EXTRA_DYNAMIC else None
    if minimum is not None and value < minimum:
        raise ConfigError("Invalid value %s for configuration %s: Value must be at least %s" % (raw, name, minimum))
    key = _STATIC_KEYS.get(name)
    if key is not None and key.validator is not None:
        key.validator(name, value)
    return value


def validate_dynamic_configs(props, per_broker):
    """Kafka's DynamicBrokerConfig.validateConfigs: raises ConfigError with Kafka's message."""
    non_dynamic = [name for name in props if name in NON_DYNAMIC_CONFIGS]
    if non_dynamic:
        raise ConfigError("Cannot update these configs dynamically: %s" % scala_set(non_dynamic))
    unprefixed = [name for name in props if name in DYNAMIC_SECURITY_CONFIGS]
    if unprefixed:
        raise ConfigError(
            "These security configs can be dynamically updated only per-listener using the "
            "listener prefix: %s" % scala_set(unprefixed)
        )
    typed = {}
    for name, raw in props.items():
        base = name.split(".", 3)[3] if name.startswith("listener.name.") and name.count(".") >= 3 else name
        typed[name] = parse_value(base, raw) if base in ALL_DYNAMIC_CONFIGS or base in _STATIC_KEYS else raw
    if not per_broker:
        per_broker_names = [name for name in props if name in PER_BROKER_CONFIGS or name.startswith("listener.name.")]
        if per_broker_names:
            raise ConfigError(
                "Cannot update these configs at default cluster level, broker id must be specified: %s"
                % scala_set(per_broker_names)
            )
    return typed


_PASSWORD_CONFIGS = frozenset(key.name for key in BROKER_CONFIGS if key.type == "password")


def is_sensitive(name):
    return name.endswith(".password") or name.endswith("sasl.jaas.config") or name in _PASSWORD_CONFIGS


def broker_config_synonyms(name):
    """The broker names that set this config, highest precedence first (Kafka's brokerConfigSynonyms)."""
    if name in ("log.roll.ms", "log.roll.hours"):
        return ["log.roll.ms", "log.roll.hours"]
    if name in ("log.roll.jitter.ms", "log.roll.jitter.hours"):
        return ["log.roll.jitter.ms", "log.roll.jitter.hours"]
    if name == "log.flush.interval.ms":
        return ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"]
    if name in ("log.retention.ms", "log.retention.minutes", "log.retention.hours"):
        return ["log.retention.ms", "log.retention.minutes", "log.retention.hours"]
    return [name]


def _text(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


class DynamicBrokerConfig:
    """One broker's effective configuration: per-broker over cluster default over server.properties."""

    def __init__(self, static_config, broker_id):
        self.static = static_config
        self.broker_id = broker_id
        self.per_broker = {}
        self.cluster_default = {}
        self._effective = static_config
        self._listeners = []
        self.generation = 0  # moves on with every update of the dynamic configs

    # -- reading ----------------------------------------------------------------------------------

    @property
    def current(self):
        """A KafkaConfig with the dynamic configs applied (log_config_defaults() etc. see them)."""
        return self._effective

    def value(self, name):
        """The effective typed value of a broker config."""
        for level in (self.per_broker, self.cluster_default):
            if name in level:
                return self._typed(name, level[name])
        if name in _STATIC_KEYS:
            return self.static.values.get(name)
        if name in self.static.originals:
            return self._typed(name, self.static.originals[name])
        if name in _EXTRA_DYNAMIC:
            return _EXTRA_DYNAMIC[name][1]
        return None

    def log_config_defaults(self):
        return self._effective.log_config_defaults()

    @staticmethod
    def _typed(name, raw):
        try:
            return parse_value(name, raw)
        except ConfigError:
            return raw

    def sources(self, name):
        """[(name, text value, source)] as Kafka's DescribeConfigs synonyms: each level (per-broker, cluster
        default, static, default) in turn over the config's synonyms, starting at the config's own name."""
        synonyms = broker_config_synonyms(name)
        defaults = {
            synonym: _text(
                _STATIC_KEYS[synonym].default
                if synonym in _STATIC_KEYS
                else _EXTRA_DYNAMIC[synonym][1]
                if synonym in _EXTRA_DYNAMIC
                else None
            )
            for synonym in synonyms
        }
        levels = [
            (self.per_broker, DYNAMIC_BROKER_CONFIG),
            (self.cluster_default, DYNAMIC_DEFAULT_BROKER_CONFIG),
            ({key: str(value) for key, value in self.static.originals.items()}, STATIC_BROKER_CONFIG),
            ({key: value for key, value in defaults.items() if value is not None}, DEFAULT_CONFIG),
        ]
        found = [
            (synonym, level[synonym], source) for level, source in levels for synonym in synonyms if synonym in level
        ]
        while found and found[0][0] != name:
            found.pop(0)
        return found

    def inherited_text(self, name, per_broker):
        """The text of a config's value in force where one level of dynamic overrides does not set it: below this
        broker's own overrides (``per_broker``) or below the cluster default's; None when nothing sets it."""
        skipped = (DYNAMIC_BROKER_CONFIG,) if per_broker else (DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG)
        return next((text for _, text, source in self.sources(name) if source not in skipped), None)

    def all_names(self):
        names = [key.name for key in BROKER_CONFIGS] + sorted(_EXTRA_DYNAMIC)
        extra = sorted(set(self.per_broker) | set(self.cluster_default) - set(names))
        return list(dict.fromkeys(names + extra))

    # -- updating ---------------------------------------------------------------------------------

    def validate(self, props, per_broker):
        """Validate a full replacement of one level ({name: string}); raises ConfigError."""
        validate_dynamic_configs(props, per_broker)
        trial_broker = props if per_broker else self.per_broker
        trial_default = self.cluster_default if per_broker else props
        self._merged_config(trial_default, trial_broker)

    def _merged_config(self, cluster_default, per_broker):
        merged = dict(self.static.originals)
        for level in (cluster_default, per_broker):
            merged.update({name: value for name, value in level.items() if name in _STATIC_KEYS})
        return KafkaConfig(merged)

    def _usable(self, entity, props):
        """The stored configs of one entity that this broker can apply (others are logged and skipped)."""
        usable = {}
        for name, raw in (props or {}).items():
            raw = str(raw)
            if name in NON_DYNAMIC_CONFIGS:
                log.warning("ignoring non-dynamic broker config %s stored in ZooKeeper for %s", name, entity)
                continue
            try:
                parse_value(name, raw)
            except ConfigError as error:
                log.warning("ignoring invalid dynamic broker config for %s: %s", entity, error)
                continue
            usable[name] = raw
        return usable

    def entity_names(self):
        """The /config/brokers entities this broker follows: the cluster default and its own id."""
        return [DEFAULT_ENTITY, str(self.broker_id)]

    def update(self, default_overrides, broker_overrides):
        """New contents of /config/brokers/<default> and /config/brokers/<id>; calls the listeners whose
        names' effective values changed."""
        before = [{name: self.value(name) for name in names} for names, _ in self._listeners]
        self.cluster_default = self._usable(DEFAULT_ENTITY, default_overrides)
        self.per_broker = self._usable(str(self.broker_id), broker_overrides)
        self.generation += 1
        try:
            self._effective = self._merged_config(self.cluster_default, self.per_broker)
        except ConfigError as error:
            log.warning("dynamic broker configs rejected, keeping server.properties: %s", error)
            self._effective = self.static
        for (names, callback), old in zip(list(self._listeners), before):
            now = {name: self.value(name) for name in names}
            if now != old:
                callback(now)

    def update_entity(self, entity, props):
        """New contents of one entity, /config/brokers/<entity> (this broker's id or <default>)."""
        if entity == DEFAULT_ENTITY:
            self.update(props, self.per_broker)
        elif entity == str(self.broker_id):
            self.update(self.cluster_default, props)

    def add_listener(self, names, callback):
        """callback({name: effective value}) now, and whenever one of those names' effective value changes."""
        names = list(names)
        self._listeners.append((names, callback))
        callback({name: self.value(name) for name in names})
