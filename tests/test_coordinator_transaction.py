"""The transaction coordinator's pure cores: `__transaction_state` records, the state machine and decisions."""

import pytest

from kafka_zk.coordinator.group.log_records import PartitionReplay, offset_commit_batch
from kafka_zk.coordinator.group.offsets import CommittedOffset, GroupOffsets
from kafka_zk.coordinator.transaction import decisions as d
from kafka_zk.coordinator.transaction.records import (
    TxnLogReplay,
    TxnLogValue,
    decode_key,
    decode_value,
    encode_key,
    encode_value,
    partition_for,
    txn_log_batch,
)
from kafka_zk.coordinator.transaction.state import (
    COMPLETE_COMMIT,
    EMPTY,
    ONGOING,
    PREPARE_ABORT,
    PREPARE_COMMIT,
    PREPARE_EPOCH_FENCE,
    IllegalTransition,
    TransactionMetadata,
)
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import Record, iter_records
from kafka_zk.tools.dump_log_decoders import transaction_log_decoder


def test_key_and_value_round_trip_in_kafka_formats():
    key = encode_key("app-1")
    assert key == b"\x00\x00\x00\x05app-1"
    assert decode_key(key) == "app-1"
    value = TxnLogValue(7, 3, 60000, ONGOING.id, frozenset({("t", 1), ("t", 0), ("u", 2)}), 1000, 900)
    data = encode_value(value)
    assert decode_value(data) == value
    # the dump-log decoder (written from Kafka's format independently) reads what we write
    assert transaction_log_decoder(key, data)[1] == (
        "producerId:7,producerEpoch:3,state=Ongoing,partitions=[t-0,t-1,u-2],txnLastUpdateTimestamp=1000,"
        "txnTimeoutMs=60000"
    )


def test_empty_state_writes_a_null_partition_list():
    data = encode_value(TxnLogValue(7, 0, 60000, EMPTY.id, frozenset(), 5, -1))
    assert data[2 + 8 + 2 + 4 + 1 :][:4] == b"\xff\xff\xff\xff"
    assert decode_value(data).partitions == frozenset()
    with pytest.raises(ValueError):
        encode_value(TxnLogValue(7, 0, 60000, EMPTY.id, frozenset({("t", 0)}), 5, -1))


def test_partition_for_uses_java_string_hash():
    # "hello".hashCode() == 99162322
    assert partition_for("hello", 50) == 99162322 % 50


def test_replay_keeps_the_last_value_and_honours_tombstones():
    replay = TxnLogReplay()
    for offset, (txn, value) in enumerate(
        [
            ("a", TxnLogValue(1, 0, 10, EMPTY.id)),
            ("b", TxnLogValue(2, 0, 10, 0)),
            ("a", TxnLogValue(1, 1, 10, EMPTY.id)),
            ("b", None),
        ]
    ):
        batch = txn_log_batch(txn, value, 0)
        for record in iter_records(batch):
            replay.add(Record(offset, record.timestamp, record.key, record.value))
    replay.add(Record(9, 0, b"\x00\x09bad", b""))
    assert replay.values == {"a": TxnLogValue(1, 1, 10, EMPTY.id)}
    assert replay.skipped == 1


def new_txn(epoch=-1):
    return TransactionMetadata("app", 5, epoch, 60000, EMPTY, last_update_timestamp=0)


def complete(metadata, decision):
    assert decision.ok and decision.transit is not None, decision
    metadata.complete_transition(decision.transit)
    return metadata


def test_init_bumps_epoch_and_a_full_transaction_cycle():
    metadata = new_txn()
    complete(metadata, d.decide_init_producer_id(metadata, 60000, None, None, 1))
    assert (metadata.producer_epoch, metadata.state) == (0, EMPTY)
    complete(metadata, d.decide_add_partitions(metadata, 5, 0, [("t", 0)], 10))
    assert metadata.state is ONGOING and metadata.start_timestamp == 10
    assert d.decide_add_partitions(metadata, 5, 0, [("t", 0)], 11).transit is None  # already in
    assert d.decide_add_partitions(metadata, 6, 0, [("t", 1)], 11).error == Errors.INVALID_PRODUCER_ID_MAPPING
    assert d.decide_add_partitions(metadata, 5, 1, [("t", 1)], 11).error == Errors.INVALID_PRODUCER_EPOCH
    complete(metadata, d.decide_end_txn(metadata, 5, 0, True, True, 20))
    assert metadata.state is PREPARE_COMMIT
    assert d.decide_add_partitions(metadata, 5, 0, [("t", 1)], 21).error == Errors.CONCURRENT_TRANSACTIONS
    assert d.decide_end_txn(metadata, 5, 0, True, True, 21).error == Errors.CONCURRENT_TRANSACTIONS
    assert d.decide_end_txn(metadata, 5, 0, False, True, 21).error == Errors.INVALID_TXN_STATE
    complete(metadata, d.decide_complete(metadata, 5, 0, True, 30))
    assert metadata.state is COMPLETE_COMMIT and metadata.partitions == set()
    assert d.decide_end_txn(metadata, 5, 0, True, True, 31) == d.Decision()  # a retried commit
    assert d.decide_end_txn(metadata, 5, 0, False, True, 31).error == Errors.INVALID_TXN_STATE


def test_init_during_an_ongoing_transaction_fences_then_aborts_with_the_bumped_epoch():
    metadata = new_txn(epoch=0)
    complete(metadata, d.decide_add_partitions(metadata, 5, 0, [("t", 0)], 10))
    decision = d.decide_init_producer_id(metadata, 60000, None, None, 20)
    assert decision.fence_first and decision.transit.state is PREPARE_EPOCH_FENCE
    assert decision.transit.producer_epoch == 1
    abort = d.decide_end_txn(metadata, 5, 1, False, False, 20)
    assert abort.epoch_fence and abort.transit.state is PREPARE_ABORT and abort.transit.producer_epoch == 1
    complete(metadata, abort)
    # the zombie (epoch 0) is fenced everywhere
    assert d.decide_end_txn(metadata, 5, 0, True, True, 21).error == Errors.INVALID_PRODUCER_EPOCH
    assert d.decide_add_partitions(metadata, 5, 0, [("t", 0)], 21).error == Errors.INVALID_PRODUCER_EPOCH
    assert d.decide_init_producer_id(metadata, 60000, None, None, 21).error == Errors.CONCURRENT_TRANSACTIONS


def test_kip360_epoch_bump_checks_the_expected_epoch():
    metadata = new_txn(epoch=3)
    metadata.last_producer_epoch = 2
    assert d.decide_init_producer_id(metadata, 60000, (5, 1), None, 0).error == Errors.INVALID_PRODUCER_EPOCH
    assert d.decide_init_producer_id(metadata, 60000, (9, 3), None, 0).error == Errors.INVALID_PRODUCER_EPOCH
    retry = d.decide_init_producer_id(metadata, 60000, (5, 2), None, 0)
    assert retry.transit.producer_epoch == 3  # a retry of a bump that succeeded
    metadata.abandon_transition()
    bump = d.decide_init_producer_id(metadata, 60000, (5, 3), None, 0)
    assert (bump.transit.producer_epoch, bump.transit.last_producer_epoch) == (4, 3)


def test_exhausted_epoch_rotates_the_producer_id():
    metadata = new_txn(epoch=32766)
    assert d.needs_new_producer_id(metadata, None)
    assert d.decide_init_producer_id(metadata, 60000, None, None, 0).error == Errors.CONCURRENT_TRANSACTIONS
    rotation = d.decide_init_producer_id(metadata, 60000, None, 77, 0)
    assert (rotation.transit.producer_id, rotation.transit.producer_epoch, rotation.transit.last_producer_id) == (
        77,
        0,
        5,
    )


def test_illegal_transitions_are_refused():
    metadata = new_txn(epoch=0)
    with pytest.raises(IllegalTransition):
        metadata.prepare_abort_or_commit(PREPARE_COMMIT, 0)  # Empty cannot commit
    metadata.prepare_add_partitions([("t", 0)], 0)
    with pytest.raises(IllegalTransition):
        metadata.prepare_add_partitions([("t", 1)], 0)  # one pending transition at a time


def test_timeouts_expiration_and_marker_outcomes():
    metadata = new_txn(epoch=0)
    complete(metadata, d.decide_add_partitions(metadata, 5, 0, [("t", 0)], 1000))
    assert not d.timed_out(metadata, 61000) and d.timed_out(metadata, 61001)
    assert not d.expired(metadata, 10**12, 1000)  # ongoing transactions never expire
    idle = new_txn(epoch=0)
    assert d.expired(idle, 1000, 1000) and not d.expired(idle, 999, 1000)
    assert d.valid_timeout(900000, 900000) and not d.valid_timeout(900001, 900000)
    assert d.marker_outcome(Errors.NONE) == d.MARKER_WRITTEN
    assert d.marker_outcome(Errors.NOT_LEADER_FOR_PARTITION) == d.MARKER_RETRY
    assert d.marker_outcome(Errors.TRANSACTION_COORDINATOR_FENCED) == d.MARKER_ABANDON
    assert d.append_error(Errors.NOT_ENOUGH_REPLICAS) == Errors.COORDINATOR_NOT_AVAILABLE
    assert d.append_error(Errors.NOT_LEADER_FOR_PARTITION) == Errors.NOT_COORDINATOR


def test_transactional_offsets_become_visible_only_on_commit():
    offsets = GroupOffsets()
    first, second = CommittedOffset(10, log_offset=5), CommittedOffset(20, log_offset=6)
    offsets.prepare_txn(1, {("t", 0): first})
    offsets.prepare_txn(2, {("t", 0): second})
    assert offsets.has_pending_txn(("t", 0)) and offsets.get(("t", 0)) is None
    offsets.complete_txn(2, False)
    assert offsets.get(("t", 0)) is None
    offsets.complete_txn(1, True)
    assert offsets.get(("t", 0)).offset == 10 and not offsets.has_pending_txn(("t", 0))


def test_replay_of_offsets_partition_applies_markers():
    replay = PartitionReplay()
    committed = offset_commit_batch("g", {("t", 0): CommittedOffset(10)}, 0, producer_id=1, producer_epoch=0)
    aborted = offset_commit_batch("g", {("t", 1): CommittedOffset(20)}, 0, producer_id=2, producer_epoch=0)
    open_ = offset_commit_batch("g", {("t", 2): CommittedOffset(30)}, 0, producer_id=3, producer_epoch=0)
    for offset, (batch, producer) in enumerate([(committed, 1), (aborted, 2), (open_, 3)]):
        for record in iter_records(batch):
            replay.add(Record(offset, record.timestamp, record.key, record.value), producer)
    replay.marker(1, True)
    replay.marker(2, False)
    group = replay.loaded_groups()["g"]
    assert group.offsets.get(("t", 0)).offset == 10
    assert group.offsets.get(("t", 1)) is None
    assert group.offsets.get(("t", 2)) is None and group.offsets.has_pending_txn(("t", 2))
