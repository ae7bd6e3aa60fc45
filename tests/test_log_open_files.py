"""Segment `.log` descriptors under a budget: opened when used, the least recently used let go, none
closed under a reader, none reopened by a stale name or after close."""

import os
import threading

import pytest

from kafka_zk.log import open_files
from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.open_files import OpenFileBudget
from kafka_zk.log.segment import LogSegment
from kafka_zk.record.records import encode_batch, iter_records
from tests.millisecond_clock import MillisecondClock


def open_descriptors_to(directory):
    directory = os.path.realpath(str(directory))
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/%s" % fd)
        except OSError:
            continue
        if target.startswith(directory + os.sep):
            count += 1
    return count


def batch(base_offset, value):
    return encode_batch([(None, value, (), 1000)], base_offset=base_offset)


def append(segment, offset, value):
    segment.append(offset, 1000, offset, batch(offset, value))


def values(data):
    return [record.value for record in iter_records(data)]


def segments(tmp_path, count, budget):
    made = []
    for i in range(count):
        folder = tmp_path / ("p-%d" % i)
        folder.mkdir()
        made.append(LogSegment(str(folder), 0, now_ms=0, open_files=budget))
    return made


def test_at_most_capacity_segments_hold_a_descriptor_and_the_rest_reopen_when_used(tmp_path):
    budget = OpenFileBudget(capacity=3)
    all_segments = segments(tmp_path, 10, budget)
    for i, segment in enumerate(all_segments):
        append(segment, 0, b"first-%d" % i)
        assert open_descriptors_to(tmp_path) <= 3
    for i, segment in enumerate(all_segments):
        append(segment, 1, b"second-%d" % i)
    assert len(budget) == 3 and open_descriptors_to(tmp_path) == 3
    for i in reversed(range(10)):  # the least recently used first: each read reopens a let-go file
        segment = all_segments[i]
        assert values(segment.read(0, 10_000).read_bytes()) == [b"first-%d" % i, b"second-%d" % i]
        assert segment.size == os.path.getsize(segment.log_path)
        assert open_descriptors_to(tmp_path) <= 3
    for segment in all_segments:
        segment.close()
    assert len(budget) == 0 and open_descriptors_to(tmp_path) == 0


def test_a_slice_keeps_its_descriptor_after_the_segment_lets_go(tmp_path):
    budget = OpenFileBudget(capacity=1)
    first, second = segments(tmp_path, 2, budget)
    append(first, 0, b"kept")
    data = first.read(0, 10_000)
    append(second, 0, b"other")  # opening the second makes the first let go
    assert len(budget) == 1 and first._file is None
    assert open_descriptors_to(tmp_path) == 2  # the slice still holds the first's descriptor
    assert values(data.read_bytes()) == [b"kept"]
    del data
    assert open_descriptors_to(tmp_path) == 1


def test_a_scan_in_progress_keeps_its_descriptor_while_another_thread_opens_files(tmp_path):
    budget = OpenFileBudget(capacity=1)
    scanned, *others = segments(tmp_path, 4, budget)
    for offset in range(50):
        append(scanned, offset, b"x" * 300)
    headers = scanned._iter_headers(0)
    first = [next(headers) for _ in range(5)]

    def open_others():
        for _offset, segment in enumerate(others):
            append(segment, 0, b"y")

    worker = threading.Thread(target=open_others)
    worker.start()
    worker.join()
    assert scanned._file is None
    rest = list(headers)
    assert [header.base_offset for _, header in first + rest] == list(range(50))


def test_the_clock_spares_a_recently_used_segment(tmp_path):
    budget = OpenFileBudget(capacity=2)
    hot, cold, newcomer = segments(tmp_path, 3, budget)
    append(hot, 0, b"h")
    append(cold, 0, b"c")
    hot.recently_used = cold.recently_used = False
    hot.read(0, 100)  # a use marks it
    append(newcomer, 0, b"n")
    assert hot._file is not None and cold._file is None and newcomer._file is not None


def test_a_renamed_segment_reopens_by_its_new_name_and_a_closed_or_deleted_one_never_reopens(tmp_path):
    budget = OpenFileBudget(capacity=1)
    renamed, other, deleted = segments(tmp_path, 3, budget)
    append(renamed, 0, b"r")
    append(other, 0, b"o")
    assert renamed._file is None
    renamed.change_file_suffixes("", ".deleted")
    assert renamed.log_path.endswith(".log.deleted")
    assert values(renamed.read(0, 100).read_bytes()) == [b"r"]

    other.close()
    with pytest.raises(ValueError):
        other.read(0, 100)
    deleted.delete()
    with pytest.raises(ValueError):
        deleted.read(0, 100)
    assert not os.path.exists(deleted.log_path)
    assert sorted(os.listdir(tmp_path / "p-2")) == []


def test_many_logs_under_a_small_budget_append_read_recover_and_reopen(tmp_path, monkeypatch):
    monkeypatch.setattr(open_files.SEGMENT_FILES, "capacity", 4)
    clock = MillisecondClock(1_000_000)
    config = LogConfig(segment_bytes=400)
    logs = [Log(str(tmp_path / ("t-%d" % i)), config, clock) for i in range(12)]
    for round_ in range(6):
        for i, log in enumerate(logs):
            offset = log.log_end_offset
            log.append(batch(offset, b"%d-%d" % (i, round_) * 20), offset, 1000, offset)
    assert open_descriptors_to(tmp_path) <= 4
    assert all(len(log.segments) > 1 for log in logs)

    for i, log in enumerate(logs):
        got = []
        offset = 0
        while offset < log.log_end_offset:
            data = log.read(offset, 1_000_000).read_bytes()
            records = list(iter_records(data))
            got += [record.value for record in records]
            offset = records[-1].offset + 1
        assert got == [b"%d-%d" % (i, round_) * 20 for round_ in range(6)]
    assert open_descriptors_to(tmp_path) <= 4

    # Killed without close: recovery reads every segment again through the budget.
    for log in logs:
        log.flush()
    ends = [log.log_end_offset for log in logs]
    reopened = [Log(log.dir, config, clock, recovery_point=0) for log in logs]
    assert [log.log_end_offset for log in reopened] == ends
    assert open_descriptors_to(tmp_path) <= 4
    for log in logs + reopened:
        log.close()
    assert open_descriptors_to(tmp_path) == 0
