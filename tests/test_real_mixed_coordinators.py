"""Group and transaction coordinators moving between kafka-zk and Apache Kafka 2.5.1 brokers of one cluster (issue 32):
`__consumer_offsets` and `__transaction_state` written by one kind are loaded by the other when the leadership of
their partition moves (a reordering reassignment and a preferred election, a controlled shutdown or a kill -9 of
the coordinator's broker). A group's committed offsets, an ongoing transaction committed or aborted across a move, and
Kafka's own TransactionalMessageCopier copying exactly once through moves are checked after each one."""

import json
import subprocess
import threading
import time
import uuid

import pytest
from confluent_kafka import Consumer, TopicPartition

from kafka_zk.coordinator.group.records import partition_for as group_partition
from kafka_zk.coordinator.transaction.records import partition_for as transaction_partition
from kafka_zk.tools.reference_broker import java_executable
from tests.cluster_support import make_topic, wait_for
from tests.java_clients import REFERENCE_LIBS
from tests.mixed_support import INTERNAL_TOPICS, committed_offsets, kind_name, read_partitions
from tests.raw_wire import request
from tests.replication_support import module_replication_cluster
from tests.txn_support import find_transaction_coordinator, retry_while_retriable, transactional_producer
from zookeeper.class_archive import archive_options

INTERNAL_PARTITIONS = int(INTERNAL_TOPICS["offsets.topic.num.partitions"])
PARTITIONS = 3
OFFSETS, TXN_STATE = "__consumer_offsets", "__transaction_state"
KAFKA_ZK, KAFKA = 0, 2  # broker 2 runs Apache Kafka 2.5.1, brokers 0 and 1 kafka-zk
OVERRIDES = {
    **INTERNAL_TOPICS,
    "auto.leader.rebalance.enable": "false",  # the tests place every leader themselves
    "replica.fetch.wait.max.ms": "200",
    "zookeeper.session.timeout.ms": "6000",  # a killed coordinator's broker is noticed in 6 s
}

cluster = module_replication_cluster(overrides=OVERRIDES, kafka_brokers=1)


@pytest.fixture(autouse=True)
def every_broker_running(cluster):
    """A test that failed midway may have left a broker down: the next one starts with all three."""
    for broker in cluster.brokers:
        if not broker.is_running():
            cluster.restart_killed(broker)


def kinds(cluster):
    return {broker.broker_id: kind_name(broker) for broker in cluster.brokers}


def wait_in_sync(cluster, topic, partition):
    cluster.wait_full_isr(topic, [partition], [0, 1, 2], timeout=90)


def reorder_replicas(cluster, topic, partition, first):
    """Put ``first`` at the head of the partition's replicas (a reassignment to the same replicas reordered),
    leaving the leader where it is. Stopping or killing a leader reorders this way rather than by two elections:
    Kafka 2.5 may run a quick resignation's unload after the next election's load (KAFKA-10614, fixed in 3.0),
    and its coordinator then answers NOT_COORDINATOR until the partition's leadership moves again."""
    replicas = cluster.json_at("/brokers/topics/%s" % topic)["partitions"][str(partition)]
    ordered = first + [replica for replica in replicas if replica not in first]
    if replicas != ordered:
        reassignment = {"version": 1, "partitions": [{"topic": topic, "partition": partition, "replicas": ordered}]}
        cluster.zk.create("/admin/reassign_partitions", json.dumps(reassignment).encode())
        wait_for(lambda: not cluster.zk.exists("/admin/reassign_partitions"), 60, message="the reassignment to end")


def move_leader(cluster, topic, partition, leader):
    """Make ``leader`` the preferred replica of ``topic``-``partition`` and elect it (a preferred replica
    election), both through their ZooKeeper znodes."""
    wait_in_sync(cluster, topic, partition)
    reorder_replicas(cluster, topic, partition, [leader])
    if cluster.state(topic, partition)["leader"] != leader:
        election = {"version": 1, "partitions": [{"topic": topic, "partition": partition}]}
        cluster.zk.create("/admin/preferred_replica_election", json.dumps(election).encode())
        cluster.wait_state(topic, lambda state: state["leader"] == leader, 60, partition, "led by %d" % leader)
        wait_for(lambda: not cluster.zk.exists("/admin/preferred_replica_election"), 60, message="the election")


def stop_leader(cluster, topic, partition, successor):
    """Stop the leader of ``topic``-``partition`` (SIGTERM: a controlled shutdown) after ordering its replicas so
    that ``successor`` takes over; the stopped broker."""
    leader = cluster.state(topic, partition)["leader"]
    wait_in_sync(cluster, topic, partition)
    reorder_replicas(cluster, topic, partition, [leader, successor])
    stopped = cluster.broker(leader)
    stopped.stop(timeout=90)
    cluster.wait_state(topic, lambda state: state["leader"] == successor, 60, partition, "led by %d" % successor)
    return stopped


def kill_leader(cluster, topic, partition, successor):
    """SIGKILL the leader of ``topic``-``partition`` once ``successor`` is the next replica in order; the killed
    broker, which comes back with restart_killed (its log dir recovered without a clean shutdown)."""
    leader = cluster.state(topic, partition)["leader"]
    wait_in_sync(cluster, topic, partition)
    reorder_replicas(cluster, topic, partition, [leader, successor])
    killed = cluster.broker(leader)
    killed.kill()
    cluster.wait_state(topic, lambda state: state["leader"] == successor, 60, partition, "led by %d" % successor)
    return killed


def restart(cluster, broker, topic, partition):
    broker.start(timeout=120)
    wait_in_sync(cluster, topic, partition)


def coordinator(bootstrap, key, key_type):
    """The node FindCoordinator names for a group (0) or a transactional id (1)."""
    answer = request(bootstrap, 10, 1, {"key": key, "key_type": key_type})
    return answer["node_id"] if answer["error_code"] == 0 else None


def wait_coordinator(cluster, key, key_type, broker_id):
    live = [broker for broker in cluster.brokers if broker.is_running()]
    wait_for(
        lambda: all(coordinator(broker.bootstrap, key, key_type) == broker_id for broker in live),
        60,
        message="%s's coordinator to be broker %d" % (key, broker_id),
    )


def consume_and_commit(bootstrap, group, topic, count):
    """A group member of ``group`` reads ``count`` records from its committed position (or the start), commits,
    and leaves; {partition: offset of the first record it read} and {partition: committed offset}."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 10000,
        }
    )
    first, next_offsets = {}, {}
    try:
        consumer.subscribe([topic])
        read = 0
        deadline = time.monotonic() + 90
        while read < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            first.setdefault(message.partition(), message.offset())
            next_offsets[message.partition()] = message.offset() + 1
            read += 1
        assert read == count, "read %d of %d records" % (read, count)
        consumer.commit(
            offsets=[TopicPartition(topic, partition, offset) for partition, offset in next_offsets.items()],
            asynchronous=False,
        )
    finally:
        consumer.close()
    return first, next_offsets


def test_group_offsets_survive_coordinator_moves_between_kinds(cluster):
    assert kinds(cluster) == {0: "kafka-zk", 1: "kafka-zk", 2: "kafka"}
    began = time.monotonic()
    topic = make_topic(cluster, "mixed-group", PARTITIONS, 3, records_per_partition=100)
    group = "mixed-group-" + uuid.uuid4().hex[:6]
    partition = group_partition(group, INTERNAL_PARTITIONS)
    bootstrap = cluster.bootstrap_servers
    make_offsets_topic = committed_offsets(bootstrap, "warm-up-" + group, topic, PARTITIONS)  # creates the topic
    assert set(make_offsets_topic.values()) == {-1001}

    committed = {}
    moves = [
        ("kafka-zk", lambda: move_leader(cluster, OFFSETS, partition, KAFKA_ZK)),
        ("kafka (elected)", lambda: move_leader(cluster, OFFSETS, partition, KAFKA)),
        ("kafka-zk (kafka stopped)", lambda: stop_leader(cluster, OFFSETS, partition, KAFKA_ZK)),
        ("kafka (kafka-zk stopped)", lambda: stop_leader(cluster, OFFSETS, partition, KAFKA)),
    ]
    stopped = []
    for name, move in moves:
        result = move()
        leader = cluster.state(OFFSETS, partition)["leader"]
        assert kind_name(cluster.broker(leader)) == name.split()[0], (name, leader)
        wait_coordinator(cluster, group, 0, leader)
        if committed:
            assert {
                p: o for p, o in committed_offsets(bootstrap, group, topic, PARTITIONS).items() if p in committed
            } == committed, name
        first, committed_now = consume_and_commit(bootstrap, group, topic, 60)
        for p, offset in first.items():
            assert offset == committed.get(p, 0), "%s: partition %d resumed at %d, committed %s" % (
                name,
                p,
                offset,
                committed,
            )
        committed.update(committed_now)
        assert {
            p: o for p, o in committed_offsets(bootstrap, group, topic, PARTITIONS).items() if p in committed
        } == committed, name
        if result is not None:  # a broker was stopped: it comes back before the next move
            restart(cluster, result, OFFSETS, partition)
            stopped.append(result.broker_id)
    assert sum(committed.values()) == 4 * 60
    print("group offsets through 4 coordinator moves: %.0f s" % (time.monotonic() - began))


def test_ongoing_transactions_end_across_coordinator_moves_between_kinds(cluster):
    began = time.monotonic()
    topic = make_topic(cluster, "mixed-txn", PARTITIONS, 3)
    transactional_id = "mixed-txn-" + uuid.uuid4().hex[:6]
    partition = transaction_partition(transactional_id, INTERNAL_PARTITIONS)
    producer = transactional_producer(cluster, transactional_id, acks="all")
    committed, aborted = [], []
    find_transaction_coordinator(cluster, transactional_id)  # creates __transaction_state on first use

    def ongoing(name):
        values = [b"%s-%d" % (name.encode(), index) for index in range(12)]
        producer.begin_transaction()
        for index, value in enumerate(values):
            producer.produce(topic, value=value, partition=index % PARTITIONS)
        assert producer.flush(60) == 0  # in the log: ending the transaction needs markers
        return values

    move_leader(cluster, TXN_STATE, partition, KAFKA_ZK)
    producer.init_transactions(60)
    wait_coordinator(cluster, transactional_id, 1, KAFKA_ZK)
    committed += ongoing("a")
    retry_while_retriable(producer.commit_transaction)

    # Ongoing on kafka-zk, committed on Kafka (kafka-zk's coordinator stopped).
    values = ongoing("b")
    stopped = stop_leader(cluster, TXN_STATE, partition, KAFKA)
    wait_coordinator(cluster, transactional_id, 1, KAFKA)
    retry_while_retriable(producer.commit_transaction)
    committed += values
    restart(cluster, stopped, TXN_STATE, partition)

    # Ongoing on Kafka, aborted on kafka-zk (elected).
    values = ongoing("c")
    move_leader(cluster, TXN_STATE, partition, KAFKA_ZK)
    wait_coordinator(cluster, transactional_id, 1, KAFKA_ZK)
    retry_while_retriable(producer.abort_transaction)
    aborted += values

    # Ongoing on kafka-zk, aborted on Kafka (elected), then one more committed there.
    values = ongoing("d")
    move_leader(cluster, TXN_STATE, partition, KAFKA)
    wait_coordinator(cluster, transactional_id, 1, KAFKA)
    retry_while_retriable(producer.abort_transaction)
    aborted += values
    committed += ongoing("e")
    retry_while_retriable(producer.commit_transaction)

    # Ongoing on Kafka, committed on kafka-zk (Kafka's coordinator stopped).
    values = ongoing("f")
    stopped = stop_leader(cluster, TXN_STATE, partition, KAFKA_ZK)
    wait_coordinator(cluster, transactional_id, 1, KAFKA_ZK)
    retry_while_retriable(producer.commit_transaction)
    committed += values
    restart(cluster, stopped, TXN_STATE, partition)

    # Ongoing on kafka-zk, committed on Kafka (kafka-zk's coordinator killed: kill -9).
    move_leader(cluster, TXN_STATE, partition, KAFKA_ZK)
    values = ongoing("g")
    killed = kill_leader(cluster, TXN_STATE, partition, KAFKA)
    wait_coordinator(cluster, transactional_id, 1, KAFKA)
    retry_while_retriable(producer.commit_transaction)
    committed += values
    cluster.restart_killed(killed)
    wait_in_sync(cluster, TXN_STATE, partition)

    read = read_partitions(cluster.bootstrap_servers, topic, PARTITIONS, "read_committed")
    visible = sorted(value for p in read for _, value in read[p])
    assert visible == sorted(committed)
    everything = read_partitions(cluster.bootstrap_servers, topic, PARTITIONS, "read_uncommitted")
    assert sorted(value for p in everything for _, value in everything[p]) == sorted(committed + aborted)
    print(
        "transactions through 5 moves between kinds (2 elections, 2 controlled shutdowns, 1 kill -9): %.0f s"
        % (time.monotonic() - began)
    )


class Copier:
    """Kafka 2.5.1's TransactionalMessageCopier (kafka-tools) copying one input partition to an output topic, its
    JSON status lines collected from a thread."""

    def __init__(self, cluster, input_topic, output_topic, transactional_id, group, messages):
        java, classpath = java_executable(), "%s/*" % REFERENCE_LIBS
        command = [
            java,
            "-Xmx256m",
            "-XX:+UseSerialGC",
            *archive_options(java, [classpath]),
            "-Dlog4j.configuration=file:%s" % (REFERENCE_LIBS.parents[2] / "tests" / "java" / "log4j.properties"),
            "-cp",
            classpath,
            "org.apache.kafka.tools.TransactionalMessageCopier",
            "--broker-list",
            cluster.bootstrap_servers,
            "--input-topic",
            input_topic,
            "--input-partition",
            "0",
            "--output-topic",
            output_topic,
            "--transactional-id",
            transactional_id,
            "--consumer-group",
            group,
            "--max-messages",
            str(messages),
            "--transaction-size",
            "25",
            "--enable-random-aborts",  # about one transaction in ten aborted and its input read again
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.status, self.errors = [], []
        threading.Thread(target=self._read, args=(self.process.stdout, self.status), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.errors), daemon=True).start()

    @staticmethod
    def _read(stream, lines):
        for line in stream:
            lines.append(line.rstrip())

    def consumed(self):
        for line in reversed(self.status):
            try:
                return json.loads(line).get("consumed", 0)
            except ValueError:
                continue
        return 0

    def wait(self, timeout):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise


def test_kafkas_transactional_message_copier_copies_exactly_once_through_moves(cluster):
    began = time.monotonic()
    messages = 3000
    input_topic = make_topic(
        cluster, "copier-in", 1, 3, records_per_partition=messages, value=lambda p, index: b"in-%05d" % index
    )
    output_topic = make_topic(cluster, "copier-out", PARTITIONS, 3)
    transactional_id = "copier-" + uuid.uuid4().hex[:6]
    group = "copier-group-" + uuid.uuid4().hex[:6]
    txn_partition = transaction_partition(transactional_id, INTERNAL_PARTITIONS)
    group_partition_ = group_partition(group, INTERNAL_PARTITIONS)
    find_transaction_coordinator(cluster, transactional_id)  # __transaction_state exists
    move_leader(cluster, TXN_STATE, txn_partition, KAFKA_ZK)
    committed_offsets(cluster.bootstrap_servers, group, input_topic, 1)  # __consumer_offsets exists
    move_leader(cluster, OFFSETS, group_partition_, KAFKA_ZK)

    copier = Copier(cluster, input_topic, output_topic, transactional_id, group, messages)
    moves = []
    try:
        wait_for(lambda: copier.consumed() >= messages // 4, 120, message="a quarter copied")
        moves.append(copier.consumed())
        move_leader(cluster, TXN_STATE, txn_partition, KAFKA)
        move_leader(cluster, OFFSETS, group_partition_, KAFKA)
        moves.append(copier.consumed())
        stopped = stop_leader(cluster, TXN_STATE, txn_partition, KAFKA_ZK)
        moves.append(copier.consumed())
        assert copier.wait(180) == 0, "\n".join((copier.status + copier.errors)[-30:])
    finally:
        if copier.process.poll() is None:
            copier.process.kill()
    restart(cluster, stopped, TXN_STATE, txn_partition)
    assert moves[-1] < messages, "the copier ended before the last move (%s)" % moves
    read = read_partitions(cluster.bootstrap_servers, output_topic, PARTITIONS, "read_committed")
    values = [value for p in read for _, value in read[p]]
    assert len(values) == len(set(values)) == messages
    assert set(values) == {b"in-%05d" % index for index in range(messages)}
    assert committed_offsets(cluster.bootstrap_servers, group, input_topic, 1) == {0: messages}
    print(
        "copier: %d copied exactly once through 3 moves (at %s consumed); %.0f s"
        % (messages, moves, time.monotonic() - began)
    )
