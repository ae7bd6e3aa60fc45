"""KIP-368 on a real SASL_PLAINTEXT cluster whose sessions last 2 s (connections.max.reauth.ms): the brokers' own
connections (replica fetchers, the controller's channel), a client's connection and a tool's (kafka-console-consumer)
log in again on the same socket before their sessions run out, so replication, the client's requests and the tool's
fetches go on across several lifetimes, with no connection cut by the brokers and none made anew."""

import re
import subprocess
import time
from pathlib import Path

import pytest

from kafka_zk.client.connection import BrokerConnection
from tests.authorization_support_real import ADMIN, batch, start_secure_cluster
from tests.cluster_support import broker_processes, wait_for  # noqa: F401
from tests.raw_wire import produce_body

ROOT = Path(__file__).resolve().parents[1]
LIFETIME_MS = 2000
LIFETIMES = 4
TOPIC = "renewed"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server, broker_processes):  # noqa: F811
    running = start_secure_cluster(
        tmp_path_factory.mktemp("sasl-reauthentication"),
        zookeeper_server,
        2,
        **{"connections.max.reauth.ms": str(LIFETIME_MS), "offsets.topic.replication.factor": "2"},
    )
    yield running
    running.stop()


def broker_connections(cluster):
    """{(pid, local port, remote port)} of the TCP connections each broker process opened to another broker."""
    pids = {broker.pid() for broker in cluster.brokers}
    ports = {broker.port for broker in cluster.brokers}
    listed = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True, check=True)
    found = set()
    for line in listed.stdout.splitlines():
        fields = line.split()
        owner = re.search(r"pid=(\d+)", line)
        if len(fields) < 4 or owner is None or int(owner.group(1)) not in pids:
            continue
        local, remote = (int(address.rpartition(":")[2]) for address in fields[2:4])
        if remote in ports:
            found.add((int(owner.group(1)), local, remote))
    return found


def console_consumer(cluster, folder):
    """kafka-console-consumer reading the topic from the start as admin, until nothing has come for 2.5 s."""
    properties = folder / "admin.properties"
    properties.write_text("".join("%s=%s\n" % item for item in ADMIN.items()))
    return subprocess.Popen(
        [str(ROOT / "scripts" / "kafka-console-consumer.sh"), "--bootstrap-server", cluster.bootstrap_servers]
        + ["--topic", TOPIC, "--from-beginning", "--timeout-ms", "2500", "--consumer.config", str(properties)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_replication_and_client_connections_outlive_several_session_lifetimes(cluster, tmp_path):
    leader, follower = cluster.brokers
    client = BrokerConnection(leader.host, leader.port, client_id="reauth", timeout=20, security=ADMIN)
    controller = cluster.broker(client.request(3, {"topics": []}, version=1)["controller_id"])
    with_controller = BrokerConnection(controller.host, controller.port, timeout=20, security=ADMIN)
    created = with_controller.request(
        19,
        {
            "topics": [
                {
                    "name": TOPIC,
                    "num_partitions": -1,
                    "replication_factor": -1,
                    "assignments": [{"partition_index": 0, "broker_ids": [leader.broker_id, follower.broker_id]}],
                    "configs": [],
                }
            ],
            "timeout_ms": 30000,
        },
        version=5,
    )
    with_controller.close()
    assert created["topics"][0]["error_code"] == 0, created

    def produce(value):
        answer = client.request(0, produce_body(TOPIC, 0, batch(value), acks=-1), version=7)
        return answer["responses"][0]["partitions"][0]["error_code"]

    wait_for(lambda: produce(b"first") == 0, 30, message="the first record written to both replicas")
    consumer = console_consumer(cluster, tmp_path)
    socket_before = client._sock
    connections = broker_connections(cluster)
    follower_fetches = {c for c in connections if c[0] == follower.pid() and c[2] == leader.port}
    assert follower_fetches, "no connection from the follower to the leader: %s" % connections
    started = time.monotonic()
    written = 0
    while time.monotonic() - started < LIFETIMES * LIFETIME_MS / 1000:
        # acks=all: each record waits for the follower's fetch, so replication never stalled
        assert produce(b"record-%d" % written) == 0
        written += 1
    assert client._sock is socket_before, "the client's connection was made anew"
    out, err = consumer.communicate(timeout=60)
    assert consumer.returncode == 0, err
    assert out.splitlines() == ["first"] + ["record-%d" % index for index in range(written)], err
    assert follower_fetches <= broker_connections(cluster), "the follower's fetch connection was made anew"
    assert connections <= broker_connections(cluster), "a connection between the brokers was made anew"
    for broker in cluster.brokers:
        log = broker.log_file.read_text(errors="replace")
        assert "SASL session has expired" not in log
        assert "cannot log in again" not in log
    client.close()
    print("\n%d acks=all records over %d session lifetimes of %d ms" % (written, LIFETIMES, LIFETIME_MS))
