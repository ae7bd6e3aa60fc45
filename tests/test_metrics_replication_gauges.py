"""The replication gauges' meanings, in memory: the ReplicaManager's partition counts and ISR meters, the
purgatories' sizes, the fetcher manager's MaxLag and MinFetchRate, and the fetch session cache's counts."""

import pytest
from twisted.internet import defer, task

from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.common.purgatory import DelayedOperation, DelayedOperationPurgatory
from kafka_zk.log.dir_failure import LogDirFailureChannel
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.replication.fetch_session import FetchSessionCache
from kafka_zk.server.replication.replica_fetcher import ReplicaFetcher, ReplicaFetcherManager
from kafka_zk.server.replication.replica_metrics import OneMinuteRate
from kafka_zk.server.replication.results import FetchInfo
from tests.replica_manager_support import Unthrottled, replica_manager

BROKER_CONFIG = KafkaConfig({"broker.id": "1", "zookeeper.connect": "zk"})
CONFIG = effective_topic_config(BROKER_CONFIG.log_config_defaults(), {})


def gauges(registry):
    return {
        (name.type, name.name, name.tags): value
        for name, kind, value in registry.samples()
        if kind in ("gauge", "meter")
    }


def replica_manager_gauges(registry):
    return {name: value for (type_, name, tags), value in gauges(registry).items() if type_ == "ReplicaManager"}


def state(topic, partition, leader, isr, replicas):
    return {
        "topic": topic,
        "partition": partition,
        "leader": leader,
        "leader_epoch": 1,
        "isr": isr,
        "replicas": replicas,
        "zk_version": 0,
        "controller_epoch": 1,
    }


@pytest.fixture
def replicas(tmp_path):
    clock = task.Clock()
    registry = MetricsRegistry()
    min_isr = {"two": 2, "one": 1}
    writes = []

    def isr_writer(partition, new_isr):
        writes.append(defer.Deferred())
        return writes[-1]

    manager = replica_manager(
        1,
        LogManager([str(tmp_path / "a")], LogConfig(), clock),
        lambda topic: dict(CONFIG, **{"min.insync.replicas": min_isr.get(topic, 1)}),
        clock,
        isr_writer=isr_writer,
        metrics=registry,
        replica_lag_time_max_ms=100,
    )
    manager.registry, manager.clock, manager.writes = registry, clock, writes
    return manager


def test_partition_counts_as_kafka_defines_them(replicas):
    replicas.become_leader_or_follower(
        [
            state("two", 0, 1, [1, 2], [1, 2]),  # led, full ISR, at min ISR (2)
            state("two", 1, 1, [1], [1, 2]),  # led, under-replicated, under min ISR
            state("one", 0, 1, [1], [1, 2, 3]),  # led, under-replicated, at min ISR (1)
            state("one", 1, 2, [2, 1], [2, 1]),  # followed: counted in PartitionCount only
        ],
        {},
    )
    replicas.offline_partitions.add(("gone", 0))
    assert replica_manager_gauges(replicas.registry) == {
        "PartitionCount": 5,
        "LeaderCount": 3,
        "UnderReplicatedPartitions": 2,
        "UnderMinIsrPartitionCount": 1,
        "AtMinIsrPartitionCount": 2,
        "OfflineReplicaCount": 1,
        "IsrShrinksPerSec": 0,
        "IsrExpandsPerSec": 0,
        "FailedIsrUpdatesPerSec": 0,
    }


def test_isr_meters_count_written_changes_and_lost_races(replicas):
    replicas.become_leader_or_follower([state("t", 0, 1, [1, 2], [1, 2]), state("t", 1, 1, [1, 2], [1, 2])], {})
    replicas.clock.advance(1)
    replicas.shrink_isrs()  # follower 2 never fetched: both partitions shrink
    assert len(replicas.writes) == 2
    replicas.writes[0].callback(1)  # written
    replicas.writes[1].callback(None)  # lost the race to the controller
    counts = replica_manager_gauges(replicas.registry)
    assert (counts["IsrShrinksPerSec"], counts["FailedIsrUpdatesPerSec"], counts["IsrExpandsPerSec"]) == (1, 1, 0)
    assert counts["UnderReplicatedPartitions"] == 1  # the lost race left t-1's ISR as it was

    replicas.fetch_messages(0, 0, 1 << 20, [FetchInfo(("t", 0), 0, 1 << 20, -1, 0)], replica_id=2)
    replicas.writes[2].callback(2)  # the caught-up follower expands the ISR back
    counts = replica_manager_gauges(replicas.registry)
    assert (counts["IsrExpandsPerSec"], counts["UnderReplicatedPartitions"]) == (1, 0)


class Parked(DelayedOperation):
    def __init__(self, delay_ms):
        super().__init__(delay_ms)
        self.ready = False

    def try_complete(self):
        return self.ready and self.force_complete()

    def on_complete(self):
        pass


def test_purgatory_size_counts_watch_entries_and_delayed_operations_the_pending_ones():
    clock = task.Clock()
    registry = MetricsRegistry()
    purgatory = DelayedOperationPurgatory("Produce", clock, registry)
    tags = (("delayedOperation", "Produce"),)

    def sizes():
        found = gauges(registry)
        return (
            found[("DelayedOperationPurgatory", "PurgatorySize", tags)],
            found[("DelayedOperationPurgatory", "NumDelayedOperations", tags)],
        )

    first, second = Parked(1000), Parked(500)
    purgatory.try_complete_else_watch(first, ["a", "b"])
    purgatory.try_complete_else_watch(second, ["b"])
    assert sizes() == (3, 2)
    clock.advance(0.5)  # the second expires; its entry stays until key b is checked (Kafka counts it too)
    assert sizes() == (3, 1)
    first.ready = True
    purgatory.check_and_complete("b")
    assert sizes() == (1, 0)  # key a was not checked: its entry of the completed operation is left
    purgatory.purge_completed()
    assert sizes() == (0, 0)


def test_fetcher_manager_max_lag_and_min_fetch_rate(tmp_path):
    clock = task.Clock()
    registry = MetricsRegistry()
    manager = ReplicaFetcherManager(
        KafkaConfig({"broker.id": "1", "zookeeper.connect": "zk"}),
        clock,
        1,
        LogDirFailureChannel(),
        Unthrottled(),
        metrics=registry,
    )
    tags = (("clientId", "Replica"),)

    def read():
        found = gauges(registry)
        return (
            found[("ReplicaFetcherManager", "MaxLag", tags)],
            found[("ReplicaFetcherManager", "MinFetchRate", tags)],
        )

    assert read() == (0, 0.0)  # no fetcher: Kafka's zeros

    class State:
        def __init__(self, lag):
            self.lag = lag

    busy, idle = (ReplicaFetcher(manager, leader, "127.0.0.1", 1, 0) for leader in (2, 3))
    manager.fetchers = {(2, 0): busy, (3, 0): idle}
    busy.partitions = {("t", 0): State(None), ("t", 1): State(7)}
    idle.partitions = {("u", 0): State(3)}
    for _ in range(120):  # two minutes: the busy fetcher answered 10 fetches a second, the idle one 1
        for _ in range(10):
            busy.request_rate.mark(clock.seconds())
        idle.request_rate.mark(clock.seconds())
        clock.advance(1)
    max_lag, min_rate = read()
    assert max_lag == 7 and min_rate == pytest.approx(1.0, rel=0.05)


def test_one_minute_rate_follows_yammers_ewma():
    rate = OneMinuteRate(0.0)
    for second in range(300):
        rate.mark(float(second), 4)
    assert rate.rate(300.0) == pytest.approx(4.0, rel=0.01)
    assert rate.rate(360.0) == pytest.approx(4.0 * 0.368, rel=0.05)  # a minute of silence: about 1/e left


def test_fetch_session_cache_counts_sessions_partitions_and_evictions():
    registry = MetricsRegistry()
    cache = FetchSessionCache(1, eviction_ms=10, metrics=registry)

    def read():
        found = gauges(registry)
        return tuple(
            found[("FetchSessionCache", name, ())]
            for name in (
                "NumIncrementalFetchSessions",
                "NumIncrementalFetchPartitionsCached",
                "IncrementalFetchSessionEvictionsPerSec",
            )
        )

    assert read() == (0, 0, 0)
    cache.maybe_create_session(0, False, 3, lambda: {("t", p): None for p in range(3)})
    assert read() == (1, 3, 0)
    cache.maybe_create_session(100, False, 2, lambda: {("t", p): None for p in range(2)})  # evicts the idle one
    assert read() == (1, 2, 1)
