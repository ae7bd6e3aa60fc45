"""Helpers for the tests where kafka-zk and Apache Kafka 2.5.1 brokers share one cluster: a broker replaced in place
by the other kind, what Kafka complains of in the files it loads, reads at an isolation level and group offsets.
(The idempotent acks=all load and its audit are tests/delivery_checker.py's DeliveryChecker.)"""

import time
import uuid

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from kafka_zk.tools.broker_process import BrokerProcess
from kafka_zk.tools.reference_broker import ReferenceBrokerProcess

# The internal topics of a mixed cluster's tests: Kafka's three replicas (min ISR 2), three partitions each to keep
# loading them quick, and no initial rebalance delay.
INTERNAL_TOPICS = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "transaction.state.log.num.partitions": "3",
    "group.initial.rebalance.delay.ms": "0",
}

COORDINATOR_MOVING = {
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
    KafkaError.COORDINATOR_NOT_AVAILABLE,
    KafkaError.NOT_COORDINATOR,
}


def swap_kind(cluster, broker_id, kind, timeout=120.0):
    """Stop broker ``broker_id`` (SIGTERM: a controlled shutdown) and start a broker of ``kind`` (BrokerProcess or
    ReferenceBrokerProcess) with the same id, port, folder, log dir and settings; the new process object."""
    index = next(i for i, broker in enumerate(cluster.brokers) if broker.broker_id == broker_id)
    old = cluster.brokers[index]
    old.stop(timeout=90)
    new = kind(old.broker_id, old.folder, old.port, old.zk_connect, old.host, old.overrides)
    cluster.brokers[index] = new
    offset = new.log_file.stat().st_size if new.log_file.exists() else 0
    new.start(timeout=timeout)
    return new, offset


# What an Apache Kafka broker logs when it finds a log dir's files wanting: no high watermark checkpointed for a
# partition, a segment to recover (no clean-shutdown marker, or past the recovery point), an index or a snapshot
# to rebuild.
KAFKA_LOAD_COMPLAINTS = (
    "No checkpointed highwatermark",
    "Recovering unflushed segment",
    "Found a corrupted index",
    "Could not find offset index",
    "Found invalid",
    "Error while reading checkpoint",
)


def kafka_load_complaints(broker, offset):
    """The lines of a JVM broker's server.log since ``offset`` where it complains about the files it loaded."""
    text = broker.log_since(offset).decode("utf-8", "replace")
    return [line for line in text.splitlines() if any(complaint in line for complaint in KAFKA_LOAD_COMPLAINTS)]


def kind_name(broker):
    return "kafka" if isinstance(broker, ReferenceBrokerProcess) else "kafka-zk"


def read_partitions(bootstrap, topic, partitions, isolation, idle_s=3.0):
    """{partition: [(offset, value)]} of ``topic`` read from the beginning to the end (the end: ``idle_s`` without
    a record once every partition's end offset is reached)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "audit-" + uuid.uuid4().hex[:6],
            "isolation.level": isolation,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": False,
        }
    )
    try:
        ends = {}
        for partition in range(partitions):
            _, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
            ends[partition] = high
        consumer.assign([TopicPartition(topic, partition, 0) for partition in range(partitions)])
        found = {partition: [] for partition in range(partitions)}
        positions = {partition: 0 for partition in range(partitions)}
        deadline = time.monotonic() + 120
        idle_until = None
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and not message.error():
                found[message.partition()].append((message.offset(), message.value()))
                positions[message.partition()] = message.offset() + 1
                idle_until = None
                continue
            done = all(
                consumer.position([TopicPartition(topic, p)])[0].offset >= ends[p] or positions[p] >= ends[p]
                for p in range(partitions)
            )
            if done:
                idle_until = idle_until or time.monotonic() + idle_s
                if time.monotonic() > idle_until:
                    break
        return found
    finally:
        consumer.close()


def commit_offsets(bootstrap, group, topic, offsets):
    """Commit {partition: offset} for ``group`` (a simple consumer's commit, no membership)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(
            offsets=[TopicPartition(topic, partition, offset) for partition, offset in offsets.items()],
            asynchronous=False,
        )
    finally:
        consumer.close()


def committed_offsets(bootstrap, group, topic, partitions):
    """{partition: committed offset} of ``group`` (-1001 where none)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                answer = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=60)
                return {tp.partition: tp.offset for tp in answer}
            except KafkaException as failure:
                # The coordinator moves or loads (a new __consumer_offsets, a move between brokers): ask again.
                if failure.args[0].code() not in COORDINATOR_MOVING or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        consumer.close()


__all__ = [
    "INTERNAL_TOPICS",
    "BrokerProcess",
    "ReferenceBrokerProcess",
    "commit_offsets",
    "committed_offsets",
    "kafka_load_complaints",
    "kind_name",
    "read_partitions",
    "swap_kind",
]
