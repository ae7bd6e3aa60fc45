"""TransactionCoordinator: the reactor shell of transactions (InitProducerId with a transactional id,
AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, timeouts, expiration, loading).

Decisions come from kafka_zk.coordinator.transaction.decisions; this module allocates producer ids, appends
transitions through the TransactionStateManager and hands completing transactions to the marker channel.
"""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.coordinator.transaction import decisions as d
from kafka_zk.coordinator.transaction.state import EMPTY, NO_PRODUCER_EPOCH, PREPARE_EPOCH_FENCE, TransactionMetadata
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)


def _logged(result):
    def failed(failure):
        log.error("transaction coordinator task failed: %s", failure.getTraceback())

    return result.addErrback(failed)


class TransactionCoordinator:
    def __init__(self, manager, markers, producer_ids, clock):
        self.manager = manager
        self.markers = markers
        self.producer_ids = producer_ids
        self.clock = clock

    def shutdown(self):
        self.markers.shutdown()
        self.manager.shutdown()

    # -- InitProducerId ----------------------------------------------------------------------------

    @defer.inlineCallbacks
    def handle_init_producer_id(self, transactional_id, timeout_ms, expected=None):
        """(error, producer_id, producer_epoch); ``expected`` is (producer_id, epoch) from v3 or None."""
        if transactional_id == "":
            return Errors.INVALID_REQUEST, -1, -1
        if not d.valid_timeout(timeout_ms, self.manager.max_timeout_ms):
            return Errors.INVALID_TRANSACTION_TIMEOUT, -1, -1
        error, found = self.manager.get_state(transactional_id)
        if error != Errors.NONE:
            return error, -1, -1
        new_producer_id = None
        if d.needs_new_producer_id(found and found[1], expected):
            new_producer_id = yield self.producer_ids.next_id()
            created = TransactionMetadata(
                transactional_id,
                new_producer_id,
                NO_PRODUCER_EPOCH,
                timeout_ms,
                EMPTY,
                last_update_timestamp=milliseconds(self.clock),
            )
            error, found = self.manager.get_state(transactional_id, create=created)
            if error != Errors.NONE:
                return error, -1, -1
        coordinator_epoch, metadata = found
        if metadata.producer_id == new_producer_id:
            new_producer_id = None  # the id went into the new metadata; a rotation would need another
        decision = d.decide_init_producer_id(metadata, timeout_ms, expected, new_producer_id, milliseconds(self.clock))
        if not decision.ok:
            return decision.error, -1, -1
        transit = decision.transit
        if decision.fence_first:
            error = yield self._end_transaction(
                transactional_id, transit.producer_id, transit.producer_epoch, commit=False, from_client=False
            )
            return (Errors.CONCURRENT_TRANSACTIONS if error == Errors.NONE else error), -1, -1
        error = yield self.manager.append_transition(transactional_id, coordinator_epoch, transit)
        if error != Errors.NONE:
            log.info("Returning %s to InitProducerId of %s", error.name, transactional_id)
            return error, -1, -1
        log.info(
            "Initialized transactionalId %s with producerId %d and producer epoch %d on partition "
            "__transaction_state-%d",
            transactional_id,
            transit.producer_id,
            transit.producer_epoch,
            self.manager.partition_for(transactional_id),
        )
        return Errors.NONE, transit.producer_id, transit.producer_epoch

    # -- AddPartitionsToTxn / AddOffsetsToTxn ------------------------------------------------------

    def handle_add_partitions(self, transactional_id, producer_id, producer_epoch, partitions):
        """Deferred of the error for all ``partitions`` ((topic, partition) pairs)."""
        if not transactional_id:
            return defer.succeed(Errors.INVALID_REQUEST)
        error, found = self.manager.get_state(transactional_id)
        if error != Errors.NONE:
            return defer.succeed(error)
        if found is None:
            return defer.succeed(Errors.INVALID_PRODUCER_ID_MAPPING)
        coordinator_epoch, metadata = found
        decision = d.decide_add_partitions(metadata, producer_id, producer_epoch, partitions, milliseconds(self.clock))
        if not decision.ok:
            return defer.succeed(decision.error)
        if decision.transit is None:
            return defer.succeed(Errors.NONE)
        return self.manager.append_transition(transactional_id, coordinator_epoch, decision.transit)

    # -- EndTxn --------------------------------------------------------------------------------------

    def handle_end_txn(self, transactional_id, producer_id, producer_epoch, commit):
        return self._end_transaction(transactional_id, producer_id, producer_epoch, commit, from_client=True)

    @defer.inlineCallbacks
    def _end_transaction(self, transactional_id, producer_id, producer_epoch, commit, from_client):
        """Append PrepareCommit/PrepareAbort, answer, and let the marker channel finish the transaction."""
        if not transactional_id:
            return Errors.INVALID_REQUEST
        error, found = self.manager.get_state(transactional_id)
        if error != Errors.NONE:
            return error
        if found is None:
            return Errors.INVALID_PRODUCER_ID_MAPPING
        coordinator_epoch, metadata = found
        decision = d.decide_end_txn(
            metadata, producer_id, producer_epoch, commit, from_client, milliseconds(self.clock)
        )
        if not decision.ok:
            if not from_client and metadata.pending_state is PREPARE_EPOCH_FENCE:
                metadata.abandon_transition()
            return decision.error
        if decision.transit is None:
            return Errors.NONE
        error = yield self.manager.append_transition(transactional_id, coordinator_epoch, decision.transit)
        if error != Errors.NONE:
            if decision.epoch_fence:
                current_error, current = self.manager._current(transactional_id, coordinator_epoch)
                if current is not None:
                    current.has_failed_epoch_fence = True
                    log.warning(
                        "The coordinator failed to write an epoch fence transition for %s: %s",
                        transactional_id,
                        error.name,
                    )
            return error
        current_error, current = self.manager._current(transactional_id, coordinator_epoch)
        if current is None:
            return Errors.NOT_COORDINATOR
        completion = d.decide_complete(current, producer_id, producer_epoch, commit, milliseconds(self.clock))
        if not completion.ok:
            return completion.error
        self.markers.add_markers(coordinator_epoch, commit, current, completion.transit)
        return Errors.NONE

    # -- periodic work -------------------------------------------------------------------------------

    def abort_timed_out_transactions(self):
        """transaction.abort.timed.out.transaction.cleanup.interval.ms: abort transactions past their timeout,
        fencing their producer (its epoch is bumped)."""
        now = milliseconds(self.clock)
        aborted = []
        for _, metadata in list(self.manager.all_transactions()):
            if not d.timed_out(metadata, now):
                continue
            transit = metadata.prepare_fence_producer_epoch()
            log.info(
                "Aborting transaction %s of producer %d (epoch %d) after its %d ms timeout",
                metadata.transactional_id,
                metadata.producer_id,
                metadata.producer_epoch,
                metadata.txn_timeout_ms,
            )
            aborted.append(
                self._end_transaction(
                    metadata.transactional_id,
                    transit.producer_id,
                    transit.producer_epoch,
                    commit=False,
                    from_client=False,
                )
            )
        return _logged(defer.gatherResults(aborted, consumeErrors=True) if aborted else defer.succeed([]))

    def remove_expired_transactional_ids(self):
        """transaction.remove.expired.transaction.cleanup.interval.ms: tombstone ids idle past
        transactional.id.expiration.ms."""
        now = milliseconds(self.clock)
        removals = []
        for coordinator_epoch, metadata in list(self.manager.all_transactions()):
            if not d.expired(metadata, now, self.manager.expiration_ms):
                continue
            transactional_id = metadata.transactional_id
            transit = metadata.prepare_dead()

            def removed(error, transactional_id=transactional_id, coordinator_epoch=coordinator_epoch):
                if error == Errors.NONE:
                    self.manager.remove_transaction(transactional_id, coordinator_epoch)
                    log.info("Removed expired transactional id %s", transactional_id)

            removals.append(
                self.manager.append_transition(transactional_id, coordinator_epoch, transit).addCallback(removed)
            )
        return _logged(defer.gatherResults(removals, consumeErrors=True) if removals else defer.succeed([]))

    # -- loading and unloading ---------------------------------------------------------------------

    def on_election(self, partition_id, coordinator_epoch):
        self.manager.schedule_load(partition_id, coordinator_epoch, self._on_loaded)

    def on_resignation(self, partition_id, coordinator_epoch=None):
        self.manager.unload(partition_id, coordinator_epoch)

    def _on_loaded(self, partition_id, coordinator_epoch, transactions):
        """Transactions found in PrepareCommit/PrepareAbort get their markers sent again."""
        for metadata in transactions:
            commit = d.pending_completion(metadata)
            if commit is None:
                continue
            log.info(
                "Completing transaction %s (%s) left by the previous coordinator",
                metadata.transactional_id,
                metadata.state,
            )
            self.markers.add_markers(
                coordinator_epoch, commit, metadata, metadata.prepare_complete(milliseconds(self.clock))
            )
