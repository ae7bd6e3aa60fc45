"""Group consumer: ConsumerProtocol encoding and the assignors (pure), then real groups on three brokers,
mixed with a confluent-kafka member."""

import uuid

import pytest
from confluent_kafka import Consumer as ConfluentConsumer

from kafka_zk.client.assignors import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    range_assign,
    roundrobin_assign,
)
from kafka_zk.client.group_consumer import GroupConsumer
from tests.cluster_support import GROUP_OVERRIDES, make_topic, module_cluster, wait_for

# -- pure parts ----------------------------------------------------------------------------------


def test_subscription_v1_bytes_match_the_java_layout():
    data = encode_subscription(["t"], owned_partitions=[("t", 2)])
    assert data == (
        b"\x00\x01"
        + b"\x00\x00\x00\x01"
        + b"\x00\x01t"
        + b"\xff\xff\xff\xff"
        + b"\x00\x00\x00\x01"
        + b"\x00\x01t"
        + b"\x00\x00\x00\x01"
        + b"\x00\x00\x00\x02"
    )
    assert decode_subscription(data) == (["t"], None, [("t", 2)])


def test_subscription_v0_and_later_versions_decode():
    v0 = encode_subscription(["b", "a"], user_data=b"ud", version=0)
    assert v0 == b"\x00\x00\x00\x00\x00\x02\x00\x01a\x00\x01b\x00\x00\x00\x02ud"
    assert decode_subscription(v0) == (["a", "b"], b"ud", [])
    future = encode_subscription(["a"], version=1)[:0] + b"\x00\x05" + encode_subscription(["a"])[2:] + b"extra"
    assert decode_subscription(future).topics == ["a"]


def test_assignment_round_trip_and_empty():
    data = encode_assignment([("t", 1), ("t", 0), ("u", 3)])
    assert data[:2] == b"\x00\x01" and data.endswith(b"\xff\xff\xff\xff")
    assert decode_assignment(data) == [("t", 0), ("t", 1), ("u", 3)]
    assert decode_assignment(b"") == []


def test_range_assignor_matches_kafkas_example():
    # RangeAssignor javadoc: C0, C1 on t0, t1 with 3 partitions each.
    result = range_assign({"t0": 3, "t1": 3}, {"C1": ["t0", "t1"], "C0": ["t0", "t1"]})
    assert result == {"C0": [("t0", 0), ("t0", 1), ("t1", 0), ("t1", 1)], "C1": [("t0", 2), ("t1", 2)]}


def test_range_assignor_only_gives_subscribed_topics():
    result = range_assign({"a": 4, "b": 2}, {"m1": ["a"], "m2": ["a", "b"], "m3": ["b", "missing"]})
    assert result == {"m1": [("a", 0), ("a", 1)], "m2": [("a", 2), ("a", 3), ("b", 0)], "m3": [("b", 1)]}


def test_roundrobin_assignor_matches_kafkas_examples():
    result = roundrobin_assign({"t0": 3, "t1": 3}, {"C0": ["t0", "t1"], "C1": ["t0", "t1"]})
    assert result == {"C0": [("t0", 0), ("t0", 2), ("t1", 1)], "C1": [("t0", 1), ("t1", 0), ("t1", 2)]}
    # Javadoc's second example: C0 on t0; C1 on t0, t1; C2 on t0, t1, t2 (1, 2, 3 partitions).
    result = roundrobin_assign(
        {"t0": 1, "t1": 2, "t2": 3}, {"C0": ["t0"], "C1": ["t0", "t1"], "C2": ["t0", "t1", "t2"]}
    )
    assert result == {"C0": [("t0", 0)], "C1": [("t1", 0)], "C2": [("t1", 1), ("t2", 0), ("t2", 1), ("t2", 2)]}


# -- real cluster --------------------------------------------------------------------------------

cluster = module_cluster(overrides=GROUP_OVERRIDES)


def ours(cluster, group, topic, **options):
    options.setdefault("auto_offset_reset", "earliest")
    options.setdefault("session_timeout_ms", 6000)
    options.setdefault("heartbeat_interval_ms", 500)
    return GroupConsumer(cluster.bootstrap_servers, group, [topic], **options)


def drain(consumer, expected, timeout=60):
    seen = []
    wait_for(lambda: seen.extend(consumer.poll(500)) or len(seen) >= expected, timeout, message="%d records" % expected)
    return seen


def test_one_member_reads_everything_commits_and_a_successor_resumes(cluster):
    topic = make_topic(cluster, "gc", 3, records_per_partition=5)
    group = "solo-" + uuid.uuid4().hex[:6]
    first = ours(cluster, group, topic, enable_auto_commit=False)
    records = drain(first, 15)
    assert sorted((r.partition, r.offset) for r in records) == [(p, o) for p in range(3) for o in range(5)]
    assert first.generation >= 1 and first.leader
    first.commit({(topic, p): 2 for p in range(3)})
    first.close()
    second = ours(cluster, group, topic, enable_auto_commit=True, auto_commit_interval_ms=100)
    records = drain(second, 9)
    assert sorted((r.partition, r.offset) for r in records) == [(p, o) for p in range(3) for o in range(2, 5)]
    second.close()  # auto-commit on close: everything consumed
    checker = ours(cluster, group, topic)
    assert checker.committed([(topic, p) for p in range(3)]) == {(topic, p): 5 for p in range(3)}
    checker.close()


@pytest.mark.parametrize("assignor", ["range", "roundrobin"])
def test_our_member_and_a_confluent_member_share_a_group(cluster, assignor):
    topic = make_topic(cluster, "gc", 4, records_per_partition=3)
    group = "mixed-" + uuid.uuid4().hex[:6]
    mine = ours(cluster, group, topic, enable_auto_commit=False, assignors=(assignor,))
    mine.poll(100)
    assert sorted(p for _, p in mine.assignment()) == [0, 1, 2, 3]
    theirs = ConfluentConsumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": group,
            "partition.assignment.strategy": assignor,
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 500,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    theirs.subscribe([topic])

    def shared():
        mine.poll(100)
        theirs.poll(0.1)
        owned = sorted([p for _, p in mine.assignment()] + [tp.partition for tp in theirs.assignment()])
        return owned == [0, 1, 2, 3] and mine.assignment() and theirs.assignment()

    wait_for(shared, 90, message="the two members sharing 4 partitions")
    assert len(mine.assignment()) == 2
    theirs.close()  # LeaveGroup: our member rejoins and takes all four
    wait_for(lambda: mine.poll(100) is not None and len(mine.assignment()) == 4, 90, message="takeover")
    mine.close()


def test_close_commits_while_a_rebalance_is_pending(cluster):
    topic = make_topic(cluster, "gc", 2, records_per_partition=4)
    group = "pending-" + uuid.uuid4().hex[:6]
    mine = ours(cluster, group, topic, enable_auto_commit=True, auto_commit_interval_ms=600000)
    assert len(drain(mine, 8)) == 8
    newcomer = ConfluentConsumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": group,
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 500,
            "enable.auto.commit": False,
        }
    )
    try:
        newcomer.subscribe([topic])
        wait_for(
            lambda: newcomer.poll(0.1) is None and mine._rejoin_needed,
            60,
            message="our member told of the rebalance by its heartbeat",
        )
        mine.close()  # the group is PreparingRebalance: the commit of the current generation still counts
        checker = ours(cluster, group, topic)
        assert checker.committed([(topic, 0), (topic, 1)]) == {(topic, 0): 4, (topic, 1): 4}
        checker.close()
    finally:
        newcomer.close()
