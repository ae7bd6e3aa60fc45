"""Log cleaner core: offset map, eligibility, grouping, cleaning, tombstones, crash-safe swap, checkpoint."""

import os

import pytest

from kafka_zk.log.checkpoints import CLEANER_OFFSET_CHECKPOINT, OffsetCheckpointFile
from kafka_zk.log.cleaner import (
    CleanAbortedError,
    Cleaner,
    CleaningPlan,
    OffsetMap,
    SegmentInfo,
    Throttler,
    apply_cleaning,
    grab_filthiest,
    group_segments_by_size,
    log_to_clean,
)
from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.record.compression import GZIP
from kafka_zk.record.records import decode_batch, encode_batch, iter_batches
from tests.millisecond_clock import MillisecondClock

MB = 1024 * 1024
START_MS = 1_000_000_000


def compact_config(**overrides):
    values = dict(cleanup_policy="compact", segment_bytes=1024, min_cleanable_dirty_ratio=0.01)
    values.update(overrides)
    return LogConfig(**values)


def new_log(tmp_path, clock, **overrides):
    return Log(str(tmp_path / "t-0"), compact_config(**overrides), clock)


def produce(log, items, clock, compression=0, producer_id=-1, base_sequence=-1):
    """Append one batch of (key, value) items at the log end."""
    base = log.log_end_offset
    data = encode_batch(
        [(k, v, (), clock.now) for k, v in items],
        base_offset=base,
        compression=compression,
        producer_id=producer_id,
        producer_epoch=0 if producer_id >= 0 else -1,
        base_sequence=base_sequence,
    )
    last = base + len(items) - 1
    log.append(data, last, clock.now, last)
    return base


def read_all(log):
    """{offset: (key, value)} of every record, plus the batch headers, by reading the segment files."""
    records = {}
    headers = []
    for segment in log.segments:
        with open(segment.log_path, "rb") as f:
            data = f.read()
        for header, batch in iter_batches(data):
            headers.append(header)
            for record in batch:
                records[record.offset] = (record.key, record.value)
    return records, headers


def clean_once(log, clock, checkpoint=None, memory=MB, producer_last_offsets=None, max_offset=None):
    ltc = log_to_clean("t", 0, log, checkpoint, clock.now, max_offset)
    chosen = grab_filthiest([ltc])
    if chosen is None:
        return None
    plan = CleaningPlan.snapshot(chosen, producer_last_offsets)
    result = Cleaner(memory, clock).clean(plan)
    return apply_cleaning(log, result)


def fill(log, clock, keys=10, rounds=20):
    """Write ``rounds`` updates of ``keys`` keys; returns every write as (offset, key, value)."""
    writes = []
    for r in range(rounds):
        items = [(b"k%d" % k, b"v%d-%d" % (k, r)) for k in range(keys)]
        base = produce(log, items, clock)
        writes += [(base + i, k, v) for i, (k, v) in enumerate(items)]
    return writes


def latest_below(writes, end):
    """{key: (offset, value)} of the last write of each key below offset ``end``."""
    latest = {}
    for offset, key, value in writes:
        if offset < end:
            latest[key] = (offset, value)
    return latest


# -- the offset map ----------------------------------------------------------------------------


def test_offset_map_keeps_last_offset_and_is_bounded_like_kafkas():
    offset_map = OffsetMap(24 * 100, load_factor=0.9)
    assert offset_map.slots == 100 and offset_map.max_entries == 90
    offset_map.put(b"a", 1)
    offset_map.put(b"b", 2)
    offset_map.put(b"a", 7)
    assert offset_map.get(b"a") == 7 and offset_map.get(b"b") == 2 and offset_map.get(b"zz") == -1
    assert len(offset_map) == 2 and offset_map.latest_offset == 7 and not offset_map.full
    for i in range(88):
        offset_map.put(b"x%d" % i, 10 + i)
    assert offset_map.full


# -- grouping --------------------------------------------------------------------------------


def info(base, size, next_offset, index_bytes=8):
    return SegmentInfo(base, "/nowhere", size, 0, index_bytes, index_bytes, next_offset, None)


def test_groups_fit_one_segment_and_its_indexes():
    segments = [info(0, 400, 10), info(10, 400, 20), info(20, 400, 30), info(30, 100, 40)]
    groups = group_segments_by_size(segments, max_size=1000, max_index_size=1000)
    assert [[s.base_offset for s in g] for g in groups] == [[0, 10], [20, 30]]
    by_index = group_segments_by_size(segments, max_size=10_000, max_index_size=16)
    assert [[s.base_offset for s in g] for g in by_index] == [[0, 10], [20, 30]]
    by_offset = group_segments_by_size([info(0, 1, 10), info(10, 1, 2**31 + 5)], 10_000, 10_000)
    assert len(by_offset) == 2


# -- cleaning --------------------------------------------------------------------------------


def test_cleaning_keeps_the_last_value_of_each_key_at_its_offset(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock)
    expected = fill(log, clock)
    size_before = log.size
    produce(log, [(b"tail", b"t")], clock)  # the active segment is never cleaned
    active_base = log.active_segment.base_offset
    checkpoint = clean_once(log, clock)
    assert checkpoint == active_base
    records, _ = read_all(log)
    cleaned = {offset: kv for offset, kv in records.items() if offset < active_base}
    assert {k: (o, v) for o, (k, v) in cleaned.items()} == latest_below(expected, active_base)
    assert log.size < size_before
    # Reads through the Log still see the surviving offsets, in order.
    first = min(cleaned)
    data = log.read(first, 10 * MB).read_bytes()
    header, batch = decode_batch(data)
    assert batch[0].offset == first
    assert not any(name.endswith((".cleaned", ".swap")) for name in os.listdir(log.dir))


def test_cleaning_rewrites_batches_with_their_codec_and_producer_fields(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=4096)
    produce(log, [(b"a", b"1"), (b"b", b"1"), (b"c", b"1")], clock, compression=GZIP, producer_id=7, base_sequence=0)
    produce(log, [(b"a", b"2"), (b"c", b"2")], clock, compression=GZIP, producer_id=7, base_sequence=3)
    log.roll()
    produce(log, [(b"z", b"z")], clock)
    assert clean_once(log, clock, producer_last_offsets={7: 4}) == 5
    records, headers = read_all(log)
    assert records[1] == (b"b", b"1") and records[3] == (b"a", b"2") and records[4] == (b"c", b"2")
    assert 0 not in records and 2 not in records
    first = headers[0]
    assert (first.base_offset, first.last_offset_delta, first.compression) == (0, 2, GZIP)
    assert (first.producer_id, first.producer_epoch, first.base_sequence, first.record_count) == (7, 0, 0, 1)


def test_last_batch_of_an_active_producer_is_kept_empty(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=4096)
    produce(log, [(b"a", b"1")], clock, producer_id=9, base_sequence=0)
    produce(log, [(b"b", b"1")], clock)
    produce(log, [(b"a", b"2")], clock)
    log.roll()
    produce(log, [(b"z", b"z")], clock)
    clean_once(log, clock, producer_last_offsets={9: 0})
    records, headers = read_all(log)
    assert 0 not in records
    empty = headers[0]
    assert (empty.base_offset, empty.record_count, empty.producer_id, empty.base_sequence) == (0, 0, 9, 0)
    # Without an active producer the emptied batch goes.
    log2 = Log(str(tmp_path / "u-0"), compact_config(segment_bytes=4096), clock)
    produce(log2, [(b"a", b"1")], clock, producer_id=9, base_sequence=0)
    produce(log2, [(b"a", b"2")], clock)
    log2.roll()
    produce(log2, [(b"z", b"z")], clock)
    ltc = log_to_clean("u", 0, log2, None, clock.now)
    apply_cleaning(log2, Cleaner(MB, clock).clean(CleaningPlan.snapshot(ltc, {})))
    assert [h.base_offset for h in read_all(log2)[1]] == [1, 2]


def test_tombstones_stay_until_delete_retention_after_cleaning_then_go(tmp_path):
    # Kafka 2.5's horizon: the last already-clean segment's mtime minus delete.retention.ms; a
    # tombstone goes once the segment holding it was last modified before that horizon.
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=300, delete_retention_ms=10_000)
    produce(log, [(b"a", b"1"), (b"b", b"1")], clock)
    produce(log, [(b"a", None)], clock)
    log.roll()
    for i in range(6):
        produce(log, [(b"f%d" % i, b"x" * 50)], clock)
    checkpoint = clean_once(log, clock)
    records, _ = read_all(log)
    assert records[2] == (b"a", None) and 0 not in records
    assert len(log.segments) > 2  # several clean segments: the tombstone's is not the last one

    def age_tombstone_segment(seconds):
        holder = [s for s in log.segments if s.base_offset <= 2][-1]
        for segment in log.segments[:-1]:
            stamp = os.stat(segment.log_path).st_mtime
            if segment is holder:
                stamp -= seconds
            os.utime(segment.log_path, (stamp, stamp))

    def more_dirty_data(round_):
        produce(log, [(b"g%d" % round_, b"y")], clock)
        log.roll()
        produce(log, [(b"h%d" % round_, b"y")], clock)

    age_tombstone_segment(5)
    more_dirty_data(1)
    checkpoint = clean_once(log, clock, checkpoint)
    assert read_all(log)[0][2] == (b"a", None)  # 5 s old, retention 10 s: it stays
    log.config = compact_config(segment_bytes=300, delete_retention_ms=1000)
    age_tombstone_segment(5)
    more_dirty_data(2)
    clean_once(log, clock, checkpoint)
    records, _ = read_all(log)
    assert 2 not in records and records[1] == (b"b", b"1")


def test_min_compaction_lag_and_max_compaction_lag(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=4096, min_compaction_lag_ms=10_000, min_cleanable_dirty_ratio=0.99)
    produce(log, [(b"a", b"1")], clock)
    produce(log, [(b"a", b"2")], clock)
    log.roll()
    produce(log, [(b"a", b"3")], clock)
    ltc = log_to_clean("t", 0, log, None, clock.now)
    assert ltc.first_uncleanable_offset == 0 and ltc.cleanable_bytes == 0  # too young to clean
    clock.now += 20_000
    ltc = log_to_clean("t", 0, log, None, clock.now)
    assert ltc.first_uncleanable_offset == 2 and ltc.cleanable_ratio == 1.0
    assert grab_filthiest([ltc]) is ltc
    assert clean_once(log, clock) == 2
    assert read_all(log)[0] == {1: (b"a", b"2"), 2: (b"a", b"3")}


def test_eligibility_by_ratio_and_forced_by_max_compaction_lag(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=4096, min_cleanable_dirty_ratio=0.5)
    produce(log, [(b"a", b"1")], clock)
    log.roll()
    produce(log, [(b"a", b"2")], clock)
    log.roll()
    produce(log, [(b"a", b"3")], clock)
    first_size = log.segments[0].size
    # Half clean, half dirty: a ratio equal to the minimum is not enough.
    ltc = log_to_clean("t", 0, log, 1, clock.now)
    assert ltc.clean_bytes == first_size and ltc.cleanable_bytes == log.segments[1].size
    assert ltc.cleanable_ratio == pytest.approx(0.5) and grab_filthiest([ltc]) is None
    # Everything dirty: ratio 1.0.
    assert grab_filthiest([log_to_clean("t", 0, log, None, clock.now)]) is not None
    # max.compaction.lag.ms forces the half-dirty log.
    log.config = compact_config(segment_bytes=4096, min_cleanable_dirty_ratio=0.5, max_compaction_lag_ms=1000)
    clock.now += 5000
    forced = log_to_clean("t", 0, log, 1, clock.now)
    assert forced.needs_compaction_now and grab_filthiest([forced]) is forced
    # The filthiest of several is chosen; a log with nothing dirty is not.
    idle = log_to_clean("t", 0, log, log.active_segment.base_offset, clock.now)
    assert grab_filthiest([idle]) is None


def test_max_compaction_lag_shortens_segment_ms_for_compacted_logs():
    assert compact_config(segment_ms=100_000, max_compaction_lag_ms=5000).max_segment_ms == 5000
    assert LogConfig(segment_ms=100_000, max_compaction_lag_ms=5000).max_segment_ms == 100_000


def test_high_watermark_bounds_the_cleanable_range(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=4096)
    produce(log, [(b"a", b"1")], clock)
    log.roll()
    produce(log, [(b"a", b"2")], clock)
    log.roll()
    produce(log, [(b"a", b"3")], clock)
    assert log_to_clean("t", 0, log, None, clock.now, max_offset=0).first_uncleanable_offset == 0
    assert log_to_clean("t", 0, log, None, clock.now, max_offset=1).first_uncleanable_offset == 1
    assert log_to_clean("t", 0, log, None, clock.now, max_offset=2).first_uncleanable_offset == 2


def test_a_small_offset_map_cleans_in_several_passes(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=2048)
    expected = fill(log, clock, keys=40, rounds=10)
    produce(log, [(b"tail", b"t")], clock)
    active_base = log.active_segment.base_offset
    checkpoint = None
    passes = 0
    while checkpoint != active_base:
        checkpoint = clean_once(log, clock, checkpoint, memory=24 * 30)  # 27 keys per pass
        passes += 1
        assert passes < 50
    assert passes > 1
    records, _ = read_all(log)
    survivors = {k: (o, v) for o, (k, v) in records.items() if o < active_base}
    assert survivors == latest_below(expected, active_base)
    assert len(survivors) == 40


def test_changed_log_drops_the_pass(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock)
    fill(log, clock, rounds=5)
    produce(log, [(b"tail", b"t")], clock)
    plan = CleaningPlan.snapshot(log_to_clean("t", 0, log, None, clock.now))
    result = Cleaner(MB, clock).clean(plan)
    log.truncate_to(3)
    assert apply_cleaning(log, result) is None
    assert not any(name.endswith(".cleaned") for name in os.listdir(log.dir))
    # A log deleted before the pass starts aborts it.
    log2 = Log(str(tmp_path / "u-0"), compact_config(), clock)
    fill(log2, clock, rounds=5)
    produce(log2, [(b"tail", b"t")], clock)
    plan2 = CleaningPlan.snapshot(log_to_clean("u", 0, log2, None, clock.now))
    log2.delete()
    with pytest.raises(CleanAbortedError):
        Cleaner(MB, clock).clean(plan2)


# -- crash recovery of the swap ----------------------------------------------------------------


def prepared_swap(tmp_path, clock):
    """A log with a cleaning pass written (``.cleaned`` files) but not swapped; returns (log, result)."""
    log = new_log(tmp_path, clock, segment_bytes=4096)
    for r in range(3):
        produce(log, [(b"a", b"%d" % r), (b"b", b"%d" % r)], clock)
        log.roll()
    produce(log, [(b"z", b"z")], clock)
    result = Cleaner(MB, clock).clean(CleaningPlan.snapshot(log_to_clean("t", 0, log, None, clock.now)))
    assert len(result.groups) == 1 and len(result.groups[0].old) == 3
    return log, result


def reload(log, clock):
    log.close()
    return Log(log.dir, log.config, clock)


def surviving(log):
    return read_all(log)[0]


ORIGINAL = {
    0: (b"a", b"0"),
    1: (b"b", b"0"),
    2: (b"a", b"1"),
    3: (b"b", b"1"),
    4: (b"a", b"2"),
    5: (b"b", b"2"),
    6: (b"z", b"z"),
}
CLEANED = {4: (b"a", b"2"), 5: (b"b", b"2"), 6: (b"z", b"z")}


def test_crash_with_cleaned_files_rolls_back(tmp_path):
    clock = MillisecondClock(START_MS)
    log, result = prepared_swap(tmp_path, clock)
    result.groups[0].cleaned.close()
    log = reload(log, clock)
    assert surviving(log) == ORIGINAL
    assert not any(n.endswith(".cleaned") for n in os.listdir(log.dir))


def test_crash_after_rename_to_swap_completes(tmp_path):
    clock = MillisecondClock(START_MS)
    log, result = prepared_swap(tmp_path, clock)
    cleaned = result.groups[0].cleaned
    cleaned.change_file_suffixes(".cleaned", ".swap")
    cleaned.close()
    log = reload(log, clock)
    assert surviving(log) == CLEANED
    assert [s.base_offset for s in log.segments] == [0, 6]
    assert not any(n.endswith((".swap", ".deleted")) for n in os.listdir(log.dir))


def test_crash_with_swap_log_but_cleaned_indexes_completes(tmp_path):
    clock = MillisecondClock(START_MS)
    log, result = prepared_swap(tmp_path, clock)
    cleaned = result.groups[0].cleaned
    cleaned.close()
    os.rename(cleaned.log_path, cleaned.log_path[: -len(".cleaned")] + ".swap")
    log = reload(log, clock)
    # The .cleaned index marks the swap of that base as unfinished, as in Kafka: rolled back.
    assert surviving(log) == ORIGINAL


def test_crash_after_old_segments_deleted_completes(tmp_path):
    clock = MillisecondClock(START_MS)
    log, result = prepared_swap(tmp_path, clock)
    cleaned = result.groups[0].cleaned
    cleaned.change_file_suffixes(".cleaned", ".swap")
    for info in result.groups[0].old:
        info.segment.change_file_suffixes("", ".deleted")
    cleaned.close()
    for info in result.groups[0].old:
        info.segment.close()
    log.close()
    log = Log(log.dir, log.config, clock)
    assert surviving(log) == CLEANED


def test_finished_swap_survives_reload(tmp_path):
    clock = MillisecondClock(START_MS)
    log, result = prepared_swap(tmp_path, clock)
    assert apply_cleaning(log, result) == 6
    log = reload(log, clock)
    assert surviving(log) == CLEANED


# -- the checkpoint file ---------------------------------------------------------------------


def test_cleaner_checkpoint_is_kafkas_offset_checkpoint(tmp_path):
    path = tmp_path / CLEANER_OFFSET_CHECKPOINT
    OffsetCheckpointFile(str(path)).write({("t", 0): 42, ("a-b", 3): 7})
    assert path.read_text() == "0\n2\na-b 3 7\nt 0 42\n"
    assert OffsetCheckpointFile(str(path)).read() == {("t", 0): 42, ("a-b", 3): 7}


def test_first_dirty_offset_starts_from_the_checkpoint(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, segment_bytes=4096)
    produce(log, [(b"a", b"1")], clock)
    log.roll()
    produce(log, [(b"a", b"2")], clock)
    log.roll()
    produce(log, [(b"a", b"3")], clock)
    assert log_to_clean("t", 0, log, 1, clock.now).first_dirty_offset == 1
    assert log_to_clean("t", 0, log, 99, clock.now).first_dirty_offset == 0  # past the end: reset
    log.maybe_increment_log_start_offset(1)
    assert log_to_clean("t", 0, log, 0, clock.now).first_dirty_offset == 1  # below the start


def test_throttler_sleeps_to_hold_the_byte_rate():
    clock = MillisecondClock(0)
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        clock.now += int(seconds * 1000)

    throttler = Throttler(1000.0, clock, sleep, check_interval_ms=100)  # 1000 bytes per second
    throttler.maybe_throttle(0)
    clock.now += 100
    throttler.maybe_throttle(500)  # 500 bytes in 100 ms: half a second is owed
    assert slept == [pytest.approx(0.4)]
    unlimited = Throttler(1.7976931348623157e308, clock, sleep)
    unlimited.maybe_throttle(10**12)
    assert len(slept) == 1


def test_truncation_is_noted_for_the_cleaner_checkpoint(tmp_path):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock)
    fill(log, clock, rounds=3)
    assert log.truncated_to is None
    log.truncate_to(12)
    log.truncate_to(20)  # nothing past the end: no truncation
    log.truncate_to(5)
    assert log.truncated_to == 5
    log.truncated_to = None
    log.truncate_fully_and_start_at(40)
    assert log.truncated_to == 40


@pytest.mark.parametrize("policy,deleted", [("compact", 0), ("compact,delete", 2)])
def test_time_retention_applies_to_compact_delete_only(tmp_path, policy, deleted):
    clock = MillisecondClock(START_MS)
    log = new_log(tmp_path, clock, cleanup_policy=policy, segment_bytes=4096, retention_ms=1000)
    for _ in range(2):
        produce(log, [(b"a", b"1")], clock)
        log.roll()
    produce(log, [(b"a", b"2")], clock)
    clock.now += 5000
    assert log.delete_old_segments(clock.now) == deleted
    assert log.config.compact
