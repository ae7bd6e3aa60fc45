"""Moving a replica between log dirs on real files: future-log naming, catching up, the swap, placement."""

import os

import pytest

from kafka_zk.log.future_log import caught_up, copy_step, follow_truncation
from kafka_zk.log.log import future_dir_name, is_future_dir, parse_topic_partition
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.record.records import encode_batch, iter_records
from tests.millisecond_clock import MillisecondClock


def fill(log, batches, tag=b"r"):
    for _ in range(batches):
        base = log.log_end_offset
        records = encode_batch(
            [(None, tag + b"-%d" % (base + i) + b"." * 60) for i in range(3)],
            base_offset=base,
            partition_leader_epoch=0,
        )
        log.append(records, base + 2, 1000, base + 2)


def all_values(log):
    values, offset = [], log.log_start_offset
    while offset < log.log_end_offset:
        data = log.read(offset, 1 << 20).read_bytes()
        records = [r for r in iter_records(data) if r.offset >= offset]
        values += [(r.offset, r.value) for r in records]
        offset = records[-1].offset + 1
    return values


def test_future_dir_names_parse_back_to_the_partition():
    name = future_dir_name("my.topic-x", 7)
    assert is_future_dir(name) and name.startswith("my.topic-x-7.") and len(name) == len("my.topic-x-7.") + 32 + 7
    assert parse_topic_partition(name) == ("my.topic-x", 7)
    assert parse_topic_partition("t-3.%s-delete" % ("a" * 32)) == ("t", 3)
    with pytest.raises(ValueError):
        parse_topic_partition("t-3.notauuid-future")


@pytest.fixture
def manager(tmp_path):
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    return LogManager(dirs, LogConfig(segment_bytes=700, file_delete_delay_ms=0), MillisecondClock(0)), dirs


def test_new_partitions_go_to_the_emptiest_dir_unless_one_was_chosen(manager):
    logs, (a, b) = manager
    assert logs.log_dir_of(*("t", 0)) is None
    logs.get_or_create_log("t", 0)
    logs.get_or_create_log("t", 1)
    assert {logs.log_dir_of("t", 0), logs.log_dir_of("t", 1)} == {a, b}
    logs.maybe_update_preferred_dir("t", 2, b)
    logs.maybe_update_preferred_dir("t", 3, b)
    logs.get_or_create_log("t", 2)
    logs.get_or_create_log("t", 3)
    assert logs.log_dir_of("t", 2) == b and logs.log_dir_of("t", 3) == b
    logs.get_or_create_log("t", 4)
    assert logs.log_dir_of("t", 4) == a  # the preference was used up; a has fewer partitions now


def test_a_future_log_catches_up_while_the_current_one_grows_then_swaps_in(manager, tmp_path):
    logs, (a, b) = manager
    logs.maybe_update_preferred_dir("t", 0, a)
    current = logs.get_or_create_log("t", 0)
    fill(current, 20)
    current.maybe_increment_log_start_offset(10)
    current.delete_segments_below_log_start()
    future = logs.create_future_log("t", 0, b)
    assert os.path.dirname(future.dir) == b and is_future_dir(os.path.basename(future.dir))
    assert [entry[2] for entry in logs.logs_in_dir(b)] == [True]
    steps = 0
    while not caught_up(current, future):
        assert copy_step(current, future, 500) > 0
        steps += 1
        if steps == 3:
            fill(current, 5, b"late")  # the producer keeps writing during the move
    assert steps > 3 and future.log_start_offset == 10
    expected = all_values(current)
    replaced = logs.replace_current_with_future("t", 0, now_ms=0)
    assert replaced is future and replaced.dir == os.path.join(b, "t-0") and logs.log_dir_of("t", 0) == b
    assert all_values(replaced) == expected and expected[0][0] == 10
    assert [e.epoch for e in replaced.leader_epoch_cache.entries] == [0]
    assert [n for n in os.listdir(a) if n.startswith("t-0")][0].endswith("-delete")
    fill(replaced, 1, b"after")  # appends go on in the new dir
    logs.remove_deleted_logs(now_ms=0)
    assert not [n for n in os.listdir(a) if n.startswith("t-0")]
    logs.shutdown()
    reopened = LogManager([a, b], LogConfig(segment_bytes=700), MillisecondClock(0))
    reopened.load_logs()
    assert reopened.log_dir_of("t", 0) == b
    assert all_values(reopened.get_log("t", 0))[: len(expected)] == expected


def test_a_future_log_follows_truncation_and_survives_a_restart(manager):
    logs, (a, b) = manager
    logs.maybe_update_preferred_dir("t", 1, a)
    current = logs.get_or_create_log("t", 1)
    fill(current, 6)
    future = logs.create_future_log("t", 1, b)
    while not caught_up(current, future):
        copy_step(current, future, 1 << 20)
    current.truncate_to(9)
    follow_truncation(future, 9)
    fill(current, 2, b"new")
    while not caught_up(current, future):
        copy_step(current, future, 1 << 20)
    assert all_values(future) == all_values(current)
    logs.shutdown()
    reopened = LogManager([a, b], LogConfig(), MillisecondClock(0))
    reopened.load_logs()
    assert reopened.get_future_log("t", 1).log_end_offset == current.log_end_offset
    assert reopened.log_dir_of("t", 1) == a and reopened.future_log_dir_of("t", 1) == b
    assert reopened.remove_future_log("t", 1) and not [n for n in os.listdir(b) if n.startswith("t-1")]


def test_a_swap_interrupted_after_the_old_log_went_completes_on_load(manager):
    logs, (a, b) = manager
    logs.maybe_update_preferred_dir("t", 2, a)
    current = logs.get_or_create_log("t", 2)
    fill(current, 4)
    future = logs.create_future_log("t", 2, b)
    while not caught_up(current, future):
        copy_step(current, future, 1 << 20)
    expected = all_values(current)
    future.flush()
    logs.shutdown()
    # The crash window of the swap: the old log is already renamed -delete, the future one not yet renamed.
    os.rename(current.dir, os.path.join(a, "t-2.%s-delete" % ("0" * 32)))
    reopened = LogManager([a, b], LogConfig(), MillisecondClock(0))
    reopened.load_logs()
    assert reopened.log_dir_of("t", 2) == b and reopened.get_future_log("t", 2) is None
    assert reopened.get_log("t", 2).dir == os.path.join(b, "t-2")
    assert all_values(reopened.get_log("t", 2)) == expected
    assert not [n for n in os.listdir(a) if n.startswith("t-2")]
