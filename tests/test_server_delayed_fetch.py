"""DelayedFetch on a task.Clock with real logs: an idle long poll answers on expiry with what it read when it
was parked; a change to a partition it watches makes it read again."""

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
TPS = [("t", 0), ("t", 1)]


@pytest.fixture
def manager(tmp_path):
    clock = task.Clock()
    logs = LogManager([str(tmp_path / "a")], LogConfig(), clock)
    manager = replica_manager(1, logs, lambda topic: dict(CONFIG), clock)
    states = [
        {
            "topic": "t",
            "partition": p,
            "leader": 1,
            "leader_epoch": 0,
            "isr": [1],
            "replicas": [1],
            "zk_version": 0,
            "controller_epoch": 1,
        }
        for _, p in TPS
    ]
    manager.become_leader_or_follower(states, {})
    reads = []
    real_read = manager.read_partitions

    def counted_read(*args, **kwargs):
        reads.append(args[0])
        return real_read(*args, **kwargs)

    manager.read_partitions = counted_read
    manager.reads, manager.clock = reads, clock
    return manager


def long_poll(manager, min_bytes=1):
    results = []
    manager.fetch_messages(500, min_bytes, 1 << 20, [FetchInfo(tp, 0, 1 << 20, -1, 0) for tp in TPS]).addCallback(
        results.append
    )
    return results


def test_an_idle_long_poll_answers_on_expiry_with_what_it_read_when_parked(manager):
    got = long_poll(manager)
    manager.clock.advance(0.5)
    (results,) = got
    assert {tp: (r.error, r.records, r.high_watermark) for tp, r in results.items()} == {
        tp: (Errors.NONE, b"", 0) for tp in TPS
    }
    assert len(manager.reads) == 1


def test_a_change_to_a_watched_partition_makes_the_answer_read_again(manager):
    got = long_poll(manager, min_bytes=1 << 20)  # more than the append brings: it stays parked
    manager.append_records(1000, 1, {("t", 1): encode_batch([(None, b"v")])})
    assert got == []
    manager.clock.advance(0.5)
    (results,) = got
    assert results[("t", 0)].records == b"" and results[("t", 1)].records != b""
    assert results[("t", 1)].high_watermark == 1
    assert len(manager.reads) == 2


def test_enough_new_data_completes_the_poll_at_the_end_of_the_reactor_turn_with_it(manager):
    got = long_poll(manager)
    manager.append_records(1000, 1, {("t", 0): encode_batch([(None, b"v")])})
    assert got == []  # the turn may append more: the poll wakes once, when it ends
    manager.clock.advance(0)
    (results,) = got
    assert results[("t", 0)].records != b"" and results[("t", 0)].high_watermark == 1


def test_min_bytes_counts_the_bytes_of_every_watched_partition(manager):
    batch = encode_batch([(None, b"v" * 100)])
    got = long_poll(manager, min_bytes=len(batch) + 1)  # one batch is one byte short
    manager.append_records(1000, 1, {("t", 0): batch})
    manager.clock.advance(0)
    assert got == []
    manager.append_records(1000, 1, {("t", 1): batch})
    manager.clock.advance(0)
    (results,) = got
    assert results[("t", 0)].records != b""
    assert results[("t", 1)].records != b""
    assert len(results[("t", 0)].records) + len(results[("t", 1)].records) == 2 * len(batch)
