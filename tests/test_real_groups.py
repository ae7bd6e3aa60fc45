"""Consumer groups against three real brokers with confluent-kafka: sharing, leaving, eviction, resuming."""

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
import uuid

from confluent_kafka import Consumer, TopicPartition

from tests.cluster_support import GROUP_OVERRIDES, make_topic, module_cluster, wait_for

PARTITIONS = 12
cluster = module_cluster(overrides=GROUP_OVERRIDES)


def consumer(cluster, group, **extra):
    config = {
        "bootstrap.servers": cluster.bootstrap_servers,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
        "topic.metadata.refresh.interval.ms": 2000,
    }
    config.update(extra)
    return Consumer(config)


def poll_all(consumers, seconds=0.2):
    for c in consumers:
        c.poll(seconds)


def wait_assigned(consumers, total, timeout=90):
    """Poll every consumer until their assignments cover ``total`` partitions exactly once."""

    def covered():
        poll_all(consumers)
        owned = [tp.partition for c in consumers for tp in c.assignment()]
        return len(owned) == total and len(set(owned)) == total and all(c.assignment() for c in consumers)

    wait_for(covered, timeout, message="assignments covering %d partitions" % total)
    return {id(c): sorted(tp.partition for tp in c.assignment()) for c in consumers}


def test_three_consumers_share_then_two_take_over_after_one_leaves(cluster):
    topic = make_topic(cluster, "grp", PARTITIONS, records_per_partition=10)
    group = "share-" + uuid.uuid4().hex[:6]
    members = [consumer(cluster, group) for _ in range(3)]
    for c in members:
        c.subscribe([topic])
    owned = wait_assigned(members, PARTITIONS)
    assert sorted(p for parts in owned.values() for p in parts) == list(range(PARTITIONS))
    left_at = time.monotonic()
    members[2].close()  # LeaveGroup
    wait_assigned(members[:2], PARTITIONS)
    # Kafka rebalances at once on LeaveGroup: the others hear of it on their next heartbeat (0.5 s) and rejoin;
    # nothing waits for the leaver's 6 s session timeout.
    assert time.monotonic() - left_at < 6
    assert any("in group %s has left" % group in b.log_file.read_text(errors="replace") for b in cluster.brokers)
    for c in members[:2]:
        c.close()


def test_committed_offsets_survive_and_a_new_member_resumes_there(cluster):
    topic = make_topic(cluster, "grp", 3, records_per_partition=10)
    group = "resume-" + uuid.uuid4().hex[:6]
    first = consumer(cluster, group)
    first.subscribe([topic])
    seen = []
    wait_for(lambda: _consume_into(first, seen) and len(seen) >= 30, 90, message="30 records")
    # Commit 4 records into each partition.
    first.commit(offsets=[TopicPartition(topic, p, 4) for p in range(3)], asynchronous=False)
    committed = first.committed([TopicPartition(topic, p) for p in range(3)], timeout=30)
    assert [tp.offset for tp in committed] == [4, 4, 4]
    first.close()
    second = consumer(cluster, group)
    second.subscribe([topic])
    again = []
    wait_for(lambda: _consume_into(second, again) and len(again) >= 18, 90, message="18 records")
    assert sorted((p, int(v.split(b"-")[1])) for p, v in again)[:6] == [(0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 9)]
    assert len(again) == 18
    second.close()


def _line_ready(stream):
    return bool(select.select([stream], [], [], 0)[0])


def _consume_into(c, sink):
    message = c.poll(0.5)
    if message is not None and message.error() is None:
        sink.append((message.partition(), message.value()))
    return True


CHILD = textwrap.dedent("""
    import sys
    from confluent_kafka import Consumer
    c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2], "auto.offset.reset": "earliest",
                  "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
    c.subscribe([sys.argv[3]])
    while True:
        c.poll(0.2)
        if c.assignment():
            print("assigned", flush=True)
""")


def test_member_killed_without_leaving_is_evicted_after_session_timeout(cluster):
    topic = make_topic(cluster, "grp", 4, records_per_partition=1)
    group = "evict-" + uuid.uuid4().hex[:6]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, cluster.bootstrap_servers, group, topic],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        survivor = consumer(cluster, group)
        survivor.subscribe([topic])
        # The survivor keeps polling while the child starts: a librdkafka member that is not polled
        # heartbeats but does not rejoin, which holds a rebalance for its whole rebalance timeout (300 s).
        wait_for(lambda: (poll_all([survivor]), _line_ready(child.stdout))[1], 90, message="child assigned")
        assert child.stdout.readline().strip() == b"assigned"
        wait_for(
            lambda: (poll_all([survivor]), 0 < len(survivor.assignment()) < 4)[1],
            90,
            message="partitions split between two members",
        )
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(10)
        killed_at = time.monotonic()
        wait_for(
            lambda: (poll_all([survivor]), len(survivor.assignment()) == 4)[1],
            90,
            message="survivor owning all partitions",
        )
        assert time.monotonic() - killed_at >= 4  # not before the 6 s session timeout (minus poll slack)
        survivor.close()
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(10)
