"""The log, cleaner, ZooKeeper client and coordinator metrics' meanings, in memory, and the Prometheus names
they get."""

import math

import pytest
from prometheus_client.parser import text_string_to_metric_families
from twisted.internet import task

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.coordinator.coordinator_metrics import LoadTimes, group_metadata_collector, register_load_time_gauges
from kafka_zk.coordinator.group.state import COMPLETING_REBALANCE, EMPTY, PREPARING_REBALANCE, STABLE, GroupMetadata
from kafka_zk.log.cleaner import Cleaner, CleaningPlan, log_to_clean
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.log_cleaner_service import LogCleanerService
from kafka_zk.server.metrics import prometheus
from kafka_zk.zk.zk_metrics import ZooKeeperClientMetrics
from tests.millisecond_clock import MillisecondClock


def values(registry):
    """{(type, name, tags): value} of the gauges and meters; histograms and timers as their count."""
    return {
        (name.type, name.name, name.tags): value if kind in ("gauge", "meter") else value[0]
        for name, kind, value in registry.samples()
    }


def exposition(registry):
    text = prometheus.render(registry.samples(), process=False).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def append(log, count, key=None, size=10):
    base = log.log_end_offset
    records = [(key if key is not None else b"k%d" % i, b"v" * size) for i in range(count)]
    log.append(encode_batch(records, base_offset=base), base + count - 1, 0, base + count - 1)


# -- kafka.log ------------------------------------------------------------------------------------


def test_log_gauges_are_the_logs_own_figures_including_future_replicas(tmp_path):
    clock = task.Clock()
    registry = MetricsRegistry()
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    manager = LogManager(dirs, LogConfig(segment_bytes=200), clock, metrics=registry)
    log = manager.get_or_create_log("t", 0)
    for _ in range(4):
        append(log, 3)
    log.maybe_increment_log_start_offset(2)
    future_dir = [d for d in dirs if d != manager.log_dir_of("t", 0)][0]
    future = manager.create_future_log("t", 0, future_dir)
    append(future, 1)
    found = values(registry)
    tags = (("topic", "t"), ("partition", "0"))
    assert [found[("Log", name, tags)] for name in ("Size", "NumLogSegments", "LogStartOffset", "LogEndOffset")] == [
        log.size,
        len(log.segments),
        2,
        12,
    ]
    assert log.num_segments > 1
    assert found[("Log", "LogEndOffset", tags + (("is-future", "true"),))] == 1
    assert found[("LogManager", "OfflineLogDirectoryCount", ())] == 0

    manager.failures.report(dirs[1], "disk gone", OSError("EIO"))
    manager.handle_dir_failure(dirs[1])
    found = values(registry)
    assert found[("LogManager", "OfflineLogDirectoryCount", ())] == 1
    assert found[("LogManager", "LogDirectoryOffline", (("logDirectory", dirs[1]),))] == 1
    assert found[("LogManager", "LogDirectoryOffline", (("logDirectory", dirs[0]),))] == 0
    assert ("Log", "LogEndOffset", tags + (("is-future", "true"),)) not in found  # went with its dir


def test_flush_timer_counts_the_flushes_that_wrote_something(tmp_path):
    clock = task.Clock()
    registry = MetricsRegistry()
    manager = LogManager([str(tmp_path / "a")], LogConfig(flush_ms=1000), clock, metrics=registry)
    log = manager.get_or_create_log("t", 0)

    def flushes():
        return values(registry)[("LogFlushStats", "LogFlushRateAndTimeMs", ())]

    append(log, 2)
    clock.advance(2)
    manager.flush_dirty_logs(milliseconds(clock))
    assert flushes() == 1
    clock.advance(2)
    manager.flush_dirty_logs(milliseconds(clock))  # nothing new: no flush counted
    assert flushes() == 1


# -- the cleaner ------------------------------------------------------------------------------------


class HighWatermarks:
    def __init__(self, log_manager):
        self.log_manager = log_manager
        self.partitions = {}

    def high_watermark_snapshot(self):
        return {(log.topic, log.partition): log.log_end_offset for log in self.log_manager.all_logs()}


def test_cleaner_gauges_describe_the_last_choice_and_pass(tmp_path):
    clock = MillisecondClock()
    registry = MetricsRegistry()
    log_dir = str(tmp_path / "a")
    logs = LogManager([log_dir], LogConfig(), clock)
    log = logs.get_or_create_log(
        "t", 0, LogConfig(cleanup_policy="compact", segment_bytes=300, min_cleanable_dirty_ratio=0.01)
    )
    for _ in range(6):
        append(log, 2, key=b"same")
    service = LogCleanerService(
        None,
        logs,
        HighWatermarks(logs),
        KafkaConfig({"zookeeper.connect": "zk", "log.dirs": log_dir, "log.cleaner.dedupe.buffer.size": str(24 * 1000)}),
        clock,
        metrics=registry,
    )
    clock.now += 5000
    assert values(registry)[("LogCleanerManager", "time-since-last-run-ms", ())] == 5000

    ltc = service._grab_filthiest()
    found = values(registry)
    assert found[("LogCleanerManager", "max-dirty-percent", ())] == int(100 * ltc.cleanable_ratio) > 0
    assert found[("LogCleanerManager", "time-since-last-run-ms", ())] == 0
    started_ms = clock.now
    cleaner = Cleaner(service.dedupe_buffer_size, clock)
    result = cleaner.clean(CleaningPlan.snapshot(ltc, {}))
    clock.now += 2500
    service._finished(result, ("t", 0), log, started_ms, cleaner)
    found = values(registry)
    assert found[("LogCleaner", "max-clean-time-secs", ())] == 2
    assert found[("LogCleaner", "max-buffer-utilization-percent", ())] == int(100 * 1 / cleaner.offset_map.slots)
    assert found[("LogCleaner", "cleaner-recopy-percent", ())] == int(100 * result.bytes_written / result.bytes_read)
    assert 0 < found[("LogCleaner", "cleaner-recopy-percent", ())] < 100  # the shadowed records went
    assert found[("LogCleaner", "DeadThreadCount", ())] == 0

    dir_tags = (("logDirectory", log_dir),)
    assert found[("LogCleanerManager", "uncleanable-partitions-count", dir_tags)] == 0
    append(log, 3, key=b"more")
    service.uncleanable.add(("t", 0))
    found = values(registry)
    assert found[("LogCleanerManager", "uncleanable-partitions-count", dir_tags)] == 1
    assert (
        found[("LogCleanerManager", "uncleanable-bytes", dir_tags)]
        == log_to_clean("t", 0, log, service.checkpoints.get(("t", 0)), clock.now, log.log_end_offset).cleanable_bytes
        > 0
    )


# -- ZooKeeper client -------------------------------------------------------------------------------


def test_session_events_mark_zookeepers_meters_and_the_state_is_one_sample_per_state():
    registry = MetricsRegistry()
    metrics = ZooKeeperClientMetrics(registry)

    def meters():
        found = values(registry)
        return {
            name[len("ZooKeeper") : -len("PerSec")]: value
            for (type_, name, _), value in found.items()
            if type_ == "SessionExpireListener" and name.endswith("PerSec")
        }

    def state():
        return {
            labels[0][1]
            for (name, labels), value in exposition(registry).items()
            if name == "kafka_server_sessionexpirelistener_sessionstate" and value == 1
        }

    assert state() == {"CONNECTING"}
    metrics.on_state("CONNECTED", "CONNECTED")
    metrics.on_state("SUSPENDED", "CONNECTING")  # connection dropped
    metrics.on_state("LOST", "EXPIRED_SESSION")  # the server expired the session
    assert state() == {"CLOSED"}
    metrics.on_state("SUSPENDED", "CONNECTING")  # kazoo opening a new session: not a disconnect
    assert state() == {"CONNECTING"}
    metrics.on_state("CONNECTED", "CONNECTED_RO")
    assert state() == {"CONNECTEDREADONLY"}
    metrics.on_state("LOST", "AUTH_FAILED")
    assert state() == {"AUTH_FAILED"}
    assert meters() == {"SyncConnects": 1, "ReadOnlyConnects": 1, "Disconnects": 1, "Expires": 1, "AuthFailures": 1}
    metrics.record_latency(10.0, 10.25)
    histogram = registry.get("kafka.server", "ZooKeeperClientMetrics", "ZooKeeperRequestLatencyMs")
    assert (histogram.count, histogram.max) == (1, 250.0)
    assert exposition(registry)[("kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count", ())] == 1


# -- coordinators -----------------------------------------------------------------------------------


def test_group_gauges_count_groups_by_state_and_their_committed_offsets():
    registry = MetricsRegistry()
    groups = []
    registry.add_collector(group_metadata_collector(lambda: groups))
    for group_id, state, offsets in (
        ("a", STABLE, 3),
        ("b", STABLE, 0),
        ("c", EMPTY, 2),
        ("d", PREPARING_REBALANCE, 0),
        ("e", COMPLETING_REBALANCE, 1),
    ):
        group = GroupMetadata(group_id, state)
        group.offsets.committed = {("t", p): object() for p in range(offsets)}
        groups.append(group)
    found = exposition(registry)
    prefix = "kafka_coordinator_group_groupmetadatamanager_"
    assert {name[len(prefix) :]: value for (name, _), value in found.items() if name.startswith(prefix)} == {
        "numgroups": 5,
        "numoffsets": 6,
        "numgroupsstable": 2,
        "numgroupsempty": 1,
        "numgroupsdead": 0,
        "numgroupspreparingrebalance": 1,
        "numgroupscompletingrebalance": 1,
    }


def test_partition_load_times_are_max_and_avg_over_kafkas_sampled_window():
    registry = MetricsRegistry()
    clock = MillisecondClock(0)
    load_times = LoadTimes()
    register_load_time_gauges(registry, "group-coordinator-metrics", load_times, lambda: clock.now)

    def read():
        found = exposition(registry)
        return tuple(
            found[("kafka_server_group_coordinator_metrics_partition_load_time_%s" % stat, ())]
            for stat in ("max", "avg")
        )

    assert all(math.isnan(value) for value in read())  # nothing loaded: NaN, as Kafka's Max and Avg
    load_times.record(40, clock.now)
    clock.now = 20000
    load_times.record(10, clock.now)
    assert read() == (40, 25)
    clock.now = 45000  # a second window
    load_times.record(4, clock.now)
    assert read() == (40, pytest.approx(18))
    clock.now = 95000  # the first window (both first loads) ended more than two windows ago
    assert read() == (4, 4)
    clock.now = 200000
    assert all(math.isnan(value) for value in read())
