"""Real broker processes for tests: a cluster over the session's ZooKeeper, in a private chroot."""

import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from kafka_zk.tools.local_cluster import LocalCluster
from tests.ports import free_port
from tests.zk_support import create_chroot


def wait_for(condition, timeout=30.0, interval=0.05, message="condition"):
    """Poll condition() until it returns a truthy value; fail the test after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0fs waiting for %s" % (timeout, message))
        time.sleep(interval)


# A whole test cluster stops at once, so the last brokers' controlled shutdowns cannot move leaders:
# a short backoff keeps their Kafka-default three attempts from adding 10 s to every teardown.
TEST_DEFAULTS = {"controlled.shutdown.retry.backoff.ms": "200"}


def start_cluster(directory, zookeeper_server, brokers=3, overrides=None, racks=None, broker_overrides=None,
                  broker_ports=None, metrics=False):
    """``broker_overrides`` {broker id: {name: value}}: settings of single brokers, over ``overrides``;
    ``broker_ports``: each broker's first (PLAINTEXT) listener port, free ones when None; ``metrics``: each
    broker serves Prometheus metrics on a free port (BrokerProcess.metrics_url)."""
    cluster = LocalCluster(directory, brokers=brokers, zk_connect=create_chroot(zookeeper_server),
                           broker_ports=broker_ports or [free_port() for _ in range(brokers)],
                           overrides=dict(TEST_DEFAULTS, **(overrides or {})), racks=racks,
                           metrics_ports=[free_port() for _ in range(brokers)] if metrics else None)
    for broker_id, settings in (broker_overrides or {}).items():
        cluster.broker(broker_id).overrides.update(settings)
    try:
        cluster.start(timeout=60)
    except Exception:
        cluster.kill()
        raise
    return cluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    """Three brokers shared by the tests of one module."""
    running = start_cluster(tmp_path_factory.mktemp("cluster"), zookeeper_server)
    yield running
    running.stop()


def scrape_metrics(broker):
    """{(sample name, sorted (label, value) pairs): value} of one scrape of a broker's Prometheus endpoint,
    parsed with the Prometheus client's parser."""
    with urllib.request.urlopen(broker.metrics_url, timeout=10) as response:
        text = response.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}
