"""Transactions end to end on three real brokers with confluent-kafka: the transaction coordinator on
`__transaction_state`, commits and aborts across partitions seen exactly by read_committed consumers, zombie
fencing, a transaction left open aborted after its timeout, and an exactly-once copier killed -9 (issue 10's
acceptance 1 (scaled down), 2, 3 and 5)."""

import random
import subprocess
import sys
import time
import uuid

import pytest
from confluent_kafka import KafkaException, Producer

from tests.cluster_support import make_topic, module_cluster, wait_for
from tests.txn_support import PARTITIONS, read_all, transactional_producer

OVERRIDES = {
    "transaction.state.log.num.partitions": "5",
    "offsets.topic.num.partitions": "5",
    "group.initial.rebalance.delay.ms": "0",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
}

cluster = module_cluster(overrides=OVERRIDES)


def test_commits_and_aborts_across_partitions_read_committed_sees_exactly_the_committed(cluster):
    """60 transactions of 20 records over 6 partitions, every third aborted (acceptance 1, scaled down)."""
    topic = make_topic(cluster, "tx", PARTITIONS)
    producer = transactional_producer(cluster, "app-" + uuid.uuid4().hex[:6])
    producer.init_transactions(60)
    committed = {p: [] for p in range(PARTITIONS)}
    everything = {p: [] for p in range(PARTITIONS)}
    for txn in range(60):
        producer.begin_transaction()
        for index in range(20):
            partition = (txn + index) % PARTITIONS
            value = b"%d-%d" % (txn, index)
            producer.produce(topic, value=value, partition=partition)
            everything[partition].append(value)
            if txn % 3 != 2:
                committed[partition].append(value)
        if txn % 3 == 2:
            assert producer.flush(60) == 0  # sent before the abort, so read_uncommitted sees them too
            producer.abort_transaction(60)
        else:
            producer.commit_transaction(60)
    total = sum(len(v) for v in committed.values())
    assert read_all(cluster, topic, "read_committed", total) == committed
    assert read_all(cluster, topic, "read_uncommitted", sum(len(v) for v in everything.values())) == everything


def test_second_producer_with_the_same_transactional_id_fences_the_first(cluster):
    """Acceptance 3: the zombie's commit fails with the fencing error; its open transaction is aborted."""
    topic = make_topic(cluster, "tx")
    transactional_id = "zombie-" + uuid.uuid4().hex[:6]
    first = transactional_producer(cluster, transactional_id)
    first.init_transactions(60)
    first.begin_transaction()
    first.produce(topic, value=b"zombie", partition=0)
    assert first.flush(30) == 0
    second = transactional_producer(cluster, transactional_id)
    second.init_transactions(60)
    second.begin_transaction()
    second.produce(topic, value=b"live", partition=0)
    second.commit_transaction(60)
    with pytest.raises(KafkaException) as failure:
        first.produce(topic, value=b"late", partition=0)
        first.commit_transaction(30)
    error = failure.value.args[0]
    assert error.fatal() or "fenced" in error.str().lower(), error
    assert read_all(cluster, topic, "read_committed", 1, partitions=1) == {0: [b"live"]}


def test_transaction_left_open_is_aborted_after_its_timeout(cluster):
    """Acceptance 5: a producer that dies mid-transaction; the coordinator aborts after transaction.timeout.ms
    and read_committed consumers move past it."""
    topic = make_topic(cluster, "tx")
    dead = transactional_producer(cluster, "dies-" + uuid.uuid4().hex[:6], **{"transaction.timeout.ms": 3000})
    dead.init_transactions(60)
    dead.begin_transaction()
    dead.produce(topic, value=b"never committed", partition=0)
    assert dead.flush(30) == 0
    # the producer is abandoned with its transaction open; another producer commits after it
    live = transactional_producer(cluster, "lives-" + uuid.uuid4().hex[:6])
    live.init_transactions(60)
    live.begin_transaction()
    live.produce(topic, value=b"committed", partition=0)
    live.commit_transaction(60)
    assert wait_for(
        lambda: read_all(cluster, topic, "read_committed", 1, partitions=1, idle_s=1.0) == {0: [b"committed"]},
        timeout=60,
        message="the open transaction aborted",
    )
    with pytest.raises(KafkaException):  # the coordinator bumped its epoch when it aborted: fenced
        dead.commit_transaction(30)


def test_consume_transform_produce_copies_exactly_once_across_kills(cluster):
    """Acceptance 2: a transactional copier with send_offsets_to_transaction, killed -9 ten times at points
    drawn from a seeded random (after 0-2 commits, 0-100 ms into the next transaction) and restarted; the
    output holds every input record exactly once."""
    source, target = make_topic(cluster, "tx", 3), make_topic(cluster, "tx", 3)
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "linger.ms": 5})
    expected = set()
    for index in range(3000):
        value = b"r-%d" % index
        producer.produce(source, value=value, partition=index % 3)
        expected.add(value)
    assert producer.flush(60) == 0
    group, transactional_id = "copier-" + uuid.uuid4().hex[:6], "copier-txn-" + uuid.uuid4().hex[:6]
    command = [
        sys.executable,
        "-m",
        "tests.txn_copier",
        cluster.bootstrap_servers,
        source,
        target,
        group,
        transactional_id,
    ]
    kill_points = random.Random(2505)
    for _ in range(10):
        copier = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert copier.stdout.readline() == b"ready\n", "the copier exited early"
            for _ in range(kill_points.randrange(3)):
                assert copier.stdout.readline().startswith(b"committed"), "the copier exited early"
            time.sleep(kill_points.uniform(0, 0.1))
        finally:
            copier.kill()
            copier.wait()
    copier = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        copied = wait_for(
            lambda: _values(
                read_all(cluster, target, "read_committed", len(expected), partitions=3, idle_s=1.0), len(expected)
            ),
            timeout=90,
            message="the copy to complete",
        )
    finally:
        copier.kill()
        copier.wait()
    assert sorted(copied) == sorted(expected)


def _values(by_partition, count):
    values = [value for values in by_partition.values() for value in values]
    return values if len(values) >= count else None
