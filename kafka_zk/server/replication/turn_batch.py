"""End-of-turn batching of the replica manager's wake-ups: partitions appended to and partitions whose high
watermark moved during one reactor turn are handed over once, at the end of that turn.

A busy leader reads several Produce requests and follower Fetches in one turn of the reactor. Waking the parked
fetches and trying the waiting acks=-1 produces after each of them costs a purgatory pass per request and sends a
follower one batch per fetch; gathered here, a parked follower fetch wakes once with everything the turn
appended, and each waiting produce is tried once per turn. Pure code: the clock is anything with
callLater(seconds, f) returning a call with cancel() and active() (the reactor; task.Clock in tests).
"""

import weakref


class TurnBatch:
    """Partitions gathered until the end of the current turn, then handed to ``flush(appended, advanced)``.

    ``appended``: partitions whose fetchable data changed (an append); ``advanced``: partitions whose high
    watermark moved. Each list holds a partition once, in the order first added; a partition may be in both."""

    def __init__(self, clock, flush):
        self._clock = clock
        # A method of the batch's owner is held weakly: the owner's cycle-free objects (a replica manager and
        # its open logs) then still go as soon as the last reference does, not at a garbage collection.
        self._flush = weakref.WeakMethod(flush) if hasattr(flush, "__self__") else lambda: flush
        self._appended = {}  # insertion-ordered sets
        self._advanced = {}
        self._call = None

    @property
    def pending(self):
        return self._call is not None

    def appended(self, tps):
        if tps:
            gathered = self._appended
            for tp in tps:
                gathered[tp] = None
            if self._call is None:
                self._call = self._clock.callLater(0, self.run)

    def advanced(self, tps):
        if tps:
            gathered = self._advanced
            for tp in tps:
                gathered[tp] = None
            if self._call is None:
                self._call = self._clock.callLater(0, self.run)

    def run(self):
        """Hand over what was gathered (also called directly to do it before the turn ends)."""
        call, self._call = self._call, None
        if call is not None and call.active():
            call.cancel()
        if not self._appended and not self._advanced:
            return
        appended, self._appended = list(self._appended), {}
        advanced, self._advanced = list(self._advanced), {}
        flush = self._flush()
        if flush is not None:
            flush(appended, advanced)

    def cancel(self):
        """Drop what was gathered (a shutdown)."""
        call, self._call = self._call, None
        if call is not None and call.active():
            call.cancel()
        self._appended = {}
        self._advanced = {}
