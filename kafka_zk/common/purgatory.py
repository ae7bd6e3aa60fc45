"""Delayed operations (DelayedProduce, DelayedFetch, ...) that complete exactly once, watched by key."""

from collections import defaultdict
from heapq import heapify, heappop, heappush

from kafka_zk.common.metrics import MetricsRegistry

_EXPIRING = float("-inf")


class DelayedOperation:
    """Subclasses implement try_complete() -> bool (calling force_complete() when done),
    on_complete() and on_expiration(). The purgatory watching it expires it on its clock."""

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self.completed = False
        self._purgatory = None  # the purgatory counting this operation among its delayed ones

    def force_complete(self) -> bool:
        """Complete now if nobody has; returns True only for the caller that completed it."""
        if self.completed:
            return False
        self.completed = True
        if self._purgatory is not None:
            self._purgatory.delayed -= 1
            self._purgatory = None
        self.on_complete()
        return True

    def _expire(self) -> None:
        if not self.completed:
            self.on_expiration()
            self.force_complete()

    def try_complete(self) -> bool:
        raise NotImplementedError

    def on_complete(self) -> None:
        raise NotImplementedError

    def on_expiration(self) -> None:
        pass


class DelayedOperationPurgatory:
    """Holds operations until a key they watch is checked and they can complete, or they time out."""

    # Completed operations stay in the lists of keys nobody checks (idle partitions of a long-polling fetch):
    # every list is swept once the entries added since the last sweep outnumber those left by it plus this.
    PURGE_SLACK_ENTRIES = 10000
    # Completed operations stay in the deadline heap until their deadline; it is swept once it holds more than
    # twice the operations still waiting plus this.
    SWEEP_SLACK_DEADLINES = 1000

    def __init__(self, name, clock, metrics=None):
        """``metrics``: the MetricsRegistry that gets Kafka's ``kafka.server:type=DelayedOperationPurgatory``
        gauges for this purgatory (``delayedOperation=<name>``): PurgatorySize, the watch-list entries (an
        operation counts once per key it watches, completed ones until purged, as Kafka counts), and
        NumDelayedOperations, the operations waiting for completion or their timeout."""
        self.name = name
        self.clock = clock
        self.watchers = defaultdict(list)  # key -> the operations watching it (completed ones until swept)
        self._entries = 0  # list entries, of pending and of completed operations
        self._entries_after_purge = 0
        self.delayed = 0  # operations watched and not completed yet (Kafka's timeoutTimer.size)
        # One timer per purgatory, at the earliest deadline of a heap of (deadline, sequence, operation): a
        # parked operation costs a heap push, not a timer scheduled and cancelled on the clock.
        self._deadlines = []
        self._sequence = 0
        self._timer = None
        self._timer_at = None  # the deadline the timer fires for; -inf while expiring (no timer then)
        registry = metrics if metrics is not None else MetricsRegistry()
        tags = {"delayedOperation": name}
        registry.gauge("kafka.server", "DelayedOperationPurgatory", "PurgatorySize", lambda: self._entries, tags)
        registry.gauge("kafka.server", "DelayedOperationPurgatory", "NumDelayedOperations", lambda: self.delayed, tags)

    def try_complete_else_watch(self, operation, keys):
        """Complete the operation now if possible, else watch it under each key and start its timer."""
        if operation.try_complete():
            return True
        for key in keys:
            self.watchers[key].append(operation)
        self._entries += len(keys)
        if self._entries > 2 * self._entries_after_purge + self.PURGE_SLACK_ENTRIES:
            self.purge_completed()
        # Kafka tries once more after watching, for threads that changed state in between; on the reactor's
        # single thread nothing can have changed since the first try.
        if not operation.completed:
            operation._purgatory = self
            self.delayed += 1
            self._add_deadline(operation)
        return False

    def _add_deadline(self, operation):
        # A timeout already in the past (a request's negative timeout_ms) expires at once, as in Kafka.
        delay = operation.delay_ms / 1000.0
        if delay < 0.0:
            delay = 0.0
        deadline = self.clock.seconds() + delay
        self._sequence += 1
        deadlines = self._deadlines
        heappush(deadlines, (deadline, self._sequence, operation))
        timer_at = self._timer_at
        if timer_at is None or deadline < timer_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self.clock.callLater(delay, self._expire_due)
            self._timer_at = deadline
        if len(deadlines) > 2 * self.delayed + self.SWEEP_SLACK_DEADLINES:
            deadlines[:] = [entry for entry in deadlines if not entry[2].completed]
            heapify(deadlines)

    def _expire_due(self):
        """The timer: expire the operations whose deadline has come, then wait for the next deadline."""
        fired_at = self._timer_at
        self._timer = None
        self._timer_at = _EXPIRING
        limit = max(self.clock.seconds(), fired_at)
        last = self._sequence  # operations added while expiring wait for the next turn, as with a timer of their own
        deadlines = self._deadlines
        try:
            while deadlines and deadlines[0][0] <= limit and deadlines[0][1] <= last:
                operation = heappop(deadlines)[2]
                if not operation.completed:
                    operation._expire()
        finally:
            self._timer_at = None
            while deadlines and deadlines[0][2].completed:
                heappop(deadlines)
            if deadlines:
                head = deadlines[0][0]
                self._timer = self.clock.callLater(max(0.0, head - self.clock.seconds()), self._expire_due)
                self._timer_at = head

    def check_and_complete(self, key):
        """Try to complete the operations watching key; returns how many completed."""
        return self.check_and_complete_keys((key,))

    def check_and_complete_keys(self, keys):
        """Try each operation watching any of ``keys`` once (an operation watches many partitions: a change of
        thousands at once must not try it thousands of times); returns how many completed."""
        watching = self.watchers
        if not watching:  # nothing parked at all: the common case of a quiet purgatory
            return 0
        pending = {}
        found = []
        for key in keys:
            operations = watching.get(key)
            if operations is not None:
                found.append(key)
                for operation in operations:
                    if not operation.completed:
                        pending[id(operation)] = operation
        completed = 0
        for operation in pending.values():
            if operation.try_complete():
                completed += 1
        for key in found:
            operations = watching.get(key)
            if operations is None:
                continue
            remaining = [operation for operation in operations if not operation.completed]
            self._entries -= len(operations) - len(remaining)
            if remaining:
                watching[key] = remaining
            else:
                del watching[key]
        return completed

    def purge_completed(self):
        """Drop completed operations from every key's list; returns how many entries were dropped."""
        dropped = 0
        for key in list(self.watchers):
            watchers = self.watchers[key]
            pending = [operation for operation in watchers if not operation.completed]
            dropped += len(watchers) - len(pending)
            if pending:
                self.watchers[key] = pending
            else:
                del self.watchers[key]
        self._entries -= dropped
        self._entries_after_purge = self._entries
        return dropped

    def watched(self):
        return sum(1 for ops in self.watchers.values() for op in ops if not op.completed)

    def shutdown(self):
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = self._timer_at = None
        self._deadlines = []
        for operations in list(self.watchers.values()):
            for operation in operations:
                operation._purgatory = None
        self.watchers.clear()
        self._entries = self._entries_after_purge = 0
        self.delayed = 0
