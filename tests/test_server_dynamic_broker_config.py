"""DynamicBrokerConfig: precedence, Kafka's validation messages, and listeners."""

import pytest

from kafka_zk.server.config.dynamic_broker_config import (
    DEFAULT_CONFIG,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    STATIC_BROKER_CONFIG,
    DynamicBrokerConfig,
    validate_dynamic_configs,
)
from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig


def make(**static):
    props = {"zookeeper.connect": "localhost:2181", "broker.id": "0"}
    props.update({name.replace("_", "."): value for name, value in static.items()})
    return DynamicBrokerConfig(KafkaConfig(props), 0)


def test_per_broker_over_default_over_static():
    config = make(log_segment_bytes="2000000")
    assert config.value("log.segment.bytes") == 2000000
    config.update_entity("<default>", {"log.segment.bytes": "3000000"})
    assert config.value("log.segment.bytes") == 3000000
    config.update_entity("0", {"log.segment.bytes": "4000000"})
    assert config.value("log.segment.bytes") == 4000000
    assert config.log_config_defaults()["segment.bytes"] == 4000000
    assert [source for _, _, source in config.sources("log.segment.bytes")] == [
        DYNAMIC_BROKER_CONFIG,
        DYNAMIC_DEFAULT_BROKER_CONFIG,
        STATIC_BROKER_CONFIG,
        DEFAULT_CONFIG,
    ]
    config.update_entity("1", {"log.segment.bytes": "5000000"})  # another broker's entity: not ours
    config.update_entity("0", {})
    assert config.value("log.segment.bytes") == 3000000


def test_retention_ms_dynamic_overrides_static_hours():
    config = make(log_retention_hours="1")
    assert config.log_config_defaults()["retention.ms"] == 3600000
    config.update_entity("<default>", {"log.retention.ms": "5000"})
    assert config.log_config_defaults()["retention.ms"] == 5000
    assert config.sources("log.retention.ms")[0] == ("log.retention.ms", "5000", DYNAMIC_DEFAULT_BROKER_CONFIG)


def test_listener_called_now_and_on_change_only():
    config = make()
    seen = []
    config.add_listener(["leader.replication.throttled.rate", "num.replica.fetchers"], seen.append)
    assert seen == [{"leader.replication.throttled.rate": 9223372036854775807, "num.replica.fetchers": 1}]
    config.update_entity("<default>", {"log.retention.ms": "5000"})
    assert len(seen) == 1
    config.update_entity("0", {"leader.replication.throttled.rate": "1000"})
    assert seen[-1]["leader.replication.throttled.rate"] == 1000
    config.update_entity("0", {"leader.replication.throttled.rate": "1000", "log.retention.ms": "7"})
    assert len(seen) == 2


@pytest.mark.parametrize(
    "props, per_broker, message",
    [
        ({"broker.id": "3"}, True, "Cannot update these configs dynamically: Set(broker.id)"),
        (
            {"log.retention.hours": "3", "zookeeper.connect": "x"},
            True,
            "Cannot update these configs dynamically: Set(log.retention.hours, zookeeper.connect)",
        ),
        (
            {"log.retention.ms": "abc"},
            True,
            "Invalid value abc for configuration log.retention.ms: Not a number of type LONG",
        ),
        (
            {"unclean.leader.election.enable": "maybe"},
            False,
            "Invalid value maybe for configuration unclean.leader.election.enable: "
            "Expected value to be either true or false",
        ),
        (
            {"log.cleanup.policy": "shred"},
            False,
            "Invalid value shred for configuration log.cleanup.policy: String must be one of: compact, delete",
        ),
        (
            {"log.cleanup.policy": ""},
            True,
            "Invalid value  for configuration log.cleanup.policy: String must be one of: compact, delete",
        ),
        (
            {"listeners": "PLAINTEXT://:9093"},
            False,
            "Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)",
        ),
        (
            {"ssl.keystore.password": "x"},
            True,
            "These security configs can be dynamically updated only per-listener "
            "using the listener prefix: Set(ssl.keystore.password)",
        ),
    ],
)
def test_validation_messages(props, per_broker, message):
    with pytest.raises(ConfigError) as error:
        validate_dynamic_configs(props, per_broker)
    assert str(error.value) == message


def test_invalid_values_in_zookeeper_are_ignored():
    config = make()
    config.update_entity("0", {"log.segment.bytes": "big", "broker.id": "7", "log.retention.ms": "9"})
    assert config.value("log.segment.bytes") == 1073741824
    assert config.value("log.retention.ms") == 9
    assert config.value("broker.id") == 0


def test_synonyms_start_at_the_configs_own_name():
    config = make(log_retention_hours="2")
    config.update_entity("0", {"log.retention.ms": "1000"})
    assert config.sources("log.retention.ms") == [
        ("log.retention.ms", "1000", DYNAMIC_BROKER_CONFIG),
        ("log.retention.hours", "2", STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", DEFAULT_CONFIG),
    ]
    assert config.sources("log.retention.hours") == [
        ("log.retention.hours", "2", STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", DEFAULT_CONFIG),
    ]
    assert config.sources("log.retention.minutes") == []


def test_update_takes_both_levels_and_static_throttle_rates_are_typed():
    config = DynamicBrokerConfig(
        KafkaConfig({"zookeeper.connect": "z:2181", "broker.id": "1", "leader.replication.throttled.rate": "900"}), 1
    )
    seen = []
    config.add_listener(["leader.replication.throttled.rate"], seen.append)
    config.update({"leader.replication.throttled.rate": "500"}, {})
    config.update({"leader.replication.throttled.rate": "500"}, {"leader.replication.throttled.rate": "100"})
    assert seen == [{"leader.replication.throttled.rate": rate} for rate in (900, 500, 100)]
    assert config.entity_names() == ["<default>", "1"]
    config.update({}, {})
    assert config.value("leader.replication.throttled.rate") == 900
