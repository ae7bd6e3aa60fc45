"""Log: rolling, reads as slices, ListOffsets, retention, truncation, epochs, and crash recovery."""

import os
import shutil

import pytest

from kafka_zk.log.log import (
    Log,
    OffsetOutOfRangeError,
    RecordBatchTooLargeError,
    UnexpectedAppendOffsetError,
    parse_topic_partition,
)
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.segment import LogOffsetMetadata
from kafka_zk.record.batch_header import InvalidRecordError
from kafka_zk.record.records import decode_batch, encode_batch, iter_records
from tests.millisecond_clock import MillisecondClock


def make_batch(base_offset, count=1, timestamp=1000, value_size=10, epoch=-1):
    records = [(None, b"%d" % (base_offset + i) + b"." * value_size, (), timestamp + i) for i in range(count)]
    return encode_batch(records, base_offset=base_offset, partition_leader_epoch=epoch)


def append(log, count=1, timestamp=1000, value_size=10, epoch=-1, base_offset=None):
    base = log.log_end_offset if base_offset is None else base_offset
    data = make_batch(base, count, timestamp, value_size, epoch)
    last = base + count - 1
    log.append(data, last, timestamp + count - 1, last)
    return data


def offsets_in(data):
    return [record.offset for record in iter_records(data)]


def open_log(path, clock=None, **config):
    config.setdefault("file_delete_delay_ms", 0)
    return Log(str(path), LogConfig(**config), clock or MillisecondClock())


@pytest.fixture
def clock():
    return MillisecondClock()


def test_parse_topic_partition():
    assert parse_topic_partition("my-topic.v2-12") == ("my-topic.v2", 12)
    with pytest.raises(ValueError):
        parse_topic_partition("no_partition")


def test_roll_by_size_names_segments_by_base_offset(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=500)
    batch_size = len(make_batch(0))
    for _ in range(30):
        append(log)
    per_segment = 500 // batch_size
    assert [s.base_offset for s in log.segments] == list(range(0, 30, per_segment))
    names = sorted(n for n in os.listdir(log.dir) if n.endswith(".log"))
    assert names == ["%020d.log" % s.base_offset for s in log.segments]
    assert all(s.size <= 500 for s in log.segments)
    # Rolled segments have trimmed indexes; the active one stays preallocated.
    assert os.path.getsize(log.segments[0].offset_index.path) == 8 * log.segments[0].offset_index.entries
    assert os.path.getsize(log.active_segment.offset_index.path) == 10 * 1024 * 1024
    assert log.log_end_offset == 30
    log.close()


def test_roll_by_time_uses_record_timestamps_or_creation_time(tmp_path, clock):
    log = open_log(tmp_path / "t-0", clock, segment_ms=60_000)
    append(log, timestamp=100_000)
    append(log, timestamp=160_000)  # exactly segment.ms later: no roll
    assert len(log.segments) == 1
    append(log, timestamp=160_001)
    assert [s.base_offset for s in log.segments] == [0, 2]
    # Without record timestamps, the segment's creation time on the injected clock counts.
    clock.now += 30_000
    log.roll()
    base = log.log_end_offset
    append(log, timestamp=-1)
    clock.now += 60_000
    append(log, timestamp=-1)
    assert log.active_segment.base_offset == base
    clock.now += 1
    append(log, timestamp=-1)
    assert log.active_segment.base_offset == base + 2
    log.close()


def test_roll_by_compaction_lag_and_by_full_indexes(tmp_path, clock):
    # A compacted log rolls after max.compaction.lag.ms when it is below segment.ms (KIP-354), a deleting one not.
    compacted = open_log(
        tmp_path / "c-0", clock, segment_ms=60_000, max_compaction_lag_ms=10_000, cleanup_policy="compact"
    )
    deleting = open_log(tmp_path / "d-0", clock, segment_ms=60_000, max_compaction_lag_ms=10_000)
    for log in (compacted, deleting):
        append(log, timestamp=100_000)
        append(log, timestamp=110_000)
        append(log, timestamp=110_001)
    assert [s.base_offset for s in compacted.segments] == [0, 2]
    assert [s.base_offset for s in deleting.segments] == [0]
    # 36 bytes of index: 4 offset index entries; 3 time index ones, the last kept for the entry written at the roll.
    # An entry goes in at every append after the first; the append after the one that fills an index rolls.
    by_offsets = open_log(tmp_path / "o-0", clock, index_interval_bytes=0, max_index_size=36)
    for _ in range(6):
        append(by_offsets)  # one timestamp: one time index entry
    assert [s.base_offset for s in by_offsets.segments] == [0, 5]
    by_times = open_log(tmp_path / "t-0", clock, index_interval_bytes=0, max_index_size=36)
    for i in range(4):
        append(by_times, timestamp=1000 + 10 * i)
    assert [s.base_offset for s in by_times.segments] == [0, 3]
    for log in (compacted, deleting, by_offsets, by_times):
        log.close()


def test_append_checks(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=300)
    append(log, count=3)
    with pytest.raises(UnexpectedAppendOffsetError):
        log.append(make_batch(2), 2, 1000, 2)
    with pytest.raises(InvalidRecordError):
        log.append(make_batch(3)[:-4], 3, 1000, 3)
    with pytest.raises(RecordBatchTooLargeError):
        log.append(make_batch(3, value_size=400), 3, 1000, 3)
    append(log, base_offset=10)  # a gap (compacted leader) is allowed
    assert log.log_end_offset == 11
    log.close()


def test_read_slices_max_bytes_and_min_one_message(tmp_path):
    log = open_log(tmp_path / "t-0")
    batches = [append(log, count=2) for _ in range(5)]
    size = len(batches[0])
    info = log.read(3, max_bytes=2 * size)
    assert info.offset_metadata == LogOffsetMetadata(3, 0, size)
    assert info.records.position == size and info.records.size == 2 * size
    assert info.read_bytes() == batches[1] + batches[2]
    assert offsets_in(log.read(0, 10).read_bytes()) == [0, 1]  # one whole batch despite max_bytes
    cut = log.read(0, 10, min_one_message=False)
    assert cut.records.size == 10 and cut.first_entry_incomplete
    at_end = log.read(10, 1000)
    assert at_end.records.size == 0 and at_end.offset_metadata.offset == 10
    with pytest.raises(OffsetOutOfRangeError):
        log.read(11, 1000)
    log.close()


def test_read_stops_at_max_offset(tmp_path):
    log = open_log(tmp_path / "t-0")
    batches = [append(log, count=2) for _ in range(5)]
    assert offsets_in(log.read(0, 10_000, max_offset=6).read_bytes()) == [0, 1, 2, 3, 4, 5]
    assert log.read(6, 10_000, max_offset=6).records.size == 0
    assert log.read(8, 10_000, max_offset=6).records.size == 0
    hw = log.offset_metadata(4)
    assert hw == LogOffsetMetadata(4, 0, 2 * len(batches[0]))
    assert log.read(0, 10_000, max_offset=hw).read_bytes() == batches[0] + batches[1]
    log.close()


def test_read_crosses_to_next_segment_and_enforces_log_start(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=200)
    for _ in range(10):
        append(log)
    second = log.segments[1]
    info = log.read(second.base_offset, 10_000)
    assert info.offset_metadata.segment_base_offset == second.base_offset
    assert info.records.size == second.size  # a read never spans segments
    log.maybe_increment_log_start_offset(5)
    with pytest.raises(OffsetOutOfRangeError):
        log.read(4, 100)
    assert offsets_in(log.read(5, 100).read_bytes())[0] == 5
    with pytest.raises(OffsetOutOfRangeError):
        log.maybe_increment_log_start_offset(11)
    log.close()


def test_iter_batches_to_end_replays_every_segment_from_the_log_start(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=200)
    for _ in range(10):
        append(log, count=2)
    log.maybe_increment_log_start_offset(4)
    batches = list(log.iter_batches_to_end(buffer_size=1))  # a buffer smaller than a batch still moves on
    assert [header.base_offset for header, _ in batches] == list(range(4, 20, 2))
    assert [record.offset for _, records in batches[:1] for record in records] == [4, 5]
    log.close()


def test_fetch_offset_by_timestamp(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=300)
    for i in range(10):
        append(log, count=2, timestamp=1000 * (i + 1), epoch=3 if i < 5 else 4)  # ts 1000*k, 1000*k+1
    assert len(log.segments) > 2
    assert log.fetch_offset_by_timestamp(-2) == (0, -1, 3)
    assert log.fetch_offset_by_timestamp(-1) == (20, -1, 4)
    assert log.fetch_offset_by_timestamp(0) == (0, 1000, 3)
    assert log.fetch_offset_by_timestamp(1001) == (1, 1001, 3)
    assert log.fetch_offset_by_timestamp(1002) == (2, 2000, 3)
    assert log.fetch_offset_by_timestamp(7500) == (14, 8000, 4)
    assert log.fetch_offset_by_timestamp(10_001) == (19, 10_001, 4)
    assert log.fetch_offset_by_timestamp(10_002) is None
    log.close()


def test_retention_by_time_deletes_old_segments_but_not_active(tmp_path, clock):
    log = open_log(tmp_path / "t-0", clock, segment_bytes=200, retention_ms=10_000)
    for i in range(12):
        append(log, timestamp=1000 * i)
    bases = [s.base_offset for s in log.segments]
    assert len(bases) >= 4
    cutoff_segment = log.segments[2]
    now = cutoff_segment.largest_timestamp + 10_000  # segments 0 and 1 are older than that, 2 is not
    assert log.delete_old_segments(now) == 2
    assert [s.base_offset for s in log.segments] == bases[2:]
    assert log.log_start_offset == bases[2]
    assert not any(n.startswith("%020d" % bases[0]) for n in os.listdir(log.dir))
    # Far in the future everything is old, but the active segment stays.
    assert log.delete_old_segments(10**12) == len(bases) - 3
    assert log.segments == (log.active_segment,)
    assert log.log_start_offset == log.active_segment.base_offset
    log.close()


def test_retention_by_size_and_high_watermark_bound(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=200, retention_ms=-1)
    for _ in range(12):
        append(log)
    segment_size = log.segments[0].size
    count = len(log.segments)
    log.config.retention_bytes = log.size - 2 * segment_size
    # Bounded by a high watermark inside the second segment, only the first may go.
    assert log.delete_old_segments(0, max_offset=log.segments[1].base_offset + 1) == 1
    assert log.delete_old_segments(0) == 1
    assert len(log.segments) == count - 2
    log.config.retention_bytes = 0
    assert log.delete_old_segments(0) == count - 3
    log.close()


def test_deleted_segments_linger_for_file_delete_delay(tmp_path, clock):
    log = open_log(tmp_path / "t-0", clock, segment_bytes=200, retention_ms=0, file_delete_delay_ms=60_000)
    for _ in range(6):
        append(log, timestamp=0)
    info = log.read(0, 1000)
    assert log.delete_old_segments(clock.now) > 0
    assert any(n.endswith(".log.deleted") for n in os.listdir(log.dir))
    assert offsets_in(info.read_bytes())[0] == 0  # a slice handed out before still reads
    log.remove_deleted_segments(clock.now + 59_999)
    assert any(n.endswith(".deleted") for n in os.listdir(log.dir))
    log.remove_deleted_segments(clock.now + 60_000)
    assert not any(n.endswith(".deleted") for n in os.listdir(log.dir))
    log.close()


def test_truncate_to_removes_later_segments_and_epochs(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=300)
    for i in range(10):
        append(log, count=2, epoch=i // 3)
    assert log.leader_epoch_cache.entries == [(0, 0), (1, 6), (2, 12), (3, 18)]
    assert log.truncate_to(8)
    assert log.log_end_offset == 8
    assert log.leader_epoch_cache.entries == [(0, 0), (1, 6)]
    assert log.active_segment.base_offset <= 8 < log.active_segment.base_offset + 10
    assert offsets_in(log.read(6, 10_000).read_bytes()) == [6, 7]
    assert not log.truncate_to(50)
    append(log, epoch=5)
    assert log.read(8, 1000).offset_metadata.offset == 8
    assert log.end_offset_for_epoch(1) == (1, 8)
    assert log.end_offset_for_epoch(5) == (5, 9)
    log.close()


def test_truncate_fully_and_start_at(tmp_path):
    log = open_log(tmp_path / "t-0", segment_bytes=300)
    for _ in range(10):
        append(log, epoch=1)
    log.truncate_fully_and_start_at(500)
    assert log.log_start_offset == log.log_end_offset == 500
    assert [s.base_offset for s in log.segments] == [500]
    assert log.leader_epoch_cache.entries == []
    assert sorted(n for n in os.listdir(log.dir) if n.endswith(".log")) == ["00000000000000000500.log"]
    append(log)
    assert log.log_end_offset == 501
    log.close()


def test_flush_moves_recovery_point(tmp_path):
    log = open_log(tmp_path / "t-0")
    assert log.recovery_point == 0
    append(log, count=3)
    log.flush(2)
    assert log.recovery_point == 2
    log.flush()
    assert log.recovery_point == 3
    log.close()


def test_clean_reopen_keeps_state(tmp_path, clock):
    log = open_log(tmp_path / "t-0", clock, segment_bytes=300)
    for i in range(10):
        append(log, count=2, timestamp=1000 * i, epoch=2)
    log.close()
    again = Log(str(tmp_path / "t-0"), LogConfig(segment_bytes=300), clock, recovery_point=20, clean_shutdown=True)
    assert again.log_end_offset == 20
    assert again.leader_epoch_cache.entries == [(2, 0)]
    assert again.fetch_offset_by_timestamp(5000) == (10, 5000, 2)
    append(again, count=1, timestamp=50_000)
    assert again.log_end_offset == 21
    again.close()


def crash_copy(log, tmp_path, name="t-0"):
    """What a kill -9 leaves on disk: the files as written, indexes untrimmed, nothing closed."""
    target = tmp_path / "crashed" / name
    shutil.copytree(log.dir, target)
    return target


def test_recovery_after_kill_without_close(tmp_path, clock):
    log = open_log(tmp_path / "live" / "t-0", clock, segment_bytes=2000, index_interval_bytes=100)
    for i in range(40):
        append(log, count=2, timestamp=1000 + i, epoch=1 if i < 20 else 2)
    path = crash_copy(log, tmp_path)
    active = "%020d.index" % log.active_segment.base_offset
    assert os.path.getsize(path / active) == 10 * 1024 * 1024
    recovered = open_log(path, clock, segment_bytes=2000, index_interval_bytes=100)
    assert recovered.log_end_offset == 80
    assert [s.base_offset for s in recovered.segments] == [s.base_offset for s in log.segments]
    assert recovered.leader_epoch_cache.entries == [(1, 0), (2, 40)]
    # Indexes were rebuilt to the same entries; the active one is expanded again for appends.
    for before, after in zip(log.segments, recovered.segments):
        assert after.offset_index.entries == before.offset_index.entries > 0
        assert [after.offset_index.entry(i) for i in range(after.offset_index.entries)] == [
            before.offset_index.entry(i) for i in range(before.offset_index.entries)
        ]
    assert os.path.getsize(recovered.segments[0].offset_index.path) == 8 * recovered.segments[0].offset_index.entries
    assert not recovered.active_segment.offset_index.is_full
    for offset in (0, 17, 41, 79):
        assert offsets_in(recovered.read(offset, 1).read_bytes())[offset % 2] == offset
    assert recovered.fetch_offset_by_timestamp(1030) == (59, 1030, 2)  # batch 29 holds 1029, 1030
    log.close()
    recovered.close()


@pytest.mark.parametrize("damage", ["garbage", "torn", "crc"])
def test_recovery_truncates_damaged_tail(tmp_path, clock, damage):
    log = open_log(tmp_path / "live" / "t-0", clock, segment_bytes=1000)
    for i in range(20):
        append(log, count=2, timestamp=1000 + i)
    expected = log.read(38, 1000).read_bytes()
    path = crash_copy(log, tmp_path)
    bad = make_batch(40)
    tail = {"garbage": os.urandom(100), "torn": bad[:30], "crc": bad[:-1] + bytes([bad[-1] ^ 1]) + make_batch(41)}[
        damage
    ]
    active = path / ("%020d.log" % log.active_segment.base_offset)
    with open(active, "ab") as f:
        f.write(tail)
    recovered = open_log(path, clock, segment_bytes=1000)
    assert recovered.log_end_offset == 40
    assert recovered.read(38, 1000).read_bytes() == expected
    assert recovered.active_segment.offset_index.sanity_check() is None
    append(recovered, count=1, timestamp=5000)
    assert offsets_in(recovered.read(40, 1000).read_bytes()) == [40]
    log.close()
    recovered.close()


def test_recovery_deletes_segments_after_a_corrupt_one(tmp_path, clock):
    log = open_log(tmp_path / "live" / "t-0", clock, segment_bytes=300)
    for _ in range(12):
        append(log)
    log.close()
    second = log.segments[1]
    with open(second.log_path, "r+b") as f:
        f.seek(second.size - 1)
        f.write(b"\xff")  # flip the last byte of the segment's last batch
    assert len(log.segments) > 2
    recovered = open_log(log.dir, clock, segment_bytes=300)  # no clean-shutdown flag, recovery point 0
    assert recovered.log_end_offset == second.next_offset() - 1
    assert [s.base_offset for s in recovered.segments] == [s.base_offset for s in log.segments[:2]]
    recovered.close()


def test_missing_index_is_rebuilt_and_leftovers_removed(tmp_path, clock):
    log = open_log(tmp_path / "t-0", clock, segment_bytes=300, index_interval_bytes=50)
    for _ in range(12):
        append(log)
    log.close()
    first = log.segments[0]
    entries = first.offset_index.entries
    os.remove(first.offset_index.path)
    for leftover in (
        "00000000000000000099.log.deleted",
        "00000000000000000003.index.cleaned",
        "00000000000000000077.index.swap",
        "00000000000000000555.timeindex",
    ):
        open(os.path.join(log.dir, leftover), "wb").close()
    again = Log(
        log.dir, LogConfig(segment_bytes=300, index_interval_bytes=50), clock, recovery_point=12, clean_shutdown=True
    )
    assert again.segments[0].offset_index.entries == entries
    assert not any(
        n.endswith((".deleted", ".cleaned", ".swap")) or n.startswith("00000000000000000555")
        for n in os.listdir(log.dir)
    )
    assert again.log_end_offset == 12
    again.close()


def test_swap_file_replaces_the_segments_it_covers(tmp_path, clock):
    log = open_log(tmp_path / "t-0", clock, segment_bytes=300)
    for _ in range(12):
        append(log)
    log.close()
    replaced_bases = [s.base_offset for s in log.segments[:2]]
    end = log.segments[2].base_offset
    compacted = make_batch(end - 1)  # a cleaner kept only the last record before `end`
    with open(os.path.join(log.dir, "%020d.log.swap" % 0), "wb") as f:
        f.write(compacted)
    os.rename(
        os.path.join(log.dir, "%020d.log" % replaced_bases[1]),
        os.path.join(log.dir, "%020d.log.deleted" % replaced_bases[1]),
    )
    os.remove(os.path.join(log.dir, "%020d.index" % replaced_bases[1]))
    os.remove(os.path.join(log.dir, "%020d.timeindex" % replaced_bases[1]))
    again = Log(log.dir, LogConfig(segment_bytes=300), clock, recovery_point=12, clean_shutdown=True)
    assert [s.base_offset for s in again.segments][:2] == [0, end]
    assert decode_batch(again.read(0, 1000).read_bytes())[1][0].offset == end - 1
    assert again.log_end_offset == 12
    again.close()


def test_delete_renames_then_removes_dir(tmp_path):
    log = open_log(tmp_path / "my.topic-3")
    append(log)
    seen = []
    real_rename = os.rename

    def spy(src, dst):
        seen.append(os.path.basename(dst))
        real_rename(src, dst)

    os.rename = spy
    try:
        log.delete()
    finally:
        os.rename = real_rename
    assert seen[0].startswith("my.topic-3.") and seen[0].endswith("-delete")
    assert len(seen[0]) == len("my.topic-3.") + 32 + len("-delete")
    assert os.listdir(tmp_path) == []
