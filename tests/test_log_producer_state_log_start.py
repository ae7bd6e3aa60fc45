"""Producers outlive their batches (KIP-360): DeleteRecords, retention and restarts keep them; expiration does not."""

import os

import pytest

from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.producer_snapshot import list_snapshots, read_snapshot, snapshot_file_name
from kafka_zk.log.producer_state import OutOfOrderSequenceError, ProducerStateManager
from kafka_zk.record.batch_header import read_batch_header
from kafka_zk.record.records import encode_batch
from kafka_zk.server.apis.write_txn_markers import marker_batch
from tests.millisecond_clock import MillisecondClock

NOW = 1_000_000
DAY_MS = 86_400_000


def open_log(path, clock=None, **options):
    config = LogConfig(
        file_delete_delay_ms=0,
        segment_bytes=options.pop("segment_bytes", 1 << 20),
        retention_ms=options.pop("retention_ms", 7 * DAY_MS),
    )
    return Log(str(path), config, clock or MillisecondClock(NOW), **options)


def append(log, producer_id, sequence, count=2, timestamp=NOW, transactional=False, epoch=0):
    batch = bytearray(
        encode_batch(
            [(b"k", b"v%d" % (sequence + i), (), timestamp) for i in range(count)],
            base_offset=log.log_end_offset,
            producer_id=producer_id,
            producer_epoch=epoch,
            base_sequence=sequence,
            is_transactional=transactional,
        )
    )
    header = read_batch_header(batch)
    log.append(bytes(batch), header.last_offset, header.max_timestamp, header.last_offset)


def end_transaction(log, producer_id, commit=True):
    data = bytearray(marker_batch(producer_id, 0, commit, 0, NOW))
    data[0:8] = log.log_end_offset.to_bytes(8, "big")
    header = read_batch_header(data)
    log.append(bytes(data), header.last_offset, header.max_timestamp, header.last_offset)


def accepts_next(log, producer_id, sequence):
    """The log still knows the producer: its next batch passes the leader's check and a gap does not (a producer
    the log has forgotten may start at any sequence, as in Kafka 2.5)."""
    log.producer_state.check(producer_id, 0, sequence)
    with pytest.raises(OutOfOrderSequenceError):
        log.producer_state.check(producer_id, 0, sequence + 1)
    return True


# -- the pure core --------------------------------------------------------------------------------


def test_truncate_head_keeps_producers_and_forgets_only_decided_transactions_below_it():
    state = ProducerStateManager()
    state.record(1, 0, 0, 1, 0, 1, NOW)
    state.record(2, 0, 0, 0, 2, 2, NOW, is_transactional=True)
    state.record_marker(2, 0, True, 0, 3, NOW)
    state.record(3, 0, 0, 0, 4, 4, NOW, is_transactional=True)  # still open at the new start
    state.map_end_offset = 5
    state.truncate_head(5)
    assert set(state.producers) == {1, 2, 3}
    assert state.unreplicated == {} and state.first_unstable_offset() == 4
    state.check(1, 0, 2)
    with pytest.raises(OutOfOrderSequenceError):
        state.check(1, 0, 3)
    state.truncate_head(7)  # past the map end (a follower learning a later start): the map end follows
    assert state.map_end_offset == 7


def test_expiration_still_removes_producers_whose_batches_are_gone():
    state = ProducerStateManager()
    state.record(1, 0, 0, 1, 0, 1, NOW)
    state.truncate_head(2)
    assert state.remove_expired(NOW + 7 * DAY_MS, 7 * DAY_MS) == 1
    assert 1 not in state.producers
    state.check(1, 0, 5)  # forgotten: any sequence goes, as in Kafka 2.5


# -- the log --------------------------------------------------------------------------------------


def test_delete_records_past_every_batch_keeps_the_producer(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=300)
    for sequence in range(0, 12, 2):
        append(log, 1, sequence)
    append(log, 2, 0)
    assert log.num_segments > 2
    assert log.maybe_increment_log_start_offset(log.log_end_offset)
    log.delete_segments_below_log_start()
    assert log.num_segments == 1 and log.log_start_offset == log.log_end_offset
    assert accepts_next(log, 1, 12) and accepts_next(log, 2, 2)
    append(log, 1, 12)
    assert log.producer_state.find_duplicate(1, 0, 12, 13) is not None


def test_retention_deleting_the_producers_segments_keeps_it(tmp_path):
    clock = MillisecondClock(NOW)
    log = open_log(tmp_path / "t-0", clock, segment_bytes=300, retention_ms=DAY_MS)
    for sequence in range(0, 8, 2):
        append(log, 1, sequence)
    log.roll()
    clock.now += 2 * DAY_MS
    append(log, 2, 0, timestamp=clock.now)
    assert log.delete_old_segments(clock.now) > 0
    assert log.log_start_offset > 7  # producer 1's last batch is gone
    assert accepts_next(log, 1, 8) and accepts_next(log, 2, 2)


@pytest.mark.parametrize("clean_shutdown", [True, False])
@pytest.mark.parametrize("segment_bytes", [300, 1 << 20], ids=["segments-deleted", "one-segment"])
def test_restart_after_the_start_moved_past_the_batches_keeps_the_producer(tmp_path, clean_shutdown, segment_bytes):
    log = open_log(tmp_path / "t-0", segment_bytes=segment_bytes)
    for sequence in range(0, 10, 2):
        append(log, 1, sequence)
    append(log, 3, 0, transactional=True)
    end_transaction(log, 3)
    log.maybe_increment_log_start_offset(log.log_end_offset)
    log.delete_segments_below_log_start()
    start = log.log_start_offset
    assert list_snapshots(log.dir) == [start]  # written as the start moved, so a crash keeps it too
    if clean_shutdown:
        log.close()
    reopened = open_log(
        tmp_path / "t-0", log_start_offset=start, clean_shutdown=clean_shutdown, segment_bytes=segment_bytes
    )
    assert reopened.log_start_offset == start
    assert accepts_next(reopened, 1, 10) and accepts_next(reopened, 3, 2)
    with pytest.raises(OutOfOrderSequenceError):
        reopened.producer_state.check(1, 0, 12)
    append(reopened, 1, 10)
    reopened.close()
    again = open_log(tmp_path / "t-0", log_start_offset=start, segment_bytes=segment_bytes)
    assert accepts_next(again, 1, 12)


def test_the_snapshot_at_the_start_holds_the_producers_and_none_is_written_without_them(tmp_path):
    log = open_log(tmp_path / "t-0")
    append(log, 5, 0)
    log.maybe_increment_log_start_offset(2)
    entries = read_snapshot(os.path.join(log.dir, snapshot_file_name(2)))
    assert [(entry.producer_id, entry.last_seq) for entry in entries] == [(5, 1)]
    plain = open_log(tmp_path / "u-0")
    plain.append(encode_batch([(b"k", b"v", (), NOW)]), 0, NOW, 0)
    plain.maybe_increment_log_start_offset(1)
    plain.close()
    assert list_snapshots(plain.dir) == []


def test_producers_expired_at_restart_are_not_loaded_from_the_snapshot(tmp_path):
    log = open_log(tmp_path / "t-0", max_producer_idle_ms=DAY_MS)
    append(log, 1, 0)
    append(log, 2, 0, timestamp=NOW + DAY_MS // 2)
    append(log, 3, 0, transactional=True)  # an open transaction never expires
    log.maybe_increment_log_start_offset(log.log_end_offset)
    log.close()
    reopened = open_log(
        tmp_path / "t-0",
        MillisecondClock(NOW + DAY_MS),
        log_start_offset=log.log_end_offset,
        max_producer_idle_ms=DAY_MS,
    )
    assert set(reopened.producer_state.producers) == {2, 3}


def test_truncation_above_the_start_keeps_the_producers_the_snapshot_at_the_start_holds(tmp_path):
    log = open_log(tmp_path / "t-0")
    append(log, 1, 0)
    log.maybe_increment_log_start_offset(log.log_end_offset)
    append(log, 2, 0)
    log.truncate_to(log.log_start_offset)  # a follower truncating to its new leader's end
    assert set(log.producer_state.producers) == {1}
    assert accepts_next(log, 1, 2)
