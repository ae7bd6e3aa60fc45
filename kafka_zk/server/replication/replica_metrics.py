"""The replica manager's and the replica fetchers' gauges, as Kafka 2.5 names them.

``kafka.server:type=ReplicaManager``: PartitionCount, LeaderCount, UnderReplicatedPartitions,
UnderMinIsrPartitionCount, AtMinIsrPartitionCount and OfflineReplicaCount come from one pass over the hosted
partitions at collection time (a few milliseconds for 10,000 partitions), not from a gauge each.
``kafka.server:type=ReplicaFetcherManager,clientId=Replica``: MaxLag (the largest leader high watermark minus
log end offset over the followed partitions, as their last fetch answers told it) and MinFetchRate (the
smallest one-minute rate of fetch requests over the fetchers, as Yammer's meter computes it).
Pure code: the replica manager and fetcher manager are read, never changed.
"""

import math

from kafka_zk.common.metrics import MetricName

GROUP = "kafka.server"
_REPLICA_MANAGER_GAUGES = (
    "PartitionCount",
    "LeaderCount",
    "UnderReplicatedPartitions",
    "UnderMinIsrPartitionCount",
    "AtMinIsrPartitionCount",
    "OfflineReplicaCount",
)


def replica_manager_collector(replica_manager):
    """The collect() of the ReplicaManager gauges (Kafka 2.5's meanings):

    - PartitionCount: partitions hosted here, those in an offline log dir included;
    - LeaderCount: partitions led here (with their log online);
    - UnderReplicatedPartitions: led partitions whose ISR is smaller than their replica set;
    - UnderMinIsrPartitionCount / AtMinIsrPartitionCount: led partitions whose ISR is below / at the
      topic's min.insync.replicas;
    - OfflineReplicaCount: replicas in offline log dirs."""
    names = [MetricName(GROUP, "ReplicaManager", name) for name in _REPLICA_MANAGER_GAUGES]
    topic_config = replica_manager.topic_config

    def collect():
        broker_id = replica_manager.broker_id
        partitions = replica_manager.partitions
        leaders = under_replicated = under_min_isr = at_min_isr = 0
        min_isr_of = {}
        for partition in list(partitions.values()):
            if partition.leader_id != broker_id or partition.log is None:
                continue
            leaders += 1
            isr_size = len(partition.isr)
            if isr_size < len(partition.replicas):
                under_replicated += 1
            topic = partition.topic
            min_isr = min_isr_of.get(topic)
            if min_isr is None:
                min_isr = min_isr_of[topic] = topic_config(topic)["min.insync.replicas"]
            if isr_size < min_isr:
                under_min_isr += 1
            elif isr_size == min_isr:
                at_min_isr += 1
        offline = len(replica_manager.offline_partitions)
        values = (len(partitions) + offline, leaders, under_replicated, under_min_isr, at_min_isr, offline)
        return list(zip(names, values))

    return collect


class OneMinuteRate:
    """Yammer's one-minute exponentially weighted rate (what Kafka's MinFetchRate reads): events per second,
    ticked every 5 s with the events counted since the last tick. ``mark(now)`` and ``rate(now)`` take the
    time in seconds; missed ticks are caught up lazily (each decays the rate)."""

    TICK_S = 5.0
    _ALPHA = 1 - math.exp(-TICK_S / 60.0)

    __slots__ = ("_rate", "_uncounted", "_last_tick", "_initialized")

    def __init__(self, now):
        self._rate = 0.0
        self._uncounted = 0
        self._last_tick = now
        self._initialized = False

    def _tick_if_necessary(self, now):
        ticks = int((now - self._last_tick) // self.TICK_S)
        if ticks <= 0:
            return
        self._last_tick += ticks * self.TICK_S
        instant = self._uncounted / self.TICK_S
        self._uncounted = 0
        if self._initialized:
            self._rate += self._ALPHA * (instant - self._rate)
        else:
            self._rate = instant
            self._initialized = True
        if ticks > 1:
            self._rate *= (1 - self._ALPHA) ** min(ticks - 1, 1000)

    def mark(self, now, n=1):
        self._tick_if_necessary(now)
        self._uncounted += n

    def rate(self, now):
        self._tick_if_necessary(now)
        return self._rate


def register_fetcher_manager_gauges(registry, fetcher_manager, clock, client_id="Replica"):
    """MaxLag and MinFetchRate of a fetcher manager whose ``fetchers`` each have ``partitions`` ({tp: state with
    .lag}) and ``request_rate`` (a OneMinuteRate); 0 for both without fetchers, as Kafka."""
    tags = {"clientId": client_id}

    def max_lag():
        lag = 0
        for fetcher in list(fetcher_manager.fetchers.values()):
            for state in list(fetcher.partitions.values()):
                if state.lag is not None and state.lag > lag:
                    lag = state.lag
        return lag

    def min_fetch_rate():
        now = clock.seconds()
        rates = [fetcher.request_rate.rate(now) for fetcher in list(fetcher_manager.fetchers.values())]
        return min(rates) if rates else 0.0

    registry.gauge(GROUP, "ReplicaFetcherManager", "MaxLag", max_lag, tags)
    registry.gauge(GROUP, "ReplicaFetcherManager", "MinFetchRate", min_fetch_rate, tags)
