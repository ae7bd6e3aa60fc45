"""Fetch sessions on real brokers: an incremental fetch sequence on the wire, and replication through sessions."""

import threading
import time

import pytest

from kafka_zk.record.records import encode_batch, iter_records
from tests.cluster_support import wait_for
from tests.raw_wire import RawConnection, produce, read_all
from tests.replication_support import fast_overrides, module_replication_cluster

FETCH_SESSION_ID_NOT_FOUND = 70
INVALID_FETCH_SESSION_EPOCH = 71
PARTITIONS = 4


cluster = module_replication_cluster(overrides=fast_overrides(min_insync_replicas=2))


def _fetch(conn, session_id, epoch, partitions=(), forgotten=(), topic=None, max_wait_ms=0, version=11):
    """One consumer Fetch; partitions [(topic, partition, offset)], forgotten [(topic, partition)].
    Returns (error, session_id, {(topic, partition): partition answer})."""
    topics, gone = {}, {}
    for name, index, offset in partitions:
        topics.setdefault(name, []).append(
            {
                "partition": index,
                "fetch_offset": offset,
                "log_start_offset": -1,
                "current_leader_epoch": -1,
                "partition_max_bytes": 1 << 20,
            }
        )
    for name, index in forgotten:
        gone.setdefault(name, []).append(index)
    response = conn.request(
        1,
        version,
        {
            "replica_id": -1,
            "max_wait_ms": max_wait_ms,
            "min_bytes": 1,
            "max_bytes": 1 << 22,
            "isolation_level": 0,
            "session_id": session_id,
            "session_epoch": epoch,
            "rack_id": "",
            "topics": [{"topic": name, "partitions": parts} for name, parts in topics.items()],
            "forgotten_topics_data": [{"topic": name, "partitions": parts} for name, parts in gone.items()],
        },
    )
    answers = {
        (entry["topic"], part["partition_index"]): part
        for entry in response["responses"]
        for part in entry["partitions"]
    }
    return response["error_code"], response.get("session_id", 0), answers


def _records(answer):
    return [record.value for record in iter_records(bytes(answer["records"] or b""))]


def _batch(*values):
    return encode_batch([(None, value) for value in values])


@pytest.mark.timeout(120)
def test_incremental_fetches_answer_only_what_changed_and_session_errors_follow_kafka(cluster):
    leader = cluster.brokers[0]
    topic = cluster.new_topic(
        "session-wire", assignments={0: [leader.broker_id], 1: [leader.broker_id]}, replication_factor=1
    )
    wait_for(
        lambda: produce(leader.bootstrap, topic, 1, _batch(b"warm-up"))[0] == 0,
        30,
        message="the leader to serve %s" % topic,
    )
    p0, p1 = (topic, 0), (topic, 1)
    with RawConnection(leader.bootstrap) as conn:
        error, session, answers = _fetch(conn, 0, 0, [(topic, 0, 0), (topic, 1, 0)])
        assert error == 0 and session > 0 and set(answers) == {p0, p1}  # a full answer names every partition
        assert _records(answers[p1]) == [b"warm-up"] and answers[p1]["high_watermark"] == 1

        # The fetcher moves p1 past what it got and nothing else changed: an empty answer, the session goes on.
        assert _fetch(conn, session, 1, [(topic, 1, 1)]) == (0, session, {})
        assert produce(leader.bootstrap, topic, 1, _batch(b"one", b"two")) == (0, 1)
        error, same, answers = _fetch(conn, session, 2)
        assert (error, same, set(answers)) == (0, session, {p1})
        assert answers[p1]["high_watermark"] == 3 and _records(answers[p1]) == [b"one", b"two"]
        # The same position again would get the same data; moved past it, nothing is new: empty.
        assert _fetch(conn, session, 3, [(topic, 1, 3)]) == (0, session, {})

        # A long poll waits on the session's partitions and answers only the one that got data.
        timer = threading.Timer(0.5, lambda: produce(leader.bootstrap, topic, 0, _batch(b"late")))
        started = time.monotonic()
        timer.start()
        try:
            error, same, answers = _fetch(conn, session, 4, max_wait_ms=20000)
        finally:
            timer.join()
        waited = time.monotonic() - started
        assert (error, same, set(answers)) == (0, session, {p0}) and _records(answers[p0]) == [b"late"]
        assert 0.4 < waited < 15, waited

        # Session errors: a repeated epoch, an unknown session id.
        assert _fetch(conn, session, 4) == (INVALID_FETCH_SESSION_EPOCH, 0, {})
        assert _fetch(conn, session + 1, 1)[:2] == (FETCH_SESSION_ID_NOT_FOUND, 0)

        # Forgotten partitions leave the session: new data there is not reported any more.
        assert _fetch(conn, session, 5, [(topic, 0, 1)], forgotten=[p1]) == (0, session, {})
        assert produce(leader.bootstrap, topic, 1, _batch(b"unseen")) == (0, 3)
        assert _fetch(conn, session, 6) == (0, session, {})
        # Forgetting the last partition closes the session.
        error, closed, _ = _fetch(conn, session, 7, forgotten=[p0])
        assert (error, closed) == (0, 0)
        assert _fetch(conn, session, 8)[:2] == (FETCH_SESSION_ID_NOT_FOUND, 0)

        # Epoch -1 is sessionless (and closes the session it names); Fetch v6 has no sessions at all.
        error, second, _ = _fetch(conn, 0, 0, [(topic, 0, 0)])
        assert error == 0 and second > 0
        error, none, answers = _fetch(conn, second, -1, [(topic, 0, 0)])
        assert (error, none, set(answers)) == (0, 0, {p0})
        assert _fetch(conn, second, 1)[:2] == (FETCH_SESSION_ID_NOT_FOUND, 0)
        error, _, answers = _fetch(conn, 0, 0, [(topic, 1, 0)], version=6)
        assert error == 0 and _records(answers[p1]) == [b"warm-up", b"one", b"two", b"unseen"]


def _log_values(broker, topic, partition):
    """The values in a replica's segment files, read straight from its log directory."""
    directory = broker.log_dir / ("%s-%d" % (topic, partition))
    data = b"".join(path.read_bytes() for path in sorted(directory.glob("*.log")))
    return [record.value for record in iter_records(data)]


def _produce_all(cluster, topic, round_name):
    """One acks=all batch per partition to its current leader; returns {partition: [values]}."""
    sent = {}
    for partition in range(PARTITIONS):
        values = [b"%s-%d-%d" % (round_name, partition, i) for i in range(5)]

        def attempt():
            leader = cluster.state(topic, partition)["leader"]
            if leader < 0 or not cluster.broker(leader).is_running():
                return None
            try:
                error, _ = produce(cluster.broker(leader).bootstrap, topic, partition, _batch(*values), acks=-1)
            except OSError:
                return None
            return error == 0

        wait_for(attempt, 60, message="an acks=all produce to %s-%d" % (topic, partition))
        sent[partition] = values
    return sent


@pytest.mark.timeout(240)
def test_followers_replicate_through_sessions_across_a_leader_kill(cluster):
    replicas = [b.broker_id for b in cluster.brokers]
    topic = cluster.new_topic("session-repl", partitions=PARTITIONS, replication_factor=3)
    cluster.wait_full_isr(topic, range(PARTITIONS), replicas)
    expected = {p: [] for p in range(PARTITIONS)}
    for partition, values in _produce_all(cluster, topic, b"before").items():
        expected[partition] += values

    controller = cluster.wait_controller()
    leaders = {p: cluster.state(topic, p)["leader"] for p in range(PARTITIONS)}
    victim_id = sorted(set(leaders.values()) - {controller} or set(leaders.values()))[0]
    victim = cluster.broker(victim_id)
    victim.kill()
    for partition in range(PARTITIONS):
        cluster.wait_state(
            topic,
            lambda s: s["leader"] not in (-1, victim_id) and victim_id not in s["isr"],
            30,
            partition,
            "a live leader and an ISR without %d" % victim_id,
        )
    for partition, values in _produce_all(cluster, topic, b"after").items():
        expected[partition] += values

    cluster.restart_killed(victim)
    cluster.wait_full_isr(topic, range(PARTITIONS), replicas)  # the restarted follower caught up
    for partition in range(PARTITIONS):
        leader = cluster.broker(cluster.state(topic, partition)["leader"])
        records = read_all(leader.bootstrap, topic, partition)
        assert [r.value for r in records] == expected[partition]
        assert [r.offset for r in records] == list(range(len(expected[partition])))  # the watermark is at the end
        for broker in cluster.brokers:  # every replica, the restarted one too, holds exactly those records
            wait_for(
                lambda b=broker: _log_values(b, topic, partition) == expected[partition],
                30,
                message="broker %d's copy of %s-%d" % (broker.broker_id, topic, partition),
            )
