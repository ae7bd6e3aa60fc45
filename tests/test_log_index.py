"""Offset and time index files: byte format, lookup, truncation, trimming, sanity checks."""

import os
import shutil
import struct

import pytest

from kafka_zk.log.index_file import CorruptIndexError, IndexFullError, InvalidOffsetError
from kafka_zk.log.offset_index import OffsetIndex
from kafka_zk.log.time_index import TimeIndex


def test_offset_index_preallocates_and_writes_big_endian_entries(tmp_path):
    path = str(tmp_path / "00000000000000000100.index")
    index = OffsetIndex(path, 100, max_index_size=1000)
    assert os.path.getsize(path) == 1000  # already a multiple of 8
    assert index.max_entries == 125 and index.entries == 0
    index.append(100, 0)
    index.append(105, 4200)
    index.append(0x1_0000 + 100, 0x01020304)
    index.close()
    with open(path, "rb") as f:
        data = f.read()
    assert data == (b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x10\x68\x00\x01\x00\x00\x01\x02\x03\x04")


def test_offset_index_lookup(tmp_path):
    index = OffsetIndex(str(tmp_path / "a.index"), 50, max_index_size=800)
    assert index.lookup(70) == (50, 0)  # empty: base offset, position 0
    for offset, position in [(52, 100), (60, 900), (75, 2000)]:
        index.append(offset, position)
    assert index.lookup(10) == (50, 0)
    assert index.lookup(51) == (50, 0)
    assert index.lookup(52) == (52, 100)
    assert index.lookup(59) == (52, 100)
    assert index.lookup(60) == (60, 900)
    assert index.lookup(1000) == (75, 2000)
    assert index.last_offset == 75


def test_offset_index_rejects_out_of_order_and_full(tmp_path):
    index = OffsetIndex(str(tmp_path / "a.index"), 0, max_index_size=20)  # rounds down to 2 entries
    assert index.max_entries == 2
    index.append(3, 10)
    with pytest.raises(InvalidOffsetError):
        index.append(3, 20)
    index.append(4, 20)
    assert index.is_full
    with pytest.raises(IndexFullError):
        index.append(9, 30)


def test_offset_index_truncate(tmp_path):
    index = OffsetIndex(str(tmp_path / "a.index"), 0, max_index_size=800)
    for i in range(1, 6):
        index.append(i * 10, i * 100)
    index.truncate_to(30)  # removes 30 and later
    assert index.entries == 2 and index.last_offset == 20
    index.truncate_to(25)
    assert index.entries == 2
    index.truncate_to(5)
    assert index.entries == 0 and index.last_offset == 0
    index.append(7, 70)
    assert index.lookup(100) == (7, 70)


def test_offset_index_trim_on_close_and_reopen(tmp_path):
    path = str(tmp_path / "00000000000000000000.index")
    index = OffsetIndex(path, 0)
    assert os.path.getsize(path) == 10 * 1024 * 1024
    index.append(3, 4100)
    index.append(9, 8300)
    index.close()
    assert os.path.getsize(path) == 16
    reopened = OffsetIndex(path, 0)
    assert reopened.entries == 2 and reopened.is_full
    reopened.sanity_check()
    assert reopened.lookup(8) == (3, 4100)
    reopened.resize(10 * 1024 * 1024)
    assert not reopened.is_full
    reopened.append(12, 9000)
    assert reopened.lookup(100) == (12, 9000)
    reopened.close()
    assert os.path.getsize(path) == 24


def test_offset_index_sanity_check_catches_untrimmed_and_bad_length(tmp_path):
    path = str(tmp_path / "00000000000000000000.index")
    index = OffsetIndex(path, 0, max_index_size=800)
    index.append(3, 100)
    index.flush()
    crashed = str(tmp_path / "crashed.index")
    shutil.copyfile(path, crashed)  # what a kill -9 leaves: the file still preallocated
    with pytest.raises(CorruptIndexError):
        OffsetIndex(crashed, 0, max_index_size=800).sanity_check()
    with open(path, "wb") as f:
        f.write(struct.pack(">ii", 1, 10) + b"\x00\x00\x00")
    with pytest.raises(CorruptIndexError):
        OffsetIndex(path, 0).sanity_check()
    with open(path, "wb") as f:
        f.write(struct.pack(">iiiiii", 1, 10, 5, 20, 1, 30))
    with pytest.raises(CorruptIndexError):
        OffsetIndex(path, 0).sanity_check()


def test_time_index_format_and_lookup(tmp_path):
    path = str(tmp_path / "00000000000000000010.timeindex")
    index = TimeIndex(path, 10, max_index_size=1000)
    assert os.path.getsize(path) == 996  # rounded down to a multiple of 12
    assert index.lookup(5000) == (-1, 10)
    index.maybe_append(1000, 12)
    index.maybe_append(1000, 15)  # same timestamp: not appended
    index.maybe_append(2000, 15)
    index.maybe_append(3000, 20)
    assert index.entries == 3
    assert index.lookup(999) == (-1, 10)
    assert index.lookup(1000) == (1000, 12)
    assert index.lookup(2500) == (2000, 15)
    assert index.lookup(9999) == (3000, 20)
    with pytest.raises(InvalidOffsetError):
        index.maybe_append(4000, 19)
    with pytest.raises(InvalidOffsetError):
        index.maybe_append(2999, 25)
    index.close()
    with open(path, "rb") as f:
        assert f.read() == (struct.pack(">qi", 1000, 2) + struct.pack(">qi", 2000, 5) + struct.pack(">qi", 3000, 10))


def test_time_index_keeps_last_slot_for_roll_and_truncates(tmp_path):
    index = TimeIndex(str(tmp_path / "a.timeindex"), 0, max_index_size=36)
    index.maybe_append(1, 1)
    index.maybe_append(2, 2)
    assert index.is_full
    with pytest.raises(IndexFullError):
        index.maybe_append(3, 3)
    index.maybe_append(3, 3, skip_full_check=True)
    assert index.entries == 3
    index.truncate_to(2)
    assert index.entries == 1 and index.last_entry == (1, 1)
    index.truncate_to(0)
    assert index.entries == 0 and index.last_entry == (-1, 0)


def test_time_index_sanity_check(tmp_path):
    path = str(tmp_path / "a.timeindex")
    index = TimeIndex(path, 0, max_index_size=120)
    index.maybe_append(100, 1)
    index.flush()
    crashed = str(tmp_path / "crashed.timeindex")
    shutil.copyfile(path, crashed)  # zero padding after the entry
    with pytest.raises(CorruptIndexError):
        TimeIndex(crashed, 0).sanity_check()
    with open(path, "wb") as f:
        f.write(struct.pack(">qi", 100, 1) + struct.pack(">qi", 200, 3))
    TimeIndex(path, 0).sanity_check()


def test_an_open_index_holds_no_file_descriptor(tmp_path):
    """One descriptor per segment at most (its .log): indexes keep their entries in memory, not mapped."""
    before = len(os.listdir("/proc/self/fd"))
    indexes = [OffsetIndex(str(tmp_path / ("%020d.index" % base)), base, 4096) for base in range(0, 500, 10)]
    for index in indexes:
        index.append(index.base_offset + 1, 100)
    assert len(os.listdir("/proc/self/fd")) == before
    for index in indexes:
        index.close()
    reopened = OffsetIndex(str(tmp_path / ("%020d.index" % 0)), 0, 4096)
    assert reopened.entries == 1 and reopened.lookup(5) == (1, 100)


def test_flushed_entries_are_in_the_file_before_close(tmp_path):
    path = tmp_path / "00000000000000000000.index"
    index = OffsetIndex(str(path), 0, 4096)
    index.append(3, 70)
    index.flush()
    assert path.read_bytes()[:8] == bytes.fromhex("00000003 00000046")


def test_a_preallocated_index_left_by_a_crash_is_not_read_whole(tmp_path):
    """Reopening an active segment's index after kill -9 (10 MB, sparse) reads only its written part, and the
    zero tail still fails the sanity check so that recovery rebuilds it, as in Kafka."""
    path = str(tmp_path / "00000000000000000000.index")
    index = OffsetIndex(path, 0, 10 * 1024 * 1024)
    index.append(5, 100)
    index.flush()
    reopened = OffsetIndex(path, 0, 10 * 1024 * 1024)
    assert reopened.entries == 10 * 1024 * 1024 // 8
    assert len(reopened._buf) < 64 * 1024
    assert reopened.entry(0) == (5, 100) and reopened.entry(reopened.entries - 1) == (0, 0)
    with pytest.raises(CorruptIndexError):
        reopened.sanity_check()
