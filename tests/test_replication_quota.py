"""Replication quota decisions: rate windows, throttled-replica lists, and Kafka's throttle rule."""

import pytest

from kafka_zk.server.config.dynamic_broker_config import DynamicBrokerConfig
from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig
from kafka_zk.server.config.topic_config import parse_topic_config_value
from kafka_zk.server.quota.replication_quota import (
    ALL_REPLICAS,
    ReplicationQuota,
    ReplicationQuotas,
    SampledRate,
    parse_throttled_replicas,
    should_throttle,
)
from tests.millisecond_clock import MillisecondClock


def test_rate_divides_by_at_least_one_window_then_by_elapsed_time():
    rate = SampledRate(samples=11, window_ms=1000)
    rate.record(500, 0)
    assert rate.measure(100) == 500.0  # 500 bytes over the one-window minimum
    rate.record(1500, 1500)
    assert rate.measure(4000) == 500.0  # 2000 bytes over 4 s
    assert rate.measure(12_600) == 0.0  # every window has expired (11 x 1 s after it began)


def test_old_windows_drop_out_of_an_eleven_window_rate():
    rate = SampledRate(samples=11, window_ms=1000)
    for second in range(20):
        rate.record(1000, second * 1000)
    # Only the windows of the last 11 s count: 11 x 1000 bytes over 10.5 s since the oldest began.
    assert rate.measure(19_500) == pytest.approx(11_000 / 10.5)


def test_quota_is_exceeded_only_above_its_limit_and_only_when_limited():
    clock = MillisecondClock(1_000_000)
    quota = ReplicationQuota(clock)
    quota.record(10**9)
    assert not quota.is_quota_exceeded()  # the default limit is Long.MAX_VALUE
    quota.set_limit(1000)
    quota.rate = SampledRate()
    quota.record(1000)
    assert not quota.is_quota_exceeded()  # 1000 B/s is not above 1000
    quota.record(1)
    assert quota.is_quota_exceeded()
    clock.now += 2000
    assert not quota.is_quota_exceeded()  # 1001 bytes over 2 s


def test_throttled_replica_lists_name_partitions_of_this_broker():
    assert parse_throttled_replicas("0:1,0:2,1:2,1:3", 2) == {0, 1}
    assert parse_throttled_replicas("0:1,1:3", 2) == set()
    assert parse_throttled_replicas(" * ", 7) == ALL_REPLICAS
    assert parse_throttled_replicas("", 1) == set()


def test_only_out_of_sync_replicas_of_throttled_partitions_over_quota_are_throttled():
    clock = MillisecondClock(1_000_000)
    quotas = ReplicationQuotas(2, clock)
    quotas.on_broker_config(
        {
            "leader.replication.throttled.rate": 100,
            "follower.replication.throttled.rate": 50,
            "replication.quota.window.num": 11,
            "replication.quota.window.size.seconds": 1,
        }
    )
    quotas.on_topic_config(
        "t", {"leader.replication.throttled.replicas": "0:1,0:2", "follower.replication.throttled.replicas": "0:3"}
    )
    leader = quotas.leader
    assert leader.is_throttled(("t", 0)) and not leader.is_throttled(("t", 1))
    assert not quotas.follower.is_throttled(("t", 0))
    assert not should_throttle(leader, ("t", 0), replica_in_sync=False)  # under the quota
    leader.record(500)
    assert should_throttle(leader, ("t", 0), replica_in_sync=False)
    assert not should_throttle(leader, ("t", 0), replica_in_sync=True)  # the ISR is never throttled
    assert not should_throttle(leader, ("t", 1), replica_in_sync=False)  # nor other partitions
    quotas.on_topic_config("t", {})
    assert not leader.is_throttled(("t", 0))


def test_throttled_replicas_config_accepts_star_or_partition_broker_pairs():
    name = "leader.replication.throttled.replicas"
    assert parse_topic_config_value(name, "0:1, 1:2") == "0:1,1:2"
    assert parse_topic_config_value(name, "*") == "*"
    with pytest.raises(ConfigError, match="must be the literal '\\*' or a list of replicas"):
        parse_topic_config_value(name, "0-1")


def test_dynamic_broker_config_layers_and_notifies_on_change():
    config = KafkaConfig({"zookeeper.connect": "z:2181", "broker.id": "1", "leader.replication.throttled.rate": "900"})
    dynamic = DynamicBrokerConfig(config, 1)
    seen = []
    dynamic.add_listener(["leader.replication.throttled.rate"], seen.append)
    assert seen == [{"leader.replication.throttled.rate": 900}]
    dynamic.update({"leader.replication.throttled.rate": "500"}, {})
    dynamic.update({"leader.replication.throttled.rate": "500"}, {"follower.replication.throttled.rate": "1"})
    dynamic.update(
        {"leader.replication.throttled.rate": "500"},
        {"leader.replication.throttled.rate": "100", "follower.replication.throttled.rate": "1"},
    )
    assert seen[1:] == [{"leader.replication.throttled.rate": 500}, {"leader.replication.throttled.rate": 100}]
    assert dynamic.value("follower.replication.throttled.rate") == 1
    dynamic.update({}, {})
    assert dynamic.value("leader.replication.throttled.rate") == 900
