"""TransactionMarkerChannel: sends WriteTxnMarkers for completing transactions to the partition leaders,
retried until every partition has its marker, then appends CompleteCommit/CompleteAbort.

Markers for one broker are batched into one request at a time (Kafka's per-broker queue drained by its sender);
partitions without a known leader or answering a retriable error are looked up again after a backoff.
"""

import logging

from twisted.internet import defer

from kafka_zk.coordinator.transaction import decisions as d
from kafka_zk.net.broker_client import BrokerConnection
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)

WRITE_TXN_MARKERS = 27
RETRY_BACKOFF_S = 0.05
REQUEST_SLACK_S = 5.0


class PendingCompletion:
    def __init__(self, coordinator_epoch, commit, metadata, transit):
        self.coordinator_epoch = coordinator_epoch
        self.commit = commit
        self.metadata = metadata
        self.transit = transit
        self.producer_id = metadata.producer_id
        self.producer_epoch = metadata.producer_epoch


class TransactionMarkerChannel:
    def __init__(
        self, reactor, broker_id, metadata_cache, listener_name, state_manager, request_timeout_ms, security=None
    ):
        """``listener_name``: the inter-broker listener markers go to; ``security``: how to reach it (a
        ListenerSecurity)."""
        self.security = security
        self.reactor = reactor
        self.client_id = "broker-%d-txn-marker-sender" % broker_id
        self.metadata_cache = metadata_cache
        self.listener_name = listener_name
        self.state_manager = state_manager
        self.request_timeout_s = request_timeout_ms / 1000.0
        self.pending = {}  # transactional id -> PendingCompletion
        self.queues = {}  # broker id -> {transactional id: set of tps}
        self.in_flight = set()  # broker ids with a request out
        self.connections = {}  # broker id -> (host, port, BrokerConnection)
        self.completed = 0
        self.closed = False

    def shutdown(self):
        self.closed = True
        self.pending.clear()
        self.queues.clear()
        for _, _, connection in self.connections.values():
            connection.close()
        self.connections.clear()

    # -- entry point -------------------------------------------------------------------------------

    def add_markers(self, coordinator_epoch, commit, metadata, transit):
        """``metadata`` is in PrepareCommit/PrepareAbort with ``transit`` (the completion) pending."""
        entry = PendingCompletion(coordinator_epoch, commit, metadata, transit)
        self.pending[metadata.transactional_id] = entry
        self._enqueue(metadata.transactional_id, set(metadata.partitions))
        self._maybe_complete(metadata.transactional_id)

    def _still_current(self, transactional_id):
        entry = self.pending.get(transactional_id)
        if entry is None:
            return None
        error, metadata = self.state_manager._current(transactional_id, entry.coordinator_epoch)
        if error != Errors.NONE or metadata is not entry.metadata:
            log.info("no longer sending markers of %s: %s", transactional_id, error.name)
            del self.pending[transactional_id]
            return None
        return entry

    def _enqueue(self, transactional_id, partitions):
        if self.closed:
            return
        entry = self._still_current(transactional_id)
        if entry is None:
            return
        unknown, touched = set(), set()
        for tp in partitions:
            info = self.metadata_cache.partition_info(*tp)
            if info is None:
                # The partition is gone (topic deleted): nothing to mark, as Kafka skips it.
                entry.metadata.partitions.discard(tp)
                continue
            if info.leader < 0 or self.metadata_cache.endpoint(info.leader, self.listener_name) is None:
                unknown.add(tp)
                continue
            self.queues.setdefault(info.leader, {}).setdefault(transactional_id, set()).add(tp)
            touched.add(info.leader)
        if unknown:
            self.reactor.callLater(RETRY_BACKOFF_S, self._enqueue, transactional_id, unknown)
        for broker_id in touched:
            self._drain(broker_id)
        if not partitions or not touched and not unknown:
            self._maybe_complete(transactional_id)

    # -- sending -----------------------------------------------------------------------------------

    def _connection(self, broker_id):
        endpoint = self.metadata_cache.endpoint(broker_id, self.listener_name)
        if endpoint is None:
            return None
        known = self.connections.get(broker_id)
        if known is not None and (known[0], known[1]) == tuple(endpoint):
            return known[2]
        if known is not None:
            known[2].close()
        connection = BrokerConnection(self.reactor, endpoint[0], endpoint[1], self.client_id, security=self.security)
        self.connections[broker_id] = (endpoint[0], endpoint[1], connection)
        return connection

    def _drain(self, broker_id):
        if self.closed or broker_id in self.in_flight or not self.queues.get(broker_id):
            return
        batch = self.queues.pop(broker_id)
        markers, sent = [], {}
        for transactional_id, tps in batch.items():
            entry = self._still_current(transactional_id)
            if entry is None:
                continue
            by_topic = {}
            for topic, partition in sorted(tps):
                by_topic.setdefault(topic, []).append(partition)
            markers.append(
                {
                    "producer_id": entry.producer_id,
                    "producer_epoch": entry.producer_epoch,
                    "transaction_result": entry.commit,
                    "coordinator_epoch": entry.coordinator_epoch,
                    "topics": [{"name": t, "partition_indexes": p} for t, p in by_topic.items()],
                }
            )
            sent[entry.producer_id] = (transactional_id, tps)
        if not markers:
            return
        connection = self._connection(broker_id)
        if connection is None:
            self._retry_later(sent.values())
            return
        self.in_flight.add(broker_id)
        request = connection.request(WRITE_TXN_MARKERS, 0, {"markers": markers})
        request.addTimeout(self.request_timeout_s + REQUEST_SLACK_S, self.reactor)
        request.addCallbacks(
            self._answered, self._failed, callbackArgs=(broker_id, sent), errbackArgs=(broker_id, sent, connection)
        )

    def _retry_later(self, entries):
        for transactional_id, tps in entries:
            self.reactor.callLater(RETRY_BACKOFF_S, self._enqueue, transactional_id, tps)

    def _failed(self, failure, broker_id, sent, connection):
        self.in_flight.discard(broker_id)
        log.info("WriteTxnMarkers to broker %d failed (%s); retrying", broker_id, failure.getErrorMessage())
        connection.close()
        self._retry_later(sent.values())
        self._drain(broker_id)

    def _answered(self, response, broker_id, sent):
        self.in_flight.discard(broker_id)
        answers = {}
        for marker in response.get("markers") or []:
            errors = answers.setdefault(marker["producer_id"], {})
            for topic in marker["topics"]:
                for partition in topic["partitions"]:
                    errors[(topic["name"], partition["partition_index"])] = Errors(partition["error_code"])
        for producer_id, (transactional_id, tps) in sent.items():
            self._handle_answer(transactional_id, tps, answers.get(producer_id, {}))
        self._drain(broker_id)

    def _handle_answer(self, transactional_id, tps, errors):
        entry = self._still_current(transactional_id)
        if entry is None:
            return
        retry = set()
        for tp in tps:
            error = errors.get(tp, Errors.REQUEST_TIMED_OUT)
            try:
                outcome = d.marker_outcome(error)
            except Exception:
                log.error("marker of %s for %s-%d failed with %s; retrying", transactional_id, tp[0], tp[1], error.name)
                outcome = d.MARKER_RETRY
            if outcome == d.MARKER_WRITTEN:
                entry.metadata.partitions.discard(tp)
            elif outcome == d.MARKER_RETRY:
                retry.add(tp)
            else:
                log.info("markers of %s fenced by %s; a newer coordinator completes it", transactional_id, error.name)
                self.pending.pop(transactional_id, None)
                return
        if retry:
            self._retry_later([(transactional_id, retry)])
        else:
            self._maybe_complete(transactional_id)

    # -- completion --------------------------------------------------------------------------------

    def _maybe_complete(self, transactional_id):
        entry = self.pending.get(transactional_id)
        if entry is None or entry.metadata.partitions:
            return
        del self.pending[transactional_id]
        self._append_completion(transactional_id, entry)

    def _append_completion(self, transactional_id, entry):
        if self.closed:
            return defer.succeed(None)

        def appended(error):
            if error == Errors.COORDINATOR_NOT_AVAILABLE:
                log.warning(
                    "appending %s of %s failed (%s); retrying", entry.transit.state, transactional_id, error.name
                )
                self.reactor.callLater(RETRY_BACKOFF_S, self._append_completion, transactional_id, entry)
            elif error == Errors.NONE:
                self.completed += 1
            else:
                log.info("completion of %s not written: %s", transactional_id, error.name)

        return self.state_manager.append_transition(
            transactional_id, entry.coordinator_epoch, entry.transit, retry_on_unavailable=True
        ).addCallback(appended)
