"""A leader's ISR writes across a leader epoch change, in memory on real logs and a task.Clock: a write still in
flight when the controller bumps the epoch must neither count nor block the new epoch's ISR changes."""

import pytest
from twisted.internet import defer, task

from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.replication.results import FetchInfo
from tests.replica_manager_support import replica_manager

CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})
TP = ("t", 0)
LAG_MS = 4000


class HeldIsrWrites:
    """The ISR writer of a broker whose ZooKeeper writes answer when the test says: (new ISR, Deferred) each."""

    def __init__(self):
        self.writes = []

    def __call__(self, partition, new_isr):
        done = defer.Deferred()
        self.writes.append((list(new_isr), done))
        return done


@pytest.fixture
def leader(tmp_path):
    """Broker 1's replica manager, its task.Clock and its held ISR writes: (manager, clock, HeldIsrWrites)."""
    clock = task.Clock()
    clock.advance(1000)
    writes = HeldIsrWrites()
    manager = replica_manager(
        1,
        LogManager([str(tmp_path)], LogConfig(), clock),
        lambda topic: dict(CONFIG),
        clock,
        isr_writer=writes,
        replica_lag_time_max_ms=LAG_MS,
        knows_partition=lambda tp: True,
    )
    return manager, clock, writes


def lead(manager, epoch, isr, zk_version):
    manager.become_leader_or_follower(
        [
            {
                "topic": TP[0],
                "partition": TP[1],
                "leader": 1,
                "leader_epoch": epoch,
                "isr": list(isr),
                "replicas": [1, 2, 3],
                "zk_version": zk_version,
                "controller_epoch": 1,
            }
        ],
        {},
    )
    return manager.get_partition(*TP)


def fetch_from(manager, replica_id, offset, epoch):
    manager.fetch_messages(0, 0, 1 << 20, [FetchInfo(TP, offset, 1 << 20, epoch, 0)], replica_id)


def test_a_write_of_the_old_epoch_does_not_stop_the_new_epoch_from_expanding_the_isr(leader):
    manager, clock, writes = leader
    lead(manager, 0, [1, 2, 3], 0)
    manager.append_records(1000, 1, {TP: encode_batch([(None, b"a"), (None, b"b")])})
    fetch_from(manager, 2, 2, 0)
    clock.advance(LAG_MS / 1000 + 1)
    fetch_from(manager, 2, 2, 0)
    manager.shrink_isrs()  # broker 3 stopped fetching: the leader writes the ISR without it ...
    assert [isr for isr, _ in writes.writes] == [[1, 2]]

    # ... while the controller, broker 3's session gone, takes it out with a new leader epoch.
    partition = lead(manager, 1, [1, 2], 1)
    assert partition.leader_epoch == 1 and partition.isr == [1, 2]
    writes.writes[0][1].callback(None)  # the old epoch's write lost the race
    assert partition.isr == [1, 2] and partition.zk_version == 1

    # Broker 3 is back and catches up within the new epoch: the leader asks to add it.
    fetch_from(manager, 3, 2, 1)
    assert [isr for isr, _ in writes.writes[1:]] == [[1, 2, 3]]
    writes.writes[1][1].callback(2)
    assert partition.isr == [1, 2, 3] and partition.zk_version == 2


def test_a_write_answered_after_the_epoch_changed_is_not_applied(leader):
    manager, clock, writes = leader
    lead(manager, 0, [1, 2, 3], 0)
    clock.advance(LAG_MS / 1000 + 1)
    manager.shrink_isrs()
    assert [isr for isr, _ in writes.writes] == [[1]]
    partition = lead(manager, 1, [1, 2, 3], 1)
    writes.writes[0][1].callback(7)  # written before the controller's write, answered after its LeaderAndIsr
    assert partition.isr == [1, 2, 3] and partition.zk_version == 1
