"""Elections on request: preferred leaders (znode, ElectLeaders, auto rebalance) and unclean ones."""

import logging

from twisted.internet import defer

from kafka_zk.controller import election
from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.events import AutoPreferredReplicaLeaderElection
from kafka_zk.controller.leadership import elect
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)

PREFERRED = 0
UNCLEAN = 1
# Kafka's controller checks the balance this soon after taking over, then leader.imbalance.check.interval.seconds
# after each check.
FIRST_REBALANCE_CHECK_SECONDS = 5


def imbalanced_partitions(context, max_imbalance_ratio):
    """Partitions whose preferred replica does not lead them, for brokers whose share of such partitions
    exceeds max_imbalance_ratio (leader.imbalance.per.broker.percentage / 100)."""
    by_preferred = {}
    for tp, replicas in context.assignments.items():
        if replicas and tp in context.leadership and tp[0] not in context.topics_to_delete:
            by_preferred.setdefault(replicas[0], []).append(tp)
    chosen = []
    for broker, partitions in sorted(by_preferred.items()):
        if broker not in context.live_broker_ids:
            continue
        not_led = [tp for tp in partitions if context.leadership[tp].leader != broker]
        if partitions and len(not_led) / len(partitions) > max_imbalance_ratio:
            chosen.extend(tp for tp in not_led if broker in context.leadership[tp].isr)
    return chosen


class LeaderElections:
    """Runs inside the controller's event queue, writing through the fenced leadership writer."""

    def __init__(self, context, zk, writer, requests, events, clock, config, controller_id):
        self.context = context
        self.zk = zk
        self.writer = writer
        self.requests = requests
        self.events = events
        self.clock = clock
        self.config = config
        self.controller_id = controller_id
        self._rebalance = None

    def start(self):
        """Schedule automatic preferred-leader rebalancing while this broker is the controller."""
        if self.config["auto.leader.rebalance.enable"] and self._rebalance is None:
            self._schedule_rebalance_check(FIRST_REBALANCE_CHECK_SECONDS)

    def stop(self):
        if self._rebalance is not None and self._rebalance.active():
            self._rebalance.cancel()
        self._rebalance = None

    def _schedule_rebalance_check(self, delay):
        self._rebalance = self.clock.callLater(delay, self.events.put, AutoPreferredReplicaLeaderElection())

    def auto_rebalance(self):
        """Elect the preferred leaders of the brokers leading too few of their partitions; the next check follows
        leader.imbalance.check.interval.seconds later."""
        if self._rebalance is None:
            return None  # resigned after the check was queued
        self._schedule_rebalance_check(self.config["leader.imbalance.check.interval.seconds"])
        ratio = self.config["leader.imbalance.per.broker.percentage"] / 100.0
        partitions = imbalanced_partitions(self.context, ratio)
        if not partitions:
            return None
        log.info(
            "[Controller id=%d] rebalancing %d partitions to their preferred leaders",
            self.controller_id,
            len(partitions),
        )
        return self.elect(PREFERRED, partitions)

    @defer.inlineCallbacks
    def on_znode(self):
        """/admin/preferred_replica_election appeared: elect those partitions, then remove the znode."""
        partitions = yield self.zk.get_preferred_replica_election()
        if partitions is None or not partitions:
            return
        yield self.elect(PREFERRED, [tp for tp in partitions if tp in self.context.assignments])
        yield self.zk.delete_preferred_replica_election(self.context.epoch_zk_version)

    @defer.inlineCallbacks
    def elect(self, election_type, partitions):
        """Run one kind of election for partitions; returns {tp: error code} (NONE when it moved)."""
        context = self.context
        results = {}
        candidates = []
        yield self.writer.refresh([tp for tp in partitions if tp in context.assignments])
        live = context.live_broker_ids
        for tp in partitions:
            if tp not in context.assignments:
                results[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                continue
            if tp[0] in context.topics_to_delete:
                results[tp] = Errors.INVALID_TOPIC_EXCEPTION  # Kafka: "The topic is being deleted"
                continue
            current = context.leadership.get(tp)
            assignment = context.assignments[tp]
            if election_type == PREFERRED:
                if current is not None and current.leader == assignment[0]:
                    results[tp] = Errors.ELECTION_NOT_NEEDED
                elif current is None or election.preferred_replica_leader(assignment, current.isr, live).leader is None:
                    results[tp] = Errors.PREFERRED_LEADER_NOT_AVAILABLE
                else:
                    candidates.append(tp)
            else:
                if current is not None and current.leader in live:
                    results[tp] = Errors.ELECTION_NOT_NEEDED
                elif not any(replica in live for replica in assignment):
                    results[tp] = Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
                else:
                    candidates.append(tp)
        strategy = "preferred" if election_type == PREFERRED else "offline"

        def decide(tps):
            return elect(context, tps, strategy, lambda topic: election_type == UNCLEAN)[0]

        batch = self.requests.new_batch()
        written = yield self.writer.write(decide(candidates), batch, decide)
        self.requests.send(batch)
        for tp in candidates:
            results[tp] = (
                Errors.NONE
                if tp in written
                else (
                    Errors.PREFERRED_LEADER_NOT_AVAILABLE
                    if election_type == PREFERRED
                    else Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
                )
            )
        for tp in written:
            sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
        return results
