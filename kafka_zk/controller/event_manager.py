"""The controller's single serial event queue: events run one at a time, in arrival order."""

import logging
from collections import deque

from twisted.internet import defer

from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.controller.events import ControllerState

log = logging.getLogger(__name__)


class ControllerEventManager:
    """Watchers and API handlers only put() events (controller.events.ControllerEvent); ``process(event)`` runs each
    and may return a Deferred: the next event starts when it has finished.

    ``kafka.controller:type=ControllerEventManager``: EventQueueSize (events waiting) and EventQueueTimeMs (how long
    each waited); ``timer_for(state)`` gives the timer (or None) that times the processing of an event of that
    ControllerState."""

    def __init__(self, process, clock=None, metrics=None, timer_for=lambda state: None):
        self.process = process
        self.queue = deque()  # (event, time put in ms)
        self.clock = clock
        self.timer_for = timer_for
        self.current = None  # the event being processed
        self._running = False
        self._idle_waiters = []
        metrics = metrics if metrics is not None else MetricsRegistry()
        self._queue_time = metrics.histogram("kafka.controller", "ControllerEventManager", "EventQueueTimeMs")
        metrics.gauge("kafka.controller", "ControllerEventManager", "EventQueueSize", lambda: len(self.queue))

    @property
    def state(self):
        """The ControllerState of the event being processed: Idle when none is."""
        return self.current.state if self.current is not None else ControllerState.Idle

    def _now_ms(self):
        return self.clock.seconds() * 1000.0 if self.clock is not None else 0.0

    def put(self, event):
        self.queue.append((event, self._now_ms()))
        self._drain()

    def clear(self):
        self.queue.clear()

    def _drain(self):
        while self.queue and not self._running:
            event, put_ms = self.queue.popleft()
            started_ms = self._now_ms()
            self._queue_time.update(started_ms - put_ms)
            self._running = True
            self.current = event
            result = defer.maybeDeferred(self.process, event)
            result.addErrback(self._failed, event)
            if result.called:
                self._processed(event, started_ms)
            else:
                result.addBoth(self._finished, event, started_ms)
                return
        if not self.queue and not self._running:
            waiters, self._idle_waiters = self._idle_waiters, []
            for waiter in waiters:
                waiter.callback(None)

    def _processed(self, event, started_ms):
        timer = self.timer_for(event.state)
        if timer is not None:
            timer.update(self._now_ms() - started_ms)
        self.current = None
        self._running = False

    def _finished(self, _, event, started_ms):
        self._processed(event, started_ms)
        self._drain()

    @staticmethod
    def _failed(failure, event):
        if getattr(failure.value, "ends_event_quietly", False):
            log.info("controller event %s ended: %s", event.name, failure.getErrorMessage())
        else:
            log.error("controller event %s failed: %s", event.name, failure.getTraceback())

    def when_idle(self):
        waiter = defer.Deferred()
        self._idle_waiters.append(waiter)
        if not self.queue and not self._running:
            self._drain()
        return waiter
