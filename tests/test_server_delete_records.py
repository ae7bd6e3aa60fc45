"""ReplicaManager.delete_records on real logs and an injected clock: errors, waiting for followers, timeouts."""

import pytest
from twisted.internet import task

from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.replication.results import FetchInfo
from tests.replica_manager_support import replica_manager

CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})


@pytest.fixture
def setup(tmp_path):
    clock = task.Clock()
    clock.advance(1000)
    logs = LogManager([str(tmp_path / "a"), str(tmp_path / "b")], LogConfig(), clock)
    manager = replica_manager(1, logs, lambda topic: dict(CONFIG), clock, knows_partition=lambda tp: tp == ("t", 5))
    state = {
        "topic": "t",
        "partition": 0,
        "leader": 1,
        "leader_epoch": 0,
        "isr": [1, 2],
        "replicas": [1, 2],
        "zk_version": 0,
        "controller_epoch": 1,
    }
    assert manager.become_leader_or_follower([state], {}) == {("t", 0): Errors.NONE}
    for _ in range(10):
        manager.append_records(1000, 1, {("t", 0): encode_batch([(None, b"v")])})
    follow(manager, 10, 0)
    return manager, clock


def follow(manager, fetch_offset, log_start_offset):
    manager.fetch_messages(
        0, 0, 1 << 20, [FetchInfo(("t", 0), fetch_offset, 1 << 20, -1, log_start_offset)], replica_id=2
    )


def outcome(deferred):
    results = []
    deferred.addCallback(results.append)
    return results


def test_waits_for_the_follower_then_answers_the_low_watermark(setup):
    manager, clock = setup
    assert manager.get_partition("t", 0).high_watermark == 10
    got = outcome(manager.delete_records(5000, {("t", 0): 4, ("t", 5): 1, ("x", 0): 1}))
    assert got == []  # the follower still starts at 0
    assert manager.get_partition("t", 0).log.log_start_offset == 4
    follow(manager, 10, 4)
    (results,) = got
    assert (results[("t", 0)].error, results[("t", 0)].low_watermark) == (Errors.NONE, 4)
    assert results[("t", 5)].error == Errors.NOT_LEADER_FOR_PARTITION  # known to the cluster, not here
    assert results[("x", 0)].error == Errors.UNKNOWN_TOPIC_OR_PARTITION


@pytest.mark.parametrize("timeout_ms", [0, -7, 300])
def test_times_out_when_followers_do_not_follow(setup, timeout_ms):
    manager, clock = setup
    got = outcome(manager.delete_records(timeout_ms, {("t", 0): -1}))
    clock.advance(max(0, timeout_ms) / 1000.0)
    (results,) = got
    assert results[("t", 0)].error == Errors.REQUEST_TIMED_OUT
    assert manager.get_partition("t", 0).log.log_start_offset == 10  # -1 is the high watermark


def test_offset_beyond_the_high_watermark_is_out_of_range(setup):
    manager, clock = setup
    (results,) = outcome(manager.delete_records(1000, {("t", 0): 11}))
    assert (results[("t", 0)].error, results[("t", 0)].low_watermark) == (Errors.OFFSET_OUT_OF_RANGE, -1)
