"""KAFKA_JVM_PERFORMANCE_OPTS, as kafka-run-class.sh reads it: when set and not empty it replaces the garbage
collector settings of every JVM we start as Kafka's scripts would (Kafka's broker, Connect, ZooKeeper)."""

import pytest

from kafka_zk.tools import connect_worker, reference_broker
from zookeeper import launcher

SUITE_OPTIONS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"


@pytest.fixture
def libs(tmp_path):
    (tmp_path / "kafka_2.12-2.5.1.jar").write_bytes(b"")
    return tmp_path


def commands(libs, tmp_path):
    return {
        "broker": reference_broker.broker_command(tmp_path / "server.properties", tmp_path, libs),
        "connect": connect_worker.jvm_command("Main", tmp_path / "worker.properties", tmp_path, libs),
        "zookeeper": launcher.server_command(tmp_path / "zoo.cfg"),
    }


@pytest.mark.parametrize("value", [None, "", "  "])
def test_unset_or_empty_keeps_kafka_run_class_defaults(value, libs, tmp_path, monkeypatch):
    if value is None:
        monkeypatch.delenv("KAFKA_JVM_PERFORMANCE_OPTS", raising=False)
    else:
        monkeypatch.setenv("KAFKA_JVM_PERFORMANCE_OPTS", value)
    found = commands(libs, tmp_path)
    for name in ("broker", "connect"):
        assert "-XX:+UseG1GC" in found[name] and "-XX:MaxGCPauseMillis=20" in found[name], name
        assert "-XX:+UseSerialGC" not in found[name], name
    assert not any(
        option.startswith("-XX:") and not option.startswith("-XX:SharedArchiveFile=") for option in found["zookeeper"]
    )


def test_set_replaces_the_defaults_in_every_jvm(libs, tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_JVM_PERFORMANCE_OPTS", SUITE_OPTIONS)
    for name, command in commands(libs, tmp_path).items():
        assert "-XX:+UseSerialGC" in command and "-XX:TieredStopAtLevel=1" in command, name
        assert "-XX:+UseG1GC" not in command, name
        assert command.index("-XX:+UseSerialGC") < command.index("-cp"), name  # a JVM option, not an argument
