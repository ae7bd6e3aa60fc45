"""DeleteRecords on real Log files: the log start offset moves, whole segments go, followers follow, low watermark."""

import os

import pytest

from kafka_zk.log.checkpoints import LOG_START_OFFSET_CHECKPOINT, OffsetCheckpointFile
from kafka_zk.log.log import Log, OffsetOutOfRangeError
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.record.records import encode_batch
from kafka_zk.record.validation import validate_produce_records
from kafka_zk.server.replication.partition import Partition
from tests.millisecond_clock import MillisecondClock


def batch(count, base_offset=0):
    return encode_batch([(None, b"value-%d" % i + b"." * 100) for i in range(count)], base_offset=base_offset)


def fill(log, batches, per_batch=1):
    for _ in range(batches):
        base = log.log_end_offset
        log.append(batch(per_batch, base), base + per_batch - 1, 1000, base + per_batch - 1)


def segment_files(path):
    return sorted(name for name in os.listdir(path) if name.endswith(".log"))


def test_log_start_moves_and_whole_segments_below_it_are_deleted(tmp_path):
    log = Log(str(tmp_path / "t-0"), LogConfig(segment_bytes=500, file_delete_delay_ms=60000), MillisecondClock(0))
    fill(log, 20)
    bases = [segment.base_offset for segment in log.segments]
    assert len(bases) > 3
    target = bases[2] + 1  # inside the third segment
    assert log.maybe_increment_log_start_offset(target)
    assert log.delete_segments_below_log_start(now_ms=0) == 2
    assert log.log_start_offset == target
    assert [segment.base_offset for segment in log.segments] == bases[2:]
    names = os.listdir(log.dir)
    assert "%020d.log.deleted" % bases[0] in names and "%020d.log.deleted" % bases[1] in names
    log.remove_deleted_segments(60000)
    assert segment_files(log.dir)[0] == "%020d.log" % bases[2]
    with pytest.raises(OffsetOutOfRangeError):
        log.read(bases[2], 1000)
    assert log.read(target, 1000).records.size > 0
    assert log.fetch_offset_by_timestamp(-2).offset == target
    assert not log.maybe_increment_log_start_offset(target - 1)  # never moves back


def test_log_start_offset_survives_a_restart_through_the_checkpoint(tmp_path):
    manager = LogManager([str(tmp_path / "a"), str(tmp_path / "b")], LogConfig(segment_bytes=500), MillisecondClock(0))
    log = manager.get_or_create_log("t", 0)
    fill(log, 20)
    target = log.segments[1].base_offset + 1
    log.maybe_increment_log_start_offset(target)
    log.delete_segments_below_log_start(0)
    manager.shutdown()
    checkpoint = OffsetCheckpointFile(
        os.path.join(manager.log_dir_of("t", 0) or os.path.dirname(log.dir), LOG_START_OFFSET_CHECKPOINT)
    ).read()
    assert checkpoint == {("t", 0): target}
    reopened = LogManager([str(tmp_path / "a"), str(tmp_path / "b")], LogConfig(segment_bytes=500), MillisecondClock(0))
    reopened.load_logs()
    assert reopened.get_log("t", 0).log_start_offset == target


def state(leader, isr=(1, 2), replicas=(1, 2)):
    return {
        "leader": leader,
        "leader_epoch": 0,
        "isr": list(isr),
        "replicas": list(replicas),
        "zk_version": 0,
        "controller_epoch": 1,
    }


@pytest.fixture
def partitions(tmp_path):
    def make(broker_id, **config):
        def provider(topic, index):
            return Log(
                str(tmp_path / ("b%d" % broker_id) / ("%s-%d" % (topic, index))),
                LogConfig(segment_bytes=600, file_delete_delay_ms=0, **config),
                MillisecondClock(0),
            )

        return Partition("t", 0, broker_id, provider)

    return make


def produce(leader, count):
    for _ in range(count):
        leader.append_as_leader(validate_produce_records(batch(1), 0), 1, 1, None, 0)


def test_leader_deletes_records_follower_follows_and_low_watermark_is_the_minimum(partitions):
    leader, follower = partitions(1), partitions(2)
    leader.make_leader(state(1), now_ms=0)
    follower.make_follower(state(1))
    produce(leader, 12)
    while follower.log.log_end_offset < 12:
        info, hw, start, _ = leader.read(follower.log.log_end_offset, 1 << 20, for_follower=True)
        follower.append_as_follower(info.read_bytes(), hw, start)
    leader.update_follower(2, follower.log.log_end_offset, follower.log.log_start_offset, now_ms=1)
    leader.maybe_advance_high_watermark(1, 1000)
    assert leader.high_watermark == 12
    with pytest.raises(KafkaError) as beyond:
        leader.delete_records_on_leader(13, now_ms=2)
    assert beyond.value.code == Errors.OFFSET_OUT_OF_RANGE
    assert leader.delete_records_on_leader(7, now_ms=2) == 7
    assert leader.log.log_start_offset == 7 and leader.log.segments[0].base_offset <= 7
    assert leader.log.segments[0].base_offset > 0  # whole segments below 7 are gone
    assert leader.low_watermark() == 0  # the follower still starts at 0
    info, hw, start, _ = leader.read(12, 1 << 20, for_follower=True)
    follower.append_as_follower(info.read_bytes(), hw, start)
    assert follower.log.log_start_offset == 7
    assert follower.log.segments[0].base_offset == leader.log.segments[0].base_offset
    leader.update_follower(2, follower.log.log_end_offset, follower.log.log_start_offset, now_ms=3)
    assert leader.low_watermark() == 7
    assert leader.low_watermark(is_alive=lambda broker_id: False) == 7
    assert leader.delete_records_on_leader(-1, now_ms=4) == 12  # -1: the high watermark
    assert leader.log.log_start_offset == 12


def test_delete_records_errors_on_a_follower_and_under_compaction(partitions):
    follower = partitions(2)
    follower.make_follower(state(1))
    with pytest.raises(KafkaError) as not_leader:
        follower.delete_records_on_leader(0, now_ms=0)
    assert not_leader.value.code == Errors.NOT_LEADER_FOR_PARTITION
    compacted = partitions(1, cleanup_policy="compact")
    compacted.make_leader(state(1), now_ms=0)
    with pytest.raises(KafkaError) as policy:
        compacted.delete_records_on_leader(0, now_ms=0)
    assert policy.value.code == Errors.POLICY_VIOLATION
    leader = partitions(3)
    leader.make_leader(state(3, (3,), (3,)), now_ms=0)
    with pytest.raises(KafkaError) as negative:
        leader.delete_records_on_leader(-5, now_ms=0)
    assert negative.value.code == Errors.OFFSET_OUT_OF_RANGE
