"""The controller's single serial event queue: events run one at a time, in arrival order."""

import logging
from collections import deque

from twisted.internet import defer

from kafka_zk.common.metrics import MetricsRegistry

log = logging.getLogger(__name__)


class ControllerEventManager:
    """Watchers and API handlers only put() events; each event's process() may return a Deferred,
    and the next event starts when it has finished.

    ``kafka.controller:type=ControllerEventManager``: EventQueueSize (events waiting) and EventQueueTimeMs (how long
    each waited); ``timer_for(name)`` gives the timer (or None) that times the named event's processing."""

    def __init__(self, clock=None, metrics=None, timer_for=lambda name: None):
        self.queue = deque()  # (name, process, time put in ms)
        self.clock = clock
        self.timer_for = timer_for
        self.current = None  # the name of the event being processed
        self._running = False
        self._idle_waiters = []
        metrics = metrics if metrics is not None else MetricsRegistry()
        self._queue_time = metrics.histogram("kafka.controller", "ControllerEventManager", "EventQueueTimeMs")
        metrics.gauge("kafka.controller", "ControllerEventManager", "EventQueueSize", lambda: len(self.queue))

    def _now_ms(self):
        return self.clock.seconds() * 1000.0 if self.clock is not None else 0.0

    def put(self, name, process):
        self.queue.append((name, process, self._now_ms()))
        self._drain()

    def clear(self):
        self.queue.clear()

    def _drain(self):
        while self.queue and not self._running:
            name, process, put_ms = self.queue.popleft()
            started_ms = self._now_ms()
            self._queue_time.update(started_ms - put_ms)
            self._running = True
            self.current = name
            result = defer.maybeDeferred(process)
            result.addErrback(self._failed, name)
            if result.called:
                self._processed(name, started_ms)
            else:
                result.addBoth(self._finished, name, started_ms)
                return
        if not self.queue and not self._running:
            waiters, self._idle_waiters = self._idle_waiters, []
            for waiter in waiters:
                waiter.callback(None)

    def _processed(self, name, started_ms):
        timer = self.timer_for(name)
        if timer is not None:
            timer.update(self._now_ms() - started_ms)
        self.current = None
        self._running = False

    def _finished(self, _, name, started_ms):
        self._processed(name, started_ms)
        self._drain()

    @staticmethod
    def _failed(failure, name):
        if getattr(failure.value, "ends_event_quietly", False):
            log.info("controller event %s ended: %s", name, failure.getErrorMessage())
        else:
            log.error("controller event %s failed: %s", name, failure.getTraceback())

    def when_idle(self):
        waiter = defer.Deferred()
        self._idle_waiters.append(waiter)
        if not self.queue and not self._running:
            self._drain()
        return waiter
