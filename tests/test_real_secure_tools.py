"""The tools and delegation-token logins against a real SASL_PLAINTEXT cluster (SCRAM users, inter-broker PLAIN,
delegation.token.master.key set): kafka-topics, kafka-consumer-groups and the console producer and consumer read
their security settings from --command-config / --producer.config / --consumer.config; alice creates a delegation
token with kafka-delegation-tokens, a client logs in with it (SCRAM, tokenauth=true) and produces and consumes as
alice, token requests are refused on that connection, renew and expire go through the tool, and an expired token
no longer logs in. No third-party client sends SCRAM extensions (librdkafka, kafka-python 3.0, aiokafka 0.14 do
not), so only our client logs in with a token. The Spark source and sink read and write with kafka.sasl.* options."""

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.consumer import Consumer
from kafka_zk.client.errors import KafkaResponseError, SaslAuthenticationError
from kafka_zk.client.producer import Producer
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools import configs
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.ports import free_port
from tests.zk_support import create_chroot

ROOT = Path(__file__).resolve().parent.parent
PLAIN_JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
    'password="admin-secret" user_admin="admin-secret";'
)
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
OVERRIDES = {
    "listeners": "SASL_PLAINTEXT://127.0.0.1:{port}",
    "security.inter.broker.protocol": "SASL_PLAINTEXT",
    "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
    "sasl.mechanism.inter.broker.protocol": "PLAIN",
    "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
    "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
    "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
    "delegation.token.master.key": "s3cr3t",
    "offsets.topic.replication.factor": "1",
}
ADMIN = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "PLAIN",
    "sasl.username": "admin",
    "sasl.password": "admin-secret",
}


def scram_properties(username, password, mechanism="SCRAM-SHA-256", tokenauth=False):
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s"%s;' % (
        username,
        password,
        ' tokenauth="true"' if tokenauth else "",
    )
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism, "sasl.jaas.config": jaas}


ALICE = scram_properties("alice", "alice-secret")


def write_properties(path, props):
    path.write_text("".join("%s=%s\n" % item for item in props.items()))
    return str(path)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    zk_connect = create_chroot(zookeeper_server)
    parser = configs.build_parser()
    code = configs.run_tool(
        parser,
        configs.run,
        [
            "--zookeeper",
            zk_connect,
            "--alter",
            "--add-config",
            "SCRAM-SHA-256=[password=alice-secret]",
            "--entity-type",
            "users",
            "--entity-name",
            "alice",
        ],
        sys.stdout,
        sys.stderr,
    )
    assert code == 0
    running = LocalCluster(
        tmp_path_factory.mktemp("secure-tools"),
        brokers=1,
        zk_connect=zk_connect,
        broker_ports=[free_port()],
        overrides=dict(TEST_DEFAULTS, **OVERRIDES),
    )
    running.brokers[0].client_properties = dict(ADMIN)
    try:
        running.start(timeout=60)
    except Exception:
        running.kill()
        raise
    yield running
    running.stop()


@pytest.fixture(scope="module")
def alice_config(tmp_path_factory):
    return write_properties(tmp_path_factory.mktemp("alice") / "alice.properties", ALICE)


def tool(module, *args, stdin=None):
    """kafka_zk.tools.<module> as its own process, as the shell wrappers run it."""
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "kafka_zk.tools." + module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        cwd=ROOT,
    )


def test_tools_read_security_settings_from_their_config_files(cluster, alice_config, tmp_path):
    servers = cluster.bootstrap_servers
    topic = "secure-%s" % uuid.uuid4().hex[:8]
    created = tool(
        "topics",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--create",
        "--topic",
        topic,
        "--partitions",
        "2",
        "--replication-factor",
        "1",
    )
    assert created.returncode == 0 and "Created topic %s." % topic in created.stdout, created.stderr
    listed = tool("topics", "--bootstrap-server", servers, "--command-config", alice_config, "--list")
    assert topic in listed.stdout.split(), listed.stderr
    # without the security settings the SASL listener does not serve the tool
    bare = tool(
        "topics",
        "--bootstrap-server",
        servers,
        "--list",
        "--command-config",
        write_properties(tmp_path / "plain.properties", {"request.timeout.ms": "3000"}),
    )
    assert bare.returncode == 1

    produced = tool(
        "console_producer",
        "--bootstrap-server",
        servers,
        "--topic",
        topic,
        "--producer.config",
        alice_config,
        stdin="one\ntwo\nthree\n",
    )
    assert produced.returncode == 0, produced.stderr
    consumer_props = write_properties(tmp_path / "consumer.properties", {**ALICE, "group.id": "secure-readers"})
    consumed = tool(
        "console_consumer",
        "--bootstrap-server",
        servers,
        "--topic",
        topic,
        "--from-beginning",
        "--consumer.config",
        consumer_props,
        "--max-messages",
        "3",
        "--timeout-ms",
        "30000",
    )
    assert consumed.returncode == 0, consumed.stderr
    assert sorted(consumed.stdout.split()) == ["one", "three", "two"]

    perf = tool(
        "producer_perf",
        "--topic",
        topic,
        "--num-records",
        "200",
        "--record-size",
        "10",
        "--throughput",
        "-1",
        "--producer.config",
        alice_config,
        "--producer-props",
        "bootstrap.servers=" + servers,
    )
    assert perf.returncode == 0 and "200 records sent" in perf.stdout, perf.stdout + perf.stderr

    described = tool(
        "consumer_groups",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--describe",
        "--group",
        "secure-readers",
    )
    assert described.returncode == 0, described.stderr
    rows = [line.split() for line in described.stdout.splitlines() if line.startswith("secure-readers")]
    assert {row[1] for row in rows} == {topic} and len(rows) == 2, described.stdout
    assert sum(int(row[3]) for row in rows) == 3  # the committed offsets of both partitions


def _token_from(output):
    match = re.search(r"^(\S+)\s+(\S+=*)\s+User:alice", output, re.M)
    assert match, output
    return match.group(1), match.group(2)


def test_a_delegation_token_logs_in_as_its_owner(cluster, alice_config):
    servers = cluster.bootstrap_servers
    created = tool(
        "delegation_tokens",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--create",
        "--max-life-time-period",
        "-1",
    )
    assert created.returncode == 0, created.stdout + created.stderr
    token_id, hmac = _token_from(created.stdout)
    with_token = scram_properties(token_id, hmac, tokenauth=True)

    topic = "token-%s" % uuid.uuid4().hex[:8]
    with AdminClient(servers, security=with_token) as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
        # the connection authenticated with a token: token requests are refused, as Kafka does
        with pytest.raises(KafkaResponseError) as refused:
            admin.describe_delegation_tokens()
        assert refused.value.error == Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
    producer = Producer(servers, security=with_token, acks="all")
    try:
        producer.send(topic, b"by token", key=b"k").get()
    finally:
        producer.close()
    consumer = Consumer(servers, security=with_token, auto_offset_reset="earliest")
    try:
        consumer.assign([(topic, 0)])
        records = wait_for(lambda: consumer.poll(timeout_ms=1000), message="records read with the token")
        assert [record.value for record in records] == [b"by token"]
    finally:
        consumer.close()
    # alice (a SCRAM login) sees her token; renew and expire go through the tool
    described = tool("delegation_tokens", "--bootstrap-server", servers, "--command-config", alice_config, "--describe")
    assert token_id in described.stdout, described.stdout + described.stderr
    renewed = tool(
        "delegation_tokens",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--renew",
        "--hmac",
        hmac,
        "--renew-time-period",
        "3600000",
    )
    assert renewed.returncode == 0 and "Completed renew operation" in renewed.stdout, renewed.stdout
    expired = tool(
        "delegation_tokens",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--expire",
        "--hmac",
        hmac,
        "--expiry-time-period",
        "-1",
    )
    assert expired.returncode == 0 and "Completed expire operation" in expired.stdout, expired.stdout
    broker = cluster.brokers[0]
    with pytest.raises(SaslAuthenticationError):
        BrokerConnection(broker.host, broker.port, timeout=10, security=with_token).connect()
