"""Helpers for the transaction tests on real brokers: confluent-kafka transactional producers,
read_committed / read_uncommitted readers and the transaction coordinator as FindCoordinator names it."""

import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from tests.cluster_support import wait_for
from tests.raw_wire import request

PARTITIONS = 6


def transactional_producer(cluster, transactional_id, **extra):
    config = {"bootstrap.servers": cluster.bootstrap_servers, "transactional.id": transactional_id, "linger.ms": 5}
    config.update(extra)
    return Producer(config)


def read_all(cluster, topic, isolation, expected_count=None, partitions=PARTITIONS, idle_s=3.0):
    """{partition: [values]} read from the beginning; stops at ``expected_count`` records or after idle_s."""
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": "r-" + uuid.uuid4().hex[:6],
            "isolation.level": isolation,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": False,
        }
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    found = {p: [] for p in range(partitions)}
    count = 0
    idle_until = time.monotonic() + 60
    try:
        while time.monotonic() < idle_until:
            message = consumer.poll(0.5)
            if message is None:
                if expected_count is not None and count >= expected_count:
                    idle_until = min(idle_until, time.monotonic() + 0.5)
                continue
            if message.error():
                continue
            found[message.partition()].append(message.value())
            count += 1
            idle_until = time.monotonic() + (idle_s if expected_count is None or count >= expected_count else 60)
    finally:
        consumer.close()
    return found


def find_transaction_coordinator(cluster, transactional_id, exclude=()):
    """The node id FindCoordinator (key type 1) names, asked of every running broker not in ``exclude``."""

    def ask():
        for broker in cluster.brokers:
            if broker.broker_id in exclude or not broker.is_running():
                continue
            try:
                answer = request(broker.bootstrap, 10, 1, {"key": transactional_id, "key_type": 1})
            except OSError:
                continue
            if answer["error_code"] == 0 and answer["node_id"] not in exclude:
                return [answer["node_id"]]  # a list: broker 0 is falsy
        return None

    return wait_for(ask, timeout=60, message="the transaction coordinator")[0]


def retry_while_retriable(operation, timeout=60):
    """commit_transaction / abort_transaction, retried while librdkafka reports a retriable error (the
    coordinator moved)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            operation(60)
            return
        except KafkaException as failure:
            if not failure.args[0].retriable() or time.monotonic() > deadline:
                raise
