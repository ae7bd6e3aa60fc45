"""Record formats of `__transaction_state` (Kafka 2.5's key v0 and value v0), its batches and partition replay."""

from dataclasses import dataclass, field
from typing import FrozenSet

from kafka_zk.coordinator.group.records import partition_for as _coordinator_partition
from kafka_zk.protocol.primitives import ProtocolDecodeError, Reader, Writer
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.records import Record, encode_batch

TRANSACTION_STATE_TOPIC = "__transaction_state"
KEY_VERSION = 0
VALUE_VERSION = 0


class RecordFormatError(ValueError):
    """A `__transaction_state` key or value that does not parse (unknown version, truncated)."""


def partition_for(transactional_id: str, num_partitions: int) -> int:
    """The `__transaction_state` partition whose leader coordinates ``transactional_id`` (same hash as groups)."""
    return _coordinator_partition(transactional_id, num_partitions)


@dataclass(frozen=True)
class TxnLogValue:
    """One transaction log value: what the coordinator knows of a transactional id after a transition."""

    producer_id: int
    producer_epoch: int
    txn_timeout_ms: int
    state_id: int
    partitions: FrozenSet[tuple[str, int]] = field(default_factory=frozenset)  # {(topic, partition)}
    last_update_timestamp: int = -1
    start_timestamp: int = -1


def encode_key(transactional_id: str) -> bytes:
    w = Writer()
    w.write_int16(KEY_VERSION)
    w.write_string(transactional_id)
    return w.getvalue()


def decode_key(data: ReadableBuffer) -> str:
    """The transactional id of a key; RecordFormatError for other versions or truncated keys."""
    try:
        r = Reader(data)
        version = r.read_int16()
        if version != KEY_VERSION:
            raise RecordFormatError("unknown __transaction_state key version %d" % version)
        return r.read_string()
    except ProtocolDecodeError as exc:
        raise RecordFormatError("truncated __transaction_state key: %s" % exc) from None


def encode_value(value: TxnLogValue, empty_state_id: int = 0) -> bytes:
    """Value v0; the partition list is null in the Empty state (as Kafka writes it)."""
    w = Writer()
    w.write_int16(VALUE_VERSION)
    w.write_int64(value.producer_id)
    w.write_int16(value.producer_epoch)
    w.write_int32(value.txn_timeout_ms)
    w.write_int8(value.state_id)
    if value.state_id == empty_state_id:
        if value.partitions:
            raise ValueError("an Empty transaction carries no partitions")
        w.write_int32(-1)
    else:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(value.partitions):
            by_topic.setdefault(topic, []).append(partition)
        w.write_int32(len(by_topic))
        for topic, partitions in by_topic.items():
            w.write_string(topic)
            w.write_int32(len(partitions))
            for partition in partitions:
                w.write_int32(partition)
    w.write_int64(value.last_update_timestamp)
    w.write_int64(value.start_timestamp)
    return w.getvalue()


def decode_value(data: ReadableBuffer | None) -> TxnLogValue | None:
    """A TxnLogValue, or None for a tombstone."""
    if data is None:
        return None
    try:
        r = Reader(data)
        version = r.read_int16()
        if version != VALUE_VERSION:
            raise RecordFormatError("unknown __transaction_state value version %d" % version)
        producer_id = r.read_int64()
        epoch = r.read_int16()
        timeout = r.read_int32()
        state_id = r.read_int8()
        partitions: set[tuple[str, int]] = set()
        count = r.read_int32()
        for _ in range(max(count, 0)):
            topic = r.read_string()
            for _ in range(r.read_int32()):
                partitions.add((topic, r.read_int32()))
        last_update = r.read_int64()
        start = r.read_int64()
        return TxnLogValue(producer_id, epoch, timeout, state_id, frozenset(partitions), last_update, start)
    except ProtocolDecodeError as exc:
        raise RecordFormatError("truncated __transaction_state value: %s" % exc) from None


def txn_log_batch(transactional_id: str, value: TxnLogValue | None, now_ms: int) -> bytes:
    """The uncompressed batch of one transition (Kafka enforces no compression on this topic)."""
    return encode_batch(
        [(encode_key(transactional_id), None if value is None else encode_value(value), (), now_ms)],
        first_timestamp=now_ms,
    )


class TxnLogReplay:
    """Replays a `__transaction_state` partition: the last value of each transactional id wins, tombstones
    remove it."""

    def __init__(self) -> None:
        self.values: dict[str, TxnLogValue] = {}  # transactional id -> its last value
        self.skipped = 0

    def add(self, record: Record) -> None:
        if record.key is None:
            self.skipped += 1
            return
        try:
            transactional_id = decode_key(record.key)
            value = decode_value(record.value)
        except RecordFormatError:
            self.skipped += 1
            return
        if value is None:
            self.values.pop(transactional_id, None)
        else:
            self.values[transactional_id] = value
