"""ClusterClient: bootstrap parsing, metadata cache, routing, and bounded retries."""

import pytest

from kafka_zk.client.cluster import ClusterClient, parse_bootstrap_servers
from kafka_zk.client.errors import KafkaConnectionError, KafkaResponseError
from kafka_zk.protocol.errors import Errors
from tests.client_fake_broker import fake  # noqa: F401  (fixture)


def test_parse_bootstrap_servers():
    assert parse_bootstrap_servers("a:1, b:2") == [("a", 1), ("b", 2)]
    assert parse_bootstrap_servers("[::1]:9092") == [("::1", 9092)]
    for bad in ("a", "a:x", ""):
        with pytest.raises(ValueError):
            parse_bootstrap_servers(bad)


def test_metadata_and_leaders(fake):
    client = ClusterClient(fake.bootstrap)
    try:
        assert client.partitions_for("t") == [0, 1]
        assert client.leader_for("t", 1) == 1
        assert sorted(client.brokers) == [0, 1]
        assert client.controller() == 0
        assert client.cluster_id == "fake"
    finally:
        client.close()


def test_bootstrap_skips_dead_addresses(fake):
    client = ClusterClient("127.0.0.1:1," + fake.bootstrap, timeout=2)
    try:
        assert client.partitions_for("t") == [0, 1]
    finally:
        client.close()


def test_no_reachable_broker_is_a_connection_error():
    client = ClusterClient("127.0.0.1:1", timeout=1, retries=0)
    with pytest.raises(KafkaConnectionError, match="no broker reachable"):
        client.metadata()


def test_leaderless_partition_retries_bounded_with_backoff(fake):
    fake.topics["t"][0] = -1
    sleeps = []
    client = ClusterClient(fake.bootstrap, retries=4, retry_backoff_ms=100, sleep=sleeps.append)
    try:
        with pytest.raises(KafkaResponseError) as failure:
            client.leader_for("t", 0)
        assert failure.value.error == Errors.LEADER_NOT_AVAILABLE
        assert "LEADER_NOT_AVAILABLE" in str(failure.value)
        assert sleeps == [0.1, 0.2, 0.4, 0.8]
    finally:
        client.close()


def test_leader_found_after_metadata_refresh(fake):
    fake.topics["t"][0] = -1
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        fake.topics["t"][0] = 1  # the election finishes while we back off

    client = ClusterClient(fake.bootstrap, sleep=sleep)
    try:
        assert client.leader_for("t", 0) == 1
        assert len(sleeps) == 1
    finally:
        client.close()


def test_unknown_topic_raises_after_retries(fake):
    client = ClusterClient(fake.bootstrap, retries=2, sleep=lambda s: None)
    try:
        with pytest.raises(KafkaResponseError) as failure:
            client.partitions_for("missing")
        assert failure.value.error == Errors.UNKNOWN_TOPIC_OR_PARTITION
    finally:
        client.close()
