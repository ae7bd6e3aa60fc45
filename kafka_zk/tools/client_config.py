"""Java client configs (as the perf tools take them) checked like Kafka 2.5's ConfigDef and turned into librdkafka's."""

import re

from kafka_zk.security.client_properties import SecuritySettingsError, librdkafka_security, split_security


class ClientConfigError(ValueError):
    """A config Kafka's client rejects; the message is Kafka's ConfigException text."""


_INT = re.compile(r"^[+-]?\d+$")
_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1


def _number(name, value, kind, at_least=None):
    text = str(value).strip()
    limit = _INT_MAX if kind == "INT" else _LONG_MAX
    if not _INT.match(text) or not -limit - 1 <= int(text) <= limit:
        raise ClientConfigError("Invalid value %s for configuration %s: Not a number of type %s" % (value, name, kind))
    number = int(text)
    if at_least is not None and number < at_least:
        raise ClientConfigError(
            "Invalid value %s for configuration %s: Value must be at least %d" % (value, name, at_least)
        )
    return number


def _boolean(name, value):
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise ClientConfigError(
            "Invalid value %s for configuration %s: Expected value to be either true or false" % (value, name)
        )
    return text


def _choice(name, value, choices, lower=False):
    text = str(value).strip()
    if (text.lower() if lower else text) not in choices:
        raise ClientConfigError(
            "Invalid value %s for configuration %s: String must be one of: %s" % (value, name, ", ".join(choices))
        )
    return text.lower() if lower else text


def _compression(name, value):
    text = str(value).strip()
    if text not in ("none", "gzip", "snappy", "lz4", "zstd"):
        raise ClientConfigError("Unknown compression name: %s" % text)
    return text


def _text(name, value):
    return str(value).strip()


# Java name -> (librdkafka name, converter). Values are checked as the 2.5 ConfigDef checks them.
PRODUCER_CONFIGS = {
    "bootstrap.servers": ("bootstrap.servers", _text),
    "client.id": ("client.id", _text),
    "acks": ("acks", lambda n, v: _choice(n, v, ("all", "-1", "0", "1"))),
    "compression.type": ("compression.type", _compression),
    "batch.size": ("batch.size", lambda n, v: str(_number(n, v, "INT", 0))),
    "linger.ms": ("linger.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "buffer.memory": ("queue.buffering.max.kbytes", lambda n, v: str(max(1, _number(n, v, "LONG", 0) // 1024))),
    "retries": ("retries", lambda n, v: str(_number(n, v, "INT", 0))),
    "retry.backoff.ms": ("retry.backoff.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "delivery.timeout.ms": ("message.timeout.ms", lambda n, v: str(_number(n, v, "INT", 0))),
    "request.timeout.ms": ("request.timeout.ms", lambda n, v: str(_number(n, v, "INT", 0))),
    "max.in.flight.requests.per.connection": ("max.in.flight", lambda n, v: str(_number(n, v, "INT", 1))),
    "max.request.size": ("message.max.bytes", lambda n, v: str(_number(n, v, "INT", 0))),
    "enable.idempotence": ("enable.idempotence", _boolean),
    "transactional.id": ("transactional.id", _text),
    "transaction.timeout.ms": ("transaction.timeout.ms", lambda n, v: str(_number(n, v, "INT"))),
    "send.buffer.bytes": ("socket.send.buffer.bytes", lambda n, v: str(max(0, _number(n, v, "INT", -1)))),
    "receive.buffer.bytes": ("socket.receive.buffer.bytes", lambda n, v: str(max(0, _number(n, v, "INT", -1)))),
    "reconnect.backoff.ms": ("reconnect.backoff.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "reconnect.backoff.max.ms": ("reconnect.backoff.max.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "metadata.max.age.ms": ("metadata.max.age.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "connections.max.idle.ms": ("connections.max.idle.ms", lambda n, v: str(_number(n, v, "LONG"))),
}

CONSUMER_CONFIGS = {
    "bootstrap.servers": ("bootstrap.servers", _text),
    "client.id": ("client.id", _text),
    "group.id": ("group.id", _text),
    "auto.offset.reset": ("auto.offset.reset", lambda n, v: _choice(n, v, ("latest", "earliest", "none"), True)),
    "max.partition.fetch.bytes": ("max.partition.fetch.bytes", lambda n, v: str(_number(n, v, "INT", 0))),
    "fetch.max.bytes": ("fetch.max.bytes", lambda n, v: str(_number(n, v, "INT", 0))),
    "fetch.min.bytes": ("fetch.min.bytes", lambda n, v: str(_number(n, v, "INT", 0))),
    "fetch.max.wait.ms": ("fetch.wait.max.ms", lambda n, v: str(_number(n, v, "INT", 0))),
    "receive.buffer.bytes": ("socket.receive.buffer.bytes", lambda n, v: str(max(0, _number(n, v, "INT", -1)))),
    "send.buffer.bytes": ("socket.send.buffer.bytes", lambda n, v: str(max(0, _number(n, v, "INT", -1)))),
    "check.crcs": ("check.crcs", _boolean),
    "isolation.level": ("isolation.level", lambda n, v: _choice(n, v, ("read_committed", "read_uncommitted"), True)),
    "request.timeout.ms": ("socket.timeout.ms", lambda n, v: str(_number(n, v, "INT", 0))),
    "retry.backoff.ms": ("retry.backoff.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "reconnect.backoff.ms": ("reconnect.backoff.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "reconnect.backoff.max.ms": ("reconnect.backoff.max.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "metadata.max.age.ms": ("metadata.max.age.ms", lambda n, v: str(_number(n, v, "LONG", 0))),
    "connections.max.idle.ms": ("connections.max.idle.ms", lambda n, v: str(_number(n, v, "LONG"))),
    "allow.auto.create.topics": ("allow.auto.create.topics", _boolean),
}

# Known to Kafka's clients and without effect on what a perf run sends or reads.
_NO_EFFECT = {
    "key.serializer",
    "value.serializer",
    "key.deserializer",
    "value.deserializer",
    "metric.reporters",
    "metrics.num.samples",
    "metrics.recording.level",
    "metrics.sample.window.ms",
    "max.block.ms",
    "client.dns.lookup",
    "security.providers",
    "enable.auto.commit",
    "auto.commit.interval.ms",
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "max.poll.records",
    "max.poll.interval.ms",
    "exclude.internal.topics",
    "default.api.timeout.ms",
    "partition.assignment.strategy",
    "group.instance.id",
    "client.rack",
    "interceptor.classes",
}


def translate(props, table, warn):
    """librdkafka settings for Java ``props``; ``warn(line)`` hears about configs that are dropped. The security
    settings (security.protocol, ssl.*, sasl.*) are command_config.librdkafka_security's."""
    props, security = split_security(props)
    try:
        settings = librdkafka_security(security)
    except SecuritySettingsError as error:
        raise ClientConfigError(str(error)) from None
    for name, value in props.items():
        if name in table:
            target, convert = table[name]
            settings[target] = convert(name, value)
        elif name not in _NO_EFFECT:
            warn("WARN The configuration '%s' was supplied but isn't a known config." % name)
    return settings


def require_bootstrap(props):
    if not str(props.get("bootstrap.servers", "")).strip():
        raise ClientConfigError('Missing required configuration "bootstrap.servers" which has no default value.')
