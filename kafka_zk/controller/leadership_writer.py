"""Fenced writes of partition state znodes: the controller's leadership decisions reach ZooKeeper only through here."""

import logging

from twisted.internet import defer

from kafka_zk.controller.context import LeaderIsr
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch

log = logging.getLogger(__name__)

LEADERSHIP_WRITE_ATTEMPTS = 3


class ControllerMoved(Exception):
    """A fenced write failed the epoch check: this broker resigned and the event stops here."""

    ends_event_quietly = True


class LeadershipWriter:
    """Every write is checked against the controller epoch's znode version; a failed check calls
    ``on_controller_moved`` (the controller resigns) and raises ControllerMoved, which ends the event.
    ``unclean_elections`` (a meter) counts the leaders written from outside their partition's ISR."""

    def __init__(self, zk, context, broker_id, on_controller_moved, unclean_elections=None):
        self.zk = zk
        self.unclean_elections = unclean_elections
        self.context = context
        self.broker_id = broker_id
        self.on_controller_moved = on_controller_moved

    @defer.inlineCallbacks
    def refresh(self, partitions):
        """Re-read state znodes: leaders change ISRs without telling the controller first."""
        if not partitions:
            return
        states = yield self.zk.get_partition_states(list(partitions))
        for tp, state in states.items():
            self.context.leadership[tp] = leader_isr(state)

    @defer.inlineCallbacks
    def create(self, decided):
        """Create the state znodes of new partitions ({tp: LeaderIsr}); returns the partitions created."""
        if not decided:
            return []
        states = {tp: _znode_state(leadership) for tp, leadership in decided.items()}
        results = yield self._fenced(self.zk.create_partition_states, states)
        created = []
        for tp, outcome in results.items():
            if isinstance(outcome, Exception):
                log.warning(
                    "[Controller id=%d] creating the state znode of %s-%d failed: %r",
                    self.broker_id,
                    tp[0],
                    tp[1],
                    outcome,
                )
                continue
            self.context.leadership[tp] = decided[tp]._replace(zk_version=outcome.zk_version)
            created.append(tp)
        return created

    @defer.inlineCallbacks
    def write(self, decided, batch, recompute=None):
        """Conditionally update state znodes; on success update the context and queue LeaderAndIsr.

        A version conflict means a leader changed the ISR meanwhile: re-read those partitions and, when
        recompute(tps) is given, decide again and retry."""
        written = []
        for _ in range(LEADERSHIP_WRITE_ATTEMPTS):
            if not decided:
                break
            states = {tp: _znode_state(leadership) for tp, leadership in decided.items()}
            results = yield self._fenced(self.zk.update_partition_states, states)
            conflicts = []
            for tp, outcome in results.items():
                if isinstance(outcome, Exception):
                    if type(outcome).__name__ == "BadVersionError":
                        conflicts.append(tp)
                    else:
                        log.warning(
                            "[Controller id=%d] update of %s-%d failed: %r", self.broker_id, tp[0], tp[1], outcome
                        )
                    continue
                if self.unclean_elections is not None and _is_unclean(self.context.leadership.get(tp), decided[tp]):
                    self.unclean_elections.mark()
                self.context.leadership[tp] = decided[tp]._replace(zk_version=outcome.zk_version)
                batch.add_leader_and_isr(self.context.assignments[tp], tp)
                written.append(tp)
            if not conflicts or recompute is None:
                break
            yield self.refresh(conflicts)
            decided = recompute(conflicts)
        return written

    @defer.inlineCallbacks
    def write_changes(self, partitions, decide, batch, fresh=False):
        """Write what ``decide(tps)`` proposes for ``partitions``, deciding from the cached states: a stale
        cached state fails its conditional write and is re-read and decided again (write). Only the
        partitions for which the cache proposes nothing are re-read first (unless ``fresh``), since a
        stale state there could hide a change to make. Returns the partitions written."""
        decided = decide(partitions)
        unchanged = [tp for tp in partitions if tp not in decided]
        if unchanged and not fresh:
            yield self.refresh(unchanged)
            decided.update(decide(unchanged))
        written = yield self.write(decided, batch, decide)
        return written

    @defer.inlineCallbacks
    def _fenced(self, write, states):
        try:
            result = yield write(states, self.context.epoch, self.context.epoch_zk_version)
        except Exception as error:
            if type(error).__name__ == "ControllerMovedError":
                log.warning("[Controller id=%d] controller moved; resigning", self.broker_id)
                self.on_controller_moved()
                raise ControllerMoved(str(error)) from None
            raise
        return result


def _is_unclean(previous, elected):
    return previous is not None and elected.leader >= 0 and elected.leader not in previous.isr


def leader_isr(state):
    """The context's LeaderIsr of a partition state znode."""
    return LeaderIsr(state.leader, state.leader_epoch, list(state.isr), state.controller_epoch, state.zk_version)


def _znode_state(leadership):
    return LeaderIsrAndControllerEpoch(
        leadership.leader,
        leadership.leader_epoch,
        list(leadership.isr),
        leadership.controller_epoch,
        leadership.zk_version,
    )
