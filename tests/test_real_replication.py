"""Replication on real brokers: idempotent acks=all under leader kills, min.insync.replicas, ISR shrink/expand."""

import signal
import threading
import time

import pytest
from confluent_kafka import Producer

from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.raw_wire import fetch_records, produce, read_all
from tests.replication_support import (
    NOT_ENOUGH_REPLICAS,
    fast_overrides,
    make_cluster,  # noqa: F401
    metadata_partition,
    produce_when_led,
    shell_state,
)

PARTITIONS = 3


class SequencedProducer(threading.Thread):
    """An idempotent acks=all producer writing `<partition>-<sequence>` values round-robin until stopped."""

    def __init__(self, bootstrap_servers, topic, max_records=40000):
        super().__init__(daemon=True)
        self.topic = topic
        self.max_records = max_records
        self.config = {
            "bootstrap.servers": bootstrap_servers,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 5,
            "message.timeout.ms": 90000,
            "retry.backoff.ms": 100,
            "topic.metadata.refresh.interval.ms": 1000,
            "log_level": 0,
            "error_cb": lambda error: self.errors.append(error),
        }
        self.stopping = threading.Event()
        self.acked = {p: [] for p in range(PARTITIONS)}  # partition -> [(offset, value)] in ack order
        self.failed = []
        self.errors = []
        self.produced = 0
        self.unflushed = None

    def total_acked(self):
        return sum(len(entries) for entries in self.acked.values())

    def _delivered(self, error, message):
        if error is None:
            self.acked[message.partition()].append((message.offset(), message.value()))
        else:
            self.failed.append((message.partition(), message.value(), error))

    def run(self):
        producer = Producer(self.config)
        sequences = [0] * PARTITIONS
        while not self.stopping.is_set() and self.produced < self.max_records:
            partition = self.produced % PARTITIONS
            value = b"%d-%08d" % (partition, sequences[partition])
            try:
                producer.produce(self.topic, value=value, partition=partition, on_delivery=self._delivered)
            except BufferError:
                producer.poll(0.05)
                continue
            sequences[partition] += 1
            self.produced += 1
            producer.poll(0)
            time.sleep(0.002)
        self.unflushed = producer.flush(120)


class ChaosReader(threading.Thread):
    """Reads every partition from its current leader (up to the high watermark) and notes what it saw."""

    def __init__(self, cluster, topic):
        super().__init__(daemon=True)
        self.cluster = cluster
        self.topic = topic
        self.stopping = threading.Event()
        self.positions = [0] * PARTITIONS
        self.seen = []  # (partition, offset, value)
        self.problems = []

    def _leader_bootstrap(self, partition):
        try:
            leader = self.cluster.state(self.topic, partition)["leader"]
        except Exception:
            return None
        return self.cluster.broker(leader).bootstrap if leader >= 0 else None

    def run(self):
        while not self.stopping.is_set():
            for partition in range(PARTITIONS):
                bootstrap = self._leader_bootstrap(partition)
                if bootstrap is None:
                    continue
                try:
                    error, _, records = fetch_records(
                        bootstrap, self.topic, partition, self.positions[partition], max_bytes=512 * 1024
                    )
                except OSError:
                    continue
                if error != 0:
                    continue
                for record in records:
                    if record.offset != self.positions[partition]:
                        self.problems.append((partition, self.positions[partition], record.offset))
                    self.seen.append((partition, record.offset, record.value))
                    self.positions[partition] = record.offset + 1
            self.stopping.wait(0.05)


def _sequence(value):
    return int(value.split(b"-")[1])


@pytest.mark.timeout(200)
def test_idempotent_acks_all_survives_leader_and_controller_kills(make_cluster):
    cluster = make_cluster(fast_overrides(min_insync_replicas=2))
    replicas = [b.broker_id for b in cluster.brokers]
    topic = cluster.new_topic("chaos", partitions=PARTITIONS, replication_factor=3)
    cluster.wait_full_isr(topic, range(PARTITIONS), replicas)
    producer = SequencedProducer(cluster.bootstrap_servers, topic)
    reader = ChaosReader(cluster, topic)
    producer.start()
    reader.start()
    kills = []
    try:
        for kind in ["leader", "leader", "controller", "leader"]:
            acked_before = producer.total_acked()
            wait_for(
                lambda: producer.total_acked() >= acked_before + 300,
                60,
                message="the producer to make progress before killing a %s" % kind,
            )
            controller = cluster.wait_controller()
            leaders = {cluster.state(topic, p)["leader"] for p in range(PARTITIONS)} - {-1}
            if kind == "controller":
                victim_id = controller
            else:
                victim_id = sorted(leaders - {controller} or leaders)[0]
            led = [p for p in range(PARTITIONS) if cluster.state(topic, p)["leader"] == victim_id]
            victim = cluster.broker(victim_id)
            victim.kill()
            kills.append((kind, victim_id, led))
            if kind == "controller":
                cluster.wait_controller(not_id=victim_id, timeout=25)
            for partition in led:
                cluster.wait_state(
                    topic,
                    lambda s: s["leader"] not in (-1, victim_id),
                    25,
                    partition,
                    "a new leader after killing %d" % victim_id,
                )
            cluster.restart_killed(victim)
            cluster.wait_full_isr(topic, range(PARTITIONS), replicas)
        assert any(led for _, _, led in kills), "no kill hit a partition leader: %s" % kills
        acked_before = producer.total_acked()
        wait_for(lambda: producer.total_acked() >= acked_before + 300, 60, message="progress after the chaos")
    finally:
        producer.stopping.set()
        producer.join(150)
        reader.stopping.set()
        reader.join(30)
    assert not producer.is_alive() and producer.unflushed == 0
    assert producer.failed == [], producer.failed[:5]
    assert [e for e in producer.errors if e.fatal()] == []
    assert reader.problems == []
    assert producer.total_acked() == producer.produced

    cluster.wait_full_isr(topic, range(PARTITIONS), replicas)
    log_by_partition = {}
    for partition in range(PARTITIONS):
        leader = cluster.broker(cluster.state(topic, partition)["leader"])
        records = read_all(leader.bootstrap, topic, partition)
        assert [r.offset for r in records] == list(range(len(records)))
        sequences = [_sequence(r.value) for r in records]
        assert all(value.startswith(b"%d-" % partition) for value in (r.value for r in records))
        # Exactly once and in order: the log holds each sequence at most once, ascending.
        assert sequences == sorted(set(sequences)), "duplicates or reordering in partition %d" % partition
        log_by_partition[partition] = {r.offset: r.value for r in records}
        acked = producer.acked[partition]
        assert [offset for offset, _ in acked] == sorted(offset for offset, _ in acked)
        lost = [(offset, value) for offset, value in acked if log_by_partition[partition].get(offset) != value]
        assert lost == [], "partition %d lost %d acknowledged records, e.g. %s" % (partition, len(lost), lost[:3])
        assert [_sequence(value) for _, value in acked] == list(range(len(acked)))
    vanished = [(p, offset, value) for p, offset, value in reader.seen if log_by_partition[p].get(offset) != value]
    assert reader.seen and vanished == [], "%d served records vanished, e.g. %s" % (len(vanished), vanished[:3])


def _values(prefix, count):
    return [(None, b"%s-%d" % (prefix, i)) for i in range(count)]


@pytest.mark.timeout(120)
def test_acks_all_needs_min_insync_replicas_and_the_isr_recovers(make_cluster):
    cluster = make_cluster(fast_overrides(min_insync_replicas=2))
    leader_id = cluster.wait_controller()
    followers = [b.broker_id for b in cluster.brokers if b.broker_id != leader_id]
    topic = cluster.new_topic("min-isr", assignments={0: [leader_id] + followers})
    cluster.wait_full_isr(topic, [0], [leader_id] + followers)
    leader = cluster.broker(leader_id)
    assert produce_when_led(leader.bootstrap, topic, encode_batch(_values(b"all", 1)), -1) == (0, 0)

    killed, stopped = cluster.broker(followers[0]), cluster.broker(followers[1])
    killed.kill()
    stopped.stop()
    cluster.wait_state(
        topic, lambda s: s["isr"] == [leader_id] and s["leader"] == leader_id, 20, message="ISR shrunk to the leader"
    )
    wait_for(
        lambda: metadata_partition(leader.bootstrap, topic)["isr_nodes"] == [leader_id],
        10,
        message="the leader's metadata to show the shrunk ISR",
    )

    error, _ = produce(leader.bootstrap, topic, 0, encode_batch(_values(b"refused", 1)), acks=-1)
    assert error == NOT_ENOUGH_REPLICAS
    assert produce(leader.bootstrap, topic, 0, encode_batch(_values(b"one", 1)), acks=1) == (0, 1)

    stopped.start()
    cluster.restart_killed(killed)
    cluster.wait_full_isr(topic, [0], [leader_id] + followers)
    state = shell_state(cluster.zk_connect, topic)
    assert sorted(state["isr"]) == sorted([leader_id] + followers) and state["leader"] == leader_id
    assert produce(leader.bootstrap, topic, 0, encode_batch(_values(b"again", 1)), acks=-1) == (0, 2)
    assert [r.value for r in read_all(leader.bootstrap, topic, 0)] == [b"all-0", b"one-0", b"again-0"]


@pytest.mark.timeout(120)
def test_frozen_follower_leaves_the_isr_and_rejoins_after_catching_up(make_cluster):
    # A long session: the follower must leave the ISR through its leader's lag check, not by expiring.
    cluster = make_cluster(fast_overrides(min_insync_replicas=2, zookeeper_session_timeout_ms=15000))
    leader_id = cluster.wait_controller()
    others = [b.broker_id for b in cluster.brokers if b.broker_id != leader_id]
    frozen_id, healthy_id = others
    replicas = [leader_id, frozen_id, healthy_id]
    topic = cluster.new_topic("frozen", assignments={0: replicas})
    cluster.wait_full_isr(topic, [0], replicas)
    leader, frozen = cluster.broker(leader_id), cluster.broker(frozen_id)
    assert produce_when_led(leader.bootstrap, topic, encode_batch(_values(b"before", 20)), -1) == (0, 0)

    frozen.signal(signal.SIGSTOP)
    shrunk = sorted([leader_id, healthy_id])
    cluster.wait_state(topic, lambda s: sorted(s["isr"]) == shrunk, 12, message="the frozen follower dropped")
    assert cluster.registered(frozen_id), "the follower left by session expiry, not by lagging"
    for broker in (leader, cluster.broker(healthy_id)):
        wait_for(
            lambda b=broker: sorted(metadata_partition(b.bootstrap, topic)["isr_nodes"]) == shrunk,
            10,
            message="broker %d's metadata to show ISR %s" % (broker.broker_id, shrunk),
        )
    assert produce(leader.bootstrap, topic, 0, encode_batch(_values(b"during", 30)), acks=-1) == (0, 20)

    frozen.signal(signal.SIGCONT)
    cluster.wait_full_isr(topic, [0], replicas, timeout=20)
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: sorted(metadata_partition(b.bootstrap, topic)["isr_nodes"]) == sorted(replicas),
            10,
            message="broker %d's metadata to show the full ISR" % broker.broker_id,
        )
    error, high_watermark, _ = fetch_records(leader.bootstrap, topic, 0, 0)
    assert (error, high_watermark) == (0, 50)
    assert produce(leader.bootstrap, topic, 0, encode_batch(_values(b"after", 5)), acks=-1) == (0, 50)
    values = [r.value for r in read_all(leader.bootstrap, topic, 0)]
    assert values == [v for _, v in _values(b"before", 20) + _values(b"during", 30) + _values(b"after", 5)]
