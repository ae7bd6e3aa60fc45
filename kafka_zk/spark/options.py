"""Options of the kafka_zk Spark source and sink: Spark's Kafka option names, checked and parsed (no Spark, no I/O)."""

import json
import re
from dataclasses import dataclass, field

EARLIEST = -2
LATEST = -1

# Option names Spark's Kafka source and sink accept (lower-cased: Spark passes options case-insensitively).
SOURCE_OPTIONS = {
    "subscribe",
    "subscribepattern",
    "assign",
    "startingoffsets",
    "endingoffsets",
    "startingoffsetsbytimestamp",
    "endingoffsetsbytimestamp",
    "startingtimestamp",
    "endingtimestamp",
    "includeheaders",
    "failondataloss",
    "maxoffsetspertrigger",
    "minoffsetspertrigger",
    "minpartitions",
    "maxtriggerdelay",
    "groupidprefix",
    "kafkaconsumer.polltimeoutms",
    "fetchoffset.numretries",
    "fetchoffset.retryintervalms",
    "startingoffsetsbytimestampstrategy",
}
SINK_OPTIONS = {"topic", "includeheaders"}
# Options Spark itself may add to a data source's option map.
_SPARK_OPTIONS = {"path", "paths", "checkpointlocation", "queryname"}
# Client settings our connector owns; a user may not override them through kafka.*.
_RESERVED_CLIENT_SETTINGS = {
    "kafka.group.id": "group.id is not supported: the source assigns partitions itself and tracks offsets in Spark",
    "kafka.auto.offset.reset": "kafka.auto.offset.reset is not supported: use startingOffsets instead",
    "kafka.enable.auto.commit": "kafka.enable.auto.commit is not supported: offsets are checkpointed by Spark",
    "kafka.key.deserializer": "kafka.key.deserializer is not supported: keys are always read as bytes",
    "kafka.value.deserializer": "kafka.value.deserializer is not supported: values are always read as bytes",
    "kafka.key.serializer": "kafka.key.serializer is not supported: keys are always written as bytes",
    "kafka.value.serializer": "kafka.value.serializer is not supported: values are always written as bytes",
}


class KafkaZkOptionError(ValueError):
    """An option of the kafka_zk source or sink is missing, unknown or malformed."""


@dataclass(frozen=True)
class Subscription:
    """What to read: ``kind`` is 'subscribe' (topics), 'subscribePattern' (pattern) or 'assign' (partitions)."""

    kind: str
    topics: tuple = ()
    pattern: str = None
    partitions: tuple = ()  # ((topic, partition), ...) for assign

    def matches(self, topic):
        if self.kind == "subscribe":
            return topic in self.topics
        if self.kind == "subscribePattern":
            return re.fullmatch(self.pattern, topic) is not None
        return any(t == topic for t, _ in self.partitions)


@dataclass(frozen=True)
class OffsetSpec:
    """A starting or ending position: 'earliest', 'latest', per-partition offsets, or per-partition timestamps."""

    kind: str  # "earliest" | "latest" | "offsets" | "timestamps"
    by_partition: dict = field(default_factory=dict)  # {(topic, partition): offset or timestamp}


@dataclass(frozen=True)
class SourceOptions:
    bootstrap_servers: str
    subscription: Subscription
    starting: OffsetSpec
    ending: OffsetSpec
    include_headers: bool
    fail_on_data_loss: bool
    max_offsets_per_trigger: int
    min_partitions: int
    poll_timeout_ms: int
    client_settings: dict  # kafka.* options without the prefix


@dataclass(frozen=True)
class SinkOptions:
    bootstrap_servers: str
    topic: str
    client_settings: dict


def parse_bool(options, name, default):
    raw = options.get(name)
    if raw is None:
        return default
    text = str(raw).strip().lower()
    if text not in ("true", "false"):
        raise KafkaZkOptionError("Option '%s' must be true or false, not '%s'" % (name, raw))
    return text == "true"


def _positive_int(options, name, default, minimum=1):
    raw = options.get(name)
    if raw is None:
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise KafkaZkOptionError("Option '%s' must be a positive integer, not '%s'" % (name, raw)) from None
    if value < minimum:
        raise KafkaZkOptionError("Option '%s' must be a positive integer, not '%s'" % (name, raw))
    return value


def client_settings(options):
    """The kafka.* options without their prefix (kafka.bootstrap.servers included as bootstrap.servers)."""
    settings = {}
    for key, value in options.items():
        if key.startswith("kafka."):
            if key in _RESERVED_CLIENT_SETTINGS:
                raise KafkaZkOptionError(_RESERVED_CLIENT_SETTINGS[key])
            settings[key[len("kafka.") :]] = str(value)
    return settings


def check_known_options(options, allowed, role):
    unknown = sorted(k for k in options if not k.startswith("kafka.") and k not in allowed and k not in _SPARK_OPTIONS)
    if unknown:
        raise KafkaZkOptionError(
            "Unknown option%s for the kafka_zk %s: %s (client settings go as kafka.<name>)"
            % ("s" if len(unknown) > 1 else "", role, ", ".join(unknown))
        )


def _bootstrap(options):
    servers = options.get("kafka.bootstrap.servers")
    if not servers or not str(servers).strip():
        raise KafkaZkOptionError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka")
    return str(servers).strip()


def parse_subscription(options):
    chosen = [name for name in ("assign", "subscribe", "subscribepattern") if options.get(name) is not None]
    if len(chosen) != 1:
        raise KafkaZkOptionError(
            "One of the following options must be specified for Kafka source: subscribe, subscribePattern, assign. "
            "See the docs for more details."
            if not chosen
            else "Only one of the following options can be specified for Kafka source: subscribe, subscribePattern, "
            "assign; got %s" % ", ".join({"subscribepattern": "subscribePattern"}.get(c, c) for c in chosen)
        )
    kind = chosen[0]
    raw = str(options[kind]).strip()
    if kind == "subscribe":
        topics = tuple(t.strip() for t in raw.split(",") if t.strip())
        if not topics:
            raise KafkaZkOptionError(
                "No topics to subscribe to as specified value for option 'subscribe' is '%s'" % options[kind]
            )
        return Subscription("subscribe", topics=topics)
    if kind == "subscribepattern":
        if not raw:
            raise KafkaZkOptionError(
                "Pattern to subscribe is empty as specified value for option 'subscribePattern' is '%s'" % options[kind]
            )
        try:
            re.compile(raw)
        except re.error as exc:
            raise KafkaZkOptionError("Option 'subscribePattern' is not a valid regex: %s (%s)" % (raw, exc)) from None
        return Subscription("subscribePattern", pattern=raw)
    partitions = []
    for topic, parts in _json_object(raw, "assign", '{"topicA":[0,1],"topicB":[2,4]}').items():
        if not isinstance(parts, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
            raise KafkaZkOptionError(
                'Expected e.g. {"topicA":[0,1],"topicB":[2,4]} for option \'assign\', got %s' % raw
            )
        partitions.extend((topic, p) for p in parts)
    if not partitions:
        raise KafkaZkOptionError("No partitions to assign as specified value for option 'assign' is '%s'" % raw)
    return Subscription("assign", topics=tuple(sorted({t for t, _ in partitions})), partitions=tuple(partitions))


def _json_object(raw, name, example):
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise KafkaZkOptionError("Expected e.g. %s for option '%s', got %s" % (example, name, raw))
    return value


def parse_offsets(options, name, default, allow_earliest=True):
    """An OffsetSpec from option ``name`` ('earliest', 'latest' or JSON {"topic":{"0":23,"1":-2}})."""
    raw = options.get(name)
    spelled = {"startingoffsets": "startingOffsets", "endingoffsets": "endingOffsets"}[name]
    if raw is None:
        return OffsetSpec(default)
    text = str(raw).strip()
    if text.lower() == "latest":
        return OffsetSpec("latest")
    if text.lower() == "earliest":
        if not allow_earliest:
            raise KafkaZkOptionError("Option '%s' cannot be 'earliest'" % spelled)
        return OffsetSpec("earliest")
    example = '{"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}'
    by_partition = {}
    for topic, parts in _json_object(text, spelled, example).items():
        if not isinstance(parts, dict):
            raise KafkaZkOptionError("Expected e.g. %s for option '%s', got %s" % (example, spelled, text))
        for partition, offset in parts.items():
            if not str(partition).lstrip("-").isdigit() or not isinstance(offset, int) or isinstance(offset, bool):
                raise KafkaZkOptionError("Expected e.g. %s for option '%s', got %s" % (example, spelled, text))
            if offset < EARLIEST or (offset == EARLIEST and not allow_earliest):
                raise KafkaZkOptionError(
                    "Option '%s' has an invalid offset %d for %s-%s" % (spelled, offset, topic, partition)
                )
            by_partition[(topic, int(partition))] = offset
    return OffsetSpec("offsets", by_partition)


def parse_timestamps(options, name):
    raw = options.get(name)
    if raw is None:
        return None
    example = '{"topicA":{"0":1700000000000,"1":1700000000000}}'
    by_partition = {}
    for topic, parts in _json_object(str(raw).strip(), "startingOffsetsByTimestamp", example).items():
        if not isinstance(parts, dict):
            raise KafkaZkOptionError(
                "Expected e.g. %s for option 'startingOffsetsByTimestamp', got %s" % (example, raw)
            )
        for partition, timestamp in parts.items():
            if not str(partition).isdigit() or not isinstance(timestamp, int) or timestamp < 0:
                raise KafkaZkOptionError(
                    "Expected e.g. %s for option 'startingOffsetsByTimestamp', got %s" % (example, raw)
                )
            by_partition[(topic, int(partition))] = timestamp
    return OffsetSpec("timestamps", by_partition)


def parse_source_options(options, streaming):
    """SourceOptions from the (lower-cased) option map; KafkaZkOptionError says what is wrong."""
    check_known_options(options, SOURCE_OPTIONS, "source")
    bootstrap = _bootstrap(options)
    subscription = parse_subscription(options)
    starting = parse_timestamps(options, "startingoffsetsbytimestamp") or parse_offsets(
        options, "startingoffsets", "latest" if streaming else "earliest"
    )
    if streaming and options.get("endingoffsets") is not None:
        raise KafkaZkOptionError("Option 'endingOffsets' is not supported in streaming queries")
    if not streaming and starting.kind == "latest":
        raise KafkaZkOptionError("Option 'startingOffsets' for a batch query cannot be 'latest'")
    if not streaming and starting.kind == "offsets" and LATEST in starting.by_partition.values():
        raise KafkaZkOptionError("Option 'startingOffsets' for a batch query cannot use -1 (latest) for a partition")
    ending = parse_offsets(options, "endingoffsets", "latest", allow_earliest=False)
    if not streaming and options.get("maxoffsetspertrigger") is not None:
        raise KafkaZkOptionError("Option 'maxOffsetsPerTrigger' is only supported in streaming queries")
    return SourceOptions(
        bootstrap_servers=bootstrap,
        subscription=subscription,
        starting=starting,
        ending=ending,
        include_headers=parse_bool(options, "includeheaders", False),
        fail_on_data_loss=parse_bool(options, "failondataloss", True),
        max_offsets_per_trigger=_positive_int(options, "maxoffsetspertrigger", None),
        min_partitions=_positive_int(options, "minpartitions", None),
        poll_timeout_ms=_positive_int(options, "kafkaconsumer.polltimeoutms", 120000),
        client_settings=client_settings(options),
    )


def parse_sink_options(options):
    check_known_options(options, SINK_OPTIONS, "sink")
    bootstrap = _bootstrap(options)
    topic = options.get("topic")
    return SinkOptions(bootstrap, str(topic).strip() if topic is not None else None, client_settings(options))
