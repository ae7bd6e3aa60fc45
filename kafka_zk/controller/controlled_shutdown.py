"""Controlled shutdown: leadership and ISR membership move off a broker that asked to shut down."""

import logging

from twisted.internet import defer

from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.leadership import elect, remove_replica_from_isr
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)


class ControlledShutdown:
    """Runs inside the controller's event queue, writing through the fenced leadership writer."""

    def __init__(self, context, writer, requests, controller_id):
        self.context = context
        self.writer = writer
        self.requests = requests
        self.controller_id = controller_id

    @defer.inlineCallbacks
    def handle(self, broker_id, broker_epoch):
        """(error, remaining partitions): the replicated partitions the broker still leads (no other could)."""
        context = self.context
        live = context.live_brokers.get(broker_id)
        if live is None:
            return Errors.BROKER_NOT_AVAILABLE, []
        if broker_epoch != -1 and broker_epoch < live.epoch:
            return Errors.STALE_BROKER_EPOCH, []
        context.shutting_down.add(broker_id)
        log.info("[Controller id=%d] controlled shutdown of broker %d", self.controller_id, broker_id)
        replicated = [
            tp
            for tp in context.partitions_on_broker(broker_id)
            if len(context.assignments[tp]) > 1 and tp in context.leadership and tp[0] not in context.topics_to_delete
        ]
        led = [tp for tp in replicated if context.leadership[tp].leader == broker_id]
        followed = [tp for tp in replicated if context.leadership[tp].leader != broker_id]
        batch = self.requests.new_batch()

        def move(partitions):
            return elect(context, partitions, "controlled_shutdown")[0]

        def stop_replicas(partitions, batch):
            # The leaving broker stops serving and fetching its replicated partitions: it can then neither
            # accept writes as a stale leader nor be added back to an ISR by a late fetch.
            for tp in partitions:
                sm.set_replica_state(context, tp, broker_id, sm.OFFLINE_REPLICA)
                batch.add_stop_replica(broker_id, tp, delete=False)

        yield self.writer.write_changes(led, move, batch)
        # The moved leaders go out at once (Kafka sends the partition state machine's batch when it is done);
        # the ISR changes of the partitions it follows come next.
        stop_replicas(led, batch)
        self.requests.send(batch)
        batch = self.requests.new_batch()

        def leave_isr(partitions):
            proposals = {}
            for tp in partitions:
                current = context.leadership[tp]
                proposal = remove_replica_from_isr(current, broker_id, context.epoch)
                if proposal is not None and proposal.leader != -1:
                    proposals[tp] = proposal
            return proposals

        yield self.writer.write_changes(followed, leave_isr, batch)
        stop_replicas(followed, batch)
        self.requests.send(batch)  # the changed partitions' UpdateMetadata rides with their LeaderAndIsr, as in Kafka
        remaining = [tp for tp in replicated if context.leadership[tp].leader == broker_id]
        return Errors.NONE, remaining
