"""The group and transaction coordinators' metrics, as Kafka 2.5 names them:

- ``kafka.coordinator.group:type=GroupMetadataManager``: NumGroups, NumGroupsPreparingRebalance,
  NumGroupsCompletingRebalance, NumGroupsStable, NumGroupsDead, NumGroupsEmpty and NumOffsets (committed offsets
  of the cached groups), from one pass over the group cache at collection time;
- ``kafka.server:type=group-coordinator-metrics`` and ``type=transaction-coordinator-metrics``, attributes
  partition-load-time-max and partition-load-time-avg: the longest and mean time (ms) that loading a
  ``__consumer_offsets`` / ``__transaction_state`` partition took, over Kafka's sampled window (2 samples of 30 s,
  its metrics.num.samples and metrics.sample.window.ms defaults); NaN while no load fell in the window, as
  Kafka's Max and Avg answer.
Pure code.
"""

import math
from collections import deque

from kafka_zk.common.metrics import MetricName

_GROUP_STATE_GAUGES = (
    ("PreparingRebalance", "NumGroupsPreparingRebalance"),
    ("CompletingRebalance", "NumGroupsCompletingRebalance"),
    ("Stable", "NumGroupsStable"),
    ("Dead", "NumGroupsDead"),
    ("Empty", "NumGroupsEmpty"),
)


class LoadTimes:
    """Kafka's partition load sensor: Max and Avg over the records of the last ``samples`` windows of
    ``window_ms`` (a sample's window starts at its first record, as Kafka's SampledStat does)."""

    def __init__(self, window_ms=30000, samples=2):
        self.window_ms = window_ms
        self.samples = samples
        self._windows = deque()  # [start ms, count, sum, max]

    def record(self, value_ms, now_ms):
        windows = self._windows
        if not windows or now_ms >= windows[-1][0] + self.window_ms:
            windows.append([now_ms, 0, 0.0, -math.inf])
            while len(windows) > self.samples:
                windows.popleft()
        window = windows[-1]
        window[1] += 1
        window[2] += value_ms
        window[3] = max(window[3], value_ms)

    def _current(self, now_ms):
        """Windows not older than samples * window_ms (Kafka purges obsolete samples before measuring)."""
        horizon = now_ms - self.samples * self.window_ms
        return [window for window in self._windows if window[0] + self.window_ms > horizon]

    def max(self, now_ms):
        windows = [window for window in self._current(now_ms) if window[1]]
        return max(window[3] for window in windows) if windows else math.nan

    def avg(self, now_ms):
        windows = self._current(now_ms)
        count = sum(window[1] for window in windows)
        return sum(window[2] for window in windows) / count if count else math.nan


def register_load_time_gauges(registry, metrics_group, load_times, clock_ms):
    """partition-load-time-max/avg of ``load_times`` (LoadTimes) as ``kafka.server:type=<metrics_group>``."""
    for attribute, read in (("partition-load-time-max", load_times.max), ("partition-load-time-avg", load_times.avg)):
        registry.gauge(
            "kafka.server", metrics_group, None, lambda read=read: read(clock_ms()), {"attribute": attribute}
        )


def group_metadata_collector(groups):
    """collect() of the GroupMetadataManager gauges over ``groups()`` (the cached GroupMetadata)."""
    group_names = {
        state: MetricName("kafka.coordinator.group", "GroupMetadataManager", name)
        for state, name in _GROUP_STATE_GAUGES
    }
    num_groups = MetricName("kafka.coordinator.group", "GroupMetadataManager", "NumGroups")
    num_offsets = MetricName("kafka.coordinator.group", "GroupMetadataManager", "NumOffsets")

    def collect():
        counts = dict.fromkeys(group_names, 0)
        offsets = 0
        cached = groups()
        for group in cached:
            state = group.state.value
            counts[state] = counts.get(state, 0) + 1
            offsets += len(group.offsets.committed)
        samples = [(num_groups, len(cached)), (num_offsets, offsets)]
        samples.extend((name, counts[state]) for state, name in group_names.items())
        return samples

    return collect
