"""SASL on real brokers: a SASL_PLAINTEXT-only cluster (inter-broker traffic too, with PLAIN) served to
confluent-kafka, kafka-python, aiokafka and kcat with PLAIN and SCRAM-SHA-256/512; failed logins, SCRAM users
added while it runs, and hostile bytes leave the brokers healthy."""

import asyncio
import io
import socket
import struct
import subprocess
import uuid

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import SaslAuthenticationError
from kafka_zk.protocol.headers import encode_request
from kafka_zk.security import scram
from kafka_zk.tools import configs
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.ports import free_port
from tests.raw_socket_support import closed_by_broker, frame, read_frame
from tests.zk_support import create_chroot

KCAT = "/usr/bin/kcat"
PLAIN_JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
    'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";'
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
    "offsets.topic.replication.factor": "3",
}
ADMIN = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "PLAIN",
    "sasl.username": "admin",
    "sasl.password": "admin-secret",
}
LOGINS = {
    "PLAIN": ("alice", "alice-secret"),
    "SCRAM-SHA-256": ("bob", "bob-secret"),
    "SCRAM-SHA-512": ("carol", "carol-secret"),
}


def kafka_configs(zk_connect, *args):
    out = io.StringIO()
    code = configs.run_tool(configs.build_parser(), configs.run, ["--zookeeper", zk_connect, *args], out, out)
    return code, out.getvalue()


@pytest.fixture(scope="module")
def sasl_cluster(tmp_path_factory, zookeeper_server):
    zk_connect = create_chroot(zookeeper_server)
    # SCRAM users exist before any client connects
    for mechanism, (name, password) in LOGINS.items():
        if mechanism != "PLAIN":
            code, output = kafka_configs(
                zk_connect,
                "--alter",
                "--add-config",
                "%s=[iterations=8192,password=%s]" % (mechanism, password),
                "--entity-type",
                "users",
                "--entity-name",
                name,
            )
            assert code == 0, output
    cluster = LocalCluster(
        tmp_path_factory.mktemp("sasl"),
        brokers=3,
        zk_connect=zk_connect,
        broker_ports=[free_port() for _ in range(3)],
        overrides=dict(TEST_DEFAULTS, **OVERRIDES),
    )
    for broker in cluster.brokers:
        broker.client_properties = dict(ADMIN)
    try:
        cluster.start(timeout=60)
    except Exception:
        cluster.kill()
        raise
    cluster.zk_connect = zk_connect
    yield cluster
    cluster.stop()


def new_topic(cluster):
    name = "sasl-%s" % uuid.uuid4().hex[:8]
    with AdminClient(cluster.bootstrap_servers, security=ADMIN) as admin:
        admin.create_topics([NewTopic(name, 1, 3, configs={"min.insync.replicas": "2"})])
    return name


def healthy(cluster):
    """Every broker still answers an authenticated client."""
    for broker in cluster.brokers:
        connection = BrokerConnection(broker.host, broker.port, timeout=10, security=ADMIN)
        try:
            assert connection.request(3, {"topics": []}, version=1)["brokers"]
        finally:
            connection.close()
    return True


# -- the four clients, each mechanism -----------------------------------------------------------------------


def confluent_round_trip(bootstrap, mechanism, name, password, topic):
    import confluent_kafka

    common = {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": name,
        "sasl.password": password,
    }
    producer = confluent_kafka.Producer(dict(common, acks="all"))
    errors = []
    producer.produce(topic, b"confluent", on_delivery=lambda error, _: errors.append(error))
    assert producer.flush(30) == 0 and errors == [None]
    consumer = confluent_kafka.Consumer(dict(common, **{"group.id": "g-" + topic, "enable.auto.commit": False}))
    consumer.assign([confluent_kafka.TopicPartition(topic, 0, 0)])
    try:
        message = wait_for(lambda: consumer.poll(1.0), message="confluent consume")
        assert message.error() is None and message.value() == b"confluent"
    finally:
        consumer.close()


def kafka_python_round_trip(bootstrap, mechanism, name, password, topic, cafile=None):
    """Over SASL_PLAINTEXT, or SASL_SSL trusting ``cafile``."""
    import kafka

    tls = {"security_protocol": "SASL_SSL", "ssl_cafile": cafile} if cafile else {}
    common = dict(
        dict(
            bootstrap_servers=bootstrap,
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism=mechanism,
            sasl_plain_username=name,
            sasl_plain_password=password,
        ),
        **tls,
    )
    producer = kafka.KafkaProducer(acks="all", **common)
    producer.send(topic, b"kafka-python").get(timeout=30)
    producer.close()
    consumer = kafka.KafkaConsumer(**common)
    consumer.assign([kafka.TopicPartition(topic, 0)])
    consumer.seek(kafka.TopicPartition(topic, 0), 0)
    try:
        records = wait_for(lambda: consumer.poll(1000), message="kafka-python consume")
        assert [record.value for batch in records.values() for record in batch] == [b"kafka-python"]
    finally:
        consumer.close()


def aiokafka_round_trip(bootstrap, mechanism, name, password, topic, cafile=None):
    """Over SASL_PLAINTEXT, or SASL_SSL trusting ``cafile``."""
    import aiokafka
    from aiokafka.helpers import create_ssl_context

    async def run():
        tls = {"security_protocol": "SASL_SSL", "ssl_context": create_ssl_context(cafile=cafile)} if cafile else {}
        common = dict(
            dict(
                bootstrap_servers=bootstrap,
                security_protocol="SASL_PLAINTEXT",
                sasl_mechanism=mechanism,
                sasl_plain_username=name,
                sasl_plain_password=password,
            ),
            **tls,
        )
        producer = aiokafka.AIOKafkaProducer(acks="all", **common)
        await producer.start()
        try:
            await producer.send_and_wait(topic, b"aiokafka")
        finally:
            await producer.stop()
        consumer = aiokafka.AIOKafkaConsumer(auto_offset_reset="earliest", **common)
        await consumer.start()
        try:
            consumer.assign([aiokafka.TopicPartition(topic, 0)])
            message = await asyncio.wait_for(consumer.getone(), 30)
            assert message.value == b"aiokafka"
        finally:
            await consumer.stop()

    asyncio.run(run())


def kcat_args(bootstrap, mechanism, name, password):
    return [
        KCAT,
        "-b",
        bootstrap,
        "-X",
        "security.protocol=SASL_PLAINTEXT",
        "-X",
        "sasl.mechanisms=" + mechanism,
        "-X",
        "sasl.username=" + name,
        "-X",
        "sasl.password=" + password,
    ]


def kcat_round_trip(bootstrap, mechanism, name, password, topic):
    args = kcat_args(bootstrap, mechanism, name, password)
    subprocess.run(args + ["-P", "-t", topic, "-p", "0", "-X", "acks=all"], input=b"kcat\n", check=True, timeout=60)
    consumed = subprocess.run(
        args + ["-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert consumed.stdout == b"kcat\n"


CLIENTS = {
    "confluent": confluent_round_trip,
    "kafka-python": kafka_python_round_trip,
    "aiokafka": aiokafka_round_trip,
    "kcat": kcat_round_trip,
}


@pytest.mark.parametrize("mechanism", sorted(LOGINS))
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_clients_produce_and_consume_over_sasl_with_replication(sasl_cluster, client, mechanism):
    topic = new_topic(sasl_cluster)
    name, password = LOGINS[mechanism]
    CLIENTS[client](sasl_cluster.bootstrap_servers, mechanism, name, password, topic)


# -- failures ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mechanism, name, password",
    [
        ("PLAIN", "alice", "wrong"),
        ("PLAIN", "nobody", "x"),
        ("SCRAM-SHA-256", "bob", "wrong"),
        ("SCRAM-SHA-512", "nobody", "x"),
    ],
)
def test_bad_logins_fail_with_the_clients_authentication_error(sasl_cluster, mechanism, name, password):
    import confluent_kafka
    import kafka

    bootstrap = sasl_cluster.bootstrap_servers
    connection = BrokerConnection(
        sasl_cluster.brokers[0].host,
        sasl_cluster.brokers[0].port,
        security={
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism,
            "sasl.username": name,
            "sasl.password": password,
        },
    )
    with pytest.raises(SaslAuthenticationError, match="Authentication failed"):
        connection.request(3, {"topics": []}, version=1)
    errors = []
    producer = confluent_kafka.Producer(
        {
            "bootstrap.servers": bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism,
            "sasl.username": name,
            "sasl.password": password,
            "error_cb": errors.append,
        }
    )
    wait_for(
        lambda: (
            producer.poll(0.1) is not None
            and any(error.code() == confluent_kafka.KafkaError._AUTHENTICATION for error in errors)
        ),
        message="librdkafka reports an authentication error",
    )
    assert "Authentication failed" in errors[-1].str()
    with pytest.raises(kafka.errors.KafkaError):
        kafka.KafkaConsumer(
            bootstrap_servers=bootstrap,
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism=mechanism,
            sasl_plain_username=name,
            sasl_plain_password=password,
            request_timeout_ms=10000,
            api_version_auto_timeout_ms=10000,
        ).topics()
    assert healthy(sasl_cluster)


def test_a_scram_user_added_while_running_logs_in_on_every_broker(sasl_cluster):
    code, output = kafka_configs(
        sasl_cluster.zk_connect,
        "--alter",
        "--add-config",
        "SCRAM-SHA-512=[password=dave-secret],producer_byte_rate=1048576",
        "--entity-type",
        "users",
        "--entity-name",
        "dave",
    )
    assert code == 0 and "Completed updating config for entity: user-principal 'dave'." in output

    def logs_in(broker):
        connection = BrokerConnection(
            broker.host,
            broker.port,
            timeout=10,
            security={
                "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "SCRAM-SHA-512",
                "sasl.username": "dave",
                "sasl.password": "dave-secret",
            },
        )
        try:
            return bool(connection.request(3, {"topics": []}, version=1)["brokers"])
        except SaslAuthenticationError:
            return False
        finally:
            connection.close()

    for broker in sasl_cluster.brokers:
        wait_for(lambda: logs_in(broker), timeout=15, message="dave logs in on broker %d" % broker.broker_id)
    code, output = kafka_configs(
        sasl_cluster.zk_connect, "--describe", "--entity-type", "users", "--entity-name", "dave"
    )
    assert "SCRAM-SHA-512=salt=" in output and "iterations=4096" in output and "producer_byte_rate=1048576" in output
    code, output = kafka_configs(
        sasl_cluster.zk_connect,
        "--alter",
        "--delete-config",
        "SCRAM-SHA-512",
        "--entity-type",
        "users",
        "--entity-name",
        "dave",
    )
    assert code == 0
    for broker in sasl_cluster.brokers:
        wait_for(lambda: not logs_in(broker), timeout=15, message="dave refused on broker %d" % broker.broker_id)


# -- hostile bytes ----------------------------------------------------------------------------------------------


def raw_socket(broker):
    sock = socket.create_connection((broker.host, broker.port), timeout=10)
    return sock


@pytest.mark.parametrize(
    "payload",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",  # garbage before the exchange
        frame(encode_request(3, 1, 1, "x", {"topics": []})),  # a request before authenticating
        frame(encode_request(17, 1, 1, "x", {"mechanism": "PLAIN"})) + frame(b"\x00\x24\x00\x01garbage"),
        frame(encode_request(17, 1, 1, "x", {"mechanism": "PLAIN"})) + struct.pack(">i", 50 * 1024 * 1024) + b"x" * 64,
    ],
)
def test_hostile_bytes_are_a_clean_close(sasl_cluster, payload):
    sock = raw_socket(sasl_cluster.brokers[0])
    sock.sendall(payload)
    assert closed_by_broker(sock)
    assert healthy(sasl_cluster)


def test_a_replayed_scram_final_message_fails(sasl_cluster):
    broker = sasl_cluster.brokers[1]
    mechanism = scram.MECHANISMS["SCRAM-SHA-256"]

    def exchange_first(sock, client):
        sock.sendall(frame(encode_request(17, 1, 1, "x", {"mechanism": mechanism.name})))
        read_frame(sock)
        sock.sendall(frame(encode_request(36, 1, 2, "x", {"auth_bytes": client.first_message()})))
        return read_frame(sock)

    first = scram.ScramClient(mechanism, "bob", "bob-secret")
    sock = raw_socket(broker)
    server_first = exchange_first(sock, first)
    recorded = first.final_message(server_first_token(server_first))
    sock.close()
    replay = raw_socket(broker)
    exchange_first(replay, scram.ScramClient(mechanism, "bob", "bob-secret", nonce=first.nonce))
    replay.sendall(frame(encode_request(36, 1, 3, "x", {"auth_bytes": recorded})))
    answer = read_frame(replay)
    assert struct.unpack(">h", answer[4:6])[0] == 58  # SASL_AUTHENTICATION_FAILED
    assert closed_by_broker(replay)
    assert healthy(sasl_cluster)


def server_first_token(response_frame):
    """The auth_bytes of a SaslAuthenticate v1 response frame: correlation id, error code, error message, bytes."""
    position = 4 + 2
    message_length = struct.unpack(">h", response_frame[position : position + 2])[0]
    position += 2 + max(message_length, 0)
    length = struct.unpack(">i", response_frame[position : position + 4])[0]
    return response_frame[position + 4 : position + 4 + length]


def test_mutants_of_the_sasl_exchange_leave_the_brokers_healthy(sasl_cluster):
    """Mutation fuzzing of SaslHandshake and SaslAuthenticate (and of raw v0 tokens) before authentication: every
    connection is answered or closed, and no broker logs an unhandled error."""
    import random
    import re

    from tests.protocol_mutants import Targets, mutant_requests

    unhandled = re.compile(r"Traceback|error handling|Unhandled error")
    before = {
        broker.broker_id: len(unhandled.findall(broker.log_file.read_text(errors="replace")))
        for broker in sasl_cluster.brokers
    }
    rng = random.Random(20261126)
    targets = Targets(["fuzz"])
    handshakes = {
        0: frame(encode_request(17, 0, 1, "x", {"mechanism": "PLAIN"})),
        1: frame(encode_request(17, 1, 1, "x", {"mechanism": "SCRAM-SHA-256"})),
    }
    cases = [(None, payload) for version in (0, 1) for payload, _ in mutant_requests(rng, 17, version, targets, 10)]
    cases += [
        (handshakes[1], payload)
        for version in (0, 1, 2)
        for payload, _ in mutant_requests(rng, 36, version, targets, 10)
    ]
    cases += [(handshakes[0], bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64)))) for _ in range(10)]
    for prefix, payload in cases:
        sock = raw_socket(rng.choice(sasl_cluster.brokers))
        sock.settimeout(5)
        try:
            sock.sendall((prefix or b"") + frame(payload))
            sock.recv(65536)  # an answer or the close; either is fine
        except (ConnectionResetError, socket.timeout):
            pass
        finally:
            sock.close()
    assert healthy(sasl_cluster)
    for broker in sasl_cluster.brokers:
        assert len(unhandled.findall(broker.log_file.read_text(errors="replace"))) == before[broker.broker_id]
