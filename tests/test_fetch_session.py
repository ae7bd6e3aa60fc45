"""Fetch sessions without a reactor: cache slots and eviction, epochs, incremental contexts, the fetcher's side."""

import random

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.replication.fetch_session import (
    FINAL_EPOCH,
    INVALID_SESSION_ID,
    FetchManager,
    FetchSessionCache,
    FullFetchContext,
    IncrementalFetchContext,
    PartitionRequest,
    SessionErrorContext,
    SessionlessFetchContext,
    next_epoch,
)
from kafka_zk.server.replication.fetch_session_handler import FetchSessionHandler
from kafka_zk.server.replication.results import FetchResult

A0, A1, B0 = ("a", 0), ("a", 1), ("b", 0)


def req(tp, offset, log_start=0, max_bytes=1024, leader_epoch=0):
    return PartitionRequest(tp, offset, max_bytes, leader_epoch, log_start)


def res(hw, records=b"", log_start=0, error=Errors.NONE):
    return FetchResult(error, records, hw, log_start, hw)


def manager(slots=10, eviction_ms=1000):
    return FetchManager(FetchSessionCache(slots, eviction_ms, random.Random(7)))


def open_session(fm, data, now=0, follower=False, results=None):
    context = fm.new_context(0, 0, data, [], follower, now)
    assert isinstance(context, FullFetchContext)
    results = results or {tp: res(r.fetch_offset) for tp, r in data.items()}
    error, session_id, answer = context.update_and_generate(results, now)
    assert error == Errors.NONE and answer == results
    return session_id


def test_epochs_count_up_wrap_to_one_and_stay_final():
    assert next_epoch(0) == 1
    assert next_epoch(41) == 42
    assert next_epoch(0x7FFFFFFF) == 1
    assert next_epoch(-1) == -1


def test_full_fetch_creates_a_session_at_epoch_one_and_sessionless_fetch_does_not():
    fm = manager()
    session_id = open_session(fm, {A0: req(A0, 5)}, follower=True)
    session = fm.cache.get(session_id)
    assert session_id > 0 and session.epoch == 1 and session.privileged and list(session.partitions) == [A0]
    context = fm.new_context(0, FINAL_EPOCH, {A0: req(A0, 5)}, [], False, 0)
    assert isinstance(context, SessionlessFetchContext)
    assert context.update_and_generate({A0: res(5)}, 0)[:2] == (Errors.NONE, INVALID_SESSION_ID)
    assert len(fm.cache) == 1


def test_incremental_answers_only_partitions_with_data_new_watermarks_log_start_or_errors():
    fm = manager()
    data = {A0: req(A0, 5), A1: req(A1, 7), B0: req(B0, 9)}
    session_id = open_session(fm, data, results={A0: res(5), A1: res(7), B0: res(9)})
    idle = fm.new_context(session_id, 1, {}, [], False, 10)
    assert isinstance(idle, IncrementalFetchContext)
    assert [tp for tp, _ in idle.partitions()] == [A0, A1, B0]  # reads every partition of the session
    assert idle.update_and_generate({A0: res(5), A1: res(7), B0: res(9)}, 10) == (Errors.NONE, session_id, {})
    changed = fm.new_context(session_id, 2, {}, [], False, 20)
    results = {A0: res(5, records=b"x"), A1: res(8), B0: res(9, log_start=3)}
    error, _, answer = changed.update_and_generate(results, 20)
    assert error == Errors.NONE and list(answer) == [A0, A1, B0]
    # The watermark and log start change are remembered; data alone is not a state change.
    again = fm.new_context(session_id, 3, {}, [], False, 30)
    assert list(again.update_and_generate({A0: res(5), A1: res(8), B0: res(9, log_start=3)}, 30)[2]) == []
    failing = fm.new_context(session_id, 4, {}, [], False, 40)
    errors = {A0: res(-1, error=Errors.NOT_LEADER_FOR_PARTITION), A1: res(8), B0: res(9, log_start=3)}
    assert list(failing.update_and_generate(errors, 40)[2]) == [A0]
    # After an error the partition is sent again even if its watermark is back to what it was.
    healed = fm.new_context(session_id, 5, {}, [], False, 50)
    assert list(healed.update_and_generate({A0: res(5), A1: res(8), B0: res(9, log_start=3)}, 50)[2]) == [A0]


def test_incremental_request_adds_updates_and_forgets_partitions_and_answered_ones_rotate_to_the_back():
    fm = manager()
    session_id = open_session(fm, {A0: req(A0, 5), A1: req(A1, 7)})
    context = fm.new_context(session_id, 1, {A1: req(A1, 8), B0: req(B0, 0)}, [A0], False, 10)
    session = fm.cache.get(session_id)
    assert dict(context.partitions()) == {A1: req(A1, 8), B0: req(B0, 0)}
    assert session.epoch == 2
    error, _, answer = context.update_and_generate({A1: res(8, b"y"), B0: res(0)}, 10)
    assert list(answer) == [A1, B0]  # B0 is new: its cached watermark is unknown (-1)
    context = fm.new_context(session_id, 2, {}, [], False, 20)
    context.update_and_generate({A1: res(9), B0: res(0)}, 20)
    assert list(session.partitions) == [B0, A1]


def test_forgetting_every_partition_closes_the_session():
    fm = manager()
    session_id = open_session(fm, {A0: req(A0, 5)})
    context = fm.new_context(session_id, 1, {}, [A0], False, 10)
    assert isinstance(context, SessionlessFetchContext)
    assert fm.cache.get(session_id) is None and fm.cache.total_partitions == 0


def test_unknown_session_and_wrong_epoch_are_session_errors():
    fm = manager()
    session_id = open_session(fm, {A0: req(A0, 5)})
    unknown = fm.new_context(session_id + 1, 1, {A0: req(A0, 5)}, [], False, 10)
    assert isinstance(unknown, SessionErrorContext) and unknown.partitions() == []
    assert unknown.update_and_generate({}, 10) == (Errors.FETCH_SESSION_ID_NOT_FOUND, INVALID_SESSION_ID, {})
    stale = fm.new_context(session_id, 2, {}, [], False, 10)
    assert stale.update_and_generate({}, 10) == (Errors.INVALID_FETCH_SESSION_EPOCH, INVALID_SESSION_ID, {})
    assert fm.cache.get(session_id).epoch == 1  # an error does not move the session on


def test_a_request_overtaken_by_the_next_one_of_its_session_answers_invalid_epoch():
    fm = manager()
    session_id = open_session(fm, {A0: req(A0, 5)})
    first = fm.new_context(session_id, 1, {}, [], False, 10)  # e.g. waiting in the purgatory
    second = fm.new_context(session_id, 2, {}, [], False, 20)
    assert second.update_and_generate({A0: res(6)}, 20)[0] == Errors.NONE
    assert first.update_and_generate({A0: res(6)}, 30) == (Errors.INVALID_FETCH_SESSION_EPOCH, session_id, {})
    assert first.throttled()[0] == Errors.INVALID_FETCH_SESSION_EPOCH


def test_full_fetch_naming_a_session_closes_it():
    fm = manager()
    old = open_session(fm, {A0: req(A0, 5)})
    context = fm.new_context(old, 0, {A0: req(A0, 5)}, [], False, 10)
    assert fm.cache.get(old) is None
    new = context.update_and_generate({A0: res(5)}, 10)[1]
    assert new not in (old, INVALID_SESSION_ID) and len(fm.cache) == 1
    fm.new_context(new, FINAL_EPOCH, {A0: req(A0, 5)}, [], False, 20)
    assert len(fm.cache) == 0


def test_epoch_wraps_around_after_the_largest_int32():
    fm = manager()
    session_id = open_session(fm, {A0: req(A0, 5)})
    fm.cache.get(session_id).epoch = 0x7FFFFFFF
    context = fm.new_context(session_id, 0x7FFFFFFF, {}, [], False, 10)
    assert context.update_and_generate({A0: res(5)}, 10)[0] == Errors.NONE
    assert fm.cache.get(session_id).epoch == 1
    assert fm.new_context(session_id, 1, {}, [], False, 20).update_and_generate({A0: res(5)}, 20)[0] == 0


def test_no_slot_means_no_session_until_the_least_recently_used_one_is_stale():
    fm = manager(slots=2, eviction_ms=1000)
    first = open_session(fm, {A0: req(A0, 1)}, now=0)
    second = open_session(fm, {A0: req(A0, 1)}, now=100)
    fm.new_context(first, 1, {}, [], False, 500)  # first is used again: second is now the least recent
    context = fm.new_context(0, 0, {A0: req(A0, 1)}, [], False, 900)
    assert context.update_and_generate({A0: res(1)}, 900)[1] == INVALID_SESSION_ID  # full, none stale
    third = fm.new_context(0, 0, {A0: req(A0, 1)}, [], False, 1101).update_and_generate({A0: res(1)}, 1101)[1]
    assert third != INVALID_SESSION_ID
    assert fm.cache.get(second) is None and fm.cache.get(first) is not None and fm.cache.evictions == 1


def test_followers_evict_consumer_sessions_at_once_and_smallest_first():
    fm = manager(slots=2, eviction_ms=1000)
    small = open_session(fm, {A0: req(A0, 1)}, now=0)
    big = open_session(fm, {A0: req(A0, 1), A1: req(A1, 1)}, now=10)
    # A consumer cannot evict young consumer sessions, even with more partitions.
    consumer = fm.new_context(0, 0, {A0: req(A0, 1), A1: req(A1, 1), B0: req(B0, 1)}, [], False, 20)
    assert consumer.update_and_generate({A0: res(1), A1: res(1), B0: res(1)}, 20)[1] == INVALID_SESSION_ID
    follower = open_session(fm, {A0: req(A0, 1)}, now=30, follower=True)
    assert follower != INVALID_SESSION_ID and fm.cache.get(small) is None and fm.cache.get(big) is not None
    # A young follower session is safe from consumers and from other followers.
    another = fm.new_context(0, 0, {A0: req(A0, 1)}, [], True, 40)
    assert another.update_and_generate({A0: res(1)}, 40)[1] != INVALID_SESSION_ID  # evicts the consumer's
    assert fm.cache.get(big) is None
    third = fm.new_context(0, 0, {A0: req(A0, 1), A1: req(A1, 1)}, [], True, 50)
    assert third.update_and_generate({A0: res(1), A1: res(1)}, 50)[1] == INVALID_SESSION_ID


def test_sessions_older_than_the_eviction_time_give_way_to_bigger_ones():
    fm = manager(slots=2, eviction_ms=1000)
    a = open_session(fm, {A0: req(A0, 1)}, now=0, follower=True)
    b = open_session(fm, {A0: req(A0, 1), A1: req(A1, 1)}, now=0, follower=True)
    # Keep both in use so that neither is stale, and let them age past the eviction time.
    for epoch, now in ((1, 800), (2, 1600)):
        fm.new_context(a, epoch, {}, [], True, now).update_and_generate({A0: res(1)}, now)
        fm.new_context(b, epoch, {}, [], True, now).update_and_generate({A0: res(1), A1: res(1)}, now)
    same_size = fm.new_context(0, 0, {A0: req(A0, 1)}, [], True, 1700)
    assert same_size.update_and_generate({A0: res(1)}, 1700)[1] == INVALID_SESSION_ID  # not bigger than a
    consumer = fm.new_context(0, 0, {A0: req(A0, 1), A1: req(A1, 1), B0: req(B0, 1)}, [], False, 1700)
    assert consumer.update_and_generate({A0: res(1), A1: res(1), B0: res(1)}, 1700)[1] == INVALID_SESSION_ID
    bigger = fm.new_context(0, 0, {A0: req(A0, 1), A1: req(A1, 1)}, [], True, 1700)
    assert bigger.update_and_generate({A0: res(1), A1: res(1)}, 1700)[1] != INVALID_SESSION_ID
    assert fm.cache.get(a) is None and fm.cache.get(b) is not None
    assert fm.cache.total_partitions == 4


def test_zero_slots_never_create_sessions():
    fm = manager(slots=0)
    context = fm.new_context(0, 0, {A0: req(A0, 1)}, [], True, 0)
    error, session_id, answer = context.update_and_generate({A0: res(1)}, 0)
    assert (error, session_id, list(answer)) == (Errors.NONE, INVALID_SESSION_ID, [A0]) and len(fm.cache) == 0


# -- the fetcher's side ---------------------------------------------------------------------------------


def test_handler_sends_everything_first_then_only_changes_and_forgets_dropped_partitions():
    handler = FetchSessionHandler()
    first = handler.build({A0: req(A0, 5), A1: req(A1, 7)})
    assert (first.session_id, first.epoch, set(first.to_send), first.to_forget) == (0, 0, {A0, A1}, [])
    assert handler.handle_response(Errors.NONE, 1234, [A0, A1])
    idle = handler.build({A0: req(A0, 5), A1: req(A1, 7)})
    assert (idle.session_id, idle.epoch, idle.to_send, idle.to_forget) == (1234, 1, {}, [])
    assert handler.handle_response(Errors.NONE, 1234, [])
    moved = handler.build({A1: req(A1, 9), B0: req(B0, 0)})
    assert (moved.epoch, moved.to_send, moved.to_forget) == (2, {A1: req(A1, 9), B0: req(B0, 0)}, [A0])
    assert handler.handle_response(Errors.NONE, 1234, [A1])
    assert handler.build({A1: req(A1, 9), B0: req(B0, 0)}).epoch == 3


def test_handler_falls_back_to_a_full_fetch_after_session_errors_and_connection_errors():
    handler = FetchSessionHandler()
    handler.build({A0: req(A0, 5)})
    handler.handle_response(Errors.NONE, 99, [A0])
    handler.build({A0: req(A0, 5)})
    assert not handler.handle_response(Errors.FETCH_SESSION_ID_NOT_FOUND, 0, [])
    full = handler.build({A0: req(A0, 5)})
    assert (full.session_id, full.epoch, full.to_send) == (0, 0, {A0: req(A0, 5)})
    handler.handle_response(Errors.NONE, 100, [A0])
    handler.build({A0: req(A0, 5)})
    assert not handler.handle_response(Errors.INVALID_FETCH_SESSION_EPOCH, 0, [])
    again = handler.build({A0: req(A0, 5)})
    assert (again.session_id, again.epoch, again.to_send) == (100, 0, {A0: req(A0, 5)})  # closes 100, opens anew
    handler.handle_response(Errors.NONE, 101, [A0])
    handler.build({A0: req(A0, 5)})
    handler.handle_error()
    assert (handler.build({A0: req(A0, 5)}).session_id, handler.epoch) == (101, 0)


def test_handler_rejects_answers_with_partitions_it_did_not_ask_for_and_follows_a_closed_session():
    handler = FetchSessionHandler()
    handler.build({A0: req(A0, 5)})
    assert not handler.handle_response(Errors.NONE, 5, [A0, B0])
    assert handler.build({A0: req(A0, 5)}).epoch == 0
    assert not handler.handle_response(Errors.NONE, 5, [])  # a full answer must name every partition
    assert handler.handle_response(Errors.NONE, 0, [A0])  # the broker made no session: stay sessionless-full
    assert (handler.session_id, handler.epoch) == (0, 0)


def test_handler_and_broker_sessions_agree_over_many_rounds():
    fm = manager()
    handler = FetchSessionHandler()
    offsets = {A0: 0, A1: 0, B0: 0}
    high_watermarks = dict(offsets)
    now = 0
    for round_number in range(50):
        now += 100
        wanted = {tp: req(tp, offset) for tp, offset in offsets.items() if (round_number + tp[1]) % 7}
        data = handler.build(wanted)
        context = fm.new_context(data.session_id, data.epoch, data.to_send, data.to_forget, True, now)
        results = {
            tp: res(high_watermarks[tp], b"r" if request.fetch_offset < high_watermarks[tp] else b"")
            for tp, request in context.partitions()
        }
        assert {tp for tp, _ in context.partitions()} == set(wanted)  # the broker fetches what the fetcher wants
        error, session_id, answer = context.update_and_generate(results, now)
        assert handler.handle_response(error, session_id, list(answer))
        for tp in answer:
            offsets[tp] = high_watermarks[tp]
        high_watermarks[(A0, A1, B0)[round_number % 3]] += 1
