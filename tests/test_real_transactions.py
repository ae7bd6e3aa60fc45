"""Transactions end to end on three real brokers with confluent-kafka: the transaction coordinator on
`__transaction_state`, commits and aborts across partitions seen exactly by read_committed consumers, zombie
fencing, and a transaction left open aborted after its timeout (issue 10's acceptance 1, 3 and 5, scaled down)."""

import subprocess
import sys
import threading
import time
import uuid

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cluster_support import start_cluster, wait_for
from tests.raw_wire import request

PARTITIONS = 6
OVERRIDES = {"transaction.state.log.num.partitions": "5", "offsets.topic.num.partitions": "5",
             "group.initial.rebalance.delay.ms": "0",
             "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    running = start_cluster(tmp_path_factory.mktemp("txn-coordinator"), zookeeper_server, overrides=OVERRIDES)
    yield running
    running.stop()


def make_topic(cluster, partitions=PARTITIONS):
    name = "tx-" + uuid.uuid4().hex[:8]
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic(name, partitions, 3)])[name].result(60)
    return name


def transactional_producer(cluster, transactional_id, **extra):
    config = {"bootstrap.servers": cluster.bootstrap_servers, "transactional.id": transactional_id,
              "linger.ms": 5}
    config.update(extra)
    return Producer(config)


def read_all(cluster, topic, isolation, expected_count=None, partitions=PARTITIONS, idle_s=3.0):
    """{partition: [values]} read from the beginning; stops at ``expected_count`` records or after idle_s."""
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "r-" + uuid.uuid4().hex[:6],
                         "isolation.level": isolation, "enable.auto.commit": False,
                         "auto.offset.reset": "earliest", "enable.partition.eof": False})
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


def test_commits_and_aborts_across_partitions_read_committed_sees_exactly_the_committed(cluster):
    """60 transactions of 20 records over 6 partitions, every third aborted (acceptance 1, scaled down)."""
    topic = make_topic(cluster)
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
            assert producer.flush(60) == 0   # sent before the abort, so read_uncommitted sees them too
            producer.abort_transaction(60)
        else:
            producer.commit_transaction(60)
    total = sum(len(v) for v in committed.values())
    assert read_all(cluster, topic, "read_committed", total) == committed
    assert read_all(cluster, topic, "read_uncommitted", sum(len(v) for v in everything.values())) == everything


def test_second_producer_with_the_same_transactional_id_fences_the_first(cluster):
    """Acceptance 3: the zombie's commit fails with the fencing error; its open transaction is aborted."""
    topic = make_topic(cluster, partitions=1)
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
    topic = make_topic(cluster, partitions=1)
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
    assert wait_for(lambda: read_all(cluster, topic, "read_committed", 1, partitions=1, idle_s=1.0)
                    == {0: [b"committed"]}, timeout=60, message="the open transaction aborted")
    with pytest.raises(KafkaException):   # the coordinator bumped its epoch when it aborted: fenced
        dead.commit_transaction(30)


def test_consume_transform_produce_copies_exactly_once_across_kills(cluster):
    """Acceptance 2, scaled down: a transactional copier with send_offsets_to_transaction, killed -9 three
    times mid-stream and restarted; the output holds every input record exactly once."""
    source, target = make_topic(cluster, partitions=3), make_topic(cluster, partitions=3)
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "linger.ms": 5})
    expected = set()
    for index in range(900):
        value = b"r-%d" % index
        producer.produce(source, value=value, partition=index % 3)
        expected.add(value)
    assert producer.flush(60) == 0
    group, transactional_id = "copier-" + uuid.uuid4().hex[:6], "copier-txn-" + uuid.uuid4().hex[:6]
    command = [sys.executable, "-m", "tests.txn_copier", cluster.bootstrap_servers, source, target, group,
               transactional_id]
    for _ in range(3):
        copier = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            commits = 0
            while commits < 2:   # killed after a couple of transactions, inside the next one
                line = copier.stdout.readline()
                assert line, "the copier exited early"
                commits += 1
        finally:
            copier.kill()
            copier.wait()
    copier = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        copied = wait_for(lambda: _values(read_all(cluster, target, "read_committed", len(expected), partitions=3,
                                                   idle_s=1.0), len(expected)),
                          timeout=90, message="the copy to complete")
    finally:
        copier.kill()
        copier.wait()
    assert sorted(copied) == sorted(expected)


def _values(by_partition, count):
    values = [value for values in by_partition.values() for value in values]
    return values if len(values) >= count else None


def find_transaction_coordinator(cluster, transactional_id, exclude=()):
    def ask():
        for broker in cluster.brokers:
            if broker.broker_id in exclude:
                continue
            try:
                answer = request(broker.bootstrap, 10, 1, {"key": transactional_id, "key_type": 1})
            except OSError:
                continue
            if answer["error_code"] == 0 and answer["node_id"] not in exclude:
                return [answer["node_id"]]   # a list: broker 0 is falsy
        return None
    return wait_for(ask, timeout=60, message="the transaction coordinator")[0]


def test_coordinator_killed_during_commits_the_new_coordinator_finishes_them(cluster):
    """Acceptance 4, scaled down: transactions run while the coordinator broker is killed -9; every transaction
    ends committed or aborted, none hangs, and read_committed consumers see the later commits (the LSO moves)."""
    topic = make_topic(cluster, partitions=3)
    transactional_id = "failover-" + uuid.uuid4().hex[:6]
    producer = transactional_producer(cluster, transactional_id)
    producer.init_transactions(60)
    coordinator = find_transaction_coordinator(cluster, transactional_id)
    committed, in_doubt = [], []
    state = {"count": 0, "stop": False, "error": None}

    def run():
        txn = 0
        while not state["stop"]:
            values = [b"%d-%d" % (txn, index) for index in range(10)]
            try:
                producer.begin_transaction()
                for index, value in enumerate(values):
                    producer.produce(topic, value=value, partition=index % 3)
                _commit(producer)
                committed.extend(values)
                state["count"] += 1
            except KafkaException as failure:   # an abortable error: the transaction is aborted
                in_doubt.extend(values)
                if not failure.args[0].txn_requires_abort():
                    state["error"] = failure
                    return
                producer.abort_transaction(60)
            txn += 1

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        wait_for(lambda: state["count"] >= 5 or state["error"], timeout=60, message="transactions before the kill")
        cluster.broker(coordinator).kill()
        before = state["count"]
        wait_for(lambda: state["count"] >= before + 5 or state["error"], timeout=90,
                 message="transactions after the kill")
    finally:
        state["stop"] = True
        worker.join(120)
    assert not worker.is_alive(), "a transaction hangs"
    assert state["error"] is None, state["error"]
    assert find_transaction_coordinator(cluster, transactional_id, exclude=(coordinator,)) != coordinator
    seen = read_all(cluster, topic, "read_committed", len(committed), partitions=3, idle_s=1.0)
    values = [value for partition in seen.values() for value in partition]
    assert len(values) == len(set(values))
    assert set(committed) <= set(values) <= set(committed) | set(in_doubt)
    cluster.broker(coordinator).start()


def _commit(producer):
    """commit_transaction, retried while librdkafka reports a retriable error (the coordinator moved)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            producer.commit_transaction(60)
            return
        except KafkaException as failure:
            if not failure.args[0].retriable() or time.monotonic() > deadline:
                raise
