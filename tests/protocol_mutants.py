"""Requests for mutation fuzzing: plausible bodies built from our schemas, then mutated field by field or byte
by byte. Deterministic for a given random.Random."""

import struct

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.headers import encode_request
from kafka_zk.protocol.schema import Array
from kafka_zk.record.compression import GZIP, LZ4, NONE, SNAPPY, ZSTD
from kafka_zk.record.legacy import encode_message_set
from kafka_zk.record.records import Record, encode_batch

PRODUCE_KEY = 0
CODECS = (NONE, GZIP, SNAPPY, LZ4, ZSTD)
_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
}


class Targets:
    """Names that exist on the cluster under test, so that valid requests reach deep into the broker."""

    def __init__(self, topics, group="fuzz-group", brokers=(0, 1, 2)):
        self.topics = list(topics)
        self.group = group
        self.brokers = list(brokers)


def record_sets(rng):
    """Valid record payloads of every codec and format, and a few damaged ones."""
    records = [(b"key-%d" % i, b"value-%d" % i * rng.randint(1, 4)) for i in range(rng.randint(1, 5))]
    codec = rng.choice(CODECS)
    choice = rng.random()
    if choice < 0.7:
        return encode_batch(records, compression=codec, first_timestamp=1700000000000)
    if choice < 0.85:
        legacy = [Record(None, 1700000000000, key, value) for key, value in records]
        return encode_message_set(legacy, rng.choice((0, 1)), compression=rng.choice(CODECS[:4]))
    batch = bytearray(encode_batch(records, compression=codec, first_timestamp=1700000000000))
    return mutate_bytes(rng, bytes(batch))


def _plausible_int(name, type_, rng, targets):
    if "partition" in name and "count" not in name:
        return rng.randint(0, 3)
    if name in ("replica_id",):
        return -1
    if name in ("broker_id", "leader", "node_id", "leader_id", "coordinator_key_type"):
        return rng.choice(targets.brokers) if name != "coordinator_key_type" else rng.randint(0, 1)
    if "epoch" in name:
        return rng.choice((-1, 0, 1))
    if "timeout" in name or name.endswith("_ms"):
        return rng.choice((0, 50, 200))
    if "bytes" in name:
        return rng.choice((1, 1024, 1 << 20))
    if name == "acks":
        return rng.choice((-1, 0, 1))
    if "offset" in name or "timestamp" in name:
        return rng.choice((-2, -1, 0, 1, 5))
    if name in ("count", "num_partitions", "replication_factor"):
        return rng.choice((-1, 1, 2, 3))
    low, high = _INT_RANGES[type_]
    return max(low, min(high, rng.randint(0, 3)))


def _plausible_string(name, rng, targets):
    if "group" in name or name in ("key",) or "member" in name and "id" in name:
        return targets.group
    if "topic" in name or name in ("name", "resource_name"):
        return rng.choice(targets.topics)
    if "protocol" in name:
        return rng.choice(("consumer", "range", ""))
    return rng.choice(("", "fuzz", "retention.ms", "cleanup.policy"))


def _extreme_int(type_, rng):
    low, high = _INT_RANGES[type_]
    return rng.choice((low, high, -1, 0, low + 1, high - 1, rng.randint(low, high)))


def _extreme_string(field, version, rng):
    options = ["", "\u0000", "x" * rng.choice((255, 256, 32767)), "../../etc", "topic with spaces", "é" * 40]
    if field.nullable_in(version):
        options.append(None)
    return rng.choice(options)


class BodyBuilder:
    """Builds one request body for a schema version, mutating each field with probability ``rate``."""

    def __init__(self, rng, targets, rate):
        self.rng = rng
        self.targets = targets
        self.rate = rate

    def struct(self, fields, version):
        body = {}
        for field in fields:
            if field.present_in(version):
                body[field.name] = self.value(field, field.type, version)
        return body

    def value(self, field, type_, version):
        rng = self.rng
        mutate = rng.random() < self.rate
        if isinstance(type_, Array):
            if mutate:
                choice = rng.random()
                if choice < 0.3 and field.nullable_in(version):
                    return None
                count = 0 if choice < 0.6 else rng.choice((20, 200))
            else:
                count = rng.randint(1, 2)
            return [self.value(field, type_.element, version) for _ in range(count)]
        if isinstance(type_, list):
            return self.struct(type_, version)
        if type_ in _INT_RANGES:
            return _extreme_int(type_, rng) if mutate else _plausible_int(field.name, type_, rng, self.targets)
        if type_ == "bool":
            return rng.random() < 0.5
        if type_ == "float64":
            return rng.choice((0.0, 1.5, -1.0, float("inf"))) if mutate else 1.0
        if type_ == "string":
            return _extreme_string(field, version, rng) if mutate else _plausible_string(field.name, rng, self.targets)
        if type_ == "records":
            if mutate:
                return rng.choice((b"", bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 80)))))
            return record_sets(rng)
        # bytes
        if mutate:
            return rng.choice((None, b"", b"\xff" * rng.randint(1, 64))) if field.nullable_in(version) else b""
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 24)))


def mutate_bytes(rng, data):
    """One byte-level mutation: a flipped bit, an overwritten int32, a truncation or an insertion."""
    data = bytearray(data)
    if not data:
        return bytes(rng.getrandbits(8) for _ in range(8))
    choice = rng.random()
    position = rng.randrange(len(data))
    if choice < 0.35:
        data[position] ^= 1 << rng.randrange(8)
    elif choice < 0.6 and len(data) >= 4:
        position = rng.randrange(len(data) - 3)
        data[position : position + 4] = struct.pack(">i", rng.choice((-1, 0x7FFFFFFF, -0x80000000, 0x10000)))
    elif choice < 0.8:
        del data[position:]
    else:
        data[position:position] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 16)))
    return bytes(data)


def mutant_requests(rng, api_key, version, targets, count, correlation_start=1):
    """``count`` (payload without frame length, whether an answer is due) for one API version: field mutants
    and, every third one, a byte mutant. A Produce with acks=0 gets no answer."""
    spec = API_SPECS[api_key]
    payloads = []
    for index in range(count):
        builder = BodyBuilder(rng, targets, rate=0.0 if index == 0 else 0.2)
        body = builder.struct(spec.request.fields, version)
        try:
            payload = encode_request(api_key, version, correlation_start + index, "fuzz", body)
        except Exception:  # a mutated value this version cannot carry (e.g. a null where none is allowed)
            body = BodyBuilder(rng, targets, rate=0.0).struct(spec.request.fields, version)
            payload = encode_request(api_key, version, correlation_start + index, "fuzz", body)
        answered = not (api_key == PRODUCE_KEY and body.get("acks") == 0)
        if index % 3 == 2:
            header_size = 8  # keep api key, version and correlation id readable most of the time
            payload = payload[:header_size] + mutate_bytes(rng, payload[header_size:])
        payloads.append((payload, answered))
    return payloads
