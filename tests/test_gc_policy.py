"""The broker process's garbage collection policy: no allocation-driven full collections, one on a timer."""

import gc

from twisted.internet import task

from kafka_zk.server import gc_policy


def _full_collections():
    return gc.get_stats()[2]["collections"]


def test_full_collections_run_on_the_timer_and_not_from_allocations():
    saved = gc.get_threshold()
    clock = task.Clock()
    try:
        collector = gc_policy.install(clock, interval_s=60.0)
        assert gc.get_threshold()[:2] == saved[:2]  # young generations as before
        before = _full_collections()
        # Enough surviving containers that CPython's default policy would have run full collections.
        survivors = [[index] for index in range(300_000)]
        assert _full_collections() == before
        clock.advance(59.0)
        assert _full_collections() == before
        clock.advance(1.0)
        assert _full_collections() == before + 1
        collector.stop()
        del survivors
    finally:
        gc.set_threshold(*saved)


def test_a_full_collection_frees_cycles_that_the_young_ones_left():
    class Node:
        pass

    first, second = Node(), Node()
    first.other, second.other = second, first
    gc.collect(1)  # into the oldest generation, as long-lived objects end up
    del first, second
    assert gc_policy.full_collection() >= 2


def test_objects_frozen_at_startup_are_left_out_of_later_full_collections():
    class Replica:
        pass

    started = [Replica() for _ in range(50_000)]
    try:
        frozen = gc_policy.freeze_startup_objects()
        assert frozen >= len(started)
        oldest = {id(obj) for obj in gc.get_objects(2)}
        assert not any(id(replica) in oldest for replica in started)
        later = [Replica() for _ in range(10)]
        gc.collect(1)  # the young survivors move into the oldest generation, which full collections walk
        oldest = {id(obj) for obj in gc.get_objects(2)}
        assert all(id(replica) in oldest for replica in later)
    finally:
        gc.unfreeze()
