"""The request path's metrics in memory: BrokerTopicMetrics as the replica manager and the fetch handler mark them,
the listener's RequestMetrics time points on a task.Clock, connection counts, the reactor's idle share, and the
client quotas' byte-rate and throttle-time."""

import struct
from types import SimpleNamespace

import pytest
from twisted.internet import defer, task
from twisted.internet.testing import StringTransport

from kafka_zk.common.metrics import MetricName, MetricsRegistry
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.net.request_metrics import (
    FLUSH_EVERY,
    RESPONSE_DONE,
    TIME_AT_LEAST_EVERY_S,
    TIME_EVERY,
    ReactorIdleMeter,
    SocketServerMetrics,
    error_counts,
)
from kafka_zk.net.socket_server import KafkaServerFactory, Listener
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import encode_request
from kafka_zk.record.legacy import encode_message_set
from kafka_zk.record.records import Record, encode_batch
from kafka_zk.server import apis
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.metrics.broker_metrics import HotPathMetrics
from kafka_zk.server.metrics.broker_topic_stats import BrokerTopicStats
from kafka_zk.server.quota.client_quotas import DEFAULT, ClientQuotaManager
from kafka_zk.server.replication.results import FetchInfo
from tests.replica_manager_support import replica_manager

CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})


def meter(registry, name, topic=None):
    """A BrokerTopicMetrics meter's count as a collection sees it (the all-topics ones are summed then)."""
    registry.samples()
    tags = () if topic is None else (("topic", topic),)
    metric = registry.get("kafka.server", "BrokerTopicMetrics", name, tags)
    return None if metric is None else metric.count


@pytest.fixture
def leader(tmp_path):
    """Broker 1 leads t-0 and u-0 alone, counting into an enabled registry."""
    clock = task.Clock()
    clock.advance(1000)
    registry = MetricsRegistry(clock.seconds)
    stats = BrokerTopicStats(registry)
    config = dict(CONFIG, **{"max.message.bytes": 2000})
    manager = replica_manager(
        1,
        LogManager([str(tmp_path)], LogConfig(), clock),
        lambda topic: dict(config),
        clock,
        knows_partition=lambda tp: True,
        topic_stats=stats,
    )
    manager.become_leader_or_follower(
        [
            {
                "topic": topic,
                "partition": 0,
                "leader": 1,
                "leader_epoch": 0,
                "isr": [1],
                "replicas": [1],
                "zk_version": 0,
                "controller_epoch": 1,
            }
            for topic in ("t", "u")
        ],
        {},
    )
    return manager, registry


def test_produce_counts_records_from_the_batch_and_the_request_bytes(leader):
    manager, registry = leader
    first = encode_batch([(None, b"a" * 10)] * 7)
    second = encode_batch([(b"k", b"b")] * 3)
    manager.append_records(1000, 1, {("t", 0): first, ("u", 0): second})
    manager.append_records(1000, 1, {("t", 0): first})
    assert meter(registry, "MessagesInPerSec", "t") == 14 and meter(registry, "MessagesInPerSec", "u") == 3
    assert meter(registry, "MessagesInPerSec") == 17
    assert meter(registry, "BytesInPerSec", "t") == 2 * len(first)
    assert meter(registry, "BytesInPerSec") == 2 * len(first) + len(second)
    assert (
        meter(registry, "TotalProduceRequestsPerSec", "t") == 2 and meter(registry, "TotalProduceRequestsPerSec") == 3
    )
    assert meter(registry, "FailedProduceRequestsPerSec") == 0 and meter(registry, "BytesRejectedPerSec") == 0
    assert manager.get_partition("t", 0).log.log_end_offset == 14


def test_rejected_failed_and_converted_produces(leader):
    manager, registry = leader
    too_large = encode_batch([(None, b"x" * 3000)])
    results = manager.append_records(1000, -1, {("t", 0): too_large}).result
    assert results[("t", 0)].error == Errors.MESSAGE_TOO_LARGE
    assert meter(registry, "BytesRejectedPerSec", "t") == len(too_large) == meter(registry, "BytesRejectedPerSec")
    assert meter(registry, "FailedProduceRequestsPerSec") == 0  # an expected error, as Kafka counts them
    # an idempotent batch whose sequence does not follow: an unexpected failure for Kafka's meter
    manager.append_records(
        1000, 1, {("t", 0): encode_batch([(None, b"v")], producer_id=5, producer_epoch=0, base_sequence=0)}
    )
    gap = encode_batch([(None, b"v")], producer_id=5, producer_epoch=0, base_sequence=7)
    assert (
        manager.append_records(1000, 1, {("t", 0): gap}).result[("t", 0)].error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    )
    assert meter(registry, "FailedProduceRequestsPerSec", "t") == 1 == meter(registry, "FailedProduceRequestsPerSec")
    legacy = encode_message_set([Record(i, 1000, None, b"old") for i in range(4)], 1)
    manager.append_records(1000, 1, {("u", 0): legacy})
    assert meter(registry, "ProduceMessageConversionsPerSec", "u") == 4
    assert meter(registry, "MessagesInPerSec", "u") == 4 and meter(registry, "BytesInPerSec", "u") == len(legacy)
    assert meter(registry, "TotalProduceRequestsPerSec") == 4


def test_reads_count_per_partition_and_a_deleted_topic_loses_its_meters(leader):
    manager, registry = leader
    manager.append_records(1000, 1, {("t", 0): encode_batch([(None, b"v")] * 2)})
    manager.read_partitions(
        [
            FetchInfo(("t", 0), 0, 1 << 20, -1, -1),
            FetchInfo(("u", 0), 0, 1 << 20, -1, -1),
            FetchInfo(("t", 0), 99, 1 << 20, -1, -1),
        ],
        -1,
        1 << 20,
    )
    assert meter(registry, "TotalFetchRequestsPerSec", "t") == 1 and meter(registry, "TotalFetchRequestsPerSec") == 2
    assert meter(registry, "FailedFetchRequestsPerSec") == 0
    manager.stop_replica("t", 0, delete=True)
    assert meter(registry, "MessagesInPerSec", "t") is None and meter(registry, "TotalFetchRequestsPerSec", "t") is None
    assert meter(registry, "TotalFetchRequestsPerSec", "u") == 1 and meter(registry, "MessagesInPerSec") == 2
    assert meter(registry, "TotalFetchRequestsPerSec") == 2  # the all-topics meters keep a deleted topic's counts


def test_bytes_out_go_to_consumers_per_topic_and_to_followers_as_replication():
    registry = MetricsRegistry()
    stats = BrokerTopicStats(registry)
    stats.sent("t", 100, to_follower=False)
    stats.sent("t", 40, to_follower=True)
    stats.replicated(60)
    stats.fetch_converted("t", 3)
    assert meter(registry, "BytesOutPerSec", "t") == 100 == meter(registry, "BytesOutPerSec")
    assert meter(registry, "ReplicationBytesOutPerSec") == 40 and meter(registry, "ReplicationBytesInPerSec") == 60
    assert registry.get("kafka.server", "BrokerTopicMetrics", "ReplicationBytesOutPerSec", (("topic", "t"),)) is None
    assert meter(registry, "FetchMessageConversionsPerSec", "t") == 3


def test_a_disabled_registry_counts_nothing(tmp_path):
    registry = MetricsRegistry(enabled=False)
    stats = BrokerTopicStats(registry)
    stats.read({("t", 0): SimpleNamespace(error=Errors.NONE)})
    stats.sent("t", 5, False)
    assert registry.samples() == [] and not stats.has_topic("t")


# -- the listener's request metrics ------------------------------------------------------------------


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


def connect(handlers, clock, metrics):
    factory = KafkaServerFactory(apis.Dispatcher(handlers), clock, 1 << 20, Listener("PLAINTEXT"), metrics)
    protocol = factory.buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    return protocol, transport


def histogram(registry, name, request):
    return registry.get("kafka.network", "RequestMetrics", name, (("request", request),))


def test_request_time_points_on_the_listener():
    clock = task.Clock()
    clock.advance(100)
    registry = MetricsRegistry(clock.seconds)
    metrics = SocketServerMetrics(registry, clock)
    waiting = defer.Deferred()

    def slow_metadata(request):
        clock.advance(0.004)  # 4 ms of the handler's own work
        return waiting

    protocol, transport = connect({3: slow_metadata, 18: apis.HANDLERS[18]}, clock, metrics)
    request = encode_request(3, 1, 1, "c", {"topics": None})
    body_size = len(request) - (8 + 2 + len("c"))  # header v1: key, version, correlation id, client id
    protocol.dataReceived(frame(request) + frame(encode_request(18, 0, 2, "c", {})))
    clock.advance(0.020)  # 20 ms waiting for something else (RemoteTime)
    waiting.callback(
        {
            "throttle_time_ms": 5,
            "brokers": [],
            "cluster_id": None,
            "controller_id": 1,
            "topics": [
                {"error_code": Errors.UNKNOWN_TOPIC_OR_PARTITION, "name": "x", "partitions": [], "is_internal": False}
            ],
        }
    )
    assert histogram(registry, "TotalTimeMs", "Metadata").count == 0  # timings are folded in a batch at a time
    scraped = {name: value for name, kind, value in registry.samples()}  # ... and before every collection
    assert scraped[MetricName("kafka.network", "RequestMetrics", "TotalTimeMs", (("request", "Metadata"),))][0] == 1
    total = histogram(registry, "TotalTimeMs", "Metadata")
    assert total.count == 1 and 23.9 < total.max < 24.1
    assert 3.9 < histogram(registry, "LocalTimeMs", "Metadata").max < 4.1
    assert 19.9 < histogram(registry, "RemoteTimeMs", "Metadata").max < 20.1
    assert histogram(registry, "ThrottleTimeMs", "Metadata").max == 5
    assert histogram(registry, "RequestBytes", "Metadata").max == body_size
    assert histogram(registry, "RequestQueueTimeMs", "Metadata").max == 0
    # ApiVersions was read with it, waited behind its handler, then behind its response
    assert 3.9 < histogram(registry, "RequestQueueTimeMs", "ApiVersions").max < 4.1
    assert 19.9 < histogram(registry, "ResponseQueueTimeMs", "ApiVersions").max < 20.1
    assert (
        registry.get(
            "kafka.network", "RequestMetrics", "RequestsPerSec", (("request", "Metadata"), ("version", 1))
        ).count
        == 1
    )
    errors = {name.tags: value for name, kind, value in registry.samples() if name.name == "ErrorsPerSec" and value}
    assert errors == {
        (("request", "Metadata"), ("error", "UNKNOWN_TOPIC_OR_PARTITION")): 1,
        (("request", "ApiVersions"), ("error", "NONE")): 1,
    }
    assert len(transport.value()) > 0


def test_fetches_count_under_fetch_and_consumer_or_follower():
    clock = task.Clock()
    registry = MetricsRegistry(clock.seconds)
    metrics = SocketServerMetrics(registry, clock)
    answer = {
        "throttle_time_ms": 0,
        "error_code": 0,
        "session_id": 0,
        "responses": [
            {
                "topic": "t",
                "partitions": [
                    {
                        "partition_index": 0,
                        "error_code": Errors.NOT_LEADER_FOR_PARTITION,
                        "high_watermark": -1,
                        "last_stable_offset": -1,
                        "log_start_offset": -1,
                        "aborted_transactions": None,
                        "preferred_read_replica": -1,
                        "records": b"",
                    }
                ],
            }
        ],
    }
    protocol, _ = connect({1: lambda request: answer}, clock, metrics)
    for replica_id in (-1, 2, 3):
        body = {
            "replica_id": replica_id,
            "max_wait_ms": 0,
            "min_bytes": 0,
            "max_bytes": 100,
            "isolation_level": 0,
            "session_id": 0,
            "session_epoch": -1,
            "topics": [],
            "forgotten_topics_data": [],
            "rack_id": "",
        }
        protocol.dataReceived(frame(encode_request(1, 11, replica_id + 10, "c", body)))
    metrics.flush()
    assert histogram(registry, "TotalTimeMs", "Fetch").count == 3
    assert histogram(registry, "TotalTimeMs", "FetchFollower").count == 2
    assert histogram(registry, "TotalTimeMs", "FetchConsumer").count == 1
    assert metrics.request_names() == ["Fetch"]
    assert error_counts(1, answer) == {Errors.NONE: 1, Errors.NOT_LEADER_FOR_PARTITION: 1}


def test_no_timing_without_metrics_and_connection_counts_per_listener():
    clock = task.Clock()
    registry = MetricsRegistry(clock.seconds, enabled=False)
    protocol, transport = connect(apis.HANDLERS, clock, SocketServerMetrics(registry, clock))
    protocol.dataReceived(frame(encode_request(18, 0, 1, "c", {})))
    assert transport.value() and registry.samples() == [] and protocol.metrics is None

    registry = MetricsRegistry(clock.seconds)
    metrics = SocketServerMetrics(registry, clock)
    first, _ = connect(apis.HANDLERS, clock, metrics)
    clock.advance(10)
    second, _ = connect(apis.HANDLERS, clock, metrics)
    first.connectionLost(None)
    samples = {
        name.tags[-1][1]: value for name, kind, value in registry.samples() if name.type == "socket-server-metrics"
    }
    assert samples["connection-count"] == 1 and samples["connection-creation-total"] == 2
    assert samples["connection-close-total"] == 1
    assert samples["connection-creation-rate"] == pytest.approx(2 / 40.0)  # Kafka's Rate: 10 s plus one whole window


class FakePoller:
    def __init__(self, clock, waits):
        self.clock = clock
        self.waits = waits

    def poll(self, timeout, count):
        self.clock.advance(self.waits.pop(0))
        return []

    def register(self, fd):
        return "registered %d" % fd


def test_reactor_idle_share_is_the_time_spent_in_poll():
    clock = task.Clock()
    clock._poller = FakePoller(clock, [3.0, 3.0, 0.5])
    meter = ReactorIdleMeter(clock.seconds, window_s=10.0)
    assert meter.install(clock) and clock._poller.register(4) == "registered 4"
    registry = MetricsRegistry(clock.seconds)
    meter.register(registry)
    clock._poller.poll(1, 1)
    clock.advance(1.0)  # busy
    clock._poller.poll(1, 1)
    clock.advance(3.0)  # busy
    value = registry.get("kafka.network", "SocketServer", "NetworkProcessorAvgIdlePercent").read()
    assert value == pytest.approx(6.0 / 10.0)
    clock._poller.poll(1, 1)  # rolls the window: the share covers this one and the last
    clock.advance(2.0)
    assert meter.idle_share() == pytest.approx(6.5 / 12.5)
    assert not ReactorIdleMeter(clock.seconds).install(object())


def test_quota_metrics_per_client():
    quotas = ClientQuotaManager("producer_byte_rate", samples=11, window_ms=1000)
    quotas.update_quota(None, "slow", 1000)
    assert quotas.record("ANONYMOUS", "fast", 10**6, 0) == 0  # no quota applies: not measured
    throttles = [quotas.record("ANONYMOUS", "slow", 8000, now) for now in (0, 100)]
    assert throttles == [0, 5900]  # 16,000 bytes over 10.1 s (Kafka's window size): (1584 - 1000) / 1000 * 10.1 s
    samples = dict(quotas.metric_samples(200))
    tags = (("user", ""), ("client-id", "slow"))
    assert (
        samples[MetricName("kafka.server", "Produce", None, tags + (("attribute", "throttle-time"),))] == throttles[1]
    )
    assert samples[MetricName("kafka.server", "Produce", None, tags + (("attribute", "byte-rate"),))] == pytest.approx(
        16000 / 10.2
    )
    assert len(samples) == 2


def test_a_busy_request_name_is_timed_from_a_sample_with_exact_counts():
    clock = task.Clock()
    registry = MetricsRegistry(clock.seconds)
    metrics = SocketServerMetrics(registry, clock)
    requests = 3 * FLUSH_EVERY + 7
    for index in range(requests):  # local times 1 ms, but 5 ms for every tenth request
        local = 0.005 if index % 10 == 0 else 0.001
        metrics.arrived(SimpleNamespace(api_key=0, api_version=8), {}, 10.0)
        timing = metrics.timing(0, 8, False, 100 + index % 3, 10.0, 10.0, 10.0 + local)
        timing[RESPONSE_DONE] = 10.0 + local
        metrics.sent(timing, 10.0 + local, 10.0 + local)
    samples = {name.name: value for name, kind, value in registry.samples() if name.type == "RequestMetrics"}
    count, percentiles = samples["LocalTimeMs"]
    assert count == requests == samples["RequestsPerSec"] and samples["RequestBytes"][0] == requests
    assert 1.0 <= percentiles[0.5] <= 1.1 and 5.0 <= percentiles[0.95] <= 5.5
    assert histogram(registry, "RequestBytes", "Produce").max == 102


def test_the_broker_wiring_exposes_quotas_and_the_reactor_idle_share():
    clock = task.Clock()
    clock._poller = FakePoller(clock, [1.0])
    registry = MetricsRegistry(clock.seconds)
    quotas = ClientQuotaManager("consumer_byte_rate")
    quotas.update_quota(DEFAULT, None, 100)
    quotas.record("alice", "c1", 10, 0)
    hot_path = HotPathMetrics(registry, clock)
    hot_path.start([quotas])
    clock._poller.poll(1, 1)
    names = {name.mbean() for name, kind, value in registry.samples()}
    assert "kafka.server:type=Fetch,user=alice,client-id=,attribute=byte-rate" in names
    assert "kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent" in names
    assert hot_path.topic_stats.registry is registry and hot_path.socket.registry is registry


def test_every_request_counts_but_one_in_time_every_of_a_busy_type_is_timed():
    clock = task.Clock()
    registry = MetricsRegistry(clock.seconds)
    metrics = SocketServerMetrics(registry, clock)
    protocol, transport = connect(apis.HANDLERS, clock, metrics)
    requests = 2 * TIME_EVERY + 8
    for correlation_id in range(requests):
        protocol.dataReceived(frame(encode_request(18, 0, correlation_id, "c", {})))
    assert len(responses_in(transport)) == requests
    samples = {name.name: value for name, kind, value in registry.samples() if name.type == "RequestMetrics"}
    assert samples["RequestsPerSec"] == requests and samples["ErrorsPerSec"] == requests
    assert samples["TotalTimeMs"][0] == requests and samples["RequestBytes"][0] == requests
    timed = sum(histogram(registry, "TotalTimeMs", "ApiVersions").recent_buckets())
    assert timed == 3  # the first, the (TIME_EVERY + 1)th and the (2 * TIME_EVERY + 1)th
    clock.advance(TIME_AT_LEAST_EVERY_S)  # a request coming this long after the last timed one is timed
    protocol.dataReceived(frame(encode_request(18, 0, requests, "c", {})))
    metrics.flush()
    assert sum(histogram(registry, "TotalTimeMs", "ApiVersions").recent_buckets()) == 4


def test_request_counts_per_version_reach_their_meters_at_collection():
    clock = task.Clock()
    registry = MetricsRegistry(clock.seconds)
    metrics = SocketServerMetrics(registry, clock)
    for version, follower in ((11, False), (11, True), (11, True), (4, False)):
        metrics.arrived(SimpleNamespace(api_key=1, api_version=version), {"replica_id": 2 if follower else -1}, 0.0)
    counts = {
        (name.tags[0][1], int(name.tags[1][1])): value
        for name, kind, value in registry.samples()
        if name.name == "RequestsPerSec"
    }
    assert counts == {
        ("Fetch", 11): 3,
        ("Fetch", 4): 1,
        ("FetchFollower", 11): 2,
        ("FetchConsumer", 11): 1,
        ("FetchConsumer", 4): 1,
    }


def responses_in(transport):
    data, out = transport.value(), []
    while data:
        size = struct.unpack(">i", data[:4])[0]
        out.append(data[4 : 4 + size])
        data = data[4 + size :]
    return out
