"""When a broker process runs Python's cyclic garbage collector over its oldest objects: on a timer, not
whenever allocations pile up.

A broker with 10,000 replicas holds a few million long-lived objects, and CPython collects its oldest
generation each time a quarter as many again have survived the young ones. Decoding and applying one
LeaderAndIsr or UpdateMetadata for 10,000 partitions makes that many, so a controller failover paid for
four or five full collections of 0.2-0.3 s each, back to back, on the reactor. Those collections freed next
to nothing (a few dozen objects each, measured): the broker's state is acyclic and freed by reference
counting. The young generations are still collected as usual.

What exists once the broker has started (modules, classes, its configuration, the logs it loaded) lives as
long as the process: it is frozen then, so that no later full collection walks it again."""

import gc
import logging
import time

from twisted.internet import task

log = logging.getLogger(__name__)

FULL_COLLECTION_INTERVAL_S = 300.0
_NEVER = 2**31 - 1  # young collections between two automatic full ones


def install(reactor, interval_s=FULL_COLLECTION_INTERVAL_S):
    """Switch off allocation-driven full collections and run one every ``interval_s`` on ``reactor``; returns
    the LoopingCall."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    collector = task.LoopingCall(full_collection)
    collector.clock = reactor
    collector.start(interval_s, now=False)
    return collector


def full_collection():
    started = time.monotonic()
    freed = gc.collect()
    log.debug("full garbage collection: %d objects freed in %.3fs", freed, time.monotonic() - started)
    return freed


def freeze_startup_objects():
    """Collect once, then move every surviving object out of the collector's sight (gc.freeze); returns how
    many were frozen. Call once the broker serves: what it built to get there stays for the process's life."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
