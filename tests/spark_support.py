"""Shared pieces of the real Spark tests: one local SparkSession for the test run, topics, confluent-kafka producing."""

import functools
import os
import sys
from types import SimpleNamespace

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from kafka_zk.client.admin import AdminClient, NewTopic
from tests.cluster_support import wait_for

SPARK_MASTER = "local[2]"


def make_spark_session(app_name, master=SPARK_MASTER, settings=None):
    """A small SparkSession with the kafka_zk source registered (PYSPARK_PYTHON set to this interpreter);
    ``settings``: more Spark configuration (e.g. where a standalone cluster's executors reach the driver)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from kafka_zk.spark import KafkaZkDataSource

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "768m")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
        .config("spark.sql.streaming.stopTimeout", "30s")
        # Python's connections to the JVM's sockets give up after 15 s by default: a JVM starved of CPU beside
        # the suite's other modules failed a streaming query so (CANNOT_OPEN_SOCKET), twice in full runs.
        .config("spark.python.authenticate.socketTimeout", "120s")
        # Stated, not inherited: a session on hosts (tests/test_real_spark_hosts.py) leaves its driver address
        # in the JVM's spark.* properties, and a later session in the process would bind to that gone address.
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
    )
    for key, value in (settings or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(KafkaZkDataSource)
    return spark


_shared = {}


def shared_spark_session():
    """The run's local SparkSession, started on first use (again after stop_shared_spark_session)."""
    if "session" not in _shared:
        _shared["session"] = make_spark_session("kafka-zk-tests")
    return _shared["session"]


def stop_shared_spark_session():
    """Stop the run's local SparkSession, if one runs (a module that needs another master stops it first)."""
    session = _shared.pop("session", None)
    if session is not None:
        session.stop()


@pytest.fixture(scope="session")
def spark_sessions():
    """Stops the shared SparkSession at the end of the run."""
    yield
    stop_shared_spark_session()


@pytest.fixture(scope="module")
def spark(spark_sessions):
    """The local SparkSession, shared by the modules that use it: its context and Python workers start once per
    run, not per module. A module leaves no streaming query running."""
    session = shared_spark_session()
    yield session
    for query in session.streams.active:
        query.stop()


def create_topic(bootstrap, name, partitions=3, replication_factor=1, configs=None):
    with AdminClient(bootstrap) as admin:
        result = admin.create_topics([NewTopic(name, partitions, replication_factor, configs=configs)])
    error, message = result[name]
    assert error == 0, (error, message)
    wait_for(lambda: _has_leaders(bootstrap, name, partitions), 60, message="leaders of %s" % name)


def _has_leaders(bootstrap, name, partitions):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "spark-tests-meta"})
    try:
        meta = consumer.list_topics(name, timeout=10)
        topic = meta.topics.get(name)
        return (
            topic is not None
            and topic.error is None
            and len(topic.partitions) == partitions
            and all(p.leader >= 0 for p in topic.partitions.values())
        )
    finally:
        consumer.close()


def produce(bootstrap, topic, records, acks="all"):
    """Produce (key, value, headers) tuples with confluent-kafka; returns {(partition, offset): record}."""
    delivered = {}
    failures = []

    def on_delivery(headers, error, message):
        if error is not None:
            failures.append(error)
        else:
            delivered[(message.partition(), message.offset())] = (message.key(), message.value(), headers)

    producer = Producer({"bootstrap.servers": bootstrap, "acks": acks, "linger.ms": 5, "enable.idempotence": True})
    for key, value, headers in records:
        while True:
            try:
                producer.produce(
                    topic, value, key, headers=headers, on_delivery=functools.partial(on_delivery, headers)
                )
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not failures, failures[:3]
    return delivered


def consume_all(bootstrap, topic, partitions, timeout=60):
    """Every record of ``topic`` as {(partition, offset): (key, value, headers)}, read by confluent-kafka."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "spark-tests-check",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    found = {}
    at_end = set()
    try:

        def step():
            for message in consumer.consume(10000, 1.0):
                if message.error():
                    if message.error().code() == KafkaError._PARTITION_EOF:
                        at_end.add(message.partition())
                    continue
                at_end.discard(message.partition())
                found[(message.partition(), message.offset())] = (message.key(), message.value(), message.headers())
            return len(at_end) == partitions

        wait_for(step, timeout, interval=0, message="the end of %s" % topic)
    finally:
        consumer.close()
    return found


def windowed_counts_args(bootstrap, topic, output_topic, checkpoint):
    """spark_jobs.windowed_counts's options for a one-off (availableNow) run: 1-minute windows of the "ts" field per
    "key", a 1-minute watermark, from the earliest offsets."""
    return SimpleNamespace(
        bootstrap_server=bootstrap,
        topic=topic,
        output_topic=output_topic,
        checkpoint=str(checkpoint),
        key_field="key",
        time_field="ts",
        window="1 minute",
        slide=None,
        watermark="1 minute",
        starting_offsets="earliest",
        max_offsets_per_trigger=None,
        available_now=True,
        trigger_seconds=None,
        timeout=None,
    )
