"""The metric primitives and their Prometheus names as the JMX exporter's Kafka rules give them."""

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from twisted.internet.task import Clock

from kafka_zk.common.metrics import NULL_METRIC, MetricName, MetricsRegistry
from kafka_zk.server.metrics import prometheus


def families(registry):
    text = prometheus.render(registry.samples(), process=False).decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def samples_of(registry):
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in families(registry).values()
        for sample in family.samples
    }


def test_meters_are_counters_named_without_per_sec():
    registry = MetricsRegistry()
    registry.meter("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec", {"topic": "events"}).mark(7)
    registry.meter("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec").mark(3)
    registry.meter("kafka.network", "RequestMetrics", "ErrorsPerSec", {"request": "Produce", "error": "NONE"}).mark()
    values = samples_of(registry)
    assert values[("kafka_server_brokertopicmetrics_messagesin_total", (("topic", "events"),))] == 7
    assert values[("kafka_server_brokertopicmetrics_messagesin_total", ())] == 3
    assert values[("kafka_network_requestmetrics_errors_total", (("error", "NONE"), ("request", "Produce")))] == 1
    assert families(registry)["kafka_server_brokertopicmetrics_messagesin"].type == "counter"


def test_gauges_histograms_and_kafka_metrics_get_the_exporters_names():
    registry = MetricsRegistry()
    registry.gauge("kafka.server", "ReplicaManager", "UnderReplicatedPartitions", lambda: 2)
    registry.gauge("kafka.controller", "KafkaController", "ActiveControllerCount", lambda: 1)
    histogram = registry.histogram("kafka.network", "RequestMetrics", "TotalTimeMs", {"request": "Fetch"})
    for value in range(1, 1001):
        histogram.update(value)
    registry.add_collector(
        lambda: [
            (MetricName("kafka.log", "Log", "Size", {"topic": "t", "partition": 0}), 1234),
            (MetricName("kafka.coordinator.group", "GroupMetadataManager", "NumGroups"), 4),
            (MetricName("kafka.server", "Fetch", None, {"user": "u", "client-id": "c", "attribute": "byte-rate"}), 9.5),
            (
                MetricName(
                    "kafka.server",
                    "socket-server-metrics",
                    None,
                    {"listener": "PLAINTEXT", "networkProcessor": 0, "attribute": "connection-count"},
                ),
                3,
            ),
        ]
    )
    values = samples_of(registry)
    assert values[("kafka_server_replicamanager_underreplicatedpartitions", ())] == 2
    assert values[("kafka_controller_kafkacontroller_activecontrollercount", ())] == 1
    assert values[("kafka_log_log_size", (("partition", "0"), ("topic", "t")))] == 1234
    assert values[("kafka_coordinator_group_groupmetadatamanager_numgroups", ())] == 4
    assert values[("kafka_server_quota_byte_rate", (("clientId", "c"), ("resource", "Fetch"), ("user", "u")))] == 9.5
    assert (
        values[
            (
                "kafka_server_socket_server_metrics_connection_count",
                (("listener", "PLAINTEXT"), ("networkProcessor", "0")),
            )
        ]
        == 3
    )
    assert values[("kafka_network_requestmetrics_totaltimems_count", (("request", "Fetch"),))] == 1000
    p99 = values[("kafka_network_requestmetrics_totaltimems", (("quantile", "0.99"), ("request", "Fetch")))]
    p50 = values[("kafka_network_requestmetrics_totaltimems", (("quantile", "0.50"), ("request", "Fetch")))]
    assert 990 <= p99 <= 990 * 1.1 and 500 <= p50 <= 500 * 1.1
    assert ("kafka_network_requestmetrics_totaltimems", (("quantile", "0.999"), ("request", "Fetch"))) in values


def test_histogram_percentiles_forget_old_windows_but_count_everything():
    clock = Clock()
    registry = MetricsRegistry(clock=clock.seconds)
    histogram = registry.histogram("kafka.network", "RequestMetrics", "LocalTimeMs", {"request": "Produce"})
    for _ in range(100):
        histogram.update(500.0)
    clock.advance(120)
    for _ in range(100):
        histogram.update(1.0)
    assert histogram.percentiles()[0.99] >= 500  # both minutes are recent
    clock.advance(600)
    histogram.update(1.0)
    assert histogram.percentiles()[0.99] <= 1.1 and histogram.count == 201


def test_a_disabled_registry_records_and_collects_nothing():
    registry = MetricsRegistry(enabled=False)
    meter = registry.meter("kafka.server", "BrokerTopicMetrics", "BytesInPerSec")
    meter.mark(10)
    assert meter is NULL_METRIC and registry.samples() == []


def test_failing_gauges_are_left_out_of_a_scrape():
    registry = MetricsRegistry()
    registry.gauge("kafka.server", "ReplicaManager", "LeaderCount", lambda: 1 / 0)
    registry.gauge("kafka.server", "ReplicaManager", "PartitionCount", lambda: 5)
    assert samples_of(registry) == {("kafka_server_replicamanager_partitioncount", ()): 5}


def test_render_writes_what_generate_latest_writes_for_the_same_families():
    clock = Clock()
    registry = MetricsRegistry(clock=clock.seconds)
    registry.meter("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec", {"topic": "a"}).mark(3)
    registry.meter("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec").mark(4)
    registry.meter("kafka.server", "Odd", "Rejections").mark(1)  # a meter not named ...PerSec
    registry.gauge("kafka.server", "ReplicaManager", "UnderReplicatedPartitions", lambda: 2)
    registry.gauge("kafka.server", "Odd", "Ratio", lambda: 0.1 + 0.2)
    registry.gauge("kafka.server", "Odd", "Missing", lambda: float("nan"))
    registry.gauge("kafka.server", "Odd", "Large", lambda: 12345678901.5)
    registry.gauge(
        "kafka.server",
        "group-coordinator-metrics",
        None,
        lambda: float("nan"),
        {"attribute": "partition-load-time-max"},
    )
    registry.gauge(
        "kafka.server",
        "Produce",
        None,
        lambda: 1.5,
        {"user": 'a"b\\c\nd', "client-id": "c", "attribute": "throttle-time"},
    )
    timer = registry.timer("kafka.network", "RequestMetrics", "TotalTimeMs", {"request": "Fetch"})
    for value in (1, 5, 250):
        timer.update(value)
    registry.histogram("kafka.server", "Odd", "Empty")
    registry.add_collector(
        lambda: [(MetricName("kafka.log", "Log", "Size", {"topic": "t", "partition": p}), p * 10) for p in range(3)]
    )
    samples = registry.samples()
    for extra in (None, {"broker": "1"}):
        expected = CollectorRegistry(auto_describe=False)
        expected.register(prometheus._SnapshotCollector(samples, extra))
        assert prometheus.render(samples, extra, process=False) == generate_latest(expected)
