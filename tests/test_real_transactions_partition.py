"""The partition side of transactions on real brokers: raw transactional produces, WriteTxnMarkers, the LSO,
read_committed consumers (confluent-kafka), and a new leader serving the same LSO and aborted list."""

import subprocess
import sys
import threading
import time
import uuid

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch, iter_records
from tests.cluster_support import start_cluster, wait_for
from tests.raw_wire import create_topic, partition_leaders, produce_body, request

CLIENT_TIMEOUT_S = 30


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    running = start_cluster(
        tmp_path_factory.mktemp("txn"), zookeeper_server, overrides={"zookeeper.session.timeout.ms": "6000"}
    )
    yield running
    running.stop()


def bootstrap_of(cluster, broker_id):
    return next(b.bootstrap for b in cluster.brokers if b.broker_id == broker_id)


def new_topic(cluster):
    topic = "txn-" + uuid.uuid4().hex[:8]
    bootstrap = cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, topic, replication_factor=3) == Errors.NONE
    leaders = wait_for(lambda: partition_leaders(bootstrap, topic), message="a leader")
    # Broker 0 may learn of the leader before the leader has its LeaderAndIsr (it comes first on each broker's channel)
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: partition_leaders(b.bootstrap, topic) == leaders,
            message="broker %d to know the leader" % broker.broker_id,
        )
    return topic, leaders[0]


def init_producer_id(bootstrap):
    response = request(bootstrap, 22, 1, {"transactional_id": None, "transaction_timeout_ms": 60000})
    assert response["error_code"] == Errors.NONE
    return response["producer_id"]


def send(bootstrap, topic, producer_id, sequence, values, transactional=True, transactional_id="app-1"):
    """Produce v8 acks=-1 of one batch; returns (error_code, base_offset)."""
    batch = encode_batch(
        [(b"k", value) for value in values],
        producer_id=producer_id,
        producer_epoch=0,
        base_sequence=sequence,
        is_transactional=transactional,
    )
    body = produce_body(topic, 0, batch, acks=-1)
    body["transactional_id"] = transactional_id
    result = request(bootstrap, 0, 8, body)["responses"][0]["partitions"][0]
    return result["error_code"], result["base_offset"]


def write_marker(bootstrap, topic, producer_id, commit, coordinator_epoch=0, producer_epoch=0):
    """WriteTxnMarkers v0 for one producer and partition 0; returns the partition's error code."""
    response = request(
        bootstrap,
        27,
        0,
        {
            "markers": [
                {
                    "producer_id": producer_id,
                    "producer_epoch": producer_epoch,
                    "transaction_result": commit,
                    "topics": [{"name": topic, "partition_indexes": [0]}],
                    "coordinator_epoch": coordinator_epoch,
                }
            ]
        },
    )
    marker = response["markers"][0]
    assert marker["producer_id"] == producer_id
    return marker["topics"][0]["partitions"][0]["error_code"]


def fetch_committed(bootstrap, topic, offset=0, max_wait_ms=0):
    """One read_committed Fetch v11: (error, high_watermark, last_stable_offset, aborted, [Record])."""
    response = request(
        bootstrap,
        1,
        11,
        {
            "replica_id": -1,
            "max_wait_ms": max_wait_ms,
            "min_bytes": 1 if max_wait_ms else 0,
            "max_bytes": 1 << 20,
            "isolation_level": 1,
            "session_id": 0,
            "session_epoch": -1,
            "rack_id": "",
            "topics": [
                {
                    "topic": topic,
                    "partitions": [{"partition": 0, "fetch_offset": offset, "partition_max_bytes": 1 << 20}],
                }
            ],
        },
    )
    result = response["responses"][0]["partitions"][0]
    aborted = [(a["producer_id"], a["first_offset"]) for a in result["aborted_transactions"] or []]
    records = list(iter_records(bytes(result["records"] or b""), include_control=True))
    return result["error_code"], result["high_watermark"], result["last_stable_offset"], aborted, records


def list_latest(bootstrap, topic, isolation_level):
    response = request(
        bootstrap,
        2,
        5,
        {
            "replica_id": -1,
            "isolation_level": isolation_level,
            "topics": [
                {"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1, "current_leader_epoch": -1}]}
            ],
        },
    )
    result = response["topics"][0]["partitions"][0]
    assert result["error_code"] == Errors.NONE, result
    return result["offset"]


def consume_values(bootstrap, topic, isolation_level, expected_count, timeout=CLIENT_TIMEOUT_S):
    """Values a confluent-kafka consumer with isolation.level reads from offset 0 until it has
    expected_count of them and has reached the end it can see."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "unused-manual-assign",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "isolation.level": isolation_level,
            "enable.partition.eof": True,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    values, at_eof = [], False
    deadline = time.monotonic() + timeout
    try:
        while (len(values) < expected_count or not at_eof) and time.monotonic() < deadline:
            for message in consumer.consume(500, timeout=0.5):
                if message.error() is not None:
                    assert message.error().code() == -191, message.error()  # _PARTITION_EOF
                    at_eof = True
                    continue
                at_eof = False
                values.append(message.value())
    finally:
        consumer.close()
    return values


@pytest.mark.timeout(120)
def test_committed_and_aborted_transactions_for_both_isolation_levels(cluster):
    topic, leader = new_topic(cluster)
    bootstrap = bootstrap_of(cluster, leader)
    follower = next(b.bootstrap for b in cluster.brokers if b.broker_id != leader)
    committer, aborter = init_producer_id(bootstrap), init_producer_id(bootstrap)

    assert send(bootstrap, topic, committer, 0, [b"c0", b"c1"]) == (Errors.NONE, 0)
    assert send(bootstrap, topic, aborter, 0, [b"a0", b"a1", b"a2"]) == (Errors.NONE, 2)
    assert send(bootstrap, topic, -1, -1, [b"plain0"], transactional=False) == (Errors.NONE, 5)
    assert send(bootstrap, topic, committer, 2, [b"c2"]) == (Errors.NONE, 6)
    assert send(bootstrap, topic, aborter, 3, [b"a3"]) == (Errors.NONE, 7)
    # A non-transactional batch while the producer's transaction is open; a transactional one with no id.
    assert send(bootstrap, topic, committer, 3, [b"x"], transactional=False)[0] == Errors.INVALID_TXN_STATE
    assert (
        send(bootstrap, topic, committer, 3, [b"x"], transactional_id=None)[0]
        == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    )
    error, high_watermark, lso, _, _ = fetch_committed(bootstrap, topic)
    assert (error, high_watermark, lso) == (Errors.NONE, 8, 0)
    assert list_latest(bootstrap, topic, 1) == 0 and list_latest(bootstrap, topic, 0) == 8

    assert write_marker(follower, topic, committer, True) == Errors.NOT_LEADER_FOR_PARTITION
    assert write_marker(bootstrap, "no-such-" + topic, committer, True) == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert write_marker(bootstrap, topic, committer, True, coordinator_epoch=5) == Errors.NONE  # offset 8
    assert write_marker(bootstrap, topic, aborter, False, coordinator_epoch=5) == Errors.NONE  # offset 9
    assert write_marker(bootstrap, topic, committer, True, coordinator_epoch=4) == Errors.TRANSACTION_COORDINATOR_FENCED
    assert send(bootstrap, topic, -1, -1, [b"plain1"], transactional=False) == (Errors.NONE, 10)

    error, high_watermark, lso, aborted, records = fetch_committed(bootstrap, topic)
    assert (error, high_watermark, lso, aborted) == (Errors.NONE, 11, 11, [(aborter, 2)])
    assert [r.offset for r in records] == list(range(11))  # the client filters aborted data and markers
    assert list_latest(bootstrap, topic, 1) == 11

    committed = consume_values(bootstrap, topic, "read_committed", 5)
    assert committed == [b"c0", b"c1", b"plain0", b"c2", b"plain1"]
    everything = consume_values(bootstrap, topic, "read_uncommitted", 9)
    assert everything == [b"c0", b"c1", b"a0", b"a1", b"a2", b"plain0", b"c2", b"a3", b"plain1"]

    # kafka-python's read_committed consumer, and our console consumer (and client), filter the same way.
    from kafka import KafkaConsumer
    from kafka.structs import TopicPartition as KafkaPythonTopicPartition

    kafka_python = KafkaConsumer(
        bootstrap_servers=bootstrap,
        isolation_level="read_committed",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        consumer_timeout_ms=5000,
    )
    try:
        kafka_python.assign([KafkaPythonTopicPartition(topic, 0)])
        kafka_python.seek_to_beginning()
        values = []
        for message in kafka_python:
            values.append(message.value)
            if len(values) == 5:
                break
    finally:
        kafka_python.close()
    assert values == [b"c0", b"c1", b"plain0", b"c2", b"plain1"]

    console = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_zk.tools.console_consumer",
            "--bootstrap-server",
            bootstrap,
            "--topic",
            topic,
            "--from-beginning",
            "--isolation-level",
            "read_committed",
            "--max-messages",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert console.returncode == 0, console.stderr
    assert console.stdout.splitlines() == ["c0", "c1", "plain0", "c2", "plain1"]
    assert "Processed a total of 5 messages" in console.stderr


@pytest.mark.timeout(120)
def test_open_transaction_holds_back_read_committed_and_new_leader_serves_the_same(cluster):
    topic, leader = new_topic(cluster)
    bootstrap = bootstrap_of(cluster, leader)
    opener, aborter = init_producer_id(bootstrap), init_producer_id(bootstrap)
    assert send(bootstrap, topic, -1, -1, [b"p0", b"p1"], transactional=False) == (Errors.NONE, 0)
    assert send(bootstrap, topic, aborter, 0, [b"a0"]) == (Errors.NONE, 2)
    assert write_marker(bootstrap, topic, aborter, False) == Errors.NONE  # 3
    assert send(bootstrap, topic, opener, 0, [b"o0", b"o1"]) == (Errors.NONE, 4)  # left open
    assert send(bootstrap, topic, -1, -1, [b"p2"], transactional=False) == (Errors.NONE, 6)

    error, high_watermark, lso, aborted, records = fetch_committed(bootstrap, topic)
    assert (error, high_watermark, lso, aborted) == (Errors.NONE, 7, 4, [(aborter, 2)])
    assert max(r.offset for r in records) < 4
    assert consume_values(bootstrap, topic, "read_committed", 2) == [b"p0", b"p1"]
    assert consume_values(bootstrap, topic, "read_uncommitted", 6) == [b"p0", b"p1", b"a0", b"o0", b"o1", b"p2"]

    # Every replica must have the batches before the leader dies (acks=-1 above only covers the ISR).
    for broker in cluster.brokers:
        wait_for(lambda b=broker: _replica_leo(b, topic) == 7, message="broker %d to replicate" % broker.broker_id)
    victim = next(b for b in cluster.brokers if b.broker_id == leader)
    victim.kill()
    try:
        survivor = next(b for b in cluster.brokers if b.broker_id != leader).bootstrap

        def elected():
            current = partition_leaders(survivor, topic).get(0)
            return [current] if current not in (None, leader) else None  # broker id 0 is a valid answer

        new_leader = wait_for(elected, timeout=60, message="a new leader")[0]
        new_bootstrap = bootstrap_of(cluster, new_leader)
        wait_for(
            lambda: fetch_committed(new_bootstrap, topic)[:4] == (Errors.NONE, 7, 4, [(aborter, 2)]),
            timeout=30,
            message="the new leader's high watermark, LSO and aborted list",
        )
        assert list_latest(new_bootstrap, topic, 1) == 4
        # A read_committed fetch at the LSO waits in purgatory until the commit moves the LSO.
        waited = {}

        def long_poll():
            started = time.monotonic()
            waited["result"] = fetch_committed(new_bootstrap, topic, offset=4, max_wait_ms=20000)
            waited["seconds"] = time.monotonic() - started

        poller = threading.Thread(target=long_poll)
        poller.start()
        time.sleep(0.5)  # let the fetch reach the broker's purgatory before the marker is written
        assert write_marker(new_bootstrap, topic, opener, True) == Errors.NONE  # 7
        poller.join(30)
        assert waited["result"][2] == 8 and [r.value for r in waited["result"][4]][:2] == [b"o0", b"o1"]
        assert waited["seconds"] < 15
        assert consume_values(new_bootstrap, topic, "read_committed", 5) == [b"p0", b"p1", b"o0", b"o1", b"p2"]
    finally:
        victim.start()
    # The killed replica recovers, catches up, and rebuilds the same state from its log.
    wait_for(lambda: _replica_leo(victim, topic) == 8, timeout=60, message="the old leader to catch up")
    indexes = {
        broker.broker_id: (broker.log_dir / ("%s-0" % topic) / "00000000000000000000.txnindex").read_bytes()
        for broker in cluster.brokers
    }
    expected = (0).to_bytes(2, "big") + b"".join(n.to_bytes(8, "big") for n in (aborter, 2, 3, 4))
    assert indexes == {broker.broker_id: expected for broker in cluster.brokers}


def _replica_leo(broker, topic):
    """The log end offset of partition 0 on ``broker`` (ListOffsets as its own replica id: the log end)."""
    try:
        response = request(
            broker.bootstrap,
            2,
            5,
            {
                "replica_id": broker.broker_id,
                "isolation_level": 0,
                "topics": [
                    {"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1, "current_leader_epoch": -1}]}
                ],
            },
        )
    except OSError:
        return None
    result = response["topics"][0]["partitions"][0]
    return result["offset"] if result["error_code"] == Errors.NONE else None
