"""ISR changes made by this broker as a partition leader: written to ZooKeeper in batches, then announced.

A leader that expands or shrinks an ISR updates the partition's state znode itself (conditionally, on the
version it knows). The writes asked for in one reactor turn go to ZooKeeper together, pipelined: a broker coming
back makes its leaders expand thousands of ISRs at once. Every propagation interval the partitions whose
ISR changed are announced to the controller in one /isr_change_notification entry.
"""

import logging

from twisted.internet import defer
from twisted.python.failure import Failure

from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch

log = logging.getLogger(__name__)

ISR_CHANGE_PROPAGATION_MS = 500


class IsrChangePropagation:
    def __init__(self, zk, clock, broker_id):
        """``clock``: anything with callLater (the reactor, or task.Clock in tests)."""
        self.zk = zk
        self.clock = clock
        self.broker_id = broker_id
        self._changed = set()  # partitions whose ISR this broker wrote since the last announcement
        self._pending_writes = {}  # tp -> (LeaderIsrAndControllerEpoch, Deferred) asked for in this reactor turn

    def write_isr(self, partition, new_isr):
        """Conditionally update the partition's state znode: a Deferred of the new zk version, or None when
        the write lost a race (or a later write of the same turn replaced it)."""
        state = LeaderIsrAndControllerEpoch(
            partition.leader_id, partition.leader_epoch, list(new_isr), partition.controller_epoch, partition.zk_version
        )
        if not self._pending_writes:
            self.clock.callLater(0, self._write_pending)
        replaced = self._pending_writes.pop(partition.tp, None)
        if replaced is not None:
            replaced[1].callback(None)
        done = defer.Deferred()
        self._pending_writes[partition.tp] = (state, done)
        return done

    @defer.inlineCallbacks
    def _write_pending(self):
        pending, self._pending_writes = self._pending_writes, {}
        try:
            results = yield self.zk.conditional_update_partition_states(
                {tp: state for tp, (state, _) in pending.items()}
            )
        except Exception:
            failure = Failure()
            for _, done in pending.values():
                done.errback(failure)
            return
        for tp, (_, done) in pending.items():
            written, zk_version = results[tp]
            if written:
                self._changed.add(tp)
            done.callback(zk_version if written else None)

    @defer.inlineCallbacks
    def propagate(self):
        """Periodic: tell the controller, through one /isr_change_notification entry, which ISRs changed."""
        if not self._changed:
            return
        changed, self._changed = sorted(self._changed), set()
        log.debug("[IsrChangePropagation broker=%d] ISRs changed: %s", self.broker_id, changed)
        yield self.zk.create_isr_change_notification(changed)
