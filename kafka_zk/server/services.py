"""The twisted services a broker's service tree is built from: a part's start and stop, periodic tasks, the
listening port, and the timings of an ordered stop."""

import logging

from twisted.application import service
from twisted.internet import defer, task

log = logging.getLogger(__name__)


class Lifecycle(service.Service):
    """A part of the broker as a child service: ``start()`` runs when the tree starts it, ``stop()`` (which may
    return a Deferred) when the tree stops it."""

    def __init__(self, name, start=None, stop=None):
        self.setName(name)
        self._start = start
        self._stop = stop

    def startService(self):
        super().startService()
        if self._start is not None:
            self._start()

    def stopService(self):
        super().stopService()
        if self._stop is not None:
            return defer.maybeDeferred(self._stop)
        return defer.succeed(None)


class PeriodicTask(service.Service):
    """Calls ``function`` every ``interval_ms`` on ``clock``, the first time one interval after starting; a
    function returning a Deferred is not called again before it fires. A failure is logged and ends the task."""

    def __init__(self, name, interval_ms, function, clock):
        self.setName(name)
        self.interval_ms = interval_ms
        self.function = function
        self.clock = clock
        self._loop = None

    def startService(self):
        super().startService()
        self._loop = task.LoopingCall(self.function)
        self._loop.clock = self.clock
        self._loop.start(self.interval_ms / 1000.0, now=False).addErrback(
            lambda failure: log.error("periodic task failed: %s", failure.getTraceback())
        )

    def stopService(self):
        super().stopService()
        if self._loop is not None and self._loop.running:
            self._loop.stop()


class ListeningPort(service.Service):
    """The TCP port a listener accepts connections on, open while the service runs."""

    def __init__(self, name, reactor, port, factory, interface):
        self.setName(name)
        self.reactor = reactor
        self.port = port
        self.factory = factory
        self.interface = interface
        self._listening = None

    @property
    def bound_port(self):
        """The port number actually bound (``port`` 0 binds a free one)."""
        return self._listening.getHost().port

    def startService(self):
        super().startService()
        self._listening = self.reactor.listenTCP(self.port, self.factory, interface=self.interface)

    def stopService(self):
        super().stopService()
        if self._listening is None:
            return defer.succeed(None)
        return defer.maybeDeferred(self._listening.stopListening)


class PhaseTimer:
    """Seconds spent in each named phase, for one log line: "2.10s (a 1.50s, b 0.60s)"."""

    def __init__(self, clock):
        """``clock``: a function of the current time in seconds."""
        self._clock = clock
        self._start = self._last = clock()
        self._phases = []

    def done(self, name):
        now = self._clock()
        self._phases.append((name, now - self._last))
        self._last = now

    def __str__(self):
        return "%.2fs (%s)" % (
            self._last - self._start,
            ", ".join("%s %.2fs" % (name, seconds) for name, seconds in self._phases),
        )
