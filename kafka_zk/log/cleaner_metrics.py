"""The log cleaner's gauges, as Kafka 2.5's LogCleaner and LogCleanerManager name them (``kafka.log``):

- ``type=LogCleaner``: max-buffer-utilization-percent (the fullest offset map of the last passes),
  cleaner-recopy-percent (bytes written over bytes read by the last passes), max-clean-time-secs (the longest
  of the last passes), max-compaction-delay-secs (how far past max.compaction.lag.ms the most overdue log was at
  the last choice), DeadThreadCount (always 0: a failed pass marks its partition uncleanable, no thread dies);
- ``type=LogCleanerManager``: max-dirty-percent (the cleanable ratio of the dirtiest compacted log at the last
  choice), time-since-last-run-ms (since the cleaner last chose a log), uncleanable-partitions-count and
  uncleanable-bytes per logDirectory.

"The last passes" are the last pass of each cleaner thread in Kafka; here, the last log.cleaner.threads passes.
Pure code: the cleaner service reports what happened, the gauges read it.
"""

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from kafka_zk.common.clock import Clock
from kafka_zk.common.metrics import MetricsRegistry

if TYPE_CHECKING:
    from kafka_zk.log.cleaner import LogToClean

GROUP = "kafka.log"


class PassStats(NamedTuple):
    buffer_utilization: float
    bytes_read: int
    bytes_written: int
    elapsed_s: float


class CleanerStats:
    """What the cleaner service tells of its passes and choices; ``clock`` has seconds()."""

    def __init__(self, threads: int, clock: Clock) -> None:
        self.clock = clock
        self.last_passes: deque[PassStats] = deque(maxlen=max(1, threads))
        self.dirtiest_ratio = 0.0
        self.max_compaction_delay_ms = 0
        self.last_run_s = clock.seconds()

    def chose(self, candidates: Sequence["LogToClean"]) -> None:
        """The cleaner looked for the dirtiest log among ``candidates`` (LogToClean of the compacted logs)."""
        self.last_run_s = self.clock.seconds()
        ratios = [candidate.cleanable_ratio for candidate in candidates if candidate.total_bytes > 0]
        self.dirtiest_ratio = max(ratios) if ratios else 0.0
        self.max_compaction_delay_ms = max((candidate.max_compaction_delay_ms for candidate in candidates), default=0)

    def passed(self, buffer_utilization: float, bytes_read: int, bytes_written: int, elapsed_s: float) -> None:
        self.last_passes.append(PassStats(buffer_utilization, bytes_read, bytes_written, elapsed_s))

    # -- the gauges' values --------------------------------------------------------------------

    def max_buffer_utilization_percent(self) -> int:
        return int(max((100 * stats.buffer_utilization for stats in self.last_passes), default=0))

    def recopy_percent(self) -> int:
        read = sum(stats.bytes_read for stats in self.last_passes)
        written = sum(stats.bytes_written for stats in self.last_passes)
        return int(100 * written / max(read, 1))

    def max_clean_time_secs(self) -> int:
        return int(max((stats.elapsed_s for stats in self.last_passes), default=0))

    def max_compaction_delay_secs(self) -> int:
        return max(0, int(self.max_compaction_delay_ms / 1000))

    def max_dirty_percent(self) -> int:
        return int(100 * self.dirtiest_ratio)

    def time_since_last_run_ms(self) -> int:
        return int((self.clock.seconds() - self.last_run_s) * 1000)


def register_cleaner_gauges(
    registry: MetricsRegistry,
    stats: CleanerStats,
    log_dirs: Iterable[str],
    uncleanable_in: Callable[[str], tuple[int, int]],
) -> None:
    """The gauges over ``stats`` (CleanerStats); ``uncleanable_in(log_dir)`` gives (partitions, bytes) of the
    dir's uncleanable partitions."""
    for name, read in (
        ("max-buffer-utilization-percent", stats.max_buffer_utilization_percent),
        ("cleaner-recopy-percent", stats.recopy_percent),
        ("max-clean-time-secs", stats.max_clean_time_secs),
        ("max-compaction-delay-secs", stats.max_compaction_delay_secs),
        ("DeadThreadCount", lambda: 0),
    ):
        registry.gauge(GROUP, "LogCleaner", name, read)
    registry.gauge(GROUP, "LogCleanerManager", "max-dirty-percent", stats.max_dirty_percent)
    registry.gauge(GROUP, "LogCleanerManager", "time-since-last-run-ms", stats.time_since_last_run_ms)
    for log_dir in log_dirs:
        tags = {"logDirectory": log_dir}
        registry.gauge(
            GROUP,
            "LogCleanerManager",
            "uncleanable-partitions-count",
            lambda log_dir=log_dir: uncleanable_in(log_dir)[0],
            tags,
        )
        registry.gauge(
            GROUP, "LogCleanerManager", "uncleanable-bytes", lambda log_dir=log_dir: uncleanable_in(log_dir)[1], tags
        )
