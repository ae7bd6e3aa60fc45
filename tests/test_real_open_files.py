"""A broker with more partitions than descriptors: its process limit is 256 open files and it serves
400 partitions, writes and reads every one, and restarts (killed and clean) with all data."""

import os
import time
from collections import defaultdict

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS
from tests.ports import free_port
from tests.zk_support import create_chroot

DESCRIPTOR_LIMIT = 256
PARTITIONS = 400
TOPIC = "many-partitions"
TIMEOUT_S = 60


def limited(broker):
    plain = broker.command

    def command():
        return ["prlimit", "--nofile=%d:%d" % (DESCRIPTOR_LIMIT, DESCRIPTOR_LIMIT)] + plain()

    broker.command = command
    return broker


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    # Two segments per partition (segment.bytes below) make 800 .log files.
    running = LocalCluster(
        tmp_path_factory.mktemp("open-files"),
        brokers=1,
        zk_connect=create_chroot(zookeeper_server),
        broker_ports=[free_port()],
        overrides=dict(TEST_DEFAULTS, **{"log.segment.bytes": "1500"}),
    )
    limited(running.brokers[0])
    try:
        running.start(timeout=TIMEOUT_S)
    except Exception:
        running.kill()
        raise
    yield running
    running.stop()


def descriptors(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def produce_everywhere(bootstrap, round_):
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all"})
    errors = []
    for partition in range(PARTITIONS):
        for index in range(2):
            producer.produce(
                TOPIC,
                value=(b"%d-%d-%d-" % (partition, round_, index)) + b"x" * 500,
                partition=partition,
                on_delivery=lambda error, message: error and errors.append(error),
            )
        producer.poll(0)
    assert producer.flush(TIMEOUT_S) == 0
    assert errors == []


def consume_everything(bootstrap, expected_per_partition):
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "unused-manual-assign", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(TOPIC, partition, 0) for partition in range(PARTITIONS)])
    consumed = defaultdict(list)
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while sum(map(len, consumed.values())) < PARTITIONS * expected_per_partition:
            assert time.monotonic() < deadline, "consumed %d records" % sum(map(len, consumed.values()))
            for message in consumer.consume(1000, timeout=0.5):
                assert message.error() is None, message.error()
                consumed[message.partition()].append(message.value()[: message.value().index(b"-x")])
    finally:
        consumer.close()
    return consumed


def expected(partition, rounds):
    return [b"%d-%d-%d" % (partition, round_, index) for round_ in range(rounds) for index in range(2)]


def test_more_partitions_than_descriptors_are_written_read_and_survive_restarts(cluster):
    broker = cluster.brokers[0]
    bootstrap = cluster.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)], operation_timeout=30)[TOPIC].result(TIMEOUT_S)

    produce_everywhere(bootstrap, 0)
    produce_everywhere(bootstrap, 1)
    segment_files = sum(name.endswith(".log") for _, _, names in os.walk(broker.log_dir) for name in names)
    assert segment_files >= 2 * PARTITIONS
    assert descriptors(broker.pid()) < DESCRIPTOR_LIMIT
    consumed = consume_everything(bootstrap, 4)
    assert {partition: values for partition, values in consumed.items()} == {
        partition: expected(partition, 2) for partition in range(PARTITIONS)
    }

    broker.kill()  # recovery past the recovery point reads the segments again, through the budget
    broker.start(timeout=TIMEOUT_S)
    produce_everywhere(bootstrap, 2)
    broker.stop()
    broker.start(timeout=TIMEOUT_S)
    consumed = consume_everything(bootstrap, 6)
    assert dict(consumed) == {partition: expected(partition, 3) for partition in range(PARTITIONS)}
    assert descriptors(broker.pid()) < DESCRIPTOR_LIMIT
    log = "".join(broker.log_path(name).read_text() for name in ("server.log", "controller.log", "log-cleaner.log"))
    assert "Too many open files" not in log and "Traceback" not in log
