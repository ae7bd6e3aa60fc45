"""Wake-ups batched per reactor turn: the pure TurnBatch, and a leader's ReplicaManager (task.Clock, real logs) whose
parked follower fetches and waiting acks=-1 produces are tried once at the end of the turn that appended or moved
a high watermark."""

import weakref

import pytest
from twisted.internet import task

from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.batch_header import iter_batch_headers
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.replication.delayed import DelayedProduce
from kafka_zk.server.replication.results import FetchInfo
from kafka_zk.server.replication.turn_batch import TurnBatch
from tests.replica_manager_support import replica_manager

A, B, C = ("a", 0), ("b", 0), ("c", 0)


def test_a_turn_hands_over_each_partition_once_in_the_order_first_seen():
    clock = task.Clock()
    flushed = []
    batch = TurnBatch(clock, lambda appended, advanced: flushed.append((appended, advanced)))
    batch.appended([A, B])
    batch.advanced([C])
    batch.appended([B, C])
    batch.advanced([])
    assert flushed == [] and batch.pending and len(clock.getDelayedCalls()) == 1
    clock.advance(0)
    assert flushed == [([A, B, C], [C])] and not batch.pending
    clock.advance(0)
    assert len(flushed) == 1  # nothing gathered, nothing handed over
    batch.advanced([A])
    clock.advance(0)
    assert flushed[-1] == ([], [A])


def test_a_turn_can_be_handed_over_early_or_dropped():
    clock = task.Clock()
    flushed = []
    batch = TurnBatch(clock, lambda appended, advanced: flushed.append((appended, advanced)))
    batch.appended([A])
    batch.run()
    assert flushed == [([A], [])] and clock.getDelayedCalls() == []
    batch.appended([B])
    batch.cancel()
    clock.advance(0)
    assert flushed == [([A], [])] and clock.getDelayedCalls() == []


def test_an_owner_is_not_kept_alive_by_its_batch():
    class Owner:
        def __init__(self, clock):
            self.batch = TurnBatch(clock, self.flush)

        def flush(self, appended, advanced):
            raise AssertionError("a collected owner flushed")

    clock = task.Clock()
    owner = Owner(clock)
    batch, gone = owner.batch, weakref.ref(owner)
    batch.appended([A])
    del owner
    assert gone() is None  # freed at once: no cycle through the batch
    clock.advance(0)
    assert not batch.pending


def test_work_a_hand_over_causes_is_gathered_anew():
    clock = task.Clock()
    flushed = []

    def flush(appended, advanced):
        flushed.append(appended)
        if appended == [A]:
            batch.appended([B])
            assert batch.pending

    batch = TurnBatch(clock, flush)
    batch.appended([A])
    clock.advance(0)
    assert flushed == [[A], [B]] and not batch.pending


CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})
TP = ("t", 0)
FOLLOWER = 2


@pytest.fixture
def leader(tmp_path):
    clock = task.Clock()
    clock.advance(100)
    logs = LogManager([str(tmp_path / "a")], LogConfig(), clock)
    manager = replica_manager(1, logs, lambda topic: dict(CONFIG, **{"min.insync.replicas": 2}), clock)
    manager.become_leader_or_follower(
        [
            {
                "topic": "t",
                "partition": 0,
                "leader": 1,
                "leader_epoch": 0,
                "isr": [1, FOLLOWER],
                "replicas": [1, FOLLOWER],
                "zk_version": 0,
                "controller_epoch": 1,
            }
        ],
        {},
    )
    clock.advance(0)
    yield manager
    manager.shutdown()
    logs.shutdown()  # its files closed now, not whenever the garbage collector gets to them


def produce(manager, value, acks=-1):
    answers = []
    manager.append_records(30000, acks, {TP: encode_batch([(None, value)])}).addCallback(answers.append)
    return answers


def follower_fetch(manager, offset):
    answers = []
    manager.fetch_messages(500, 1, 1 << 20, [FetchInfo(TP, offset, 1 << 20, 0, 0)], FOLLOWER).addCallback(
        answers.append
    )
    return answers


def test_a_parked_follower_fetch_wakes_once_at_the_end_of_the_turn_with_all_it_appended(leader):
    fetched = follower_fetch(leader, 0)
    assert fetched == []
    produce(leader, b"one", acks=1)
    produce(leader, b"two", acks=1)
    assert fetched == []
    leader.clock.advance(0)
    (results,) = fetched
    headers = [header for _, header in iter_batch_headers(results[TP].records)]
    assert [(header.base_offset, header.last_offset) for header in headers] == [(0, 0), (1, 1)]


def test_an_acks_all_produce_completes_at_the_end_of_the_turn_its_high_watermark_passed_it(leader, monkeypatch):
    first, second = produce(leader, b"one"), produce(leader, b"two")
    leader.clock.advance(0)
    assert first == second == []
    tries = []
    real_try = DelayedProduce.try_complete
    monkeypatch.setattr(
        DelayedProduce, "try_complete", lambda operation: tries.append(operation) or real_try(operation)
    )
    follower_fetch(leader, 1)  # the follower has the first record: the high watermark passes it
    follower_fetch(leader, 2)  # and then the second, in the same turn
    assert leader.get_partition(*TP).high_watermark == 2
    assert first == second == [] and tries == []
    leader.clock.advance(0)
    assert len(tries) == 2  # each waiting produce was tried once, at the end of the turn
    assert [answer[TP].error for answer in first + second] == [Errors.NONE, Errors.NONE]
    assert [answer[TP].base_offset for answer in first + second] == [0, 1]


def test_an_acks_all_produce_whose_isr_shrank_below_min_insync_answers_not_enough_replicas_after_append(leader):
    answers = produce(leader, b"one")
    partition = leader.get_partition(*TP)
    partition.apply_isr([1], 1)  # the ISR shrank under the waiting produce
    leader._advance_high_watermark(partition, 100000 + 30001)  # the follower is no longer caught up either
    leader.clock.advance(0)
    assert [answer[TP].error for answer in answers] == [Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND]


def test_a_high_watermark_move_tries_only_the_produces_it_passed(leader, monkeypatch):
    answers = [produce(leader, value) for value in (b"one", b"two", b"three")]
    leader.clock.advance(0)
    tries = []
    real_try = DelayedProduce.try_complete
    monkeypatch.setattr(
        DelayedProduce, "try_complete", lambda operation: tries.append(operation) or real_try(operation)
    )
    follower_fetch(leader, 1)
    leader.clock.advance(0)
    assert len(tries) == 1 and [len(answer) for answer in answers] == [1, 0, 0]
    follower_fetch(leader, 3)
    leader.clock.advance(0)
    assert len(tries) == 3 and [answer[0][TP].base_offset for answer in answers] == [0, 1, 2]
    assert len(leader.produce_waiters) == 0


def test_produces_a_leadership_change_answered_leave_the_waiting_lists(leader):
    answers = [produce(leader, value) for value in (b"one", b"two")]
    leader.become_leader_or_follower(
        [
            {
                "topic": "t",
                "partition": 0,
                "leader": FOLLOWER,
                "leader_epoch": 1,
                "isr": [1, FOLLOWER],
                "replicas": [1, FOLLOWER],
                "zk_version": 1,
                "controller_epoch": 1,
            }
        ],
        {},
    )
    assert [answer[0][TP].error for answer in answers] == [Errors.NOT_LEADER_FOR_PARTITION] * 2
    assert len(leader.produce_waiters) == 0


def test_timed_out_produces_are_swept_once_their_list_doubled(leader, monkeypatch):
    waiters = leader.produce_waiters
    monkeypatch.setattr(waiters, "SWEEP_SLACK", 10)
    for _ in range(waiters.SWEEP_SLACK):
        produce(leader, b"v")
    leader.clock.advance(30)  # every one timed out, none passed by the high watermark
    assert len(waiters) == waiters.SWEEP_SLACK
    answer = produce(leader, b"v")
    assert len(waiters) == 1 and answer == []


def test_a_produce_answered_by_a_high_watermark_move_may_wait_again_on_the_same_partition(leader):
    again = []
    first = produce(leader, b"one")
    leader.append_records(30000, -1, {TP: encode_batch([(None, b"two")])}).addCallback(
        lambda _: again.extend([produce(leader, b"three")])
    )
    leader.clock.advance(0)
    follower_fetch(leader, 2)
    leader.clock.advance(0)
    assert len(first) == 1 and len(again) == 1 and again[0] == [] and len(leader.produce_waiters) == 1
    follower_fetch(leader, 3)
    leader.clock.advance(0)
    assert again[0][0][TP].base_offset == 2 and len(leader.produce_waiters) == 0


def test_a_completed_produce_left_in_the_purgatory_lists_keeps_nothing_of_its_request(leader):
    answers = produce(leader, b"one")
    follower_fetch(leader, 1)
    leader.clock.advance(0)
    assert len(answers) == 1
    (operation,) = [op for ops in leader.produce_purgatory.watchers.values() for op in ops]
    assert operation.completed and operation.results is None and operation.done is None


def test_an_append_nobody_waits_on_schedules_no_end_of_turn_call(leader):
    assert leader.clock.getDelayedCalls() == [] and not leader.this_turn.pending
    produce(leader, b"one", acks=1)  # no fetch parked, no fetch session holding the partition
    assert not leader.this_turn.pending and leader.clock.getDelayedCalls() == []
    fetched = follower_fetch(leader, 1)
    assert fetched == [] and leader.fetch_purgatory.delayed == 1  # parked at the log end
    produce(leader, b"two", acks=1)
    assert leader.this_turn.pending
    leader.clock.advance(0)
    (results,) = fetched
    assert [header.base_offset for _, header in iter_batch_headers(results[TP].records)] == [1]


def test_an_append_to_a_partition_of_a_follower_session_schedules_the_end_of_turn_call(leader):
    session = leader.fetch_sessions.get(leader.fetch_sessions.maybe_create_session(0, True, 1, lambda: {TP: None}))
    session.settle([TP])  # quiet: answered, nothing changed since
    assert TP not in session.changed
    produce(leader, b"one", acks=1)
    assert leader.this_turn.pending
    leader.clock.advance(0)
    assert TP in session.changed
