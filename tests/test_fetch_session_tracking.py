"""A follower's fetch session reads only its changed partitions: the pure session side, the leader's follower
state that follows the session's fetches, and the replica manager that reports changes (task.Clock, real logs)."""

import random

import pytest
from twisted.internet import task

from kafka_zk.common.clock import milliseconds
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.replication.fetch_session import (
    FULL_SWEEP_MS,
    FetchManager,
    FetchSessionCache,
    IncrementalFetchContext,
    PartitionRequest,
)
from kafka_zk.server.replication.fetch_session_handler import FetchSessionHandler
from kafka_zk.server.replication.partition import FollowerState
from kafka_zk.server.replication.results import FetchResult
from tests.replica_manager_support import replica_manager

A0, A1, B0 = ("a", 0), ("a", 1), ("b", 0)


def req(tp, offset):
    return PartitionRequest(tp, offset, 1024, 0, 0)


def res(hw, records=b""):
    return FetchResult(Errors.NONE, records, hw, 0, hw)


def follower_session(fm, quiet, now=0):
    data = {A0: req(A0, 5), A1: req(A1, 7), B0: req(B0, 9)}
    context = fm.new_context(0, 0, data, [], True, now)
    context.fetched(now)
    error, session_id, _ = context.update_and_generate({tp: res(r.fetch_offset) for tp, r in data.items()}, now)
    context.session.settle(quiet)
    return session_id, context.session


def incremental(fm, session, now, data=None, forget=()):
    context = fm.new_context(session.id, session.epoch, data or {}, list(forget), True, now)
    assert isinstance(context, IncrementalFetchContext)
    return context


def test_a_follower_session_reads_only_what_changed_since_its_quiet_partitions_settled():
    fm = FetchManager(FetchSessionCache(10, 1000, random.Random(3)))
    _, session = follower_session(fm, quiet=[A0, B0])
    assert [tp for tp, _ in incremental(fm, session, 10).partitions()] == [A1]
    session.settle([A1])
    idle = incremental(fm, session, 20)
    assert idle.partitions() == []
    idle.fetched(20)
    assert session.last_fetch_ms == 20
    assert fm.cache.mark_changed([B0, ("other", 0)]) == {session.id}
    assert [tp for tp, _ in incremental(fm, session, 30).partitions()] == [B0]
    named = incremental(fm, session, 40, {A0: req(A0, 6)})
    assert [tp for tp, _ in named.partitions()] == [B0, A0]
    assert [tp for tp, _ in named.changed_since({B0})] == [A0]


def test_forgotten_partitions_are_no_longer_watched_and_a_sweep_reads_everything():
    fm = FetchManager(FetchSessionCache(10, 1000, random.Random(3)))
    _, session = follower_session(fm, quiet=[A0, A1, B0])
    incremental(fm, session, 10, forget=[A1])
    assert fm.cache.mark_changed([A1]) == set()
    sweep = incremental(fm, session, FULL_SWEEP_MS)
    assert [tp for tp, _ in sweep.partitions()] == [A0, B0]
    assert incremental(fm, session, FULL_SWEEP_MS + 10).partitions() == []


def test_consumer_sessions_read_every_partition_and_closed_sessions_stop_watching():
    fm = FetchManager(FetchSessionCache(10, 1000, random.Random(3)))
    data = {A0: req(A0, 5), A1: req(A1, 7)}
    context = fm.new_context(0, 0, data, [], False, 0)
    _, consumer_id, _ = context.update_and_generate({tp: res(5) for tp in data}, 0)
    consumer = fm.cache.get(consumer_id)
    assert [tp for tp, _ in incremental_any(fm, consumer, 10).partitions()] == [A0, A1]
    assert fm.cache.mark_changed([A0]) == set()
    _, follower = follower_session(fm, quiet=[A0])
    fm.cache.remove(follower.id)
    assert fm.cache.watchers == {}


def incremental_any(fm, session, now):
    return fm.new_context(session.id, session.epoch, {}, [], False, now)


def test_follower_state_follows_the_session_while_quiet_and_keeps_what_it_told_after():
    session = type("Session", (), {"last_fetch_ms": 100})()
    state = FollowerState()
    state.update(10, 0, 100, 10)
    state.quiet_in = session
    session.last_fetch_ms = 900
    assert (state.last_caught_up_ms, state.last_fetch_ms) == (900, 900)
    # the leader appended after the fetch at 900; the next fetch (at 1500) still asks from 10: caught up at 900
    state.update(10, 0, 1500, 12)
    assert state.quiet_in is None and state.last_caught_up_ms == 900 and state.last_fetch_ms == 1500
    session.last_fetch_ms = 2000
    assert state.last_caught_up_ms == 900
    state.quiet_in = session
    state.unlink()
    session.last_fetch_ms = 3000
    assert (state.last_caught_up_ms, state.last_fetch_ms) == (2000, 2000)


def test_handler_builds_incremental_requests_from_changes_alone():
    handler = FetchSessionHandler()
    handler.build({A0: req(A0, 5), A1: req(A1, 7)})
    assert handler.handle_response(Errors.NONE, 77, [A0, A1]) and not handler.next_is_full
    same = handler.session_partitions[A0]
    data = handler.build_changes({A0: same, A1: None, B0: req(B0, 1)})
    assert (data.to_send, data.to_forget, set(data.session_partitions)) == ({B0: req(B0, 1)}, [A1], {A0, B0})
    assert handler.build_changes({A1: None}).to_forget == []


CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})
TPS = [("t", 0), ("t", 1)]
FOLLOWER = 2


@pytest.fixture
def leader(tmp_path):
    """A leader with two partitions replicated to broker 2, whose follower session the tests drive."""
    clock = task.Clock()
    clock.advance(100)
    logs = LogManager([str(tmp_path / "a")], LogConfig(), clock)
    manager = replica_manager(
        1, logs, lambda topic: dict(CONFIG), clock, fetch_sessions=FetchSessionCache(10, 1000, random.Random(5))
    )
    manager.become_leader_or_follower(
        [
            {
                "topic": "t",
                "partition": p,
                "leader": 1,
                "leader_epoch": 0,
                "isr": [1, FOLLOWER],
                "replicas": [1, FOLLOWER],
                "zk_version": 0,
                "controller_epoch": 1,
            }
            for _, p in TPS
        ],
        {},
    )
    reads = []
    real_read = manager.read_partitions

    def counted_read(infos, *args, **kwargs):
        reads.append([info.tp for info in infos])
        return real_read(infos, *args, **kwargs)

    manager.read_partitions = counted_read
    manager.reads, manager.clock = reads, clock
    manager.fm = FetchManager(manager.fetch_sessions)
    return manager


def follower_fetch(manager, session_id, epoch, offsets):
    """One fetch of the follower's session, handled as the Fetch API does; returns the list its answer lands in."""
    now = milliseconds(manager.clock)
    data = {tp: PartitionRequest(tp, offset, 1 << 20, 0, 0) for tp, offset in offsets.items()}
    context = manager.fm.new_context(session_id, epoch, data, [], True, now)
    tracking = context.session is not None and context.session.tracks_changes
    answers = []

    def build(results):
        merged = dict(results)
        error, sid, answer = context.update_and_generate(merged, milliseconds(manager.clock))
        session = context.session
        if session is not None:
            session.settle(manager.link_quiet_followers(FOLLOWER, merged, session))
        answers.append((sid, answer))

    manager.fetch_messages(
        500, 1, 1 << 20, [info for _, info in context.partitions()], FOLLOWER, session=context if tracking else None
    ).addCallback(build)
    context.fetched(now)
    return answers


def test_an_idle_follower_fetch_reads_nothing_and_an_append_wakes_it_with_the_data(leader):
    answers = follower_fetch(leader, 0, 0, {tp: 0 for tp in TPS})
    leader.clock.advance(0.5)
    ((session_id, _),) = answers
    session = leader.fetch_sessions.get(session_id)
    assert session.changed == {}
    answers = follower_fetch(leader, session_id, 1, {})
    assert leader.reads[-1] == []
    leader.clock.advance(0.3)
    leader.append_records(1000, 1, {("t", 1): encode_batch([(None, b"v")])})
    leader.clock.advance(0)  # the end of the reactor turn wakes the parked fetch
    ((_, answer),) = answers
    assert list(answer) == [("t", 1)] and answer[("t", 1)].records != b""
    assert leader.reads[-1] == [("t", 1)]
    # quiet (t, 0) counts as fetched at every session fetch: its follower stays caught up
    follower = leader.partitions[("t", 0)].followers[FOLLOWER]
    assert follower.quiet_in is session and follower.last_caught_up_ms == session.last_fetch_ms == 100500


def test_the_follower_catching_up_moves_the_high_watermark_then_the_partition_is_quiet_again(leader):
    answers = follower_fetch(leader, 0, 0, {tp: 0 for tp in TPS})
    leader.clock.advance(0.5)
    ((session_id, _),) = answers
    leader.append_records(1000, 1, {("t", 0): encode_batch([(None, b"v")])})
    follower_fetch(leader, session_id, 1, {})  # completes at once with the record
    answers = follower_fetch(leader, session_id, 2, {("t", 0): 1})
    assert leader.partitions[("t", 0)].high_watermark == 1
    leader.clock.advance(0.5)
    ((_, answer),) = answers
    assert answer[("t", 0)].high_watermark == 1
    assert leader.fetch_sessions.get(session_id).changed == {}
    follower_fetch(leader, session_id, 3, {})
    assert leader.reads[-1] == []


def test_a_follower_that_stops_fetching_leaves_the_isr_though_its_partitions_were_quiet(leader):
    answers = follower_fetch(leader, 0, 0, {tp: 0 for tp in TPS})
    leader.clock.advance(0.5)
    assert answers
    partition = leader.partitions[("t", 0)]
    leader.clock.advance(leader.replica_lag_time_max_ms / 1000.0 + 1)
    assert partition.isr_to_shrink(milliseconds(leader.clock), leader.replica_lag_time_max_ms) == [1]


def test_a_follower_leaving_the_isr_stops_following_its_session(leader):
    answers = follower_fetch(leader, 0, 0, {tp: 0 for tp in TPS})
    leader.clock.advance(0.5)
    ((session_id, _),) = answers
    session = leader.fetch_sessions.get(session_id)
    partition = leader.partitions[("t", 0)]
    follower = partition.followers[FOLLOWER]
    assert follower.quiet_in is session
    partition.apply_isr([1], 1)
    session.last_fetch_ms += 60000
    assert follower.quiet_in is None and follower.last_caught_up_ms < session.last_fetch_ms
