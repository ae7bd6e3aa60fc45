"""Consumer groups of other clients on three real brokers: kafka-python 3 and aiokafka group consumers (range,
roundrobin and, where offered, cooperative-sticky assignors), confluent-kafka cooperative-sticky, and `kcat -G`."""

import asyncio
import shutil
import subprocess
import threading
import time
import uuid

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.coordinator.assignors.range import RangePartitionAssignor as AioRange
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor as AioRoundRobin
from confluent_kafka import Consumer, TopicPartition
from kafka import KafkaConsumer
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

from tests.cluster_support import GROUP_OVERRIDES, make_topic, module_cluster, wait_for

PARTITIONS = 6
RECORDS_PER_PARTITION = 5
# The split of 6 partitions of one topic between two members that each assignor must produce.
RANGE_SPLIT = {(0, 1, 2), (3, 4, 5)}
ROUNDROBIN_SPLIT = {(0, 2, 4), (1, 3, 5)}


cluster = module_cluster(overrides=GROUP_OVERRIDES)


def committed_offsets(cluster, group, topic):
    reader = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group})
    try:
        found = reader.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=30)
        return [tp.offset for tp in found]
    finally:
        reader.close()


def balanced_split(assignments):
    """The members' partitions as a set of sorted tuples, when they are disjoint, non-empty and cover all."""
    owned = [p for parts in assignments for p in parts]
    if sorted(owned) != list(range(PARTITIONS)) or not all(assignments):
        return None
    return {tuple(sorted(parts)) for parts in assignments}


def expected(split, name):
    if name == "range":
        return split == RANGE_SPLIT
    if name == "roundrobin":
        return split == ROUNDROBIN_SPLIT
    return split is not None and sorted(len(s) for s in split) == [3, 3]


KAFKA_PYTHON_ASSIGNORS = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "cooperative-sticky": CooperativeStickyAssignor,
}


class PolledMember(threading.Thread):
    """One kafka-python group member polled on its own thread, as an application does (its poll blocks while
    the group rebalances); the test reads its assignment and the records it saw. Polls are 1 s long: with
    0.1 s polls kafka-python 3.0.12 now and then gives up a join midway and never completes its SyncGroup
    (seen in its debug log: the SyncGroup answer arrives, the assignment is never applied, no heartbeats).
    A member closes only once every member has committed: the first LeaveGroup starts a rebalance, and a
    member that learns of it before its own commit is right to refuse committing (RebalanceInProgressError)."""

    def __init__(self, cluster, topic, group, assignor, all_committed):
        super().__init__(daemon=True)
        self.consumer = KafkaConsumer(
            topic,
            bootstrap_servers=cluster.bootstrap_servers,
            group_id=group,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            partition_assignment_strategy=[assignor],
            session_timeout_ms=6000,
            heartbeat_interval_ms=500,
            metadata_max_age_ms=2000,
        )
        self.seen = set()
        self.state = ([], False, None)  # (assigned partitions, consumed to the end of each, generation)
        self.stopping = threading.Event()
        self.all_committed = all_committed
        self.error = None

    def run(self):
        try:
            while not self.stopping.is_set():
                for records in self.consumer.poll(timeout_ms=1000).values():
                    self.seen.update((r.partition, r.offset) for r in records)
                assigned = sorted(self.consumer.assignment())
                generation = self.consumer._coordinator.generation_if_stable()
                self.state = (
                    [tp.partition for tp in assigned],
                    all(self.consumer.position(tp) == RECORDS_PER_PARTITION for tp in assigned),
                    generation.generation_id if generation is not None else None,
                )
            self.consumer.commit()
        except Exception as exc:  # reported by the test thread
            self.error = exc
        finally:
            try:
                self.all_committed.wait(30)
            except threading.BrokenBarrierError:
                pass
            self.consumer.close()


@pytest.mark.parametrize("assignor", sorted(KAFKA_PYTHON_ASSIGNORS))
def test_kafka_python_group_consumers_split_the_topic_and_commit(cluster, assignor):
    topic = make_topic(cluster, "gc", PARTITIONS, records_per_partition=RECORDS_PER_PARTITION)
    group = "kp-" + uuid.uuid4().hex[:6]
    all_committed = threading.Barrier(2)
    members = [PolledMember(cluster, topic, group, KAFKA_PYTHON_ASSIGNORS[assignor], all_committed) for _ in range(2)]
    for member in members:
        member.start()

    def settled():
        states = [m.state for m in members]
        split = balanced_split([parts for parts, _, _ in states])
        seen = set().union(*(m.seen for m in members))
        generations = {generation for _, _, generation in states}
        return (
            expected(split, assignor)
            and all(done for _, done, _ in states)
            and len(seen) == PARTITIONS * RECORDS_PER_PARTITION
            and len(generations) == 1
            and None not in generations
        )

    try:
        wait_for(settled, 90, interval=0.05, message="a %s split at one generation, every record consumed" % assignor)
    finally:
        for member in members:
            member.stopping.set()
        for member in members:
            member.join(60)
    assert [m.error for m in members] == [None, None]
    assert committed_offsets(cluster, group, topic) == [RECORDS_PER_PARTITION] * PARTITIONS


AIOKAFKA_ASSIGNORS = {"range": AioRange, "roundrobin": AioRoundRobin}


@pytest.mark.parametrize("assignor", sorted(AIOKAFKA_ASSIGNORS))
def test_aiokafka_group_consumers_split_the_topic_and_commit(cluster, assignor):
    topic = make_topic(cluster, "gc", PARTITIONS, records_per_partition=RECORDS_PER_PARTITION)
    group = "aio-" + uuid.uuid4().hex[:6]

    async def run():
        members = [
            AIOKafkaConsumer(
                topic,
                bootstrap_servers=cluster.bootstrap_servers,
                group_id=group,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                partition_assignment_strategy=[AIOKAFKA_ASSIGNORS[assignor]],
                session_timeout_ms=6000,
                heartbeat_interval_ms=500,
                metadata_max_age_ms=2000,
            )
            for _ in range(2)
        ]
        seen = set()
        try:
            for member in members:
                await member.start()
            deadline = time.monotonic() + 120
            while True:
                for member in members:
                    for records in (await member.getmany(timeout_ms=100)).values():
                        seen.update((r.partition, r.offset) for r in records)
                split = balanced_split([[tp.partition for tp in m.assignment()] for m in members])
                positions = [await m.position(tp) for m in members for tp in m.assignment()]
                if (
                    expected(split, assignor)
                    and len(seen) == PARTITIONS * RECORDS_PER_PARTITION
                    and positions == [RECORDS_PER_PARTITION] * PARTITIONS
                ):
                    break
                assert time.monotonic() < deadline, "no %s split after 120 s: %s" % (assignor, split)
            for member in members:
                await member.commit()
        finally:
            for member in members:
                await member.stop()

    asyncio.run(run())
    assert committed_offsets(cluster, group, topic) == [RECORDS_PER_PARTITION] * PARTITIONS


def test_confluent_kafka_cooperative_sticky_members_split_the_topic(cluster):
    topic = make_topic(cluster, "gc", PARTITIONS, records_per_partition=RECORDS_PER_PARTITION)
    group = "coop-" + uuid.uuid4().hex[:6]
    members = [
        Consumer(
            {
                "bootstrap.servers": cluster.bootstrap_servers,
                "group.id": group,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "partition.assignment.strategy": "cooperative-sticky",
                "session.timeout.ms": 6000,
                "heartbeat.interval.ms": 500,
                "topic.metadata.refresh.interval.ms": 2000,
            }
        )
        for _ in range(2)
    ]
    seen = set()

    def settled():
        for member in members:
            message = member.poll(0.1)
            if message is not None and message.error() is None:
                seen.add((message.partition(), message.offset()))
        split = balanced_split([[tp.partition for tp in m.assignment()] for m in members])
        return expected(split, "cooperative-sticky") and len(seen) == PARTITIONS * RECORDS_PER_PARTITION

    try:
        for member in members:
            member.subscribe([topic])
        wait_for(settled, 120, interval=0.05, message="a cooperative-sticky split, every record consumed")
        for member in members:
            member.commit(asynchronous=False)
    finally:
        for member in members:
            member.close()
    assert committed_offsets(cluster, group, topic) == [RECORDS_PER_PARTITION] * PARTITIONS


def test_kcat_balanced_consumer_reads_every_record_and_commits(cluster):
    kcat = shutil.which("kcat")
    assert kcat is not None, "kcat is not installed (scripts/test.sh installs it)"
    topic = make_topic(cluster, "gc", PARTITIONS, records_per_partition=RECORDS_PER_PARTITION)
    group = "kcat-" + uuid.uuid4().hex[:6]
    total = PARTITIONS * RECORDS_PER_PARTITION
    done = subprocess.run(
        [
            kcat,
            "-b",
            cluster.bootstrap_servers,
            "-G",
            group,
            "-X",
            "auto.offset.reset=earliest",
            "-c",
            str(total),
            "-q",
            "-f",
            "%p:%o\\n",
            topic,
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    lines = done.stdout.decode().split()
    assert sorted(lines) == sorted("%d:%d" % (p, o) for p in range(PARTITIONS) for o in range(RECORDS_PER_PARTITION))
    assert committed_offsets(cluster, group, topic) == [RECORDS_PER_PARTITION] * PARTITIONS
