"""Partition reassignment (Kafka 2.5, KIP-455): grow to old+new replicas, wait for the ISR, shrink to new.

Started by /admin/reassign_partitions or AlterPartitionReassignments; progress is driven by ISR changes.
The topic znode records the moving set (adding_replicas / removing_replicas), so a new controller resumes.
"""

import logging

from twisted.internet import defer

from kafka_zk.controller import election
from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.context import LeaderIsr
from kafka_zk.controller.leadership import remove_replica_from_isr
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)


class Reassignment:
    __slots__ = ("target", "origin")

    def __init__(self, target, origin):
        self.target = list(target)
        self.origin = list(origin)

    @property
    def replicas(self):
        """The set being replicated while the move runs: the target first, then the replicas leaving."""
        return self.target + [replica for replica in self.origin if replica not in self.target]

    @property
    def adding(self):
        return [replica for replica in self.target if replica not in self.origin]

    @property
    def removing(self):
        return [replica for replica in self.origin if replica not in self.target]


class PartitionReassignments:
    """Runs inside the controller's event queue, writing through the fenced leadership writer."""

    def __init__(self, context, zk, writer, requests, controller_id):
        self.context = context
        self.zk = zk
        self.writer = writer
        self.requests = requests
        self.controller_id = controller_id
        self.in_progress = {}  # tp -> Reassignment
        self.from_znode = set()

    def reset(self):
        self.in_progress = {}
        self.from_znode = set()

    def forget_topic(self, topic):
        """A deleted topic's moves end with it."""
        for tp in [tp for tp in self.in_progress if tp[0] == topic]:
            del self.in_progress[tp]

    @defer.inlineCallbacks
    def resume(self, full_assignments):
        """A new controller picks up moves recorded in topic znodes, then the admin znode's requests."""
        for topic, assignment in full_assignments.items():
            for partition, replicas in assignment.partitions.items():
                adding = assignment.adding_replicas.get(partition, [])
                removing = assignment.removing_replicas.get(partition, [])
                if adding or removing:
                    target = [r for r in replicas if r not in removing]
                    origin = [r for r in replicas if r not in adding]
                    self.in_progress[(topic, partition)] = Reassignment(target, origin)
        for tp in sorted(self.in_progress):
            yield self._maybe_complete(tp)

    @defer.inlineCallbacks
    def on_znode(self):
        requested = yield self.zk.get_partition_reassignment()
        if not requested:
            return
        results = yield self.start(requested)
        self.from_znode.update(tp for tp, code in results.items() if code == Errors.NONE and tp in self.in_progress)
        yield self._maybe_delete_znode()

    @defer.inlineCallbacks
    def start(self, targets):
        """targets: {tp: [replicas] or None (cancel)}. Returns {tp: error code}."""
        context = self.context
        results = {}
        live = context.live_or_shutting_down_broker_ids
        for tp, target in sorted(targets.items()):
            current = self.in_progress.get(tp)
            if tp not in context.assignments or tp[0] in context.topics_to_delete:
                results[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                continue
            if target is None:
                if current is None:
                    results[tp] = Errors.NO_REASSIGNMENT_IN_PROGRESS
                    continue
                target = current.origin
            if not target or len(set(target)) != len(target) or any(b not in live for b in target):
                results[tp] = Errors.INVALID_REPLICA_ASSIGNMENT
                continue
            origin = current.origin if current is not None else list(context.assignments[tp])
            results[tp] = Errors.NONE
            if target == origin and current is None:
                continue
            log.info(
                "[Controller id=%d] reassigning %s-%d from %s to %s", self.controller_id, tp[0], tp[1], origin, target
            )
            self.in_progress[tp] = Reassignment(target, origin)
            yield self._grow(tp)
            yield self._maybe_complete(tp)
        return results

    @defer.inlineCallbacks
    def _grow(self, tp):
        """Phase one: every replica old and new is assigned, new ones start following."""
        context = self.context
        move = self.in_progress[tp]
        context.assignments[tp] = move.replicas
        yield self._write_topic(tp[0])
        for replica in move.adding:
            if sm.replica_state(context, tp, replica) == sm.NON_EXISTENT_REPLICA:
                sm.set_replica_state(context, tp, replica, sm.NEW_REPLICA)
            if replica in context.live_brokers:
                sm.set_replica_state(context, tp, replica, sm.ONLINE_REPLICA)
        yield self.writer.refresh([tp])
        batch = self.requests.new_batch()
        current = context.leadership.get(tp)
        # A target already in the ISR completes at once: Kafka bumps the leader epoch only when it completes.
        if current is not None and not all(replica in current.isr for replica in move.target):
            written = yield self.writer.write(
                {tp: current._replace(leader_epoch=current.leader_epoch + 1, controller_epoch=context.epoch)}, batch
            )
            if tp in written:  # Kafka's NewReplica: a broker may create these anywhere, even with a dir offline
                batch.add_leader_and_isr(move.adding, tp, is_new=True)
        self.requests.send(batch)

    def on_isr_changed(self, partitions):
        return defer.DeferredList([self._maybe_complete(tp) for tp in partitions if tp in self.in_progress])

    @defer.inlineCallbacks
    def _maybe_complete(self, tp):
        """Phase two, once the whole target is in the ISR: lead from the target, drop the leavers."""
        context = self.context
        move = self.in_progress.get(tp)
        if move is None:
            return
        yield self.writer.refresh([tp])
        current = context.leadership.get(tp)
        if current is None or any(replica not in current.isr for replica in move.target):
            return
        context.assignments[tp] = list(move.target)  # LeaderAndIsr goes to the target replicas
        live = context.live_broker_ids
        batch = self.requests.new_batch()
        if current.leader in move.target and current.leader in live:
            proposal = current._replace(leader_epoch=current.leader_epoch + 1, controller_epoch=context.epoch)
        else:
            chosen = election.reassign_partition_leader(move.target, current.isr, live)
            if chosen.leader is None:
                context.assignments[tp] = move.replicas
                return
            proposal = LeaderIsr(
                chosen.leader, current.leader_epoch + 1, list(current.isr), context.epoch, current.zk_version
            )
        # One more leader epoch for each leaver taken out of the ISR, as Kafka's OfflineReplica transitions write.
        for replica in move.removing:
            proposal = remove_replica_from_isr(proposal, replica, context.epoch) or proposal
        written = yield self.writer.write({tp: proposal}, batch)
        if tp not in written:
            context.assignments[tp] = move.replicas
            return
        for replica in move.removing:
            batch.add_stop_replica(replica, tp, delete=True)
            context.replica_states.pop((tp[0], tp[1], replica), None)
        del self.in_progress[tp]
        yield self._write_topic(tp[0])
        batch.add_update_metadata(context.live_brokers, [tp])
        self.requests.send(batch)
        log.info(
            "[Controller id=%d] reassignment of %s-%d to %s completed", self.controller_id, tp[0], tp[1], move.target
        )
        self.from_znode.discard(tp)
        yield self._maybe_delete_znode()

    def _write_topic(self, topic):
        context = self.context
        assignment = {tp[1]: list(replicas) for tp, replicas in context.assignments.items() if tp[0] == topic}
        moving = {tp[1]: move for tp, move in self.in_progress.items() if tp[0] == topic}
        adding = {partition: move.adding for partition, move in moving.items() if move.adding}
        removing = {partition: move.removing for partition, move in moving.items() if move.removing}
        return self.zk.set_topic_assignment(topic, assignment, adding, removing, context.epoch_zk_version)

    @defer.inlineCallbacks
    def _maybe_delete_znode(self):
        if not self.from_znode:
            exists = yield self.zk.get_partition_reassignment()
            if exists and all(tp not in self.in_progress for tp in exists):
                yield self.zk.delete_partition_reassignment(self.context.epoch_zk_version)

    def listing(self, partitions=None):
        """[(tp, replicas, adding, removing)] of the moves in progress (all, or those asked for)."""
        chosen = sorted(self.in_progress) if partitions is None else [tp for tp in partitions if tp in self.in_progress]
        return [
            (tp, self.in_progress[tp].replicas, self.in_progress[tp].adding, self.in_progress[tp].removing)
            for tp in chosen
        ]
