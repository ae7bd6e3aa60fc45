"""A broker's effective topic configs: kept per topic, and recomputed when the topic's overrides or the
dynamic broker defaults change."""

from twisted.internet import task

from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.server.config.dynamic_broker_config import DynamicBrokerConfig
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config_cache import TopicConfigCache
from tests.fake_zk import FakeZk
from tests.replica_manager_support import replica_manager


def _cache(tmp_path, stored=None):
    """A cache over static configs with log.retention.ms=1000, the overrides in ``stored`` in ZooKeeper; and the
    list of (topic, overrides) it tells the replication quotas."""
    config = KafkaConfig(
        {"zookeeper.connect": "127.0.0.1:1", "broker.id": "0", "log.dirs": str(tmp_path), "log.retention.ms": "1000"}
    )
    zk = FakeZk({"get_entity_config": lambda entity_type, name: dict((stored or {}).get(name, {}))})
    seen = []
    return TopicConfigCache(
        DynamicBrokerConfig(config, 0), zk, lambda topic, overrides: seen.append((topic, overrides))
    ), seen


def test_topic_configs_follow_overrides_and_dynamic_defaults(tmp_path):
    cache, seen = _cache(tmp_path)
    first = cache.config("t")
    assert first["retention.ms"] == 1000 and first["max.message.bytes"] == 1048588
    assert cache.config("t") is first  # kept, not rebuilt per call

    cache.update_overrides("t", {"max.message.bytes": "100"})
    assert seen == [("t", {"max.message.bytes": "100"})]  # the replication quotas follow every topic's overrides
    assert cache.config("t")["max.message.bytes"] == 100
    assert cache.config("other")["max.message.bytes"] == 1048588

    cache.dynamic_config.update({"log.retention.ms": "5000"}, {})
    assert cache.config("t")["retention.ms"] == 5000
    assert cache.config("t")["max.message.bytes"] == 100
    assert cache.config(None)["retention.ms"] == 5000
    assert cache.log_config("t").max_message_bytes == 100


def test_overrides_are_read_once_per_topic_before_its_logs_exist(tmp_path):
    cache, seen = _cache(tmp_path, stored={"t": {"retention.ms": "7"}})
    cache.prepare(["t", "u"])
    cache.prepare(["t"])
    assert cache.zk.calls == ["get_entity_config", "get_entity_config"]
    assert seen == [("t", {"retention.ms": "7"}), ("u", {})]
    assert cache.config("t")["retention.ms"] == 7


class _Log:
    def __init__(self, topic):
        self.topic = topic
        self.config = LogConfig()


class _Logs:
    def __init__(self, logs, future_logs=()):
        self.default_config = LogConfig()
        self._logs = logs
        self._future_logs = future_logs

    def all_logs(self):
        return list(self._logs)

    def configurable_logs(self):
        return [*self._logs, *self._future_logs]


def test_changed_broker_defaults_reach_every_log(tmp_path):
    cache, _ = _cache(tmp_path)
    cache.update_overrides("t", {"retention.ms": "9"})
    moving = _Log("u")
    logs = _Logs([_Log("t"), _Log("u")], [moving])
    cache.dynamic_config.update({"log.retention.ms": "5000"}, {})
    cache.reconfigure_logs(logs)
    assert logs.default_config.retention_ms == 5000
    assert [log.config.retention_ms for log in logs.all_logs()] == [9, 5000]
    assert moving.config.retention_ms == 5000  # a replica being moved between log dirs keeps the new defaults


def test_new_topic_overrides_reach_the_logs_of_that_topic_only(tmp_path):
    cache, _ = _cache(tmp_path)
    clock = task.Clock()
    logs = LogManager([str(tmp_path / "a"), str(tmp_path / "b")], cache.log_config(None), clock)
    replicas = replica_manager(1, logs, cache.config, clock)
    replicas.become_leader_or_follower(
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
    other_dir = str(tmp_path / ("b" if logs.log_dir_of("t", 0) == str(tmp_path / "a") else "a"))
    moving = logs.create_future_log("t", 0, other_dir)  # t-0 on its way to the other log dir
    cache.update_overrides("t", {"max.message.bytes": "100"})
    replicas.reconfigure_logs("t")
    assert replicas.get_partition("t", 0).log.config.max_message_bytes == 100
    assert moving.config.max_message_bytes == 100  # it becomes t-0's log when the move ends
    assert replicas.get_partition("u", 0).log.config.max_message_bytes == 1048588
    logs.shutdown()
