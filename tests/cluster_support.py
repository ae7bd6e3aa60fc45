"""Real broker processes for tests: clusters over the session's ZooKeeper in private chroots, one per module that
shares it, and topics made on them."""

import time
import urllib.request
import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from prometheus_client.parser import text_string_to_metric_families

from kafka_zk.tools.local_cluster import LocalCluster
from tests.ports import free_port
from tests.zk_support import create_chroot


def wait_for(condition, timeout=30.0, interval=0.05, message="condition"):
    """Poll condition() until it returns a truthy value; fail the test after timeout seconds, saying ``message`` (a
    callable: what it returns then)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                "timed out after %.0fs waiting for %s" % (timeout, message() if callable(message) else message)
            )
        time.sleep(interval)


# A whole test cluster stops at once, so the last brokers' controlled shutdowns cannot move leaders:
# a short backoff keeps their Kafka-default three attempts from adding 10 s to every teardown.
TEST_DEFAULTS = {"controlled.shutdown.retry.backoff.ms": "200"}


def start_cluster(
    directory,
    zookeeper_server,
    brokers=3,
    overrides=None,
    racks=None,
    broker_overrides=None,
    broker_ports=None,
    metrics=False,
    kafka_brokers=0,
):
    """``broker_overrides`` {broker id: {name: value}}: settings of single brokers, over ``overrides``;
    ``broker_ports``: each broker's first (PLAINTEXT) listener port, free ones when None; ``metrics``: each
    broker serves Prometheus metrics on a free port (BrokerProcess.metrics_url); ``kafka_brokers`` K: the last K
    brokers run Apache Kafka 2.5.1 (JVM brokers; K = ``brokers`` makes a cluster of Kafka's alone)."""
    cluster = LocalCluster(
        directory,
        brokers=brokers,
        zk_connect=create_chroot(zookeeper_server),
        broker_ports=broker_ports or [free_port() for _ in range(brokers)],
        overrides=dict(TEST_DEFAULTS, **(overrides or {})),
        racks=racks,
        metrics_ports=[free_port() for _ in range(brokers)] if metrics else None,
        kafka_brokers=kafka_brokers,
    )
    for broker_id, settings in (broker_overrides or {}).items():
        cluster.broker(broker_id).overrides.update(settings)
    try:
        cluster.start(timeout=60)
    except Exception:
        cluster.kill()
        raise
    return cluster


@pytest.fixture(scope="session")
def broker_processes():
    """Needed by every fixture that starts brokers: the tests using one are in the cluster tier (tests/tiers.py)."""


def module_cluster(brokers=3, start=start_cluster, stop=LocalCluster.stop, **settings):
    """A fixture of a cluster that the tests of one module share: ``start(folder, zookeeper_server, brokers=brokers,
    **settings)`` (start_cluster's settings: overrides, racks, broker_overrides, metrics, kafka_brokers),
    ``stop(cluster)`` after the module. A module assigns it to the fixture's name, e.g.
    ``cluster = module_cluster(overrides={...})``."""

    @pytest.fixture(scope="module")
    def shared_cluster(request, tmp_path_factory, zookeeper_server, broker_processes):
        folder = tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
        running = start(folder, zookeeper_server, brokers=brokers, **settings)
        yield running
        stop(running)

    return shared_cluster


# Group coordinators that balance at once, over 6 offsets partitions of 3 replicas.
GROUP_OVERRIDES = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "6",
    "group.initial.rebalance.delay.ms": "0",
}

# Three brokers with the test defaults, for the modules that need no settings of their own.
cluster = module_cluster()


def make_topic(
    cluster,
    prefix,
    partitions=1,
    replication_factor=3,
    configs=None,
    records_per_partition=0,
    value=lambda partition, index: b"%d-%d" % (partition, index),
    timestamp=None,
):
    """Create the topic ``prefix``-<8 hex digits> through confluent-kafka's admin client, then produce
    ``records_per_partition`` records of ``value(partition, index)`` (at ``timestamp(index)`` when given) to each
    partition with acks=all; returns the topic's name."""
    name = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic(name, partitions, replication_factor, config=configs or {})])[name].result(60)
    if records_per_partition:
        producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all"})
        for partition in range(partitions):
            for index in range(records_per_partition):
                producer.produce(
                    name,
                    value=value(partition, index),
                    partition=partition,
                    timestamp=timestamp(index) if timestamp else 0,
                )
        assert producer.flush(60) == 0
    return name


def log_bytes(broker, topic, partition=0):
    """The bytes of a partition's segment files (.log) in every log dir of a broker; 0 where it has none."""
    return sum(
        path.stat().st_size
        for log_dir in broker.log_dirs
        for path in (log_dir / ("%s-%d" % (topic, partition))).glob("*.log")
    )


def scrape_metrics(broker):
    """{(sample name, sorted (label, value) pairs): value} of one scrape of a broker's Prometheus endpoint,
    parsed with the Prometheus client's parser."""
    with urllib.request.urlopen(broker.metrics_url, timeout=10) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
