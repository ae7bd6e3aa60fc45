"""Several named listeners and TLS on real brokers: PLAINTEXT (inter-broker) + SSL (server-only TLS) + MTLS
(ssl.client.auth=required), used by confluent-kafka, kafka-python, aiokafka, kcat and our own client; untrusted
and expired certificates; a plaintext client on the TLS port; a listener's certificate replaced at runtime;
and a cluster whose brokers replicate and take the controller's requests over TLS listeners."""

import asyncio
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import uuid

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import KafkaConnectionError, SslAuthenticationError
from kafka_zk.protocol.headers import encode_request
from tests.cluster_support import start_cluster, wait_for
from tests.ports import free_port
from tests.tls_support import PASSWORD, client_leaf, new_ca, server_leaf, write_keystore, write_truststore

METADATA = 3


class Certificates:
    def __init__(self, folder):
        self.folder = folder
        self.ca = new_ca()
        self.server_keystore = write_keystore(server_leaf(self.ca), folder / "server.p12", "PKCS12")
        self.truststore_jks = write_truststore(self.ca, folder / "truststore.jks", "JKS")
        self.ca_pem = write_truststore(self.ca, folder / "ca.pem", "PEM")
        client = client_leaf(self.ca, "alice", "Eng")
        self.client_key = str(folder / "client.key")
        client.private_key_pem.write_to_path(self.client_key)
        self.client_cert = str(folder / "client.pem")
        client.cert_chain_pems[0].write_to_path(self.client_cert)
        self.client_keystore = write_keystore(client, folder / "client.jks", "JKS")
        self.other_ca_pem = write_truststore(new_ca(), folder / "other-ca.pem", "PEM")

    def broker_ssl(self):
        return {
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": self.server_keystore,
            "ssl.keystore.password": PASSWORD,
            "ssl.truststore.type": "JKS",
            "ssl.truststore.location": self.truststore_jks,
            "ssl.truststore.password": PASSWORD,
        }

    def our_client(self, mutual=False, ca=None):
        security = {
            "security.protocol": "SSL",
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": ca or self.ca_pem,
        }
        if mutual:
            security.update(
                {
                    "ssl.keystore.type": "JKS",
                    "ssl.keystore.location": self.client_keystore,
                    "ssl.keystore.password": PASSWORD,
                }
            )
        return security

    def librdkafka(self, mutual=False, ca=None):
        conf = {"security.protocol": "SSL", "ssl.ca.location": ca or self.ca_pem}
        if mutual:
            conf.update({"ssl.certificate.location": self.client_cert, "ssl.key.location": self.client_key})
        return conf


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return Certificates(tmp_path_factory.mktemp("certs"))


def _listener_ports(brokers, names):
    return {name: [free_port() for _ in range(brokers)] for name in names}


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory, zookeeper_server, certs):
    """Two brokers: PLAINTEXT (inter-broker), SSL (no client auth) and MTLS (an SSL listener requiring client
    certificates through its listener.name.mtls.* override)."""
    ports = _listener_ports(2, ["PLAINTEXT", "SSL", "MTLS"])
    overrides = dict(
        certs.broker_ssl(),
        **{
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.name.mtls.ssl.client.auth": "required",
            "listener.name.mtls.ssl.principal.mapping.rules": "RULE:^CN=(.*?),.*$/$1/",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
        },
    )
    broker_overrides = {
        i: {"listeners": ",".join("%s://127.0.0.1:%d" % (name, ports[name][i]) for name in ports)} for i in range(2)
    }
    cluster = start_cluster(
        tmp_path_factory.mktemp("tls"),
        zookeeper_server,
        brokers=2,
        overrides=overrides,
        broker_overrides=broker_overrides,
        broker_ports=ports["PLAINTEXT"],
    )
    cluster.listener_ports = ports
    yield cluster
    cluster.stop()


def _bootstrap(cluster, name):
    return ",".join("127.0.0.1:%d" % port for port in cluster.listener_ports[name])


def _metadata(host, port, security=None):
    connection = BrokerConnection(host, port, timeout=10, security=security)
    try:
        return connection.request(METADATA, {"topics": []}, version=1)
    finally:
        connection.close()


def _broker_healthy(cluster):
    response = _metadata("127.0.0.1", cluster.listener_ports["PLAINTEXT"][0])
    return len(response["brokers"]) == len(cluster.brokers)


def _create_topic(cluster, replication_factor=1, partitions=1):
    topic = "tls-" + uuid.uuid4().hex[:8]
    admin = AdminClient(_bootstrap(cluster, "PLAINTEXT"))
    try:
        admin.create_topics([NewTopic(topic, partitions, replication_factor)])
    finally:
        admin.close()
    return topic


def test_registration_and_metadata_name_each_listener(tls_cluster, certs):
    import json

    from kazoo.client import KazooClient  # the registration as Kafka writes it

    zk = KazooClient(hosts=tls_cluster.zk_connect)
    zk.start()
    try:
        registration = json.loads(zk.get("/brokers/ids/0")[0])
    finally:
        zk.stop()
        zk.close()
    ports = tls_cluster.listener_ports
    assert registration["version"] == 4
    assert registration["endpoints"] == ["%s://127.0.0.1:%d" % (name, ports[name][0]) for name in ports]
    assert registration["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT", "SSL": "SSL", "MTLS": "SSL"}
    assert (registration["host"], registration["port"]) == ("127.0.0.1", ports["PLAINTEXT"][0])
    for name, security in [("PLAINTEXT", None), ("SSL", certs.our_client()), ("MTLS", certs.our_client(True))]:
        response = _metadata("127.0.0.1", ports[name][1], security)
        assert sorted((b["node_id"], b["port"]) for b in response["brokers"]) == [
            (0, ports[name][0]),
            (1, ports[name][1]),
        ]


@pytest.mark.parametrize("listener", ["SSL", "MTLS"])
def test_confluent_kafka_over_tls(tls_cluster, certs, listener):
    from confluent_kafka import Consumer, Producer

    topic = _create_topic(tls_cluster)
    conf = dict(certs.librdkafka(mutual=listener == "MTLS"), **{"bootstrap.servers": _bootstrap(tls_cluster, listener)})
    producer = Producer(dict(conf, acks="all"))
    for index in range(10):
        producer.produce(topic, value=b"v%d" % index)
    assert producer.flush(30) == 0
    consumer = Consumer(dict(conf, **{"group.id": "g-" + topic, "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    values = []
    try:

        def poll():
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.append(message.value())
            return len(values) == 10

        wait_for(poll, timeout=60, message="10 records over " + listener)
    finally:
        consumer.close()
    assert values == [b"v%d" % index for index in range(10)]


def test_a_multi_megabyte_partition_reads_byte_exact_with_sendfile_and_over_tls(tls_cluster, certs):
    """Fetch responses on the PLAINTEXT listeners send the records from the segment files with sendfile, the SSL
    listener's read and copy them: a consumer gets the same records either way, and the follower, fetching over
    the PLAINTEXT inter-broker listener, holds a log byte for byte equal to the leader's."""
    import random

    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

    topic = _create_topic(tls_cluster, replication_factor=2)
    generator = random.Random(22)
    written = [(b"%d" % index, generator.randbytes(generator.randrange(1000, 8000))) for index in range(2500)]
    producer = Producer(
        {
            "bootstrap.servers": _bootstrap(tls_cluster, "PLAINTEXT"),
            "acks": "all",
            "linger.ms": 20,
            "batch.size": 1 << 20,
        }
    )
    for key, value in written:
        producer.produce(topic, key=key, value=value, partition=0)
    assert producer.flush(60) == 0
    for listener, security in [("PLAINTEXT", {}), ("SSL", certs.librdkafka())]:
        consumer = Consumer(
            dict(
                security,
                **{
                    "bootstrap.servers": _bootstrap(tls_cluster, listener),
                    "group.id": "g-" + uuid.uuid4().hex,
                    "enable.auto.commit": False,
                },
            )
        )
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        read = []
        try:

            def consumed():
                for message in consumer.consume(1000, 0.5):
                    assert message.error() is None, message.error()
                    read.append((message.offset(), message.key(), message.value()))
                return len(read) >= len(written)

            wait_for(consumed, timeout=60, message="%d MB over %s" % (sum(len(v) for _, v in written) >> 20, listener))
        finally:
            consumer.close()
        assert read == [(offset, key, value) for offset, (key, value) in enumerate(written)], listener

    def segments(broker):
        folder = broker.log_dirs[0] / ("%s-0" % topic)
        return {path.name: path.read_bytes() for path in folder.glob("*.log")}

    wait_for(
        lambda: segments(tls_cluster.brokers[0]) == segments(tls_cluster.brokers[1]),
        timeout=30,
        message="the follower's log equal to the leader's",
    )


def test_kafka_python_over_mutual_tls(tls_cluster, certs):
    from kafka import KafkaConsumer, KafkaProducer

    topic = _create_topic(tls_cluster)
    tls = dict(
        security_protocol="SSL",
        ssl_cafile=certs.ca_pem,
        ssl_certfile=certs.client_cert,
        ssl_keyfile=certs.client_key,
        ssl_check_hostname=True,
    )
    producer = KafkaProducer(bootstrap_servers=_bootstrap(tls_cluster, "MTLS"), acks="all", **tls)
    for index in range(5):
        producer.send(topic, b"k%d" % index)
    producer.flush(30)
    producer.close()
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=_bootstrap(tls_cluster, "MTLS"),
        auto_offset_reset="earliest",
        consumer_timeout_ms=15000,
        **tls,
    )
    try:
        values = [record.value for _, record in zip(range(5), consumer)]
    finally:
        consumer.close()
    assert values == [b"k%d" % index for index in range(5)]


def test_aiokafka_over_server_only_tls(tls_cluster, certs):
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.helpers import create_ssl_context

    topic = _create_topic(tls_cluster)

    async def run():
        context = create_ssl_context(cafile=certs.ca_pem)
        producer = AIOKafkaProducer(
            bootstrap_servers=_bootstrap(tls_cluster, "SSL"), security_protocol="SSL", ssl_context=context
        )
        await producer.start()
        try:
            for index in range(5):
                await producer.send_and_wait(topic, b"a%d" % index)
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=_bootstrap(tls_cluster, "SSL"),
            security_protocol="SSL",
            ssl_context=context,
            auto_offset_reset="earliest",
        )
        await consumer.start()
        try:
            return [(await consumer.getone()).value for _ in range(5)]
        finally:
            await consumer.stop()

    assert asyncio.run(asyncio.wait_for(run(), 60)) == [b"a%d" % index for index in range(5)]


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed")
def test_kcat_over_mutual_tls(tls_cluster, certs):
    topic = _create_topic(tls_cluster)
    options = [
        "-b",
        _bootstrap(tls_cluster, "MTLS"),
        "-X",
        "security.protocol=ssl",
        "-X",
        "ssl.ca.location=" + certs.ca_pem,
        "-X",
        "ssl.certificate.location=" + certs.client_cert,
        "-X",
        "ssl.key.location=" + certs.client_key,
    ]
    subprocess.run(["kcat", *options, "-P", "-t", topic], input=b"one\ntwo\nthree\n", check=True, timeout=60)
    consumed = subprocess.run(
        ["kcat", *options, "-C", "-t", topic, "-o", "beginning", "-c", "3", "-e"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert consumed.stdout.split() == [b"one", b"two", b"three"]


def test_untrusted_server_and_missing_client_certificate_fail_on_the_client(tls_cluster, certs):
    ports = tls_cluster.listener_ports
    with pytest.raises(SslAuthenticationError, match="certificate verify failed"):
        _metadata("127.0.0.1", ports["SSL"][0], certs.our_client(ca=certs.other_ca_pem))
    with pytest.raises(KafkaConnectionError):  # the broker refuses the handshake without a client certificate
        _metadata("127.0.0.1", ports["MTLS"][0], certs.our_client())
    from confluent_kafka import KafkaError, Producer

    errors = []
    producer = Producer(
        dict(
            certs.librdkafka(ca=certs.other_ca_pem),
            **{"bootstrap.servers": _bootstrap(tls_cluster, "SSL"), "error_cb": errors.append, "log_level": 0},
        )
    )
    wait_for(lambda: producer.poll(0.1) is not None and errors, timeout=30, message="librdkafka's error")
    assert errors[0].code() in (KafkaError._SSL, KafkaError._TRANSPORT), errors  # librdkafka's SSL failures
    assert any("certificate verify failed" in error.str() for error in errors), errors
    assert _broker_healthy(tls_cluster)


def test_a_plaintext_client_on_the_tls_port_is_closed(tls_cluster):
    frame = encode_request(18, 0, 1, "plain", {})
    with socket.create_connection(("127.0.0.1", tls_cluster.listener_ports["SSL"][0]), timeout=10) as sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        received = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    assert received[:1] in (b"", b"\x15")  # nothing, or a TLS alert record: never a Kafka response
    assert _broker_healthy(tls_cluster)


def _served_certificate(port):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        with context.wrap_socket(sock) as tls:
            return tls.getpeercert(binary_form=True)


def _alter_broker_config(cluster, broker_id, setting):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_zk.tools.configs",
            "--bootstrap-server",
            _bootstrap(cluster, "PLAINTEXT"),
            "--entity-type",
            "brokers",
            "--entity-name",
            str(broker_id),
            "--alter",
            "--add-config",
            setting,
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_listener_certificate_replaced_at_runtime(tls_cluster, certs, tmp_path):
    from cryptography import x509

    port = tls_cluster.listener_ports["SSL"][1]
    before = x509.load_der_x509_certificate(_served_certificate(port))
    expired = write_keystore(server_leaf(certs.ca, expired=True), tmp_path / "expired.p12", "PKCS12")
    _alter_broker_config(tls_cluster, 1, "listener.name.ssl.ssl.keystore.location=" + expired)
    wait_for(
        lambda: x509.load_der_x509_certificate(_served_certificate(port)).serial_number != before.serial_number,
        timeout=30,
        message="the expired certificate served",
    )
    with pytest.raises(SslAuthenticationError, match="certificate has expired"):
        _metadata("127.0.0.1", port, certs.our_client())
    renewed_leaf = server_leaf(certs.ca)
    renewed = write_keystore(renewed_leaf, tmp_path / "renewed.p12", "PKCS12")
    _alter_broker_config(tls_cluster, 1, "listener.name.ssl.ssl.keystore.location=" + renewed)
    renewed_serial = x509.load_pem_x509_certificate(renewed_leaf.cert_chain_pems[0].bytes()).serial_number
    wait_for(
        lambda: x509.load_der_x509_certificate(_served_certificate(port)).serial_number == renewed_serial,
        timeout=30,
        message="the renewed certificate served",
    )
    assert len(_metadata("127.0.0.1", port, certs.our_client())["brokers"]) == 2
    assert _broker_healthy(tls_cluster)


# -- inter-broker traffic over TLS ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ssl_inter_broker_cluster(tmp_path_factory, zookeeper_server, certs):
    """Three brokers replicating over an SSL inter-broker listener with mutual TLS (each broker presents its
    keystore), the controller's requests on a separate CONTROL listener (KIP-291), clients on PLAINTEXT."""
    ports = _listener_ports(3, ["PLAINTEXT", "INTERNAL", "CONTROL"])
    overrides = dict(
        certs.broker_ssl(),
        **{
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL,CONTROL:SSL",
            "inter.broker.listener.name": "INTERNAL",
            "control.plane.listener.name": "CONTROL",
            "ssl.client.auth": "required",
            "min.insync.replicas": "2",
            "offsets.topic.replication.factor": "3",
        },
    )
    broker_overrides = {
        i: {"listeners": ",".join("%s://127.0.0.1:%d" % (name, ports[name][i]) for name in ports)} for i in range(3)
    }
    cluster = start_cluster(
        tmp_path_factory.mktemp("tls-inter"),
        zookeeper_server,
        brokers=3,
        overrides=overrides,
        broker_overrides=broker_overrides,
        broker_ports=ports["PLAINTEXT"],
    )
    cluster.listener_ports = ports
    yield cluster
    cluster.stop()


def test_replication_over_an_ssl_inter_broker_listener(ssl_inter_broker_cluster, certs):
    from confluent_kafka import Consumer, Producer

    cluster = ssl_inter_broker_cluster
    topic = _create_topic(cluster, replication_factor=3, partitions=2)

    def fully_replicated():
        response = BrokerConnection("127.0.0.1", cluster.listener_ports["PLAINTEXT"][0], timeout=10).request(
            METADATA, {"topics": [{"name": topic}]}, version=1
        )
        partitions = response["topics"][0]["partitions"]
        return partitions and all(len(p["isr_nodes"]) == 3 and p["leader_id"] >= 0 for p in partitions)

    wait_for(fully_replicated, timeout=60, message="leaders and full ISRs (the controller's requests over TLS)")
    producer = Producer({"bootstrap.servers": _bootstrap(cluster, "PLAINTEXT"), "acks": "all"})
    for index in range(20):
        producer.produce(topic, key=b"%d" % index, value=b"r%d" % index)
    assert producer.flush(60) == 0
    wait_for(fully_replicated, timeout=60, message="followers caught up over TLS")
    consumer = Consumer(
        dict(
            certs.librdkafka(mutual=True),
            **{
                "bootstrap.servers": _bootstrap(cluster, "INTERNAL"),
                "group.id": "g-" + topic,
                "auto.offset.reset": "earliest",
            },
        )
    )
    consumer.subscribe([topic])
    values = set()
    try:

        def poll():
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.add(message.value())
            return len(values) == 20

        wait_for(poll, timeout=60, message="20 records over the SSL inter-broker listener")
    finally:
        consumer.close()
