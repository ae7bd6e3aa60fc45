"""The README's cluster, as scripts/local-cluster.sh builds it (three brokers in racks, Kafka's production settings
for the internal topics), keeps a confluent-kafka group through a kill -9 of the group's coordinator."""

import uuid

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from kafka_zk.coordinator.group.records import partition_for
from kafka_zk.tools.local_cluster import PRODUCTION_INTERNAL_TOPICS, cluster_settings, parse_args
from tests.cluster_support import make_topic, wait_for
from tests.replication_support import module_replication_cluster

OFFSETS_TOPIC = "__consumer_offsets"
OFFSETS_PARTITIONS = 50  # Kafka's default, as on the README's cluster
PARTITIONS = 3
FIRST, SECOND = 20, 20  # records per partition before and after the kill
COMMITTED_AFTER_KILL = FIRST + SECOND // 2
# Only for speed: brokers notice a dead one when its 6 s ZooKeeper session expires (Kafka's default is 18 s).
FAST_DEATH = {"zookeeper.session.timeout.ms": "6000"}
README_SETTINGS = cluster_settings(parse_args(["--brokers", "3", "--racks", "2"]))

# The command line's cluster (`--brokers 3 --racks 2`) on free ports in a test ZooKeeper chroot; the last test kills
# a broker.
readme_cluster = module_replication_cluster(
    README_SETTINGS["brokers"],
    racks=README_SETTINGS["racks"],
    overrides=dict(README_SETTINGS["overrides"], **FAST_DEATH),
)


def test_racks_and_internal_topic_settings_reach_each_brokers_config_and_status(readme_cluster):
    for broker in readme_cluster.brokers:
        written = broker.written_properties()
        assert {key: written[key] for key in PRODUCTION_INTERNAL_TOPICS} == PRODUCTION_INTERNAL_TOPICS
        assert written["broker.rack"] == "rack-%d" % (broker.broker_id % 2)
    assert readme_cluster.status_lines() == [
        "broker %d %s (kafka-zk, rack rack-%d): running (pid %d)" % (b.broker_id, b.bootstrap, b.broker_id % 2, b.pid())
        for b in readme_cluster.brokers
    ]


def produce(cluster, topic, first, count):
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "message.timeout.ms": 60000})
    failures = []
    for partition in range(PARTITIONS):
        for index in range(first, first + count):
            producer.produce(
                topic,
                value=b"%d-%d" % (partition, index),
                partition=partition,
                on_delivery=lambda error, message: error and failures.append(error),
            )
    assert producer.flush(60) == 0 and not failures, failures


class Member:
    """A confluent-kafka group member that remembers every (partition, offset) it is handed."""

    def __init__(self, cluster, group, topic):
        self.topic = topic
        self.records = []
        self.consumer = Consumer(
            {
                "bootstrap.servers": cluster.bootstrap_servers,
                "group.id": group,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "heartbeat.interval.ms": 500,
                "topic.metadata.refresh.interval.ms": 2000,
            }
        )
        self.consumer.subscribe([topic])

    def poll(self):
        message = self.consumer.poll(0.1)
        if message is not None and message.error() is None:
            self.records.append((message.partition(), message.offset()))

    def consume_until(self, condition, timeout=60, message="records"):
        def check():
            self.poll()
            return condition()

        wait_for(check, timeout, interval=0, message=message)

    def highest(self):
        best = {}
        for partition, offset in self.records:
            best[partition] = max(best.get(partition, -1), offset)
        return best

    def commit(self, offsets, timeout=60):
        """Commit synchronously, polling and retrying while the group's coordinator is away."""
        partitions = [TopicPartition(self.topic, p, o) for p, o in sorted(offsets.items())]

        def attempt():
            try:
                answered = self.consumer.commit(offsets=partitions, asynchronous=False)
            except KafkaException:
                self.poll()
                return False
            return all(tp.error is None for tp in answered)

        wait_for(attempt, timeout, interval=0.2, message="commit of %s" % offsets)

    def committed(self, timeout=30):
        """The group's committed offsets (OffsetFetch), asked again while the coordinator cannot answer."""

        def fetch():
            try:
                stored = self.consumer.committed([TopicPartition(self.topic, p) for p in range(PARTITIONS)], timeout=5)
            except KafkaException:
                self.poll()
                return None
            return {tp.partition: tp.offset for tp in stored}

        return wait_for(fetch, timeout, interval=0.2, message="the committed offsets")


def describe(admin, group):
    """(coordinator id, member ids) of the group per DescribeGroups, or None while no broker can answer."""
    try:
        found = admin.describe_consumer_groups([group], request_timeout=5)[group].result()
    except KafkaException:
        return None
    return found.coordinator.id, sorted(member.member_id for member in found.members)


@pytest.mark.timeout(120)
def test_a_group_keeps_its_commits_and_moves_when_its_coordinator_is_killed(readme_cluster):
    cluster = readme_cluster
    topic = make_topic(cluster, "readme", PARTITIONS, configs={"min.insync.replicas": "2"})
    group = "readme-group-" + uuid.uuid4().hex[:6]
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    produce(cluster, topic, 0, FIRST)

    member = Member(cluster, group, topic)
    try:
        keeps_its_group_through_the_kill(cluster, admin, member, group, topic)
    finally:
        member.consumer.close()

    # A restarted member starts exactly at the group's commits: nothing before them again, nothing skipped.
    restarted = Member(cluster, group, topic)
    try:
        restarted.consume_until(
            lambda: restarted.highest() == {p: FIRST + SECOND - 1 for p in range(PARTITIONS)},
            message="the restarted member reaching the end",
        )
        for _ in range(10):
            restarted.poll()
        assert sorted(restarted.records) == [
            (p, o) for p in range(PARTITIONS) for o in range(COMMITTED_AFTER_KILL, FIRST + SECOND)
        ]
    finally:
        restarted.consumer.close()


def keeps_its_group_through_the_kill(cluster, admin, member, group, topic):
    """The member commits, the group's coordinator is killed, the group and its commits move to another broker,
    and the member goes on consuming and committing there."""
    member.consume_until(
        lambda: member.highest() == {p: FIRST - 1 for p in range(PARTITIONS)}, message="the first batch consumed"
    )
    member.commit({p: FIRST for p in range(PARTITIONS)})
    assert member.committed() == {p: FIRST for p in range(PARTITIONS)}

    # The group's offsets live on three brokers (the production setting), all in sync, before the kill.
    offsets_partition = partition_for(group, OFFSETS_PARTITIONS)
    assert all(
        len(cluster.json_at("/brokers/topics/" + OFFSETS_TOPIC)["partitions"][str(p)]) == 3
        for p in range(OFFSETS_PARTITIONS)
    )
    cluster.wait_full_isr(OFFSETS_TOPIC, range(OFFSETS_PARTITIONS), [0, 1, 2], timeout=60)
    cluster.wait_full_isr(topic, range(PARTITIONS), [0, 1, 2], timeout=60)
    coordinator, members = wait_for(lambda: describe(admin, group), 30, message="the group described")
    assert coordinator == cluster.state(OFFSETS_TOPIC, offsets_partition)["leader"]
    assert members == [member.consumer.memberid()]

    cluster.broker(coordinator).kill()

    def moved():
        leader = cluster.state(OFFSETS_TOPIC, offsets_partition)["leader"]
        return (leader,) if leader not in (-1, coordinator) else None

    new_coordinator = wait_for(moved, 30, message="a new leader of the group's offsets partition")[0]

    def described_by_the_new_coordinator():
        member.poll()
        found = describe(admin, group)
        return found if found is not None and found[0] == new_coordinator else None

    _, members = wait_for(
        described_by_the_new_coordinator,
        30,
        interval=0.2,
        message="the group coordinated by broker %d" % new_coordinator,
    )
    assert members == [member.consumer.memberid()]  # the same member, now heartbeating to the new coordinator
    assert member.committed() == {p: FIRST for p in range(PARTITIONS)}

    # The member keeps consuming and committing on the new coordinator.
    produce(cluster, topic, FIRST, SECOND)
    member.consume_until(
        lambda: member.highest() == {p: FIRST + SECOND - 1 for p in range(PARTITIONS)},
        message="the second batch consumed",
    )
    assert sorted(tp.partition for tp in member.consumer.assignment()) == list(range(PARTITIONS))
    member.commit({p: COMMITTED_AFTER_KILL for p in range(PARTITIONS)})
    assert member.committed() == {p: COMMITTED_AFTER_KILL for p in range(PARTITIONS)}
