"""State-machine transitions driven by controller events: partitions online, replicas offline, new partitions."""

import logging

from twisted.internet import defer

from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.leadership import elect, initial_leadership, remove_replica_from_isr

log = logging.getLogger(__name__)

FIRST_BATCH_WAIT_S = 1.0  # the longest a failover waits for the answers to its new leaders before its ISR changes


class StateChanges:
    """Decides from the context, writes through the fenced leadership writer and sends through the request sender.
    ``broker_default(name)`` is the broker's current value of a config (unclean.leader.election.enable)."""

    def __init__(self, context, writer, requests, clock, controller_id, broker_default):
        self.context = context
        self.writer = writer
        self.requests = requests
        self.clock = clock
        self.controller_id = controller_id
        self.broker_default = broker_default

    @defer.inlineCallbacks
    def to_online(self, batch, partitions=None, fresh=False):
        """Move New and Offline partitions (all, or the given ones) to OnlinePartition where possible.
        ``fresh``: the context's leadership was just read, no need to read it again.
        Returns the set of partitions whose state znode this wrote."""
        context = self.context
        if partitions is None:
            partitions = [
                tp
                for tp, state in context.partition_states.items()
                if state in (sm.NEW_PARTITION, sm.OFFLINE_PARTITION)
            ]
        partitions = [tp for tp in partitions if tp[0] not in context.topics_to_delete]
        new = [tp for tp in partitions if sm.partition_state(context, tp) == sm.NEW_PARTITION]
        offline = [tp for tp in partitions if sm.partition_state(context, tp) == sm.OFFLINE_PARTITION]
        changed = set()
        if new:
            decided, failed = initial_leadership(context, new)
            if failed:
                log.info("[Controller id=%d] no live replica for new partitions %s", self.controller_id, failed)
            created = yield self.writer.create(decided)
            changed.update(created)
            for tp in created:
                sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
                batch.add_leader_and_isr(context.assignments[tp], tp, is_new=True)
        if offline:
            written = yield self.writer.write_changes(
                offline, lambda tps: elect(context, tps, "offline", self.unclean_enabled)[0], batch, fresh
            )
            failed = sorted(set(offline) - set(written))
            if failed:
                log.info(
                    "[Controller id=%d] partitions without an eligible leader stay offline: %s",
                    self.controller_id,
                    failed,
                )
            changed.update(written)
            for tp in written:
                sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
        return changed

    def unclean_enabled(self, topic):
        value = self.context.topic_configs.get(topic, {}).get("unclean.leader.election.enable")
        if value is None:
            return self.broker_default("unclean.leader.election.enable")
        return str(value).lower() == "true"

    def remove_from_isrs(self, partitions, brokers, batch):
        """Offline replicas (on ``brokers``) leave the ISRs of ``partitions``, as Kafka's OfflineReplica
        transition does: one new leader epoch per partition, written fenced, LeaderAndIsr queued.
        A Deferred of the partitions written."""
        context = self.context

        def shrink(tps):
            proposals = {}
            for tp in tps:
                current = context.leadership.get(tp)
                if current is None:
                    continue
                proposal = current
                for broker in brokers:
                    proposal = remove_replica_from_isr(proposal, broker, context.epoch) or proposal
                if proposal is not current:
                    proposals[tp] = proposal._replace(leader_epoch=current.leader_epoch + 1)
            return proposals

        return self.writer.write_changes(partitions, shrink, batch)

    def send_before_more_work(self, batch):
        """Send, then wait (at most FIRST_BATCH_WAIT_S) until the brokers have answered before the event goes on:
        a failover's new leaders are what clients wait for, and the ISR changes that follow would compete with
        the brokers applying them for the machine's cores (and for this process's reactor)."""
        return self.requests.send_and_wait(batch, FIRST_BATCH_WAIT_S)

    @defer.inlineCallbacks
    def on_new_partitions(self, partitions):
        """NewPartition/NewReplica, then OnlinePartition with initial leaders, LeaderAndIsr and metadata."""
        context = self.context
        for tp in partitions:
            sm.set_partition_state(context, tp, sm.NEW_PARTITION)
            for replica in context.assignments[tp]:
                sm.set_replica_state(context, tp, replica, sm.NEW_REPLICA)
        batch = self.requests.new_batch()
        yield self.to_online(batch, partitions)
        for tp in partitions:
            for replica in context.assignments[tp]:
                if replica in context.live_brokers:
                    sm.set_replica_state(context, tp, replica, sm.ONLINE_REPLICA)
        self.requests.send(batch)

    @defer.inlineCallbacks
    def on_brokers_startup(self, brokers):
        """The replicas of (re)started brokers come online. First the other live brokers hear of the new ones, then
        the new ones hear of every partition, and only then do they get their LeaderAndIsr: a Kafka broker becomes a
        follower only of a leader its metadata cache already knows to be alive. A new broker's first UpdateMetadata
        is the one with every partition: it starts serving clients on its first, and must not answer them from an
        empty view of the topics."""
        context = self.context
        existing = [broker for broker in context.live_brokers if broker not in brokers]
        for brokers_told, partitions in ((existing, ()), (brokers, None)):
            metadata = self.requests.new_batch()
            metadata.add_update_metadata(brokers_told, partitions)
            self.requests.send(metadata)
        batch = self.requests.new_batch()
        for tp, replicas in context.assignments.items():
            if tp[0] in context.topics_to_delete:
                continue
            for broker in brokers:
                if broker in replicas:
                    sm.set_replica_state(context, tp, broker, sm.ONLINE_REPLICA)
                    if tp in context.leadership:
                        batch.add_leader_and_isr([broker], tp)
        yield self.to_online(batch)
        self.requests.send(batch)

    @defer.inlineCallbacks
    def on_replicas_offline(self, replicas, cause):
        """Kafka's onReplicasBecomeOffline: ``replicas`` ({broker: {tp}}) went offline with their broker or their
        log dir. The partitions they led elect new leaders; then they leave the ISRs of the others."""
        context = self.context
        started = self.clock.seconds()
        batch = self.requests.new_batch()
        led = [tp for tp, leadership in context.leadership.items() if tp in replicas.get(leadership.leader, ())]
        for tp in led:
            sm.set_partition_state(context, tp, sm.OFFLINE_PARTITION)
        elected = yield self.to_online(batch)
        # The new leaders go out at once, as Kafka sends each state machine's batch when it is done, and are
        # applied before the ISR changes below (every partition with an offline replica) compete.
        yield self.send_before_more_work(batch)
        sent = self.clock.seconds()
        batch = self.requests.new_batch()
        shrunk = []
        for broker, partitions in sorted(replicas.items()):
            for tp in partitions:
                if tp[0] in context.topics_to_delete:
                    if sm.replica_state(context, tp, broker) == sm.REPLICA_DELETION_STARTED:
                        sm.set_replica_state(context, tp, broker, sm.REPLICA_DELETION_INELIGIBLE)
                elif tp in context.assignments:
                    sm.set_replica_state(context, tp, broker, sm.OFFLINE_REPLICA)
            # The offline replicas leave the ISRs of their partitions (those just elected left them out already).
            shrunk += yield self.remove_from_isrs(
                [
                    tp
                    for tp in partitions
                    if tp in context.assignments and tp not in elected and tp[0] not in context.topics_to_delete
                ],
                [broker],
                batch,
            )
        batch.add_update_metadata(context.live_brokers)
        self.requests.send(batch)
        log.info(
            "[Controller id=%d] %s %s: %d of their %d partitions led elsewhere in %.2fs, %d replicas out of ISRs "
            "in %.2fs",
            self.controller_id,
            cause,
            sorted(replicas),
            len(elected),
            len(led),
            sent - started,
            len(shrunk),
            self.clock.seconds() - sent,
        )
