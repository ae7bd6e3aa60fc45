"""Fetching from the closest replica (KIP-392) on real brokers in three racks: a leader with replica.selector.class
names the follower of the consumer's rack, a real librdkafka consumer reads from it, falls back to the leader
while that follower is frozen out of the cluster, and is sent back to it once it has rejoined the ISR."""

import json
import signal
import time
import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kafka_zk.record.records import iter_records
from kafka_zk.server.replication.replica_selector import RACK_AWARE
from tests.cluster_support import wait_for
from tests.raw_wire import list_offsets_error, request
from tests.replication_support import NOT_LEADER_FOR_PARTITION, fast_overrides, module_replication_cluster

pytestmark = pytest.mark.timeout(150)

# Broker 0 runs without a selector; brokers 1 and 2 with Kafka's rack-aware one. Broker i is in rack-<i>.
WITH_SELECTOR = (1, 2)
LEADER = 1
# Brokers that notice a frozen follower in 3 s (lag) and 6 s (session); a small __consumer_offsets.
OVERRIDES = fast_overrides(offsets_topic_num_partitions=3)


def rack(broker_id):
    return "rack-%d" % broker_id


racked = module_replication_cluster(
    overrides=OVERRIDES, racks=3, broker_overrides={b: {"replica.selector.class": RACK_AWARE} for b in WITH_SELECTOR}
)


def new_topic(cluster, prefix, replicas):
    topic = cluster.new_topic(prefix, assignments={0: list(replicas)})
    cluster.wait_full_isr(topic, [0], replicas)
    return topic


def produce(cluster, topic, values):
    """Every value to partition 0 with acks=all; returns once all are acknowledged."""
    failed = []
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "linger.ms": 5})
    for value in values:
        producer.produce(
            topic, value, partition=0, on_delivery=lambda error, message: error is not None and failed.append(error)
        )
    assert producer.flush(60) == 0 and failed == []


def consumer_fetch(bootstrap, topic, rack_id, offset=0):
    """One partition's answer to a consumer's Fetch v11 (no wait) from ``rack_id``."""
    response = request(
        bootstrap,
        1,
        11,
        {
            "replica_id": -1,
            "max_wait_ms": 0,
            "min_bytes": 0,
            "max_bytes": 1 << 20,
            "isolation_level": 0,
            "session_id": 0,
            "session_epoch": -1,
            "forgotten_topics_data": [],
            "rack_id": rack_id,
            "topics": [
                {
                    "topic": topic,
                    "partitions": [
                        {
                            "partition": 0,
                            "fetch_offset": offset,
                            "current_leader_epoch": -1,
                            "log_start_offset": -1,
                            "partition_max_bytes": 1 << 20,
                        }
                    ],
                }
            ],
        },
    )
    return response["responses"][0]["partitions"][0]


def records(prefix, count):
    """``count`` distinct values of 1 KB each."""
    return [(b"%s-%d-" % (prefix.encode(), i)).ljust(1024, b".") for i in range(count)]


def size(values):
    return sum(map(len, values))


def record_values(answer):
    return [record.value for record in iter_records(bytes(answer["records"] or b""))]


def test_a_leader_with_the_selector_names_the_follower_of_the_consumer_rack(racked):
    follower, other = [b for b in range(3) if b != LEADER]
    topic = new_topic(racked, "named", [LEADER, follower, other])
    values = [b"n-%d" % i for i in range(10)]
    produce(racked, topic, values)
    leader = racked.broker(LEADER).bootstrap
    named = consumer_fetch(leader, topic, rack(follower))
    assert (named["error_code"], named["preferred_read_replica"], record_values(named)) == (0, follower, [])
    assert named["high_watermark"] == len(values)
    for rack_id in (rack(LEADER), "", "rack-9"):  # the leader's own rack, no rack, a rack with no replica
        served = consumer_fetch(leader, topic, rack_id)
        assert (served["preferred_read_replica"], record_values(served)) == (-1, values), rack_id
    # The follower serves the consumer of its rack itself, up to its high watermark.
    wait_for(
        lambda: (
            consumer_fetch(racked.broker(follower).bootstrap, topic, rack(follower))["high_watermark"] == len(values)
        ),
        10,
        message="the follower to learn the high watermark",
    )
    served = consumer_fetch(racked.broker(follower).bootstrap, topic, rack(follower))
    assert (served["error_code"], served["preferred_read_replica"], record_values(served)) == (0, -1, values)
    # Offsets are still the leader's to list (as in Kafka 2.5).
    assert list_offsets_error(racked.broker(follower).bootstrap, topic, 0) == NOT_LEADER_FOR_PARTITION


def test_a_leader_without_replica_selector_class_names_no_replica(racked):
    topic = new_topic(racked, "unselected", [0, 1, 2])  # led by broker 0, which has no selector
    produce(racked, topic, [b"u-0", b"u-1"])
    for rack_id in (rack(1), rack(2)):
        served = consumer_fetch(racked.broker(0).bootstrap, topic, rack_id)
        assert (served["error_code"], served["preferred_read_replica"], record_values(served)) == (
            0,
            -1,
            [b"u-0", b"u-1"],
        )


class RackConsumer:
    """A librdkafka consumer in one rack reading partition 0 of a topic from its start. Its statistics say which
    broker it fetches the partition from: librdkafka's own record of the preferred replica it follows."""

    def __init__(self, cluster, topic, client_rack):
        self.topic = topic
        self.values = []
        self.stats = {}
        self.consumer = Consumer(
            {
                "bootstrap.servers": cluster.bootstrap_servers,
                "group.id": "ff-%s" % uuid.uuid4().hex[:8],
                "client.rack": client_rack,
                "enable.auto.commit": False,
                "fetch.wait.max.ms": 100,
                # librdkafka leaves a preferred replica for the leader when that broker stops answering: in 3 s here
                "socket.timeout.ms": 3000,
                "topic.metadata.refresh.interval.ms": 1000,
                "statistics.interval.ms": 100,
                "stats_cb": self._on_stats,
            }
        )
        self.consumer.assign([TopicPartition(topic, 0, 0)])

    def _on_stats(self, text):
        self.stats = json.loads(text)

    def fetching_from(self):
        """The broker librdkafka fetches partition 0 from now, and the leader it knows (None, None until known)."""
        partition = self.stats.get("topics", {}).get(self.topic, {}).get("partitions", {}).get("0", {})
        return partition.get("broker"), partition.get("leader")

    def received_bytes(self, broker_id):
        """What the consumer received from a broker so far, in bytes (librdkafka's count)."""
        return sum(
            broker["rxbytes"] for broker in self.stats.get("brokers", {}).values() if broker.get("nodeid") == broker_id
        )

    def read(self, count, timeout=30.0):
        """Poll until ``count`` records in all were read; returns the new ones."""
        start = len(self.values)
        deadline = time.monotonic() + timeout
        while len(self.values) < count:
            assert time.monotonic() < deadline, "read %d of %d records (fetching from, leader: %s)" % (
                len(self.values),
                count,
                self.fetching_from(),
            )
            message = self.consumer.poll(0.1)
            if message is not None:
                assert message.error() is None, message.error()
                self.values.append(message.value())
        return self.values[start:]

    def poll_until(self, condition, timeout, message):
        def polled():
            found = self.consumer.poll(0.05)
            assert found is None, "unexpected record %r" % (found.value() if found.error() is None else found.error())
            return condition()

        return wait_for(polled, timeout, interval=0, message=message)

    def close(self):
        self.consumer.close()


def test_a_consumer_reads_from_its_rack_falls_back_to_the_leader_and_returns(racked):
    # The follower to freeze is not the controller, so that freezing it moves no controller.
    controller = racked.wait_controller()
    follower = 2 if controller != 2 else 0
    other = ({0, 1, 2} - {LEADER, follower}).pop()
    topic = new_topic(racked, "closest", [LEADER, follower, other])
    first = records("first", 200)
    produce(racked, topic, first)
    reader = RackConsumer(racked, topic, rack(follower))
    frozen = racked.broker(follower)
    try:
        # Which broker served the records shows in the bytes received from each: a record is 1 KB, the rest (the
        # leader naming the follower, metadata) a few hundred bytes at a time.
        assert reader.read(len(first)) == first
        # librdkafka's statistics arrive every 100 ms: the byte count can trail the records just read.
        reader.poll_until(
            lambda: reader.fetching_from() == (follower, LEADER) and reader.received_bytes(follower) > size(first),
            10,
            message="statistics naming the follower it fetches from, and the records' bytes from it",
        )
        assert size(first) > 4 * reader.received_bytes(LEADER)

        # Frozen, the follower leaves the ISR; the consumer's requests to it time out and it turns to the leader,
        # which keeps it now (until then, the leader may still have named the follower once more).
        frozen.signal(signal.SIGSTOP)
        racked.wait_state(topic, lambda s: follower not in s["isr"], 20, message="the frozen follower out of the ISR")
        during = records("during", 50)
        from_leader = reader.received_bytes(LEADER)
        produce(racked, topic, during)
        assert reader.read(len(first) + len(during), timeout=40) == during
        reader.poll_until(lambda: reader.fetching_from() == (LEADER, LEADER), 10, message="the consumer on the leader")
        # librdkafka's statistics arrive every 100 ms: the byte count can trail the records just read.
        reader.poll_until(
            lambda: reader.received_bytes(LEADER) - from_leader > size(during),
            10,
            message="the records' bytes from the leader",
        )

        # Back in the ISR, the follower is named again and serves what follows.
        frozen.signal(signal.SIGCONT)
        racked.wait_full_isr(topic, [0], [LEADER, follower, other], timeout=45)
        reader.poll_until(
            lambda: reader.fetching_from() == (follower, LEADER), 30, message="the consumer back on the follower"
        )
        from_follower, from_leader = reader.received_bytes(follower), reader.received_bytes(LEADER)
        after = records("after", 50)
        produce(racked, topic, after)
        assert reader.read(len(first) + len(during) + len(after)) == after
        reader.poll_until(
            lambda: reader.received_bytes(follower) - from_follower > size(after),
            10,
            message="the records' bytes from the follower",
        )
        assert reader.received_bytes(LEADER) - from_leader < size(after) / 4
        assert reader.fetching_from() == (follower, LEADER)
        assert reader.values == first + during + after
    finally:
        frozen.signal(signal.SIGCONT)
        reader.close()
