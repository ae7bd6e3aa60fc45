"""TransactionStateManager: the transaction metadata cache per `__transaction_state` partition (with the
partition's coordinator epoch), its loading on leadership, unloading, and appends of transitions to the log."""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.coordinator.coordinator_metrics import LoadTimes, register_load_time_gauges
from kafka_zk.coordinator.transaction import decisions as d
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC, TxnLogReplay, partition_for, txn_log_batch
from kafka_zk.coordinator.transaction.state import DEAD, TransactionMetadata
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)


class TxnPartitionCache:
    def __init__(self, coordinator_epoch):
        self.coordinator_epoch = coordinator_epoch
        self.transactions = {}


class TransactionStateManager:
    def __init__(self, broker_id, config, replica_manager, clock, metrics=None):
        """``metrics``: the MetricsRegistry that gets the partition load times (transaction-coordinator-metrics)."""
        self.broker_id = broker_id
        self.replica_manager = replica_manager
        self.clock = clock
        self.num_partitions = config["transaction.state.log.num.partitions"]
        self.load_buffer_size = config["transaction.state.log.load.buffer.size"]
        self.max_timeout_ms = config["transaction.max.timeout.ms"]
        self.expiration_ms = config["transactional.id.expiration.ms"]
        self.caches = {}  # partition id -> TxnPartitionCache
        self.loading = {}  # partition id -> (coordinator epoch, load token)
        self._tokens = 0
        self.active = True
        self.load_times = LoadTimes()
        register_load_time_gauges(
            metrics if metrics is not None else MetricsRegistry(),
            "transaction-coordinator-metrics",
            self.load_times,
            lambda: milliseconds(self.clock),
        )

    def shutdown(self):
        self.active = False
        self.loading.clear()
        self.caches.clear()

    def partition_for(self, transactional_id):
        return partition_for(transactional_id, self.num_partitions)

    # -- the cache ---------------------------------------------------------------------------------

    def get_state(self, transactional_id, create=None):
        """(error, (coordinator_epoch, TransactionMetadata) or None); ``create`` is put in the cache when the id
        is unknown (Kafka's putTransactionStateIfNotExists)."""
        partition_id = self.partition_for(transactional_id)
        if not self.active:
            return Errors.NOT_COORDINATOR, None
        if partition_id in self.loading:
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
        cache = self.caches.get(partition_id)
        if cache is None:
            return Errors.NOT_COORDINATOR, None
        metadata = cache.transactions.get(transactional_id)
        if metadata is None and create is not None:
            metadata = cache.transactions[transactional_id] = create
        if metadata is None:
            return Errors.NONE, None
        return Errors.NONE, (cache.coordinator_epoch, metadata)

    def all_transactions(self):
        """(coordinator_epoch, TransactionMetadata) of every loaded transactional id."""
        for cache in list(self.caches.values()):
            for metadata in list(cache.transactions.values()):
                yield cache.coordinator_epoch, metadata

    def _current(self, transactional_id, coordinator_epoch):
        """The metadata when the partition is still ours at ``coordinator_epoch``, else an error."""
        error, found = self.get_state(transactional_id)
        if error != Errors.NONE:
            return error, None
        if found is None or found[0] != coordinator_epoch:
            return Errors.NOT_COORDINATOR, None
        return Errors.NONE, found[1]

    # -- appends -----------------------------------------------------------------------------------

    def append_transition(self, transactional_id, coordinator_epoch, transit, retry_on_unavailable=False):
        """Append ``transit`` with acks=-1 (timeout: the transaction timeout); on success the cached metadata
        adopts it. Deferred of the coordinator error. A failed append clears the pending state unless
        ``retry_on_unavailable`` and the error is COORDINATOR_NOT_AVAILABLE (the caller appends again)."""
        error, _ = self._current(transactional_id, coordinator_epoch)
        if error != Errors.NONE:
            return defer.succeed(error)
        tp = (TRANSACTION_STATE_TOPIC, self.partition_for(transactional_id))
        now = milliseconds(self.clock)
        value = None if transit.state is DEAD else transit.log_value()
        batch = txn_log_batch(transactional_id, value, now)
        appended = self.replica_manager.append_records(transit.txn_timeout_ms, -1, {tp: batch})

        def done(results):
            result_error = Errors(results[tp].error)
            error = Errors.NONE if result_error == Errors.NONE else d.append_error(result_error)
            current_error, metadata = self._current(transactional_id, coordinator_epoch)
            if error == Errors.NONE:
                if current_error != Errors.NONE:
                    return Errors.NOT_COORDINATOR
                metadata.complete_transition(transit)
                return Errors.NONE
            if metadata is not None and not (retry_on_unavailable and error == Errors.COORDINATOR_NOT_AVAILABLE):
                metadata.abandon_transition()
            log.info(
                "appending %s of %s to the transaction log failed: %s", transit.state, transactional_id, error.name
            )
            return error

        return appended.addCallback(done)

    def remove_transaction(self, transactional_id, coordinator_epoch):
        error, metadata = self._current(transactional_id, coordinator_epoch)
        if error == Errors.NONE:
            self.caches[self.partition_for(transactional_id)].transactions.pop(transactional_id, None)

    # -- loading and unloading ---------------------------------------------------------------------

    def schedule_load(self, partition_id, coordinator_epoch, on_loaded):
        """This broker now leads the partition at ``coordinator_epoch``: read it back (answering
        COORDINATOR_LOAD_IN_PROGRESS meanwhile), then ``on_loaded(partition_id, coordinator_epoch, [metadata])``
        so that transactions left in PrepareCommit/PrepareAbort get their markers."""
        cache = self.caches.get(partition_id)
        if cache is not None and cache.coordinator_epoch >= coordinator_epoch:
            return
        loading = self.loading.get(partition_id)
        if loading is not None and loading[0] >= coordinator_epoch:
            return
        self.caches.pop(partition_id, None)
        self._tokens += 1
        self.loading[partition_id] = (coordinator_epoch, self._tokens)
        self.clock.callLater(
            0, self._load, partition_id, coordinator_epoch, self._tokens, on_loaded, milliseconds(self.clock)
        )

    def _load(self, partition_id, coordinator_epoch, token, on_loaded, scheduled_ms):
        if self.loading.get(partition_id) != (coordinator_epoch, token):
            return
        partition = self.replica_manager.get_partition(TRANSACTION_STATE_TOPIC, partition_id)
        if partition is None or partition.log is None or not partition.is_leader:
            del self.loading[partition_id]
            return
        replay = TxnLogReplay()
        try:
            for header, records in partition.log.iter_batches_to_end(self.load_buffer_size):
                if not header.is_control:
                    for record in records:
                        replay.add(record)
        except OSError as error:  # the dir goes offline and the partition's transactions with it
            del self.loading[partition_id]
            self.replica_manager.failures.report_log(partition.log, "loading transactions from", error)
            return
        del self.loading[partition_id]
        cache = self.caches[partition_id] = TxnPartitionCache(coordinator_epoch)
        for transactional_id, value in replay.values.items():
            try:
                cache.transactions[transactional_id] = TransactionMetadata.from_log(transactional_id, value)
            except ValueError:
                replay.skipped += 1
        now = milliseconds(self.clock)
        self.load_times.record(now - scheduled_ms, now)
        log.info(
            "Loaded %d transactional ids from %s-%d at coordinator epoch %d (%d records skipped)",
            len(cache.transactions),
            TRANSACTION_STATE_TOPIC,
            partition_id,
            coordinator_epoch,
            replay.skipped,
        )
        on_loaded(partition_id, coordinator_epoch, list(cache.transactions.values()))

    def unload(self, partition_id, coordinator_epoch=None):
        """This broker no longer leads the partition (at ``coordinator_epoch`` or later when given)."""
        loading = self.loading.get(partition_id)
        if loading is not None and (coordinator_epoch is None or loading[0] <= coordinator_epoch):
            del self.loading[partition_id]
        cache = self.caches.get(partition_id)
        if cache is not None and (coordinator_epoch is None or cache.coordinator_epoch <= coordinator_epoch):
            del self.caches[partition_id]
            log.info(
                "Unloaded %d transactional ids of %s-%d", len(cache.transactions), TRANSACTION_STATE_TOPIC, partition_id
            )
