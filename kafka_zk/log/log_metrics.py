"""The log manager's gauges, as Kafka 2.5 names them: per partition ``kafka.log:type=Log`` Size, NumLogSegments,
LogStartOffset and LogEndOffset (tags topic, partition, and is-future=true for a replica moving between log
dirs), and ``kafka.log:type=LogManager`` OfflineLogDirectoryCount and LogDirectoryOffline{logDirectory}.

The per-partition values are one collector over the log manager's logs, read at collection time: a broker with
10,000 partitions yields 40,000 samples without holding 40,000 gauge objects, and the MetricNames of a log are
built once and kept while it lives. Pure code.
"""

from typing import TYPE_CHECKING, TypeAlias

from kafka_zk.common.metrics import MetricName

if TYPE_CHECKING:
    from kafka_zk.log.log import Log
    from kafka_zk.log.log_manager import LogManager

# A metric's name and its value, as a collector yields them.
Sample: TypeAlias = tuple[MetricName, int]

GROUP = "kafka.log"


class LogGauges:
    """collect() yields the Log and LogManager gauges of ``log_manager`` (its all_logs(), future_logs(),
    log_dirs and failures)."""

    def __init__(self, log_manager: "LogManager") -> None:
        self.log_manager = log_manager
        # Log -> its (Size, NumLogSegments, LogStartOffset, LogEndOffset) MetricNames
        self._names: dict[Log, tuple[MetricName, ...]] = {}
        self._offline_count = MetricName(GROUP, "LogManager", "OfflineLogDirectoryCount")
        self._dir_offline = {
            log_dir: MetricName(GROUP, "LogManager", "LogDirectoryOffline", {"logDirectory": log_dir})
            for log_dir in log_manager.log_dirs
        }

    def _names_of(self, log: "Log", future: bool) -> tuple[MetricName, ...]:
        names = self._names.get(log)
        if names is None:
            tags: dict[str, object] = {"topic": log.topic, "partition": log.partition}
            if future:
                tags["is-future"] = "true"
            names = self._names[log] = tuple(
                MetricName(GROUP, "Log", name, tags)
                for name in ("Size", "NumLogSegments", "LogStartOffset", "LogEndOffset")
            )
        return names

    def collect(self) -> list[Sample]:
        manager = self.log_manager
        samples: list[Sample] = []
        append = samples.append
        logs = manager.all_logs()
        futures = list(manager.future_logs().values())
        names_of = self._names_of
        for future, group in ((False, logs), (True, futures)):
            for log in group:
                size, segments, start, end = names_of(log, future)
                append((size, log.size))
                append((segments, log.num_segments))
                append((start, log.log_start_offset))
                append((end, log.log_end_offset))
        if len(self._names) > len(logs) + len(futures):  # forget the names of logs gone (deleted, moved, offline)
            current = set(logs).union(futures)
            self._names = {log: names for log, names in self._names.items() if log in current}
        offline = 0
        for log_dir, name in self._dir_offline.items():
            is_offline = manager.failures.is_offline(log_dir)
            offline += is_offline
            append((name, 1 if is_offline else 0))
        append((self._offline_count, offline))
        return samples
