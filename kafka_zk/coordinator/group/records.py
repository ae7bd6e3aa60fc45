"""The `__consumer_offsets` topic: its name, its record formats (offset commit and group metadata keys/values) and
partitionFor."""

from dataclasses import dataclass, field
from typing import List, Optional

from kafka_zk.protocol.primitives import ProtocolDecodeError, Reader, Writer
from kafka_zk.record.buffers import ReadableBuffer

OFFSETS_TOPIC = "__consumer_offsets"
OFFSET_COMMIT_KEY_VERSIONS = (0, 1)
GROUP_METADATA_KEY_VERSION = 2
CURRENT_OFFSET_KEY_VERSION = 1
# Kafka 2.5 (inter-broker protocol 2.5) writes offset value v3 unless an explicit expire time
# was given (v1), and group metadata value v3.
CURRENT_OFFSET_VALUE_VERSION = 3
CURRENT_GROUP_VALUE_VERSION = 3
NO_LEADER_EPOCH = -1
NO_EXPIRE_TIMESTAMP = None


def java_string_hash(text: str) -> int:
    """Java's String.hashCode: over UTF-16 code units, wrapped to a signed int32."""
    data = text.encode("utf-16-be")
    value = 0
    for i in range(0, len(data), 2):
        value = (31 * value + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return value - (1 << 32) if value >= (1 << 31) else value


def java_abs(value: int) -> int:
    """Kafka's Utils.abs: abs of an int32 that maps Integer.MIN_VALUE to 0."""
    return 0 if value == -(1 << 31) else abs(value)


def partition_for(group_id: str, num_partitions: int) -> int:
    """The `__consumer_offsets` partition whose leader coordinates ``group_id``."""
    return java_abs(java_string_hash(group_id)) % num_partitions


@dataclass(frozen=True)
class OffsetKey:
    group: str
    topic: str
    partition: int


@dataclass(frozen=True)
class GroupKey:
    group: str


@dataclass
class OffsetValue:
    offset: int
    metadata: str = ""
    commit_timestamp: int = 0
    expire_timestamp: Optional[int] = None
    leader_epoch: int = NO_LEADER_EPOCH


@dataclass
class MemberRecord:
    member_id: str
    group_instance_id: Optional[str]
    client_id: str
    client_host: str
    rebalance_timeout: int
    session_timeout: int
    subscription: bytes
    assignment: bytes


@dataclass
class GroupValue:
    protocol_type: str
    generation: int
    protocol: Optional[str]
    leader: Optional[str]
    current_state_timestamp: Optional[int] = None
    members: List[MemberRecord] = field(default_factory=list)


class RecordFormatError(ValueError):
    """A `__consumer_offsets` key or value that does not parse (unknown version, truncated)."""


# Keys.


def encode_offset_key(key: OffsetKey, version: int = CURRENT_OFFSET_KEY_VERSION) -> bytes:
    if version not in OFFSET_COMMIT_KEY_VERSIONS:
        raise ValueError("offset key version %r" % version)
    w = Writer()
    w.write_int16(version)
    w.write_string(key.group)
    w.write_string(key.topic)
    w.write_int32(key.partition)
    return w.getvalue()


def encode_group_key(key: GroupKey) -> bytes:
    w = Writer()
    w.write_int16(GROUP_METADATA_KEY_VERSION)
    w.write_string(key.group)
    return w.getvalue()


def decode_key(data: ReadableBuffer) -> OffsetKey | GroupKey:
    """An OffsetKey (versions 0, 1) or a GroupKey (version 2)."""
    try:
        r = Reader(data)
        version = r.read_int16()
        if version in OFFSET_COMMIT_KEY_VERSIONS:
            return OffsetKey(r.read_string(), r.read_string(), r.read_int32())
        if version == GROUP_METADATA_KEY_VERSION:
            return GroupKey(r.read_string())
    except ProtocolDecodeError as exc:
        raise RecordFormatError("truncated __consumer_offsets key: %s" % exc) from None
    raise RecordFormatError("unknown __consumer_offsets key version %d" % version)


# Offset values.


def offset_value_version(value: OffsetValue) -> int:
    """The version Kafka 2.5 writes for this commit: v1 with an explicit expire time, else v3."""
    return 1 if value.expire_timestamp is not None else CURRENT_OFFSET_VALUE_VERSION


def encode_offset_value(value: OffsetValue, version: int | None = None) -> bytes:
    version = offset_value_version(value) if version is None else version
    w = Writer()
    w.write_int16(version)
    w.write_int64(value.offset)
    if version == 3:
        w.write_int32(value.leader_epoch)
    w.write_string(value.metadata)
    w.write_int64(value.commit_timestamp)
    if version == 1:
        w.write_int64(-1 if value.expire_timestamp is None else value.expire_timestamp)
    elif version not in (0, 2, 3):
        raise ValueError("offset value version %r" % version)
    return w.getvalue()


def decode_offset_value(data: ReadableBuffer | None) -> OffsetValue | None:
    """An OffsetValue, or None for a tombstone (null value)."""
    if data is None:
        return None
    try:
        r = Reader(data)
        version = r.read_int16()
        if version not in (0, 1, 2, 3):
            raise RecordFormatError("unknown offset commit value version %d" % version)
        offset = r.read_int64()
        epoch = r.read_int32() if version == 3 else NO_LEADER_EPOCH
        metadata = r.read_string()
        commit_ts = r.read_int64()
        expire_ts = r.read_int64() if version == 1 else None
        if expire_ts == -1:
            expire_ts = None
        return OffsetValue(offset, metadata, commit_ts, expire_ts, epoch)
    except ProtocolDecodeError as exc:
        raise RecordFormatError("truncated offset commit value: %s" % exc) from None


# Group metadata values.


def encode_group_value(value: GroupValue, version: int = CURRENT_GROUP_VALUE_VERSION) -> bytes:
    if version not in (0, 1, 2, 3):
        raise ValueError("group value version %r" % version)
    w = Writer()
    w.write_int16(version)
    w.write_string(value.protocol_type)
    w.write_int32(value.generation)
    w.write_nullable_string(value.protocol)
    w.write_nullable_string(value.leader)
    if version >= 2:
        ts = value.current_state_timestamp
        w.write_int64(-1 if ts is None else ts)
    w.write_array_length(len(value.members), False)
    for m in value.members:
        w.write_string(m.member_id)
        if version >= 3:
            w.write_nullable_string(m.group_instance_id)
        w.write_string(m.client_id)
        w.write_string(m.client_host)
        if version >= 1:
            w.write_int32(m.rebalance_timeout)
        w.write_int32(m.session_timeout)
        w.write_bytes(bytes(m.subscription))
        w.write_bytes(bytes(m.assignment))
    return w.getvalue()


def decode_group_value(data: ReadableBuffer | None) -> GroupValue | None:
    """A GroupValue, or None for a tombstone. v0 members take the session timeout as rebalance timeout."""
    if data is None:
        return None
    try:
        r = Reader(data)
        version = r.read_int16()
        if version not in (0, 1, 2, 3):
            raise RecordFormatError("unknown group metadata value version %d" % version)
        protocol_type = r.read_string()
        generation = r.read_int32()
        protocol = r.read_nullable_string()
        leader = r.read_nullable_string()
        ts = r.read_int64() if version >= 2 else None
        if ts == -1:
            ts = None
        count = r.array_length(False, False)
        members: list[MemberRecord] = []
        for _ in range(count or 0):
            member_id = r.read_string()
            instance = r.read_nullable_string() if version >= 3 else None
            client_id = r.read_string()
            client_host = r.read_string()
            rebalance = r.read_int32() if version >= 1 else None
            session = r.read_int32()
            subscription = bytes(r.read_bytes())
            assignment = bytes(r.read_bytes())
            members.append(
                MemberRecord(
                    member_id,
                    instance,
                    client_id,
                    client_host,
                    session if rebalance is None else rebalance,
                    session,
                    subscription,
                    assignment,
                )
            )
        return GroupValue(protocol_type, generation, protocol, leader, ts, members)
    except ProtocolDecodeError as exc:
        raise RecordFormatError("truncated group metadata value: %s" % exc) from None
