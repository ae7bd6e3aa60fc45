"""LogSegment: append with sparse indexing, reads as file slices, timestamps, roll checks, recovery, truncation."""

import os

import pytest

from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.segment import LogSegment, segment_file_name
from kafka_zk.record.compression import GZIP
from kafka_zk.record.records import decode_batch, encode_batch


def make_batch(base_offset, count=1, timestamp=1000, value_size=10, epoch=-1, compression=0):
    records = [(None, b"v" * value_size, (), timestamp + i) for i in range(count)]
    return encode_batch(records, base_offset=base_offset, partition_leader_epoch=epoch, compression=compression)


def append(segment, base_offset, count=1, timestamp=1000, value_size=10, **kwargs):
    data = make_batch(base_offset, count, timestamp, value_size, **kwargs)
    last = base_offset + count - 1
    segment.append(last, timestamp + count - 1, last, data)
    return data


@pytest.fixture
def segment(tmp_path):
    seg = LogSegment(str(tmp_path), 100, now_ms=0, index_interval_bytes=200, max_index_size=4096)
    yield seg
    seg.close()


def test_files_are_named_by_20_digit_base_offset(segment, tmp_path):
    assert sorted(os.listdir(tmp_path)) == [
        "00000000000000000100.index",
        "00000000000000000100.log",
        "00000000000000000100.timeindex",
    ]
    assert segment_file_name(12345678901, ".log") == "00000000012345678901.log"


def test_append_writes_bytes_and_indexes_every_interval(segment):
    written = b""
    offset = 100
    for i in range(10):
        written += append(segment, offset, count=2, timestamp=1000 + 10 * i, value_size=40)
        offset += 2
    with open(segment.log_path, "rb") as f:
        assert f.read() == written
    assert segment.size == len(written)
    batch_size = len(written) // 10
    # An entry is added once more than 200 bytes went in since the last one; it maps the last
    # offset of the appended batch to the batch's position.
    entries = [segment.offset_index.entry(i) for i in range(segment.offset_index.entries)]
    assert entries and all(position % batch_size == 0 for _, position in entries)
    for offset_, position in entries:
        assert offset_ == 100 + (position // batch_size) * 2 + 1
    assert segment.time_index.entries == len(entries)
    assert segment.next_offset() == 120
    assert segment.max_timestamp_so_far == 1091


def test_read_returns_file_slices(segment):
    batches = [append(segment, 100 + 3 * i, count=3, value_size=30) for i in range(5)]
    size = len(batches[0])
    info = segment.read(104, max_size=10_000)
    assert info.offset_metadata == (104, 100, size)  # offset 104 lives in the second batch
    assert info.records.file is segment.file
    assert (info.records.position, info.records.size) == (size, 4 * size)
    assert info.read_bytes() == b"".join(batches[1:])
    assert not info.first_entry_incomplete

    limited = segment.read(100, max_size=size + 5)
    assert limited.records.size == size + 5  # a partial second batch, as Kafka sends it
    capped = segment.read(100, max_size=10_000, max_position=2 * size)
    assert capped.read_bytes() == batches[0] + batches[1]

    small = segment.read(100, max_size=10)
    assert small.records.size == size and not small.first_entry_incomplete
    strict = segment.read(100, max_size=10, min_one_message=False)
    assert strict.records.size == 10 and strict.first_entry_incomplete
    assert segment.read(115, max_size=100) is None


def test_find_offset_by_timestamp_looks_inside_batches(segment):
    append(segment, 100, count=5, timestamp=1000)  # timestamps 1000..1004
    append(segment, 105, count=5, timestamp=2000, compression=GZIP)
    assert segment.find_offset_by_timestamp(1003) == (103, 1003, -1)
    assert segment.find_offset_by_timestamp(1500) == (105, 2000, -1)
    assert segment.find_offset_by_timestamp(2002) == (107, 2002, -1)
    assert segment.find_offset_by_timestamp(1001, starting_offset=103) == (103, 1003, -1)
    assert segment.find_offset_by_timestamp(5000) is None


class StoppedClock:
    def seconds(self):
        return 0.0


def test_an_append_is_refused_until_the_segment_rolls_when_a_roll_is_due(segment):
    append(segment, 100, count=1, timestamp=5000, value_size=500)
    size = segment.size
    records = b"x" * 100

    def refused(config, timestamp, offset):
        refused = segment.append_unless_roll_due(config, StoppedClock(), offset, timestamp, offset, records) == -1
        assert segment.size == size or not refused  # nothing written when refused
        return refused

    assert refused(LogConfig(segment_bytes=size + 99, segment_ms=60_000), 5000, 101)  # would overflow segment.bytes
    # Time is measured from the first batch's timestamp to the new records' timestamp.
    assert refused(LogConfig(segment_bytes=10**9, segment_ms=60_000), 65_001, 101)
    # Relative offsets must fit in an int32.
    assert refused(LogConfig(segment_bytes=10**9, segment_ms=60_000), 5000, 100 + 2**31)
    assert not refused(LogConfig(segment_bytes=size + 100, segment_ms=60_000), 65_000, 101)
    assert segment.size == size + 100


def test_time_roll_without_timestamps_uses_creation_time(tmp_path):
    seg = LogSegment(str(tmp_path), 0, now_ms=1_000, max_index_size=4096)
    append(seg, 0, timestamp=-1)
    assert seg.time_waited_for_roll(now_ms=5_000, message_timestamp=-1) == 4_000
    seg.close()


def reopen(tmp_path, base=100, **kwargs):
    return LogSegment(str(tmp_path), base, now_ms=0, index_interval_bytes=200, max_index_size=4096, **kwargs)


def test_close_trims_indexes_and_reopen_serves_reads(tmp_path):
    seg = reopen(tmp_path)
    for i in range(20):
        append(seg, 100 + i, timestamp=1000 + i, value_size=50)
    entries = seg.offset_index.entries
    seg.close()
    assert os.path.getsize(seg.offset_index.path) == 8 * entries
    assert os.path.getsize(seg.time_index.path) == 12 * seg.time_index.entries
    again = reopen(tmp_path)
    again.sanity_check()
    assert again.next_offset() == 120
    assert again.largest_timestamp == 1019
    assert decode_batch(again.read(117, 1).read_bytes())[1][0].offset == 117
    again.close()


@pytest.mark.parametrize("damage", ["garbage", "torn", "crc"])
def test_recover_truncates_at_first_bad_batch(tmp_path, damage):
    seg = reopen(tmp_path)
    good = b"".join(append(seg, 100 + i, timestamp=1000 + i, value_size=50) for i in range(20))
    index_entries = seg.offset_index.entries
    seg.flush()
    bad = make_batch(120, value_size=50)
    if damage == "garbage":
        tail = b"\x13\x37" * 40
    elif damage == "torn":
        tail = bad[: len(bad) // 2]
    else:
        flipped = bytearray(bad)
        flipped[-1] ^= 0xFF
        tail = bytes(flipped) + make_batch(121, value_size=50)
    with open(seg.log_path, "ab") as f:
        f.write(tail)
    recovered = reopen(tmp_path)
    assert recovered.size == len(good) + len(tail)
    assert recovered.recover() == len(tail)
    assert os.path.getsize(recovered.log_path) == len(good)
    assert recovered.next_offset() == 120
    assert recovered.offset_index.entries == index_entries
    assert recovered.read(119, 1000).read_bytes() == good[-len(bad) :]
    recovered.close()
    seg.close()


def test_recover_rejects_offsets_going_backwards(tmp_path):
    seg = reopen(tmp_path)
    append(seg, 100)
    append(seg, 101)
    seg.close()
    with open(seg.log_path, "ab") as f:
        f.write(make_batch(100))  # valid CRC but its offsets repeat
    recovered = reopen(tmp_path)
    assert recovered.recover() > 0
    assert recovered.next_offset() == 102
    recovered.close()


def test_recover_assigns_newer_epochs_to_cache(tmp_path):
    class Cache:
        def __init__(self):
            self.entries = [(1, 0)]

        @property
        def latest_epoch(self):
            return self.entries[-1][0]

        def assign(self, epoch, start_offset):
            self.entries.append((epoch, start_offset))

    seg = reopen(tmp_path)
    append(seg, 100, epoch=1)
    append(seg, 101, epoch=2)
    append(seg, 102, epoch=2)
    append(seg, 103, epoch=4)
    cache = Cache()
    assert seg.recover(epoch_cache=cache) == 0
    assert cache.entries == [(1, 0), (2, 101), (4, 103)]
    seg.close()


def test_truncate_to(segment):
    batches = [append(segment, 100 + 2 * i, count=2, timestamp=1000 + i, value_size=60) for i in range(10)]
    removed = segment.truncate_to(110, now_ms=0)
    assert removed == 5 * len(batches[0])
    assert segment.next_offset() == 110
    assert segment.max_timestamp_so_far == 1005  # batch 4 holds timestamps 1004 and 1005
    assert all(segment.offset_index.entry(i).offset < 110 for i in range(segment.offset_index.entries))
    assert segment.time_index.last_entry.offset < 110
    assert segment.read(108, 10_000).read_bytes() == batches[4]
    append(segment, 110, timestamp=2000)
    assert segment.next_offset() == 111
    size = segment.size
    assert segment.truncate_to(100, now_ms=7) == size
    assert segment.size == 0 and segment.next_offset() == 100 and segment.created_ms == 7


def test_reads_near_the_end_start_at_a_recent_append_and_agree_with_a_full_scan(segment, monkeypatch):
    # 12 appends of one and of two batches (offsets 100-135); the last 8 appends (from offset 112) are
    # remembered, so offsets from 112 on are found without the offset index.
    positions = {}
    offset = 100
    for i in range(12):
        data = b""
        for _ in range(1 + i % 2):
            positions[offset] = segment.size + len(data)
            data += make_batch(offset, count=2, value_size=50)
            offset += 2
        segment.append(offset - 1, 1000, offset - 1, data)
    expected = {o: positions[o - (o - 100) % 2] for o in range(100, offset)}
    assert {o: segment.translate_offset(o)[0] for o in range(100, offset)} == expected

    def no_index(offset):
        raise AssertionError("the offset index was consulted for offset %d" % offset)

    index_lookup = segment.offset_index.lookup
    monkeypatch.setattr(segment.offset_index, "lookup", no_index)
    assert {o: segment.translate_offset(o)[0] for o in range(112, offset)} == {
        o: expected[o] for o in range(112, offset)
    }
    monkeypatch.setattr(segment.offset_index, "lookup", index_lookup)

    segment.truncate_to(124, now_ms=0)  # the remembered positions past the cut are forgotten with it
    append(segment, 124, count=3, value_size=50)
    append(segment, 127, count=1, value_size=50)
    assert segment.translate_offset(125)[0] == expected[124]
    assert segment.translate_offset(127)[0] == expected[124] + len(make_batch(124, count=3, value_size=50))
    assert segment.translate_offset(128) is None
    assert segment.read(126, 10_000).read_bytes()[:8] == (124).to_bytes(8, "big")


def test_change_suffix_and_delete(segment, tmp_path):
    append(segment, 100)
    segment.change_file_suffixes("", ".deleted")
    assert sorted(os.listdir(tmp_path)) == [
        "00000000000000000100.index.deleted",
        "00000000000000000100.log.deleted",
        "00000000000000000100.timeindex.deleted",
    ]
    assert segment.read(100, 100).records.size > 0  # still readable through the open file
    segment.delete()
    assert os.listdir(tmp_path) == []


def test_a_read_from_a_recent_append_answers_as_a_read_that_scans_the_headers(segment):
    two_batches = make_batch(100, count=2) + make_batch(102, count=3)  # one append of two batches
    segment.append(104, 1002, 104, two_batches)
    append(segment, 105, count=4, value_size=30)
    first = len(make_batch(100, count=2))
    cases = [(100, 1 << 20, None), (100, len(two_batches), None), (100, first, None), (100, 10, None)]
    cases += [(105, 1 << 20, None), (105, 1 << 20, len(two_batches) + 20), (102, 1 << 20, None), (104, 5, None)]
    fast = [segment.read(offset, max_size, max_position) for offset, max_size, max_position in cases]
    segment._recent_appends = None  # as after a restart: every read translates its offset from the index
    scanned = [segment.read(offset, max_size, max_position) for offset, max_size, max_position in cases]
    as_tuples = [
        (info.offset_metadata, info.records.position, info.records.size, info.first_entry_incomplete) for info in fast
    ]
    assert as_tuples == [
        (info.offset_metadata, info.records.position, info.records.size, info.first_entry_incomplete)
        for info in scanned
    ]
    assert as_tuples[0][2] == segment.size and as_tuples[3][2] == first  # min_one_message: the first batch whole
