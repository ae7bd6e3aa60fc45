"""A broker's effective topic configs: kept per topic, and recomputed when the topic's overrides or the
dynamic broker defaults change."""

from types import SimpleNamespace

from twisted.internet import task

from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.kafka_server import KafkaServer
from kafka_zk.server.quota.replication_quota import ReplicationQuotas


def _server(tmp_path):
    return KafkaServer(KafkaConfig({"zookeeper.connect": "127.0.0.1:1", "broker.id": "0",
                                    "log.dirs": str(tmp_path), "log.retention.ms": "1000"}), task.Clock())


def test_topic_configs_follow_overrides_and_dynamic_defaults(tmp_path):
    server = _server(tmp_path)
    first = server.topic_config("t")
    assert first["retention.ms"] == 1000 and first["max.message.bytes"] == 1048588
    assert server.topic_config("t") is first  # kept, not rebuilt per call

    # what start() builds that applying overrides touches: the quotas and the (here empty) partitions
    server.replication_quotas = ReplicationQuotas(0, task.Clock())
    server.replica_manager = SimpleNamespace(partitions={})
    server.apply_topic_overrides("t", {"max.message.bytes": "100"})
    assert server.topic_config("t")["max.message.bytes"] == 100
    assert server.topic_config("other")["max.message.bytes"] == 1048588

    server.dynamic_config.update({"log.retention.ms": "5000"}, {})
    assert server.topic_config("t")["retention.ms"] == 5000
    assert server.topic_config("t")["max.message.bytes"] == 100
    assert server.topic_config(None)["retention.ms"] == 5000
