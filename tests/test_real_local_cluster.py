"""scripts/local-cluster.sh as an operator uses it: --daemon, --racks, status, broker stop/kill/start, stop."""

import os
import subprocess
from pathlib import Path

import pytest

from kafka_zk.tools.broker_process import BrokerProcess
from kafka_zk.tools.local_cluster import internal_topic_settings, thinly_replicated_internal_topics
from tests.cluster_support import start_cluster, wait_for
from tests.ports import free_port, free_ports
from tests.raw_wire import request

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(ROOT / "scripts" / "local-cluster.sh")


def run(data, zk_port, base_port, *args):
    command = [
        SCRIPT,
        "--data",
        str(data),
        "--zk-port",
        str(zk_port),
        "--base-port",
        str(base_port),
        "--racks",
        "2",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.timeout(240)
def test_daemon_status_broker_commands_and_stop(tmp_path):
    data = tmp_path / "data"
    zk_port = free_port()
    base = free_ports(3)
    console = ("--console-port", str(free_port()))
    metrics_base = free_ports(3)
    started = run(data, zk_port, base, *console, "--metrics-port", str(metrics_base), "--daemon")
    try:
        assert started.returncode == 0, started.stderr
        assert (
            "bootstrap servers: 127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d" % (base, base + 1, base + 2) in started.stdout
        )
        assert "console: http://127.0.0.1:%s/" % console[1] in started.stdout
        for broker in range(3):
            assert "broker %d metrics: http://127.0.0.1:%d/metrics" % (broker, metrics_base + broker) in started.stdout
        status = run(data, zk_port, base, *console, "status")
        assert status.returncode == 0
        assert status.stdout.count("running") == 5, status.stdout
        assert "console http://127.0.0.1:%s/: running" % console[1] in status.stdout
        for broker in range(3):
            assert (
                "broker %d 127.0.0.1:%d (kafka-zk, rack rack-%d): running" % (broker, base + broker, broker % 2)
                in status.stdout
            )
            config = (data / ("broker-%d" % broker) / "server.properties").read_text().splitlines()
            assert {
                "broker.rack=rack-%d" % (broker % 2),
                "offsets.topic.replication.factor=3",
                "transaction.state.log.replication.factor=3",
                "transaction.state.log.min.isr=2",
            } <= set(config)
        for action in ("stop", "start", "kill", "start"):
            result = run(data, zk_port, base, "broker", "1", action)
            assert result.returncode == 0, result.stderr
        status = run(data, zk_port, base, "status")
        assert "broker 1 127.0.0.1:%d (kafka-zk, rack rack-1): running" % (base + 1) in status.stdout
        log = (data / "broker-1" / "server.log").read_text()
        assert "shut down completed" in log  # the clean stop
        assert (data / "broker-1" / "logs" / "meta.properties").exists()
    finally:
        stopped = run(data, zk_port, base, *console, "stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout and "stopping the console" in stopped.stdout
    status = run(data, zk_port, base, *console, "status")
    assert "running" not in status.stdout
    for broker in range(3):
        assert (data / ("broker-%d" % broker) / "logs" / ".kafka_cleanshutdown").exists()
    assert not any(p.endswith(".pid") for p in os.listdir(data / "broker-0"))


@pytest.mark.timeout(240)
def test_kafka_brokers_run_apache_kafka_beside_ours_in_one_cluster(tmp_path):
    data = tmp_path / "data"
    zk_port, base = free_port(), free_ports(2)
    flags = ("--brokers", "2", "--console-port", "0", "--metrics-port", str(free_ports(2)))
    started = run(data, zk_port, base, *flags, "--kafka-brokers", "1", "--daemon")
    try:
        assert started.returncode == 0, started.stderr
        assert "broker 1 127.0.0.1:%d (Apache Kafka 2.5.1, rack rack-1)" % (base + 1) in started.stdout
        assert "Kafka version: 2.5.1" in (data / "broker-1" / "server.log").read_text()
        for action in ("kill", "start"):  # the layout names broker 1's kind: no flag needed
            result = run(data, zk_port, base, "broker", "1", action)
            assert result.returncode == 0, result.stderr
        status = run(data, zk_port, base, "status").stdout
        assert "broker 0 127.0.0.1:%d (kafka-zk, rack rack-0): running" % base in status, status
        assert "broker 1 127.0.0.1:%d (Apache Kafka 2.5.1, rack rack-1): running" % (base + 1) in status, status
        wait_for(  # one cluster: each kind's metadata names both
            lambda: all(
                sorted(b["node_id"] for b in request("127.0.0.1:%d" % port, 3, 1, {"topics": []})["brokers"]) == [0, 1]
                for port in (base, base + 1)
            ),
            30,
            message="both brokers in both brokers' metadata",
        )
    finally:
        stopped = run(data, zk_port, base, "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "Controlled shutdown succeeded" in (data / "broker-1" / "server.log").read_text()


@pytest.mark.parametrize(
    "flags, message",
    [
        (
            ("--brokers", "2", "--kafka-brokers", "3"),
            "--kafka-brokers must be from 0 to the number of brokers (2), not 3",
        ),
        (("--kafka-brokers", "1", "--secure"), "--kafka-brokers and --secure do not go together yet"),
    ],
)
def test_kafka_brokers_beyond_the_cluster_or_with_secure_are_refused(tmp_path, flags, message):
    refused = run(tmp_path / "data", free_port(), free_port(), *flags, "--daemon")
    assert refused.returncode == 2 and message in refused.stderr, refused.stderr


@pytest.mark.parametrize("racks", ["0", "4"])
def test_racks_outside_one_to_the_broker_count_are_refused_with_the_reason(tmp_path, racks):
    result = subprocess.run(
        [SCRIPT, "--data", str(tmp_path), "--brokers", "3", "--racks", racks, "status"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert "--racks must be from 1 to the number of brokers (3), not %s" % racks in result.stderr


def test_an_internal_topic_with_fewer_replicas_than_the_settings_ask_for_is_found(tmp_path, zookeeper_server):
    """What `start` notes for a data dir whose __consumer_offsets an older, single-replica setting made."""
    cluster = start_cluster(tmp_path, zookeeper_server, brokers=1, overrides={"offsets.topic.num.partitions": "2"})
    try:
        broker = cluster.brokers[0]
        wait_for(
            lambda: request(broker.bootstrap, 10, 2, {"key": "g", "key_type": 0})["error_code"] == 0,
            30,
            message="__consumer_offsets made and led",
        )
        assert thinly_replicated_internal_topics(broker) == {}
        asking_for_three = BrokerProcess(
            0, tmp_path / "later", broker.port, cluster.zk_connect, overrides=internal_topic_settings(3)
        )
        assert thinly_replicated_internal_topics(asking_for_three) == {"__consumer_offsets": 1}
    finally:
        cluster.stop()
