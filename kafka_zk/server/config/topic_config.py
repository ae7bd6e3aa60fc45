"""Topic-level config names (Kafka's LogConfig): types, validation, and merging over broker defaults."""

import logging

from kafka_zk.log.log_config import LogConfig
from kafka_zk.server.config.kafka_config import ConfigError, check_one_of

log = logging.getLogger(__name__)


class UnknownConfigError(ConfigError):
    """A name that is no topic config (Kafka's InvalidConfigurationException, INVALID_CONFIG wherever it comes)."""


# name -> (type, allowed values or None)
TOPIC_CONFIGS = {
    "segment.bytes": ("int", None),
    "segment.ms": ("long", None),
    "segment.jitter.ms": ("long", None),
    "segment.index.bytes": ("int", None),
    "index.interval.bytes": ("int", None),
    "retention.ms": ("long", None),
    "retention.bytes": ("long", None),
    "max.message.bytes": ("int", None),
    "cleanup.policy": ("non-empty list", ("compact", "delete")),
    "min.insync.replicas": ("int", None),
    "unclean.leader.election.enable": ("bool", None),
    "message.timestamp.type": ("string", ("CreateTime", "LogAppendTime")),
    "message.timestamp.difference.max.ms": ("long", None),
    "compression.type": ("string", ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    "file.delete.delay.ms": ("long", None),
    "flush.messages": ("long", None),
    "flush.ms": ("long", None),
    "message.format.version": ("string", None),
    "preallocate": ("bool", None),
    "delete.retention.ms": ("long", None),
    "min.compaction.lag.ms": ("long", None),
    "max.compaction.lag.ms": ("long", None),
    "min.cleanable.dirty.ratio": ("double", None),
    "message.downconversion.enable": ("bool", None),
    "leader.replication.throttled.replicas": ("list", None),
    "follower.replication.throttled.replicas": ("list", None),
}

# The broker configs that set each topic config's default, highest precedence first.
BROKER_SYNONYMS = {
    "segment.bytes": ["log.segment.bytes"],
    "segment.ms": ["log.roll.ms", "log.roll.hours"],
    "segment.jitter.ms": ["log.roll.jitter.ms", "log.roll.jitter.hours"],
    "segment.index.bytes": ["log.index.size.max.bytes"],
    "index.interval.bytes": ["log.index.interval.bytes"],
    "retention.ms": ["log.retention.ms", "log.retention.minutes", "log.retention.hours"],
    "retention.bytes": ["log.retention.bytes"],
    "max.message.bytes": ["message.max.bytes"],
    "cleanup.policy": ["log.cleanup.policy"],
    "min.insync.replicas": ["min.insync.replicas"],
    "unclean.leader.election.enable": ["unclean.leader.election.enable"],
    "message.timestamp.type": ["log.message.timestamp.type"],
    "message.timestamp.difference.max.ms": ["log.message.timestamp.difference.max.ms"],
    "compression.type": ["compression.type"],
    "file.delete.delay.ms": ["log.segment.delete.delay.ms"],
    "flush.messages": ["log.flush.interval.messages"],
    "flush.ms": ["log.flush.interval.ms"],
    "message.format.version": ["log.message.format.version"],
    "preallocate": ["log.preallocate"],
    "delete.retention.ms": ["log.cleaner.delete.retention.ms"],
    "min.compaction.lag.ms": ["log.cleaner.min.compaction.lag.ms"],
    "max.compaction.lag.ms": ["log.cleaner.max.compaction.lag.ms"],
    "min.cleanable.dirty.ratio": ["log.cleaner.min.cleanable.ratio"],
    "message.downconversion.enable": ["log.message.downconversion.enable"],
    "leader.replication.throttled.replicas": [],
    "follower.replication.throttled.replicas": [],
}

_MINIMUMS = {
    "segment.bytes": 14,
    "segment.ms": 1,
    "segment.index.bytes": 4,
    "min.insync.replicas": 1,
    "max.message.bytes": 0,
    "index.interval.bytes": 0,
    "retention.ms": -1,
    "retention.bytes": -1,
    "file.delete.delay.ms": 0,
    "flush.messages": 0,
    "flush.ms": 0,
    "delete.retention.ms": 0,
    "min.compaction.lag.ms": 0,
    "max.compaction.lag.ms": 1,
}


def parse_topic_config_value(name, raw):
    """Parse and validate one topic config value given as a string; raises ConfigError."""
    if name not in TOPIC_CONFIGS:
        raise UnknownConfigError("Unknown topic config name: %s" % name)
    kind, allowed = TOPIC_CONFIGS[name]
    text = str(raw).strip()
    try:
        if kind in ("int", "long"):
            value = int(text)
        elif kind == "double":
            value = float(text)
        elif kind == "bool":
            if text.lower() not in ("true", "false"):
                raise ValueError(text)
            value = text.lower() == "true"
        elif kind == "list":
            value = [item.strip() for item in text.split(",") if item.strip()]
        elif kind == "non-empty list":
            value = [item.strip() for item in text.split(",")]
        else:
            value = text
    except ValueError:
        raise ConfigError(
            "Invalid value %s for configuration %s: Expected value to be a %s"
            % (raw, name, "boolean" if kind == "bool" else "number")
        ) from None
    if allowed is not None:
        check_one_of(name, value, allowed)
    minimum = _MINIMUMS.get(name)
    if minimum is not None and value < minimum:
        raise ConfigError("Invalid value %s for configuration %s: Value must be at least %s" % (raw, name, minimum))
    if name in _THROTTLED_REPLICA_LISTS:
        _check_throttled_replicas(name, raw, value)
    if isinstance(value, list):
        value = ",".join(value)
    return value


def is_list_config(name):
    return TOPIC_CONFIGS[name][0].endswith("list")


_THROTTLED_REPLICA_LISTS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


def _check_throttled_replicas(name, raw, items):
    """Kafka's ThrottledReplicaListValidator: the literal '*' or partitionId:brokerId pairs."""
    if items == ["*"]:
        return
    for item in items:
        partition, sep, broker = item.partition(":")
        if not (sep and partition.strip().isdigit() and broker.strip().isdigit()):
            raise ConfigError(
                "Invalid value %s for configuration %s: %s must be the literal '*' or a list of "
                "replicas in the following format: [partitionId]:[brokerId],[partitionId]:"
                "[brokerId],..." % (raw, name, name)
            )


def validate_topic_configs(configs):
    """Validate a {name: string} dict; return the typed values."""
    return {name: parse_topic_config_value(name, value) for name, value in configs.items()}


def effective_topic_config(broker_defaults, overrides):
    """Broker defaults with the topic's own overrides (strings from ZooKeeper) on top. A stored override that is
    not valid (written past the checks, or by an older version that allowed an empty cleanup.policy) is logged
    and the broker default is kept."""
    merged = dict(broker_defaults)
    for name, raw in overrides.items():
        if name in TOPIC_CONFIGS:
            try:
                merged[name] = parse_topic_config_value(name, raw)
            except ConfigError as error:
                log.warning("ignoring an invalid topic config override: %s", error)
    return merged


def to_log_config(effective):
    """The LogConfig the log package needs, from an effective topic config dict."""
    return LogConfig(
        segment_bytes=effective["segment.bytes"],
        segment_ms=effective["segment.ms"],
        retention_ms=effective["retention.ms"],
        retention_bytes=effective["retention.bytes"],
        index_interval_bytes=effective["index.interval.bytes"],
        max_index_size=effective["segment.index.bytes"],
        max_message_bytes=effective["max.message.bytes"],
        cleanup_policy=effective["cleanup.policy"],
        file_delete_delay_ms=effective["file.delete.delay.ms"],
        flush_ms=effective["flush.ms"],
        min_cleanable_dirty_ratio=effective["min.cleanable.dirty.ratio"],
        min_compaction_lag_ms=effective["min.compaction.lag.ms"],
        max_compaction_lag_ms=effective["max.compaction.lag.ms"],
        delete_retention_ms=effective["delete.retention.ms"],
        min_insync_replicas=effective["min.insync.replicas"],
        message_timestamp_type=effective["message.timestamp.type"],
        message_timestamp_difference_max_ms=effective["message.timestamp.difference.max.ms"],
        compression_type=effective["compression.type"],
    )


def format_config_value(value):
    """A typed config value as Kafka prints it (booleans lower-case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)
