"""What the coordinator writes to `__consumer_offsets` (record batches) and how a partition is replayed."""

from collections.abc import Iterable, Mapping

from kafka_zk.coordinator.group.offsets import CommittedOffset, TopicPartition
from kafka_zk.coordinator.group.records import (
    GroupKey,
    GroupValue,
    MemberRecord,
    OffsetKey,
    OffsetValue,
    RecordFormatError,
    decode_group_value,
    decode_key,
    decode_offset_value,
    encode_group_key,
    encode_group_value,
    encode_offset_key,
    encode_offset_value,
)
from kafka_zk.coordinator.group.state import EMPTY, STABLE, GroupMetadata, MemberMetadata
from kafka_zk.record.compression import NONE
from kafka_zk.record.records import Record, RecordTuple, encode_batch

# offsets.topic.compression.codec: Kafka's CompressionCodec ids (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)
# match the batch attribute codec bits.


def offset_commit_batch(
    group_id: str,
    commits: Mapping[TopicPartition, CommittedOffset],
    now_ms: int,
    codec: int = NONE,
    producer_id: int = -1,
    producer_epoch: int = -1,
) -> bytes:
    """One batch of offset commit records: ``commits`` is {(topic, partition): CommittedOffset}. With a
    producer id it is the transactional batch of a TxnOffsetCommit (base sequence 0, as Kafka writes it)."""
    records: list[Record | RecordTuple] = []
    for (topic, partition), commit in commits.items():
        value = OffsetValue(
            commit.offset, commit.metadata, commit.commit_timestamp, commit.expire_timestamp, commit.leader_epoch
        )
        records.append(
            (encode_offset_key(OffsetKey(group_id, topic, partition)), encode_offset_value(value), (), now_ms)
        )
    if producer_id >= 0:
        return encode_batch(
            records,
            compression=codec,
            first_timestamp=now_ms,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=0,
            is_transactional=True,
        )
    return encode_batch(records, compression=codec, first_timestamp=now_ms)


def group_value_of(group: GroupMetadata, assignment: Mapping[str, bytes], now_ms: int) -> GroupValue:
    """The group metadata value Kafka writes after a rebalance (``assignment``: {member_id: bytes})."""
    members = [
        MemberRecord(
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            m.rebalance_timeout_ms,
            m.session_timeout_ms,
            bytes(m.metadata(group.protocol)) if group.protocol else b"",
            bytes(assignment.get(m.member_id, b"")),
        )
        for m in group.members.values()
    ]
    return GroupValue(
        group.protocol_type or "",
        group.generation_id,
        group.protocol,
        group.leader_id,
        group.state_timestamp_ms if group.state_timestamp_ms is not None else now_ms,
        members,
    )


def group_metadata_batch(
    group: GroupMetadata, assignment: Mapping[str, bytes], now_ms: int, codec: int = NONE
) -> bytes:
    record: RecordTuple = (
        encode_group_key(GroupKey(group.group_id)),
        encode_group_value(group_value_of(group, assignment, now_ms)),
        (),
        now_ms,
    )
    return encode_batch([record], compression=codec, first_timestamp=now_ms)


def tombstone_batch(
    group_id: str, partitions: Iterable[TopicPartition], with_group: bool, now_ms: int, codec: int = NONE
) -> bytes | None:
    """Tombstones for a group's offsets of ``partitions`` and, when ``with_group``, for the group itself."""
    records: list[Record | RecordTuple] = [
        (encode_offset_key(OffsetKey(group_id, t, p)), None, (), now_ms) for t, p in partitions
    ]
    if with_group:
        records.append((encode_group_key(GroupKey(group_id)), None, (), now_ms))
    if not records:
        return None
    return encode_batch(records, compression=codec, first_timestamp=now_ms)


class PartitionReplay:
    """Replays one `__consumer_offsets` partition's records in order; later records win, tombstones delete."""

    def __init__(self) -> None:
        self.offsets: dict[str, dict[TopicPartition, CommittedOffset]] = {}
        # group -> set of tps whose last record is a tombstone
        self.removed_offsets: dict[str, set[TopicPartition]] = {}
        self.groups: dict[str, GroupValue] = {}
        self.removed_groups: set[str] = set()
        self.skipped = 0  # records with keys or values that do not parse
        # producer id -> {(group, tp): CommittedOffset} awaiting a marker
        self.pending_txn: dict[int, dict[tuple[str, TopicPartition], CommittedOffset]] = {}

    def add(self, record: Record, txn_producer_id: int | None = None) -> None:
        """``record``: a kafka_zk.record.records.Record (offset, timestamp, key, value, headers);
        ``txn_producer_id`` is the producer of a transactional batch (a TxnOffsetCommit)."""
        if record.key is None:
            self.skipped += 1
            return
        try:
            key = decode_key(record.key)
            if isinstance(key, OffsetKey) and txn_producer_id is not None:
                self._txn_offset(key, record, txn_producer_id)
            elif isinstance(key, OffsetKey):
                self._offset(key, record)
            else:
                self._group(key, record)
        except RecordFormatError:
            self.skipped += 1

    def _offset(self, key: OffsetKey, record: Record) -> None:
        tp = (key.topic, key.partition)
        value = decode_offset_value(record.value)
        if value is None:
            self.offsets.get(key.group, {}).pop(tp, None)
            self.removed_offsets.setdefault(key.group, set()).add(tp)
            return
        self.removed_offsets.get(key.group, set()).discard(tp)
        self.offsets.setdefault(key.group, {})[tp] = CommittedOffset(
            value.offset,
            value.leader_epoch,
            value.metadata,
            value.commit_timestamp,
            value.expire_timestamp,
            record.offset,
        )

    def _txn_offset(self, key: OffsetKey, record: Record, producer_id: int) -> None:
        value = decode_offset_value(record.value)
        if value is None:
            return
        self.pending_txn.setdefault(producer_id, {})[(key.group, (key.topic, key.partition))] = CommittedOffset(
            value.offset,
            value.leader_epoch,
            value.metadata,
            value.commit_timestamp,
            value.expire_timestamp,
            record.offset,
        )

    def marker(self, producer_id: int, is_commit: bool) -> None:
        """A COMMIT/ABORT control record of ``producer_id``: its pending offsets become committed or vanish."""
        pending = self.pending_txn.pop(producer_id, {})
        if not is_commit:
            return
        for (group, tp), commit in pending.items():
            current = self.offsets.get(group, {}).get(tp)
            # a replayed commit always has its record's offset
            if current is None or current.log_offset is None or current.log_offset < commit.log_offset:  # type: ignore[operator]
                self.removed_offsets.get(group, set()).discard(tp)
                self.offsets.setdefault(group, {})[tp] = commit

    def _group(self, key: GroupKey, record: Record) -> None:
        value = decode_group_value(record.value)
        if value is None:
            self.groups.pop(key.group, None)
            self.removed_groups.add(key.group)
        else:
            self.removed_groups.discard(key.group)
            self.groups[key.group] = value

    def loaded_groups(self) -> dict[str, GroupMetadata]:
        """GroupMetadata for every group with live metadata or offsets after the replay."""
        result = {}
        pending_groups = {group for pending in self.pending_txn.values() for group, _ in pending}
        for group_id in set(self.groups) | {g for g, tps in self.offsets.items() if tps} | pending_groups:
            value = self.groups.get(group_id)
            group = group_from_value(group_id, value)
            for tp, commit in self.offsets.get(group_id, {}).items():
                group.offsets.load(tp, commit)
            for producer_id, pending in self.pending_txn.items():
                mine = {tp: commit for (group, tp), commit in pending.items() if group == group_id}
                if mine:
                    group.offsets.prepare_txn(producer_id, mine)
            result[group_id] = group
        return result


def group_from_value(group_id: str, value: GroupValue | None) -> GroupMetadata:
    """A loaded group: Empty without members, else Stable at the stored generation (Kafka's loadGroup)."""
    if value is None:
        return GroupMetadata(group_id, EMPTY)
    group = GroupMetadata(group_id, STABLE if value.members else EMPTY, value.current_state_timestamp)
    group.protocol_type = value.protocol_type or None
    group.generation_id = value.generation
    group.protocol = value.protocol
    for m in value.members:
        member = MemberMetadata(
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            m.rebalance_timeout,
            m.session_timeout,
            value.protocol_type,
            [(value.protocol, m.subscription)],  # type: ignore[list-item]  # members: a protocol
        )
        member.assignment = m.assignment
        group.add_member(member)
    group.protocol_type = value.protocol_type or None
    group.leader_id = value.leader
    group.subscribed_topics = group.compute_subscribed_topics()
    return group
