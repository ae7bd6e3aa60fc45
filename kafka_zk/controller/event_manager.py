"""The controller's single serial event queue: events run one at a time, in arrival order."""

import logging
from collections import deque

from twisted.internet import defer

log = logging.getLogger(__name__)


class ControllerEventManager:
    """Watchers and API handlers only put() events; each event's process() may return a Deferred,
    and the next event starts when it has finished."""

    def __init__(self):
        self.queue = deque()
        self._running = False
        self._idle_waiters = []

    def put(self, name, process):
        self.queue.append((name, process))
        self._drain()

    def clear(self):
        self.queue.clear()

    def _drain(self):
        while self.queue and not self._running:
            name, process = self.queue.popleft()
            self._running = True
            result = defer.maybeDeferred(process)
            result.addErrback(self._failed, name)
            if result.called:
                self._running = False
            else:
                result.addBoth(self._finished)
                return
        if not self.queue and not self._running:
            waiters, self._idle_waiters = self._idle_waiters, []
            for waiter in waiters:
                waiter.callback(None)

    def _finished(self, _):
        self._running = False
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
