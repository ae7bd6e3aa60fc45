"""Partition replication decisions on real Log files: HW, follower state, ISR changes, truncation."""

import pytest

from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.record.records import encode_batch
from kafka_zk.record.validation import validate_produce_records
from kafka_zk.server.replication.partition import Partition
from kafka_zk.server.replication.replica_fetcher import truncation_offset
from tests.millisecond_clock import MillisecondClock


@pytest.fixture
def make_partition(tmp_path):
    def make(broker_id):
        def provider(topic, index):
            return Log(
                str(tmp_path / ("b%d" % broker_id) / ("%s-%d" % (topic, index))), LogConfig(), MillisecondClock(0)
            )

        return Partition("t", 0, broker_id, provider)

    return make


def state(leader, epoch, isr, replicas=(1, 2, 3), zk_version=0):
    return {
        "leader": leader,
        "leader_epoch": epoch,
        "isr": list(isr),
        "replicas": list(replicas),
        "zk_version": zk_version,
        "controller_epoch": 1,
    }


def append(partition, count, acks=1, min_isr=1, now=0):
    batch = encode_batch([(None, b"v%d" % i) for i in range(count)])
    return partition.append_as_leader(validate_produce_records(batch, now), acks, min_isr, None, now)


def test_high_watermark_waits_for_the_isr(make_partition):
    leader = make_partition(1)
    leader.make_leader(state(1, 0, [1, 2, 3]), now_ms=0)
    append(leader, 5)
    assert leader.log.log_end_offset == 5 and leader.high_watermark == 0
    leader.update_follower(2, 5, 0, now_ms=10)
    leader.maybe_advance_high_watermark(10, 1000)
    assert leader.high_watermark == 0  # follower 3 has not fetched yet
    leader.update_follower(3, 3, 0, now_ms=10)
    assert leader.maybe_advance_high_watermark(10, 1000)
    assert leader.high_watermark == 3


def test_high_watermark_is_the_least_log_end_of_the_isr_and_of_followers_caught_up_in_time(make_partition):
    leader = make_partition(1)
    leader.make_leader(state(1, 0, [1, 2]), now_ms=0)
    append(leader, 6)
    leader.update_follower(2, 4, 0, now_ms=10)
    leader.update_follower(3, 2, 0, now_ms=10)  # out of the ISR and behind: last caught up at 0
    assert leader.maybe_advance_high_watermark(10, 5)  # 3 beyond the 5 ms lag: left out
    assert leader.high_watermark == 4
    assert not leader.maybe_advance_high_watermark(10, 1000)  # 3 within the lag: its 2 is below the HW
    assert leader.high_watermark == 4
    leader.update_follower(2, 6, 0, now_ms=20)
    assert leader.maybe_advance_high_watermark(20, None)  # the ISR only: up to the log end
    assert leader.high_watermark == 6
    assert not leader.maybe_advance_high_watermark(20, None)


def test_min_insync_replicas_is_checked_before_the_append(make_partition):
    leader = make_partition(1)
    leader.make_leader(state(1, 0, [1]), now_ms=0)
    with pytest.raises(KafkaError) as error:
        append(leader, 1, acks=-1, min_isr=2)
    assert error.value.code == Errors.NOT_ENOUGH_REPLICAS
    assert leader.log.log_end_offset == 0
    append(leader, 1, acks=1, min_isr=2)
    assert leader.log.log_end_offset == 1


def test_isr_shrinks_for_lagging_followers_and_expands_when_caught_up(make_partition):
    leader = make_partition(1)
    leader.make_leader(state(1, 0, [1, 2, 3]), now_ms=0)
    append(leader, 4)
    leader.update_follower(2, 4, 0, now_ms=500)
    assert leader.isr_to_shrink(now_ms=900, max_lag_ms=1000) is None
    assert leader.isr_to_shrink(now_ms=1200, max_lag_ms=1000) == [1, 2]  # 3 never caught up since 0
    leader.apply_isr([1, 2], 1)
    leader.maybe_advance_high_watermark(1200, None)
    assert leader.high_watermark == 4
    leader.update_follower(3, 2, 0, now_ms=1300)
    assert leader.isr_to_expand(3) is None  # below the high watermark
    leader.update_follower(3, 4, 0, now_ms=1400)
    assert leader.isr_to_expand(3) == [1, 2, 3]


def test_follower_append_moves_leo_hw_and_producer_state(make_partition):
    leader, follower = make_partition(1), make_partition(2)
    leader.make_leader(state(1, 3, [1, 2]), now_ms=0)
    follower.make_follower(state(1, 3, [1, 2]))
    batch = encode_batch([(None, b"a"), (None, b"b")], producer_id=9, producer_epoch=0, base_sequence=0)
    leader.append_as_leader(validate_produce_records(batch, 0), 1, 1, None, 0)
    fetched = leader.read(0, 1 << 20, for_follower=True)[0].read_bytes()
    follower.append_as_follower(fetched + fetched[:20], leader_high_watermark=1, leader_log_start_offset=0)
    assert follower.log.log_end_offset == 2 and follower.high_watermark == 1
    assert follower.producer_state.find_duplicate(9, 0, 0, 1).first_offset == 0
    assert follower.log.leader_epoch_cache.latest_epoch == 3
    follower.append_as_follower(fetched, 2, 0)  # already have these: nothing appended
    assert follower.log.log_end_offset == 2


def test_truncation_rule_follows_kafka():
    class FakeLog:
        log_end_offset = 100

        def end_offset_for_epoch(self, epoch):
            return {5: (5, 80), 4: (3, 60)}.get(epoch, (-1, -1))

    log = FakeLog()
    assert truncation_offset(log, 40, 5, -1) == (40, True)  # no answer: to the high watermark
    assert truncation_offset(log, 40, 5, 90) == (80, True)  # same epoch: min of both ends
    assert truncation_offset(log, 40, 5, 70) == (70, True)
    assert truncation_offset(log, 40, 4, 70) == (60, False)  # we lack epoch 4: cut and ask again
    assert truncation_offset(log, 40, 9, 70) == (70, True)


def test_fenced_and_unknown_leader_epochs(make_partition):
    leader = make_partition(1)
    leader.make_leader(state(1, 4, [1]), now_ms=0)
    for epoch, code in [(3, Errors.FENCED_LEADER_EPOCH), (5, Errors.UNKNOWN_LEADER_EPOCH)]:
        with pytest.raises(KafkaError) as error:
            leader.check_leader(epoch)
        assert error.value.code == code
    leader.check_leader(4)
