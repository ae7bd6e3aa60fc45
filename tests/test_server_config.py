import pytest

from kafka_zk.common.properties import parse_properties
from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config, validate_topic_configs


def test_properties_parsing_handles_comments_separators_and_continuations():
    text = "# comment\n! also\nbroker.id=3\nlisteners : PLAINTEXT://:9093\nlog.dirs /a,\\\n  /b\nempty=\n"
    assert parse_properties(text) == {
        "broker.id": "3",
        "listeners": "PLAINTEXT://:9093",
        "log.dirs": "/a,/b",
        "empty": "",
    }


def test_defaults_are_kafka_25_defaults():
    config = KafkaConfig({"zookeeper.connect": "localhost:2181"})
    assert config["num.partitions"] == 1
    assert config["zookeeper.session.timeout.ms"] == 18000
    assert config["log.segment.bytes"] == 1073741824
    assert config["message.max.bytes"] == 1048588
    assert config["offsets.topic.num.partitions"] == 50
    assert config.log_dirs == ["/tmp/kafka-logs"]
    assert config.log_retention_ms == 168 * 3600 * 1000
    assert config.listeners[0].port == 9092
    assert config.broker_id == -1


def test_retention_precedence_ms_over_minutes_over_hours():
    config = KafkaConfig({"zookeeper.connect": "z", "log.retention.minutes": "2", "log.retention.hours": "1"})
    assert config.log_retention_ms == 120000
    config = KafkaConfig({"zookeeper.connect": "z", "log.retention.ms": "5", "log.retention.minutes": "2"})
    assert config.log_retention_ms == 5


@pytest.mark.parametrize(
    "props, message",
    [
        ({}, "zookeeper.connect"),
        ({"zookeeper.connect": "z", "num.partitions": "zero"}, "num.partitions"),
        ({"zookeeper.connect": "z", "num.partitions": "0"}, "at least 1"),
        ({"zookeeper.connect": "z", "auto.create.topics.enable": "maybe"}, "auto.create.topics.enable"),
        ({"zookeeper.connect": "z", "listeners": "PLAINTEXT:9092"}, "broker endpoint"),
        ({"zookeeper.connect": "z", "listeners": "FOO://:9092"}, "No security protocol"),
        ({"zookeeper.connect": "z", "broker.id": "-7"}, "broker.id"),
    ],
)
def test_wrong_config_gets_a_clear_message(props, message):
    with pytest.raises(ConfigError) as error:
        KafkaConfig(props)
    assert message in str(error.value)


def test_topic_configs_validate_and_override_broker_defaults():
    config = KafkaConfig({"zookeeper.connect": "z", "log.segment.bytes": "2048"})
    effective = effective_topic_config(config.log_config_defaults(), {"retention.ms": "1000"})
    assert effective["retention.ms"] == 1000
    assert effective["segment.bytes"] == 2048
    with pytest.raises(ConfigError, match="Unknown topic config"):
        validate_topic_configs({"no.such.config": "1"})
    with pytest.raises(ConfigError, match="cleanup.policy"):
        validate_topic_configs({"cleanup.policy": "shred"})
    assert validate_topic_configs({"cleanup.policy": "compact,delete"}) == {"cleanup.policy": "compact,delete"}


POLICY_CHOICES = "String must be one of: compact, delete"


@pytest.mark.parametrize(
    "value, named", [("", ""), (" ", ""), ("compact,", ""), ("shred", "shred"), ("delete,shred", "shred")]
)
def test_cleanup_policy_must_be_a_non_empty_list_of_compact_and_delete(value, named):
    """Topic and broker alike: Kafka's ValidList message naming the offending item (an empty one for an empty list,
    as Kafka names the stray comma of a topic's `compact,`; broker lists drop a stray comma, as they always have)."""
    with pytest.raises(ConfigError) as error:
        validate_topic_configs({"cleanup.policy": value})
    assert str(error.value) == "Invalid value %s for configuration cleanup.policy: %s" % (named, POLICY_CHOICES)
    if value.endswith(","):
        return
    with pytest.raises(ConfigError) as error:
        KafkaConfig({"zookeeper.connect": "z", "log.cleanup.policy": value})
    assert str(error.value) == "Invalid value %s for configuration log.cleanup.policy: %s" % (named, POLICY_CHOICES)


def test_an_invalid_stored_topic_override_leaves_the_broker_default_in_force():
    """An empty cleanup.policy stored by an older version (or zkCli) must not stop the broker's logs."""
    config = KafkaConfig({"zookeeper.connect": "z", "log.cleanup.policy": "compact"})
    effective = effective_topic_config(config.log_config_defaults(), {"cleanup.policy": "", "retention.ms": "7"})
    assert effective["cleanup.policy"] == "compact"
    assert effective["retention.ms"] == 7


@pytest.mark.parametrize(
    "props, message",
    [
        (
            {"replica.fetch.wait.max.ms": "5000", "replica.socket.timeout.ms": "3000"},
            "requirement failed: replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms "
            "to prevent unnecessary socket timeouts",
        ),
        (
            {"replica.fetch.wait.max.ms": "5000", "replica.lag.time.max.ms": "4000"},
            "requirement failed: replica.fetch.wait.max.ms should always be less than or equal to "
            "replica.lag.time.max.ms to prevent frequent changes in ISR",
        ),
    ],
)
def test_the_replica_fetch_wait_must_fit_the_socket_timeout_and_the_lag_time(props, message):
    with pytest.raises(ConfigError) as error:
        KafkaConfig(dict({"zookeeper.connect": "z"}, **props))
    assert str(error.value) == message
    KafkaConfig(
        {
            "zookeeper.connect": "z",
            "replica.fetch.wait.max.ms": "3000",
            "replica.socket.timeout.ms": "3000",
            "replica.lag.time.max.ms": "3000",
        }
    )
