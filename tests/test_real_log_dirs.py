"""AlterReplicaLogDirs on three real brokers with two log dirs each: a replica moves while a producer writes."""

import threading
import time

import pytest

from kafka_zk.client.admin import AdminClient
from kafka_zk.protocol.errors import Errors
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import create_led_topic, metadata

OVERRIDES = {
    "log.dirs": "{folder}/logs-a,{folder}/logs-b",
    "log.segment.delete.delay.ms": "0",
    "replica.alter.log.dirs.io.max.bytes.per.second": "400000",
}


cluster = module_cluster(overrides=OVERRIDES)


def replica_dirs(admin, broker_id, topic):
    """{(partition, is_future): log dir} of this broker's replicas of topic, from DescribeLogDirs."""
    found = {}
    for log_dir, info in admin.describe_log_dirs([broker_id])[broker_id].items():
        for (name, partition), replica in info.replicas.items():
            if name == topic:
                found[(partition, replica.is_future)] = log_dir
    return found


class Writer(threading.Thread):
    """A confluent-kafka producer writing numbered values with acks=all until stopped."""

    def __init__(self, bootstrap, topic):
        super().__init__(daemon=True)
        from confluent_kafka import Producer

        self.producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "acks": "all",
                "linger.ms": 5,
                "batch.size": 65536,
                "enable.idempotence": True,
            }
        )
        self.topic = topic
        self.delivered, self.errors = [], []
        self.sent = 0
        self.stop_event = threading.Event()

    def _report(self, error, message):
        if error is not None:
            self.errors.append(error)
        else:
            self.delivered.append((message.offset(), message.value()))

    def write(self, count):
        for _ in range(count):
            value = b"value-%06d-" % self.sent + b"x" * 500
            self.sent += 1
            while True:
                try:
                    self.producer.produce(self.topic, value=value, partition=0, on_delivery=self._report)
                    break
                except BufferError:
                    self.producer.poll(0.05)
            self.producer.poll(0)

    def run(self):
        while not self.stop_event.is_set():
            self.write(20)
            time.sleep(0.1)  # about 100 kB/s, below the move throttle so the move can catch up

    def finish(self):
        self.stop_event.set()
        self.join(30)
        assert self.producer.flush(60) == 0


@pytest.mark.timeout(300)
def test_a_leader_replica_moves_to_the_other_dir_while_a_producer_writes(cluster):
    from confluent_kafka import Consumer, TopicPartition

    bootstrap = cluster.brokers[0].bootstrap
    topic = "moving"
    leader_id = create_led_topic(
        bootstrap, topic, partitions=1, replication_factor=3, configs={"segment.bytes": "300000"}
    )[0]
    leader = cluster.broker(leader_id)
    writer = Writer(cluster.bootstrap_servers, topic)
    writer.write(3000)  # about 1.5 MB before the move: several seconds at 400 kB/s
    assert writer.producer.flush(60) == 0
    with AdminClient(bootstrap) as admin:
        before = replica_dirs(admin, leader_id, topic)
        assert list(before) == [(0, False)]
        source = before[(0, False)]
        target = [str(d) for d in leader.log_dirs if str(d) != source][0]

        writer.start()
        assert admin.alter_replica_log_dirs({(topic, 0, leader_id): target}) == {(topic, 0, leader_id): Errors.NONE}
        during = wait_for(
            lambda: replica_dirs(admin, leader_id, topic).get((0, True)), timeout=30, message="the future replica"
        )
        assert during == target
        info = admin.describe_log_dirs([leader_id])[leader_id][target].replicas[(topic, 0)]
        assert info.is_future and info.offset_lag >= 0
        # Moving the same replica to the same place again changes nothing.
        assert admin.alter_replica_log_dirs({(topic, 0, leader_id): target}) == {(topic, 0, leader_id): Errors.NONE}
        wait_for(
            lambda: replica_dirs(admin, leader_id, topic) == {(0, False): target},
            timeout=120,
            message="the move to finish",
        )
        time.sleep(0.5)  # let the writer go on writing into the moved replica for a moment
        writer.finish()
        assert writer.errors == []
        wait_for(
            lambda: (
                not [p for p in (leader.folder / source.rsplit("/", 1)[1]).iterdir() if p.name.startswith(topic + "-0")]
            ),
            message="the old dir to be emptied",
        )
        assert (leader.folder / target.rsplit("/", 1)[1] / (topic + "-0")).is_dir()
        partition = metadata(bootstrap, [topic])["topics"][0]["partitions"][0]
        assert sorted(partition["isr_nodes"]) == [0, 1, 2] and partition["leader_id"] == leader_id

    consumer = Consumer(
        {
            "bootstrap.servers": leader.bootstrap,
            "group.id": "unused-manual-assign",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    consumed = []
    deadline = time.monotonic() + 90
    try:
        while len(consumed) < len(writer.delivered) and time.monotonic() < deadline:
            for message in consumer.consume(1000, timeout=0.5):
                assert message.error() is None, message.error()
                consumed.append((message.offset(), message.value()))
    finally:
        consumer.close()
    assert len(writer.delivered) > 3000
    assert consumed == sorted(writer.delivered)
    assert [offset for offset, _ in consumed] == list(range(len(consumed)))


@pytest.mark.timeout(180)
def test_errors_and_a_remembered_dir_for_a_replica_created_later(cluster):
    bootstrap = cluster.brokers[1].bootstrap
    broker = cluster.broker(1)
    dirs = [str(d) for d in broker.log_dirs]
    with AdminClient(bootstrap) as admin:
        create_led_topic(bootstrap, "elsewhere", assignments={0: [2]})
        answers = admin.alter_replica_log_dirs(
            {
                ("elsewhere", 0, 1): dirs[0],  # the topic exists, no replica on broker 1
                ("elsewhere", 0, 2): str(broker.folder / "nowhere"),  # not one of broker 2's log.dirs
                ("later", 0, 1): dirs[1],
                ("later", 1, 1): dirs[1],
                ("later", 2, 1): dirs[1],
            }
        )
        assert answers == {
            ("elsewhere", 0, 1): Errors.REPLICA_NOT_AVAILABLE,
            ("elsewhere", 0, 2): Errors.LOG_DIR_NOT_FOUND,
            ("later", 0, 1): Errors.UNKNOWN_TOPIC_OR_PARTITION,
            ("later", 1, 1): Errors.UNKNOWN_TOPIC_OR_PARTITION,
            ("later", 2, 1): Errors.UNKNOWN_TOPIC_OR_PARTITION,
        }
        create_led_topic(bootstrap, "later", assignments={0: [1], 1: [1], 2: [1], 3: [1]})
        placed = wait_for(
            lambda: (lambda found: found if len(found) == 4 else None)(replica_dirs(admin, 1, "later")),
            message="replicas of later",
        )
        # The remembered dir wins for 0-2 although the emptiest-dir rule would have spread them.
        assert [placed[(p, False)] for p in range(3)] == [dirs[1]] * 3
        assert placed[(3, False)] == dirs[0]
