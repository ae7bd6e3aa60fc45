"""Transactions in the log: producer state with transactions, the LSO, .txnindex and producer snapshots."""

import os

import pytest

from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.producer_snapshot import (
    CorruptSnapshotError,
    decode_snapshot,
    encode_snapshot,
    list_snapshots,
    read_snapshot,
    snapshot_file_name,
)
from kafka_zk.log.producer_state import (
    CoordinatorFencedError,
    InvalidTxnStateError,
    ProducerFencedError,
    ProducerStateManager,
)
from kafka_zk.log.transaction_index import ENTRY_SIZE, AbortedTxn, TransactionIndex, decode_entries
from kafka_zk.record.batch_header import read_batch_header
from kafka_zk.record.records import (
    CONTROL_ABORT,
    CONTROL_COMMIT,
    decode_batch,
    encode_batch,
    parse_control_key,
    parse_end_txn_marker,
)
from kafka_zk.server.apis.write_txn_markers import marker_batch
from tests.millisecond_clock import MillisecondClock


def open_log(path, clean_shutdown=True, **config):
    config.setdefault("file_delete_delay_ms", 0)
    return Log(str(path), LogConfig(**config), MillisecondClock(), clean_shutdown=clean_shutdown)


def txn_batch(base_offset, producer_id, count=2, sequence=0, epoch=0, transactional=True):
    records = [(b"k", b"p%d-%d" % (producer_id, base_offset + i), (), 1000 + i) for i in range(count)]
    return encode_batch(
        records,
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        is_transactional=transactional,
    )


def append(log, batch):
    data = bytearray(batch)
    header = read_batch_header(data)
    if header.base_offset != log.log_end_offset:
        data[0:8] = log.log_end_offset.to_bytes(8, "big")
        header = read_batch_header(data)
    log.append(bytes(data), header.last_offset, header.max_timestamp, header.last_offset)
    return header.base_offset


def marker(log, producer_id, commit, coordinator_epoch=0, epoch=0):
    return append(log, marker_batch(producer_id, epoch, commit, coordinator_epoch, 5000))


# -- control records ---------------------------------------------------------------------------------


def test_marker_batch_is_kafkas_control_batch():
    data = marker_batch(42, 3, True, 7, 123)
    header, records = decode_batch(data)
    assert header.is_control and header.is_transactional
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (42, 3, -1)
    assert len(records) == 1 and records[0].timestamp == 123
    assert records[0].key == b"\x00\x00\x00\x01"  # version 0, type 1 (COMMIT)
    assert records[0].value == b"\x00\x00\x00\x00\x00\x07"  # version 0, coordinator epoch 7
    assert parse_control_key(decode_batch(marker_batch(42, 3, False, 0, 1))[1][0].key) == (0, CONTROL_ABORT)
    assert parse_end_txn_marker(records[0].value) == (0, 7) and CONTROL_COMMIT == 1


# -- producer state ----------------------------------------------------------------------------------


def test_transactions_hold_the_first_unstable_offset_until_replicated():
    state = ProducerStateManager()
    state.record(1, 0, 0, 1, 10, 11, 1, is_transactional=True)
    state.record(2, 0, 0, 0, 12, 12, 1, is_transactional=True)
    state.record(1, 0, 2, 2, 13, 13, 1, is_transactional=True)  # same transaction
    assert state.first_unstable_offset(0) == 10
    completed, last_stable = state.record_marker(1, 0, False, 0, 14, 2)
    assert completed == (1, 10, 14, True) and last_stable == 12  # producer 2's transaction is still open
    assert state.first_unstable_offset(14) == 10  # the marker is not below the high watermark yet
    assert state.first_unstable_offset(15) == 12
    completed, last_stable = state.record_marker(2, 0, True, 0, 15, 2)
    assert completed == (2, 12, 15, False) and last_stable == 16
    assert state.first_unstable_offset(16) is None
    assert state.record_marker(2, 0, True, 0, 17, 2) == (None, None)  # a marker with no data here


def test_transaction_state_errors():
    state = ProducerStateManager()
    state.record(1, 2, 0, 0, 0, 0, 1, is_transactional=True)
    with pytest.raises(InvalidTxnStateError):
        state.check(1, 2, 1, is_transactional=False)
    state.check(1, 2, 1, is_transactional=True)
    with pytest.raises(ProducerFencedError):
        state.check(1, 1, 1, is_transactional=True)
    state.record_marker(1, 2, True, 5, 1, 1)
    state.check(1, 2, 1, is_transactional=False)
    with pytest.raises(CoordinatorFencedError):
        state.check_marker(1, 2, 4)
    with pytest.raises(ProducerFencedError):
        state.check_marker(1, 1, 5)
    state.check_marker(1, 3, 6)


def test_snapshot_round_trip_and_corruption():
    state = ProducerStateManager()
    state.record(7, 1, 10, 14, 100, 104, 555, is_transactional=True)
    state.record_marker(8, 0, False, 3, 105, 556)
    data = encode_snapshot(state.producers.values())
    assert data[:2] == b"\x00\x01" and len(data) == 10 + 2 * 46
    entries = {entry.producer_id: entry for entry in decode_snapshot(data)}
    assert entries[7].producer_epoch == 1 and entries[7].current_txn_first_offset == 100
    assert list(entries[7].batches)[0][:4] == (10, 14, 100, 104) and entries[7].last_timestamp == 555
    assert entries[8].coordinator_epoch == 3 and not entries[8].batches and entries[8].current_txn_first_offset is None
    broken = bytearray(data)
    broken[-1] ^= 1
    with pytest.raises(CorruptSnapshotError):
        decode_snapshot(bytes(broken))


def test_transaction_index_file(tmp_path):
    index = TransactionIndex(str(tmp_path / "00000000000000000000.txnindex"))
    assert index.collect_aborted(0, 100) == ([], False) and not os.path.exists(index.path)
    index.append(AbortedTxn(1, 0, 5, 3))
    index.append(AbortedTxn(2, 6, 9, 10))
    assert os.path.getsize(index.path) == 2 * ENTRY_SIZE == 68
    assert index.collect_aborted(0, 4) == ([(1, 0)], True)
    assert index.collect_aborted(6, 20) == ([(2, 6)], False)
    index.truncate_to(9)
    assert index.entries() == [AbortedTxn(1, 0, 5, 3)]


# -- the log -----------------------------------------------------------------------------------------


def _two_transactions(log):
    """p1 commits [0,2), p2 aborts [2,4) and [5,7) around p1's open transaction at 4."""
    append(log, txn_batch(0, 1, sequence=0))
    append(log, txn_batch(0, 2, sequence=0))
    marker(log, 1, commit=True)  # 4
    append(log, txn_batch(0, 1, count=1, sequence=2))  # 5: p1's second transaction
    append(log, txn_batch(0, 2, sequence=2))  # 6-7
    marker(log, 2, commit=False)  # 8


def test_abort_marker_writes_txnindex_and_lso_follows(tmp_path):
    log = open_log(tmp_path / "t-0")
    _two_transactions(log)
    entries = decode_entries(open(os.path.join(log.dir, "00000000000000000000.txnindex"), "rb").read())
    assert entries == [AbortedTxn(2, 2, 8, 5)]  # LSO at the abort: p1's open transaction at 5
    assert log.last_stable_offset(3) == 0  # p1's commit marker (4) is not below the high watermark yet
    assert log.last_stable_offset(9) == 5
    assert log.collect_aborted_transactions(0, 9) == [(2, 2)]
    assert log.collect_aborted_transactions(0, 2) == []
    marker(log, 1, commit=False)  # 9: p1 aborts [5]
    assert log.last_stable_offset(9) == 5 and log.last_stable_offset(10) == 10
    assert log.collect_aborted_transactions(3, 10) == [(2, 2), (1, 5)]


def test_snapshots_on_roll_and_close_and_state_reloaded(tmp_path):
    log = open_log(tmp_path / "t-0")
    _two_transactions(log)
    log.roll()
    assert list_snapshots(log.dir) == [9]
    append(log, txn_batch(0, 3, sequence=0))  # 9-10: open transaction of producer 3
    log.close()
    assert list_snapshots(log.dir) == [9, 11]
    entries = {e.producer_id: e for e in read_snapshot(os.path.join(log.dir, snapshot_file_name(11)))}
    assert entries[3].current_txn_first_offset == 9 and entries[1].current_txn_first_offset == 5
    reopened = open_log(tmp_path / "t-0")
    assert reopened.first_unstable_offset(11) == 5
    assert reopened.producer_state.producers[2].batches[-1].last_seq == 3


def test_recovery_rebuilds_txnindex_and_producer_state(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=300)
    for round_ in range(4):
        for producer in (1, 2):
            append(log, txn_batch(0, producer, sequence=2 * round_))
        marker(log, 1, commit=round_ % 2 == 0)
        marker(log, 2, commit=False)
    expected = log.collect_aborted_transactions(0, log.log_end_offset)
    assert len(log.segments) > 2 and len(expected) == 6
    indexes = {s.base_offset: s.txn_index.entries() for s in log.segments}
    lso = log.last_stable_offset(log.log_end_offset)
    log.close()
    for name in os.listdir(log.dir):
        if name.endswith(".snapshot") or name.endswith(".txnindex") or name.endswith(".index"):
            os.remove(os.path.join(log.dir, name))
    recovered = open_log(tmp_path / "t-0", clean_shutdown=False, segment_bytes=300)
    assert {s.base_offset: s.txn_index.entries() for s in recovered.segments} == indexes
    assert recovered.collect_aborted_transactions(0, recovered.log_end_offset) == expected
    assert recovered.last_stable_offset(recovered.log_end_offset) == lso
    assert recovered.producer_state.producers[1].batches[-1].last_seq == 7


def test_truncation_drops_txnindex_entries_and_reopens_transactions(tmp_path):
    log = open_log(tmp_path / "t-0")
    _two_transactions(log)
    log.truncate_to(8)  # the abort marker goes
    assert log.collect_aborted_transactions(0, 8) == []
    assert log.first_unstable_offset(8) == 2  # p2's transaction is open again
    marker(log, 2, commit=False)
    assert log.collect_aborted_transactions(0, 9) == [(2, 2)]


def test_dump_log_prints_snapshot_txnindex_and_markers(tmp_path):
    import io

    from kafka_zk.tools import dump_log
    from kafka_zk.tools.command_line import run_tool

    log = open_log(tmp_path / "t-0")
    _two_transactions(log)
    append(log, txn_batch(0, 3, sequence=0))  # 9-10, left open
    log.close()
    base = os.path.join(log.dir, "00000000000000000000")
    files = ",".join([base + ".log", base + ".txnindex", os.path.join(log.dir, snapshot_file_name(11))])
    out, err = io.StringIO(), io.StringIO()
    assert run_tool(dump_log.build_parser(), dump_log.run, ["--files", files, "--deep-iteration"], out, err) == 0
    lines = out.getvalue().splitlines()
    assert [line for line in lines if "endTxnMarker" in line] == [
        "| offset: 4 CreateTime: 5000 keysize: 4 valuesize: 6 sequence: -1 headerKeys: [] "
        "endTxnMarker: COMMIT coordinatorEpoch: 0",
        "| offset: 8 CreateTime: 5000 keysize: 4 valuesize: 6 sequence: -1 headerKeys: [] "
        "endTxnMarker: ABORT coordinatorEpoch: 0",
    ]
    assert "version: 0 producerId: 2 firstOffset: 2 lastOffset: 8 lastStableOffset: 5" in lines
    snapshot_lines = lines[lines.index("Dumping %s" % os.path.join(log.dir, snapshot_file_name(11))) + 1 :]
    assert sorted(snapshot_lines) == [
        "producerId: 1 producerEpoch: 0 coordinatorEpoch: 0 currentTxnFirstOffset: Some(5) firstSequence: 2 "
        "lastSequence: 2 lastOffset: 5 offsetDelta: 0 timestamp: 1000",
        "producerId: 2 producerEpoch: 0 coordinatorEpoch: 0 currentTxnFirstOffset: None firstSequence: 2 "
        "lastSequence: 3 lastOffset: 7 offsetDelta: 1 timestamp: 5000",
        "producerId: 3 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: Some(9) firstSequence: 0 "
        "lastSequence: 1 lastOffset: 10 offsetDelta: 1 timestamp: 1001",
    ]
    assert err.getvalue() == ""


# -- the cleaner -------------------------------------------------------------------------------------


def _clean(log, clock_ms, checkpoint=None, max_offset=None):
    from kafka_zk.log.cleaner import Cleaner, CleaningPlan, apply_cleaning, log_to_clean

    ltc = log_to_clean("t", 0, log, checkpoint, clock_ms, max_offset)
    last = {pid: e.batches[-1].last_offset for pid, e in log.producer_state.producers.items() if e.batches}
    plan = CleaningPlan.snapshot(ltc, last)
    return ltc, apply_cleaning(log, Cleaner(1 << 20, MillisecondClock(clock_ms)).clean(plan))


def _records(log):
    from kafka_zk.record.records import iter_batches

    found = []
    for segment in log.segments:
        with open(segment.log_path, "rb") as f:
            for header, records in iter_batches(f.read()):
                found += [(r.offset, header.is_control, r.value) for r in records]
    return found


def test_cleaner_removes_aborted_data_keeps_markers_and_stops_at_the_first_unstable_offset(tmp_path):
    log = open_log(
        tmp_path / "t-0",
        cleanup_policy="compact",
        segment_bytes=400,
        min_cleanable_dirty_ratio=0.01,
        delete_retention_ms=10**12,
    )
    append(log, txn_batch(0, 1, count=2, sequence=0))  # 0-1: committed, key k
    append(log, txn_batch(0, 2, count=2, sequence=0))  # 2-3: aborted, key k (must not shadow 0-1)
    marker(log, 1, commit=True)  # 4
    marker(log, 2, commit=False)  # 5
    append(log, txn_batch(0, 3, count=2, sequence=0))  # 6-7: still open
    for sequence in range(2, 12, 2):
        append(log, txn_batch(0, 1, count=2, sequence=sequence, transactional=False))  # k again, non-txn
    log.roll()
    end = log.log_end_offset
    ltc, checkpoint = _clean(log, 10**9, max_offset=end)
    assert ltc.first_uncleanable_offset == 6  # the open transaction of producer 3
    kept = _records(log)
    offsets = [offset for offset, _, _ in kept]
    assert 2 not in offsets and 3 not in offsets  # aborted data gone
    assert 4 in offsets and 5 in offsets  # both markers stay (this pass saw their transactions' data)
    assert 1 in offsets  # the committed record was not shadowed by the aborted one of the same key
    assert 6 in offsets and 7 in offsets  # the open transaction is untouched
    assert log.collect_aborted_transactions(0, end) == [(2, 2)]  # the entry moved into the cleaned segment
    assert checkpoint <= 6


def test_start_up_replays_only_the_active_segment_after_the_roll_snapshot(tmp_path, monkeypatch):
    from kafka_zk.log import producer_state_loader

    log = open_log(tmp_path / "t-0", segment_bytes=300)
    for sequence in range(0, 40, 2):
        append(log, txn_batch(0, 1, sequence=sequence, transactional=False))
    append(log, txn_batch(0, 2, sequence=0))  # an open transaction in the active segment
    assert len(log.segments) > 3
    active_base = log.active_segment.base_offset
    log.close()
    replayed = []
    original = producer_state_loader.replay
    monkeypatch.setattr(
        producer_state_loader,
        "replay",
        lambda log, start, rebuild=(): (replayed.append(start), original(log, start, rebuild)),
    )
    reopened = open_log(tmp_path / "t-0", segment_bytes=300)
    assert replayed == [active_base]
    assert reopened.first_unstable_offset(reopened.log_end_offset) == 40
    assert reopened.producer_state.producers[1].batches[-1].last_seq == 39


def test_idle_producers_expire_but_not_with_an_open_transaction():
    state = ProducerStateManager()
    state.record(1, 0, 0, 0, 0, 0, 1000)
    state.record(2, 0, 0, 0, 1, 1, 1000, is_transactional=True)
    state.record(3, 0, 0, 0, 2, 2, 9000)
    assert state.remove_expired(now_ms=10000, max_idle_ms=5000) == 1
    assert set(state.producers) == {2, 3}


def test_partition_reports_aborted_transactions_up_to_the_last_batch_it_read(tmp_path):
    from kafka_zk.server.replication.partition import Partition

    log = open_log(tmp_path / "t-0")
    partition = Partition("t", 0, 1, lambda topic, index: log)
    partition.make_leader(
        {"leader": 1, "leader_epoch": 0, "isr": [1], "replicas": [1], "zk_version": 0, "controller_epoch": 1}, now_ms=0
    )
    append(log, txn_batch(0, 1, sequence=0))  # 0-1 p1, left open
    assert partition.aborted_transactions(0, log.read(0, 10_000).records.read_bytes()) == []
    _two_transactions(log)  # at 2-10: p2 aborts its batches at 4 and 8
    first_two = log.read(0, 10_000, max_offset=2).records.read_bytes()
    assert partition.aborted_transactions(0, first_two) == []  # p2's aborted data lies past the batches read
    everything = log.read(0, 10_000).records.read_bytes()
    assert partition.aborted_transactions(0, everything) == [(2, 4)]
    assert partition.aborted_transactions(0, b"") == []
