"""Consumer groups through restarts and failures on three real brokers: static membership (a restarted static
member gets its partitions back without a rebalance of the others; a duplicate instance is fenced), and kill -9
of the coordinator broker (the controller or not) while subprocess members consume and commit, one member
dying with it so that the new coordinator evicts it and rebalances the loaded group."""

import json
import subprocess
import sys
import textwrap
import threading
import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from kafka_zk.coordinator.group.records import partition_for
from tests.cluster_support import make_topic, wait_for
from tests.raw_wire import request
from tests.replication_support import fast_overrides, module_replication_cluster

PARTITIONS = 6
OFFSETS_PARTITIONS = 6
OFFSETS_TOPIC = "__consumer_offsets"
FENCED_INSTANCE_ID = 82
# Dead brokers are noticed after the 6 s ZooKeeper session; followers keep Kafka 2.5's 30 s lag allowance so
# that a loaded machine does not shrink an ISR just before the kill (the controller drops dead replicas at once).
OVERRIDES = dict(
    fast_overrides(replica_lag_time_max_ms=30000),
    **{
        "offsets.topic.replication.factor": "3",
        "offsets.topic.num.partitions": str(OFFSETS_PARTITIONS),
        "group.initial.rebalance.delay.ms": "0",
    },
)


cluster = module_replication_cluster(overrides=OVERRIDES)


def loaded_topic(cluster, records_per_partition):
    name = make_topic(cluster, "gf", PARTITIONS, configs={"min.insync.replicas": "2"})
    produce(cluster, name, 0, records_per_partition)
    return name


def produce(cluster, topic, first, count, pause=0.0):
    """count records into every partition, acks=all; with a pause, one record per partition per pause."""
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "message.timeout.ms": 120000})
    failures = []
    for index in range(first, first + count):
        for partition in range(PARTITIONS):
            producer.produce(
                topic,
                value=b"%d-%d" % (partition, index),
                partition=partition,
                on_delivery=lambda error, message: error and failures.append(error),
            )
        producer.poll(pause)
    assert producer.flush(120) == 0 and not failures, failures


def coordinator_id(cluster, group, timeout=90):
    """The node id FindCoordinator names for the group (asked of every running broker until one answers)."""

    def find():
        for broker in cluster.brokers:
            if not broker.is_running():
                continue
            try:
                answer = request(broker.bootstrap, 10, 2, {"key": group, "key_type": 0})
            except OSError:
                continue
            if answer["error_code"] == 0:
                return (answer["node_id"],)
        return None

    return wait_for(find, timeout, interval=0.2, message="a coordinator for " + group)[0]


def offsets_leader(cluster, group):
    return cluster.state(OFFSETS_TOPIC, partition_for(group, OFFSETS_PARTITIONS))["leader"]


def rebalances_logged(cluster, group):
    """How many rebalances the group's coordinators have logged (every broker's log, read from the start)."""
    needle = "Preparing to rebalance group %s " % group
    return sum(broker.log_file.read_text(errors="replace").count(needle) for broker in cluster.brokers)


class StaticMember:
    """A confluent-kafka static member recording the assignments and revocations its application is handed."""

    def __init__(self, cluster, group, topic, instance):
        self.assigned, self.revoked, self.errors = [], [], []
        self.consumer = Consumer(
            {
                "bootstrap.servers": cluster.bootstrap_servers,
                "group.id": group,
                "group.instance.id": instance,
                "session.timeout.ms": 10000,
                "heartbeat.interval.ms": 500,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "topic.metadata.refresh.interval.ms": 2000,
            }
        )
        self.consumer.subscribe(
            [topic],
            on_assign=lambda c, parts: self.assigned.append(sorted(p.partition for p in parts)),
            on_revoke=lambda c, parts: self.revoked.append(sorted(p.partition for p in parts)),
        )

    def poll(self):
        message = self.consumer.poll(0.1)
        if message is not None and message.error() is not None:
            self.errors.append(message.error())

    def partitions(self):
        return sorted(tp.partition for tp in self.consumer.assignment())


def poll_until(members, condition, timeout=90, message="condition"):
    def check():
        for member in members:
            member.poll()
        return condition()

    return wait_for(check, timeout, interval=0.01, message=message)


def covering(members):
    owned = [p for m in members for p in m.partitions()]
    return sorted(owned) == list(range(PARTITIONS)) and all(m.partitions() for m in members)


def test_restarted_static_member_gets_its_partitions_back_and_a_duplicate_is_fenced(cluster):
    topic = loaded_topic(cluster, 2)
    group = "static-" + uuid.uuid4().hex[:6]
    members = [StaticMember(cluster, group, topic, "instance-%d" % i) for i in range(3)]
    poll_until(members, lambda: covering(members), message="three static members covering the topic")
    before = {i: m.partitions() for i, m in enumerate(members)}
    others_seen = [(list(m.assigned), list(m.revoked)) for m in members[1:]]
    rebalances = rebalances_logged(cluster, group)
    members[0].consumer.close()  # a static member sends no LeaveGroup: the group stays Stable
    restarted = StaticMember(cluster, group, topic, "instance-0")
    members[0] = restarted
    poll_until(
        members,
        lambda: restarted.partitions() == before[0],
        timeout=60,
        message="the restarted static member holding its old partitions",
    )
    for _ in range(20):  # two seconds more: the others are handed nothing new, revoke nothing
        poll_until(members, lambda: True)
    assert [(list(m.assigned), list(m.revoked)) for m in members[1:]] == others_seen
    assert {i: m.partitions() for i, m in enumerate(members)} == before
    assert rebalances_logged(cluster, group) == rebalances

    # A second process with the same group.instance.id takes the id over; the older incarnation is fenced
    # (FENCED_INSTANCE_ID on its next heartbeat, a fatal error for librdkafka).
    old_member_id = restarted.consumer.memberid()
    duplicate = StaticMember(cluster, group, topic, "instance-0")
    poll_until(
        members + [duplicate],
        lambda: any(e.code() == KafkaError._FATAL for e in restarted.errors),
        timeout=60,
        message="the older incarnation fenced",
    )
    assert any("fenced" in e.str().lower() for e in restarted.errors), [e.str() for e in restarted.errors]
    poll_until(
        [members[1], members[2], duplicate],
        lambda: duplicate.partitions() == before[0],
        timeout=60,
        message="the duplicate holding the instance's partitions",
    )
    assert duplicate.consumer.memberid() != old_member_id
    assert rebalances_logged(cluster, group) == rebalances

    # On the wire: the fenced member id's heartbeat and commit both answer FENCED_INSTANCE_ID (Kafka 2.5).
    coordinator = cluster.broker(coordinator_id(cluster, group)).bootstrap
    heartbeat = request(
        coordinator,
        12,
        3,
        {"group_id": group, "generation_id": 1, "member_id": old_member_id, "group_instance_id": "instance-0"},
    )
    assert heartbeat["error_code"] == FENCED_INSTANCE_ID
    commit = request(
        coordinator,
        8,
        7,
        {
            "group_id": group,
            "generation_id": 1,
            "member_id": old_member_id,
            "group_instance_id": "instance-0",
            "topics": [
                {
                    "name": topic,
                    "partitions": [
                        {
                            "partition_index": before[0][0],
                            "committed_offset": 1,
                            "committed_leader_epoch": -1,
                            "committed_metadata": "",
                        }
                    ],
                }
            ],
        },
    )
    assert [p["error_code"] for t in commit["topics"] for p in t["partitions"]] == [FENCED_INSTANCE_ID]
    for member in (members[1], members[2], duplicate):
        member.consumer.close()
    restarted.consumer.close()


# A kafka-python member: consumes, commits what it consumed synchronously (retrying a commit that failed during
# the failover until it succeeds or its partitions are revoked) and reports each step as a JSON line.
MEMBER = textwrap.dedent("""
    import json, sys
    from kafka import KafkaConsumer, ConsumerRebalanceListener
    from kafka.structs import OffsetAndMetadata
    bootstrap, group, topic = sys.argv[1:4]
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, auto_offset_reset="earliest",
                             enable_auto_commit=False, session_timeout_ms=6000, heartbeat_interval_ms=500,
                             metadata_max_age_ms=2000, request_timeout_ms=10000, retry_backoff_ms=100)
    pending = {}

    def say(**event):
        print(json.dumps(event), flush=True)

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            for tp in revoked:
                pending.pop(tp, None)
            say(revoked=sorted(tp.partition for tp in revoked))

        def on_partitions_assigned(self, assigned):
            say(assigned=sorted(tp.partition for tp in assigned),
                generation=consumer._coordinator._generation.generation_id)

    consumer.subscribe([topic], listener=Listener())
    while True:
        batches = consumer.poll(timeout_ms=500, max_records=20)
        for tp, records in batches.items():
            say(records=[[tp.partition, r.offset] for r in records])
            pending[tp] = OffsetAndMetadata(records[-1].offset + 1, "", -1)
        if pending:
            offsets = dict(pending)
            try:
                consumer.commit(offsets)
            except Exception as exc:
                say(commit_failed=repr(exc))
                continue
            for tp, offset in offsets.items():
                if pending.get(tp) == offset:
                    del pending[tp]
            say(committed={tp.partition: o.offset for tp, o in offsets.items()})
""")


class MemberProcess:
    def __init__(self, cluster, group, topic):
        self.process = subprocess.Popen(
            [sys.executable, "-c", MEMBER, cluster.bootstrap_servers, group, topic],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.events = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.events.append(json.loads(line))

    def assignment(self):
        assigned = [e for e in self.events if "assigned" in e]
        return assigned[-1]["assigned"] if assigned else []

    def generation(self):
        assigned = [e for e in self.events if "assigned" in e]
        return assigned[-1]["generation"] if assigned else -1

    def stop(self):
        self.process.kill()
        self.process.wait(30)


def acknowledged_commits(members):
    best = {}
    for member in members:
        for event in list(member.events):
            for partition, offset in event.get("committed", {}).items():
                best[int(partition)] = max(best.get(int(partition), 0), offset)
    return best


def group_coordinated_by(cluster, role):
    """A fresh group id whose offsets partition is led by the controller (role "controller") or by another
    broker, checked against FindCoordinator."""
    coordinator_id(cluster, "warm-up")  # creates __consumer_offsets on first use
    cluster.wait_full_isr(OFFSETS_TOPIC, range(OFFSETS_PARTITIONS), [0, 1, 2], timeout=90)
    controller = cluster.wait_controller()
    for _ in range(200):
        group = "failover-" + uuid.uuid4().hex[:6]
        if (offsets_leader(cluster, group) == controller) == (role == "controller"):
            wait_for(
                lambda: coordinator_id(cluster, group) == offsets_leader(cluster, group),
                30,
                message="FindCoordinator naming the leader of the group's offsets partition",
            )
            return group, controller
    raise AssertionError("no group id found for a coordinator that is %s" % role)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("role", ["controller", "not the controller"])
def test_kill_9_of_the_coordinator_moves_the_group_and_loses_no_acknowledged_commit(cluster, role):
    first_batch, second_batch = 30, 60
    total = first_batch + second_batch
    topic = loaded_topic(cluster, first_batch)
    cluster.wait_full_isr(topic, range(PARTITIONS), [0, 1, 2], timeout=60)
    group, controller = group_coordinated_by(cluster, role)
    members = [MemberProcess(cluster, group, topic) for _ in range(3)]
    survivors = members[:2]
    victim = None
    try:
        wait_for(
            lambda: (
                acknowledged_commits(members) == {p: first_batch for p in range(PARTITIONS)}
                and sorted(p for m in members for p in m.assignment()) == list(range(PARTITIONS))
                and all(m.assignment() for m in members)
            ),
            120,
            message="three members sharing the topic, the first batch committed",
        )
        generation = max(m.generation() for m in members)
        old_coordinator = coordinator_id(cluster, group)
        assert (old_coordinator == controller) == (role == "controller")
        victim = cluster.broker(old_coordinator)
        producing = threading.Thread(target=produce, args=(cluster, topic, first_batch, second_batch, 0.05))
        producing.start()
        wait_for(
            lambda: any(o > first_batch for o in acknowledged_commits(members).values()),
            60,
            message="commits of the second batch",
        )
        victim.kill()  # while the members consume and commit
        members[2].stop()  # a member dies with it: the new coordinator must evict it and rebalance
        producing.join(150)
        assert not producing.is_alive()

        def moved():
            leader = offsets_leader(cluster, group)
            return (leader,) if leader not in (-1, old_coordinator) else None

        new_leader = wait_for(moved, 60, message="a new leader of the group's offsets partition")[0]
        wait_for(
            lambda: coordinator_id(cluster, group) == new_leader,
            30,  # the group moved with its partition
            message="FindCoordinator naming the new leader %d" % new_leader,
        )
        if role == "controller":
            assert cluster.wait_controller(not_id=old_coordinator) != old_coordinator

        acknowledged = acknowledged_commits(members)  # every commit acknowledged so far, by either coordinator
        reader = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group})
        try:
            stored = reader.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=60)
            assert all(tp.offset >= acknowledged[tp.partition] for tp in stored), (stored, acknowledged)
            # A producer retrying across the failover may write a record twice: the end offsets are the truth.
            ends = {p: reader.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in range(PARTITIONS)}
            assert all(end >= total for end in ends.values()), ends
            wait_for(
                lambda: acknowledged_commits(members) == ends, 120, message="every record committed after the failover"
            )
            wait_for(
                lambda: sorted(p for m in survivors for p in m.assignment()) == list(range(PARTITIONS)),
                60,
                message="the two survivors owning every partition",
            )
            assert min(m.generation() for m in survivors) > generation
            stored = reader.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=60)
            assert {tp.partition: tp.offset for tp in stored} == ends
        finally:
            reader.close()
        consumed = {(p, o) for m in members for e in list(m.events) for p, o in e.get("records", [])}
        assert consumed >= {(p, o) for p in range(PARTITIONS) for o in range(ends[p])}  # at-least-once
        owners = {}
        for index, member in enumerate(members):
            for event in list(member.events):
                for partition in event.get("assigned", []):
                    key = (event["generation"], partition)
                    assert owners.setdefault(key, index) == index, "partition %d owned twice in generation %d" % (
                        partition,
                        event["generation"],
                    )
    finally:
        for member in members:
            member.stop()
        if victim is not None:
            cluster.restart_killed(victim)
            cluster.wait_full_isr(OFFSETS_TOPIC, range(OFFSETS_PARTITIONS), [0, 1, 2], timeout=90)
