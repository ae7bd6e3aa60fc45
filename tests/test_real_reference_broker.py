"""Apache Kafka 2.5.1's own JVM broker on a real ZooKeeper: our admin client, confluent-kafka and our consumer against
it, its /brokers/ids znode, and its controlled shutdown."""

import json
import time

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.consumer import Consumer
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.reference_broker import ReferenceBrokerProcess, ReferenceJarsMissing, libs_dir
from tests.cluster_support import wait_for
from tests.ports import free_port
from tests.zk_support import create_chroot

BROKER_ID = 7
RECORDS = 500
PARTITIONS = 3


@pytest.fixture(scope="module")
def reference_broker(tmp_path_factory, zookeeper_server):
    """One Apache Kafka 2.5.1 broker in a JVM, in a chroot of its own; killed at the end if a test left it running."""
    try:
        libs_dir()
    except ReferenceJarsMissing as error:
        pytest.skip(str(error))
    broker = ReferenceBrokerProcess(
        BROKER_ID, tmp_path_factory.mktemp("reference") / "broker-7", free_port(), create_chroot(zookeeper_server)
    )
    broker.start(timeout=120)
    yield broker
    broker.kill()


@pytest.fixture(scope="module")
def chroot_client(reference_broker):
    """A kazoo client on the broker's chroot."""
    client = KazooClient(hosts=reference_broker.zk_connect)
    client.start(15)
    yield client
    client.stop()
    client.close()


def test_the_jvm_broker_runs_kafka_2_5_1_with_a_capped_heap(reference_broker):
    command = open("/proc/%d/cmdline" % reference_broker.pid(), "rb").read().split(b"\0")
    assert b"-Xmx384m" in command and b"kafka.Kafka" in command
    assert any(b"kafka_2.12-2.5.1" in part or part.endswith(b"libs/*") for part in command)
    server_log = reference_broker.log_file.read_text()
    assert "Kafka version: 2.5.1" in server_log
    assert "[KafkaServer id=%d] started" % BROKER_ID in server_log
    for name in ("controller.log", "state-change.log"):
        assert reference_broker.log_path(name).exists(), name
    assert "controller" in reference_broker.log_path("controller.log").read_text().lower()


def test_its_broker_znode_is_kafka_2_5s(reference_broker, chroot_client):
    data, _ = chroot_client.get("/brokers/ids/%d" % BROKER_ID)
    registration = json.loads(data)
    endpoint = "PLAINTEXT://%s:%d" % (reference_broker.host, reference_broker.port)
    assert registration["version"] == 4
    assert registration["jmx_port"] == -1
    assert registration["host"] == reference_broker.host and registration["port"] == reference_broker.port
    assert registration["endpoints"] == [endpoint]
    assert registration["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT"}
    assert set(registration) == {
        "version",
        "jmx_port",
        "host",
        "port",
        "endpoints",
        "listener_security_protocol_map",
        "timestamp",
    }
    assert json.loads(chroot_client.get("/controller")[0])["brokerid"] == BROKER_ID


def test_our_admin_creates_confluent_produces_and_our_consumer_reads_back(reference_broker):
    topic = "reference-round-trip"
    with AdminClient(reference_broker.bootstrap) as admin:
        results = admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=1)])
        assert results[topic][0] is Errors.NONE, results
    producer = Producer(
        {
            "bootstrap.servers": reference_broker.bootstrap,
            "linger.ms": 5,
            "compression.type": "lz4",
            "enable.idempotence": True,
        }
    )
    deliveries = {}

    def delivered(error, message):
        assert error is None, error
        deliveries[message.key()] = (message.partition(), message.offset())

    for index in range(RECORDS):
        producer.produce(
            topic,
            key=b"key-%04d" % index,
            value=b"value-%04d" % index,
            headers=[("index", b"%d" % index)],
            on_delivery=delivered,
        )
        producer.poll(0)
    assert producer.flush(60) == 0
    assert len(deliveries) == RECORDS
    consumer = Consumer(reference_broker.bootstrap, auto_offset_reset="earliest")
    try:
        consumer.assign([(topic, partition) for partition in range(PARTITIONS)])
        read = {}
        deadline = time.monotonic() + 60
        while len(read) < RECORDS and time.monotonic() < deadline:
            for record in consumer.poll(1000):
                read[record.key] = record
    finally:
        consumer.close()
    assert len(read) == RECORDS
    for key, record in read.items():
        index = int(key.split(b"-")[1])
        assert record.value == b"value-%04d" % index
        assert record.headers == [("index", b"%d" % index)]
        assert (record.partition, record.offset) == deliveries[key]


def test_sigterm_shuts_it_down_and_it_deregisters(reference_broker, chroot_client):
    path = "/brokers/ids/%d" % BROKER_ID
    assert chroot_client.exists(path)
    offset = reference_broker.log_file.stat().st_size
    reference_broker.stop(timeout=60)
    assert not reference_broker.is_running()
    with open(reference_broker.log_file, "rb") as handle:
        handle.seek(offset)
        tail = handle.read().decode("utf-8", "replace")
    assert "Controlled shutdown succeeded" in tail or "shut down completed" in tail
    assert "[KafkaServer id=%d] shut down completed" % BROKER_ID in tail

    def deregistered():
        try:
            chroot_client.get(path)
        except NoNodeError:
            return True
        return False

    wait_for(deregistered, timeout=30, message="%s removed" % path)
