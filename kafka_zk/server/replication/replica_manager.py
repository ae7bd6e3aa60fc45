"""ReplicaManager: the partitions this broker hosts, leader appends, reads, follower state, leadership changes."""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.common.purgatory import DelayedOperationPurgatory
from kafka_zk.common.topic_names import is_valid_topic_partition
from kafka_zk.log.dir_failure import KafkaStorageError
from kafka_zk.log.log import OffsetOutOfRangeError, RecordBatchTooLargeError
from kafka_zk.protocol.errors import NO_ERROR, Errors, KafkaError
from kafka_zk.protocol.primitives import FILE_REGION_COPY_BELOW
from kafka_zk.record.batch_header import InvalidRecordError
from kafka_zk.record.compression import DEFAULT_MAX_DECOMPRESSED, UnsupportedCodecError
from kafka_zk.record.validation import (
    InvalidBatchError,
    InvalidTimestampError,
    MissingKeyError,
    RecordTooLargeError,
    validate_produce_records,
)
from kafka_zk.server.config.topic_config import to_log_config
from kafka_zk.server.metrics.broker_topic_stats import BrokerTopicStats
from kafka_zk.server.quota.replication_quota import should_throttle
from kafka_zk.server.replication.delayed import DelayedFetch, DelayedProduce, ProduceWaiters
from kafka_zk.server.replication.delayed_delete_records import DelayedDeleteRecords
from kafka_zk.server.replication.isr_updates import IsrUpdates
from kafka_zk.server.replication.partition import Partition
from kafka_zk.server.replication.replica_metrics import replica_manager_collector
from kafka_zk.server.replication.replica_selector import ReplicaView
from kafka_zk.server.replication.results import (
    MAX_REGIONS_PER_FETCH,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    DeleteRecordsResult,
    FetchResult,
    ProduceResult,
)
from kafka_zk.server.replication.turn_batch import TurnBatch

log = logging.getLogger(__name__)

# The produce errors Kafka 2.5 answers without the partition's log start offset (ReplicaManager.appendToLocalLog).
_NO_LOG_START_ERRORS = frozenset(
    {
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_LEADER_FOR_PARTITION,
        Errors.MESSAGE_TOO_LARGE,
        Errors.RECORD_LIST_TOO_LARGE,
        Errors.CORRUPT_MESSAGE,
        Errors.KAFKA_STORAGE_ERROR,
    }
)


def session_key(session_id):
    """The purgatory key of a fetch session: a parked fetch of the session waits on it."""
    return ("fetch-session", session_id)


class ReplicaManager:
    def __init__(
        self,
        broker_id,
        log_manager,
        topic_config,
        clock,
        *,
        isr_writer,
        is_broker_alive,
        replication_quotas,
        fetch_sessions,
        make_fetchers,
        make_log_dir_mover,
        high_watermarks=None,
        replica_lag_time_max_ms=30000,
        knows_partition=lambda tp: False,
        replica_selector=None,
        broker_rack=lambda broker_id: None,
        metrics=None,
        topic_stats=None,
    ):
        """``topic_config(topic)``: the topic's effective config dict; ``isr_writer(partition, new_isr)``: a Deferred
        of the partition state's new zk version, or None when the write lost a race; ``is_broker_alive(broker id)``:
        per the metadata cache; ``replication_quotas``: the leader and follower ReplicationQuotas;
        ``fetch_sessions``: the FetchSessionCache, told of every fetchable change; ``make_fetchers(fetchable_changed)``
        builds the ReplicaFetcherManager of this broker's followers, ``make_log_dir_mover(get_partition)`` the
        ReplicaAlterLogDirsManager moving replicas between log dirs (each told about this replica manager through
        the function it is given); ``high_watermarks``: {tp: checkpointed high watermark};
        ``knows_partition(tp)``: the metadata cache has it; ``replica_selector``: replica_selector.rack_aware or
        the like, None for leaders only; ``broker_rack(broker id)``: its broker.rack per the metadata cache;
        ``metrics``: the broker's MetricsRegistry (kafka.server:type=ReplicaManager and the purgatories);
        ``topic_stats``: the BrokerTopicStats appends and reads are counted in (none counted without)."""
        self.broker_id = broker_id
        self.log_manager = log_manager
        self.topic_config = topic_config
        self.clock = clock
        self.partitions = {}
        self.offline_partitions = set()  # replicas whose log dir went offline: KAFKA_STORAGE_ERROR until restart
        self.failures = log_manager.failures  # the LogDirFailureChannel every I/O error is reported to
        self.controller_epoch = 0
        self.high_watermarks = high_watermarks or {}  # (topic, partition) -> checkpointed HW
        self.stopped_high_watermarks = {}  # of the replicas stopped without delete, kept in the checkpoint
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.is_broker_alive = is_broker_alive
        self.replication_quotas = replication_quotas
        self.fetch_sessions = fetch_sessions
        self.knows_partition = knows_partition
        self.replica_selector = replica_selector
        self.broker_rack = broker_rack
        registry = metrics if metrics is not None else MetricsRegistry()
        self.isr_updates = IsrUpdates(
            broker_id, clock, isr_writer, registry, replica_lag_time_max_ms, self._advance_high_watermark
        )
        registry.add_collector(replica_manager_collector(self))
        self.topic_stats = topic_stats if topic_stats is not None else BrokerTopicStats(MetricsRegistry(enabled=False))
        self.produce_purgatory = DelayedOperationPurgatory("Produce", clock, registry)
        self.produce_waiters = ProduceWaiters()  # the produce purgatory's operations in offset order
        self.fetch_purgatory = DelayedOperationPurgatory("Fetch", clock, registry)
        self.delete_records_purgatory = DelayedOperationPurgatory("DeleteRecords", clock, registry)
        # Appends and high watermark moves wake parked fetches and waiting acks=-1 produces once per reactor turn.
        self.this_turn = TurnBatch(clock, self._end_of_turn)
        self.fetchers = make_fetchers(self.fetchable_changed)
        self.log_dir_mover = make_log_dir_mover(self.get_partition)

    def get_partition(self, topic, partition):
        return self.partitions.get((topic, partition))

    def missing_partition_error(self, tp, leader_only=True):
        """Kafka's answer for a partition with no replica here: known to the cluster means not leader (or, for a
        read any replica may serve, replica not available); a replica in an offline log dir answers
        KAFKA_STORAGE_ERROR."""
        if tp in self.offline_partitions:
            return Errors.KAFKA_STORAGE_ERROR
        if not self.knows_partition(tp):
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        return Errors.NOT_LEADER_FOR_PARTITION if leader_only else Errors.REPLICA_NOT_AVAILABLE

    # -- produce -----------------------------------------------------------------------------

    def append_records(self, timeout_ms, required_acks, entries, from_coordinator=False):
        """entries: {(topic, partition): records buffer}. Returns a Deferred of {tp: ProduceResult}
        that fires at once for acks 0/1 and when the ISR has the records for acks=-1. ``from_coordinator``:
        a coordinator's own write (Kafka's AppendOrigin.Coordinator), whose sequences are not checked."""
        results = self.append_records_or_defer(timeout_ms, required_acks, entries, from_coordinator)
        return results if isinstance(results, defer.Deferred) else defer.succeed(results)

    def append_records_or_defer(self, timeout_ms, required_acks, entries, from_coordinator=False):
        """As append_records, but the results themselves when they are final at once (acks 0/1, or nothing
        appended): a Produce request then needs no Deferred."""
        results = {}
        now = milliseconds(self.clock)
        stats = self.topic_stats
        appended = []
        for tp, records in entries.items():
            result = results[tp] = self._append_to_partition(tp, records, required_acks, now, None, from_coordinator)
            if stats.enabled:
                stats.appended(tp[0], len(records), result)
            if not result.error:
                appended.append(tp)
        if appended:
            # The end of the turn wakes only fetches parked on these partitions or sessions holding them: when none
            # watches any (a produce-only partition), the turn's call would find nobody, so none is scheduled.
            parked, sessions = self.fetch_purgatory.watchers, self.fetch_sessions.watchers
            for tp in appended:
                if tp in parked or tp in sessions:
                    self.this_turn.appended(appended)
                    break
        if required_acks != -1 or not appended:
            return results
        done = defer.Deferred()
        self._wait_for_high_watermarks(DelayedProduce(timeout_ms, self, results, done), appended)
        return done

    def append_txn_markers(self, timeout_ms, entries):
        """WriteTxnMarkers: entries {(topic, partition): (marker batch, coordinator epoch)}, appended as
        the coordinator's writes with acks=-1. Returns a Deferred of {tp: ProduceResult}."""
        results = {}
        now = milliseconds(self.clock)
        for tp, (records, coordinator_epoch) in entries.items():
            results[tp] = self._append_to_partition(tp, records, -1, now, marker=coordinator_epoch)
            if self.topic_stats.enabled:
                self.topic_stats.appended(tp[0], len(records), results[tp])
        appended = [tp for tp, result in results.items() if result.error == NO_ERROR]
        self.this_turn.appended(appended)
        if not appended:
            return defer.succeed(results)
        done = defer.Deferred()
        self._wait_for_high_watermarks(DelayedProduce(timeout_ms, self, results, done), appended)
        return done

    def _wait_for_high_watermarks(self, operation, appended):
        if not self.produce_purgatory.try_complete_else_watch(operation, appended):
            self.produce_waiters.watch(operation)

    def _append_to_partition(self, tp, records, required_acks, now_ms, marker=None, from_coordinator=False):
        try:  # not dict.get: from a compiled module, its method call costs about as much as the look-up
            partition = self.partitions[tp]
        except KeyError:
            return ProduceResult(self.missing_partition_error(tp))
        log_ = partition.log
        if partition.leader_id != partition.broker_id or log_ is None:  # not partition.is_leader, without a call
            return ProduceResult(Errors.NOT_LEADER_FOR_PARTITION)
        # the log's config is the topic's as this broker applies it: every config change replaces it
        config = log_.config
        checks = partition.append_checks
        if checks is None or checks[0] is not config:
            checks = partition.append_checks = (config, _produce_checks(config))
        max_message_bytes, timestamp_type, codec_for_topic, compacted, timestamp_diff_max_ms, min_isr = checks[1]
        try:
            validated = validate_produce_records(
                records,
                now_ms,
                max_message_bytes,
                timestamp_type,
                codec_for_topic,
                compacted,
                timestamp_diff_max_ms,
                marker is None,
                DEFAULT_MAX_DECOMPRESSED,
                tp,
            )
        except RecordTooLargeError as error:
            return ProduceResult(Errors.MESSAGE_TOO_LARGE, str(error))
        except UnsupportedCodecError as error:
            return ProduceResult(Errors.UNSUPPORTED_COMPRESSION_TYPE, str(error))
        except (InvalidTimestampError, MissingKeyError, InvalidBatchError) as error:
            # As Kafka's: a refused batch's answer carries the log start offset, and any failing records
            code = Errors.INVALID_TIMESTAMP if isinstance(error, InvalidTimestampError) else Errors.INVALID_RECORD
            return ProduceResult(
                code,
                str(error),
                log_start_offset=partition.log.log_start_offset,
                record_errors=getattr(error, "record_errors", ()),
                missing_keys=getattr(error, "missing_keys", 0),
            )
        except InvalidRecordError as error:
            return ProduceResult(Errors.CORRUPT_MESSAGE, str(error))
        log_append_time = None if timestamp_type == "CreateTime" else now_ms
        failures = self.failures
        try:
            if failures.any_offline:
                failures.check_log(partition.log, "appending records to")
            appended = partition.append_as_leader(
                validated, required_acks, min_isr, log_append_time, now_ms, marker, from_coordinator
            )
        except KafkaError as error:
            # As Kafka's: beside the errors of a partition it cannot write, the answer carries the log start offset
            start = -1 if error.code in _NO_LOG_START_ERRORS else partition.log.log_start_offset
            return ProduceResult(error.code, error.message, log_start_offset=start)
        except OSError as error:
            failure = self.failures.report_log(partition.log, "appending records to", error)
            return ProduceResult(failure.code, failure.message)
        except RecordBatchTooLargeError as error:
            return ProduceResult(Errors.RECORD_LIST_TOO_LARGE, str(error))
        result = ProduceResult(
            NO_ERROR,
            None,
            appended.base_offset,
            appended.last_offset,
            appended.log_append_time,
            appended.log_start_offset,
            min_isr,
        )
        if validated.converted:  # Kafka's numRecordsConverted
            result.converted = validated.record_count
        return result

    # -- delete records -----------------------------------------------------------------------

    def delete_records(self, timeout_ms, offsets):
        """offsets: {(topic, partition): offset or -1 for the high watermark}. Returns a Deferred of
        {tp: DeleteRecordsResult} that fires once every replica's log start offset has reached the
        requested one, or after timeout_ms (REQUEST_TIMED_OUT for those still waiting)."""
        now = milliseconds(self.clock)
        results = {tp: self._delete_records_on_partition(tp, offset, now) for tp, offset in offsets.items()}
        waiting = [tp for tp, result in results.items() if result.error == NO_ERROR]
        self.fetchable_changed(waiting)  # the log start offset moved
        if not waiting:
            return defer.succeed(results)
        done = defer.Deferred()
        operation = DelayedDeleteRecords(timeout_ms, self, results, done)
        self.delete_records_purgatory.try_complete_else_watch(operation, waiting)
        return done

    def _delete_records_on_partition(self, tp, offset, now_ms):
        partition = self.partitions.get(tp)
        if partition is None:
            return DeleteRecordsResult(self.missing_partition_error(tp))
        try:
            requested = partition.delete_records_on_leader(offset, now_ms)
            low_watermark = partition.low_watermark(self.is_broker_alive)
        except KafkaError as error:
            return DeleteRecordsResult(error.code, error.message)
        except OSError as error:
            failure = self.failures.report_log(partition.log, "deleting records of", error)
            return DeleteRecordsResult(failure.code, failure.message)
        log.info(
            "[ReplicaManager broker=%d] log start offset of %s-%d is now %d",
            self.broker_id,
            tp[0],
            tp[1],
            partition.log.log_start_offset,
        )
        return DeleteRecordsResult(NO_ERROR, None, requested, low_watermark)

    # -- fetch --------------------------------------------------------------------------------

    def read_partitions(self, fetch_infos, replica_id, max_bytes, isolation_level=READ_UNCOMMITTED, client_rack=None):
        """Returns ({tp: FetchResult}, bytes_read) for a list of FetchInfo. read_committed consumers
        (isolation_level 1) read up to the last stable offset and get the aborted transactions.

        ``client_rack``: the rack_id of a consumer's Fetch v11+ (None before v11). Such a consumer may read from a
        follower, up to the follower's high watermark; a leader with a replica selector may instead name
        another replica for it to read from (KIP-392). Followers and older consumers read from leaders only."""
        from_consumer = replica_id < 0
        leader_only = not from_consumer or client_rack is None
        committed = from_consumer and isolation_level == READ_COMMITTED
        results = {}
        remaining = max_bytes
        bytes_read = 0
        regions = 0  # each holds its segment's descriptor until sent: a fetch of many partitions copies the rest
        for info in fetch_infos:
            tp = info.tp
            partition = self.partitions.get(tp)
            if partition is None:
                results[tp] = FetchResult(self.missing_partition_error(tp, leader_only))
                continue
            try:
                log_ = partition.log
                epoch = info.current_leader_epoch
                # The common case in one test: a leader with its log, read in its epoch (or none given); the
                # checks and errors of every other case are check_readable's.
                if not (
                    partition.leader_id == partition.broker_id
                    and log_ is not None
                    and (epoch < 0 or epoch == partition.leader_epoch)
                ):
                    partition.check_readable(epoch, leader_only)
                if not leader_only:
                    preferred = self.preferred_read_replica(partition, client_rack, info.fetch_offset)
                    if preferred >= 0:  # as Kafka: no read, the offsets as they are and the replica to read from
                        results[tp] = FetchResult(
                            NO_ERROR,
                            b"",
                            partition.high_watermark,
                            log_.log_start_offset,
                            log_.log_end_offset,
                            partition.last_stable_offset,
                            preferred_read_replica=preferred,
                        )
                        continue
                end = partition.high_watermark if from_consumer else log_.log_end_offset
                if info.fetch_offset == end and end >= log_.log_start_offset:  # caught up: nothing to read
                    results[tp] = FetchResult(
                        NO_ERROR,
                        b"",
                        partition.high_watermark,
                        log_.log_start_offset,
                        log_.log_end_offset,
                        partition.last_stable_offset if from_consumer else -1,
                    )
                    continue
                if not from_consumer and self.should_leader_throttle(partition, replica_id):
                    results[tp] = FetchResult(
                        NO_ERROR,
                        b"",
                        partition.high_watermark,
                        partition.log.log_start_offset,
                        partition.log.log_end_offset,
                        partition.last_stable_offset,
                    )
                    continue
                limit = min(info.max_bytes, remaining)
                if limit < 0:  # Kafka's log read refuses a negative size: the partition answers an error
                    results[tp] = FetchResult(Errors.UNKNOWN_SERVER_ERROR)
                    continue
                if self.failures.any_offline:
                    self.failures.check_log(log_, "reading")
                data, hw, log_start, leo = partition.read(
                    info.fetch_offset, limit, not from_consumer, bytes_read == 0, committed
                )
                records = data.records if data is not None else b""
                if len(records) < FILE_REGION_COPY_BELOW or regions >= MAX_REGIONS_PER_FETCH:
                    records = records.read_bytes() if records else b""
                else:  # left in the segment file (a FileSlice) for a plaintext connection to send with sendfile
                    regions += 1
                aborted = partition.aborted_transactions(info.fetch_offset, records) if committed else None
            except KafkaError as error:
                results[tp] = FetchResult(error.code)
                continue
            except OffsetOutOfRangeError:
                results[tp] = FetchResult(
                    Errors.OFFSET_OUT_OF_RANGE,
                    b"",
                    partition.high_watermark,
                    partition.log.log_start_offset,
                    partition.log.log_end_offset,
                    partition.last_stable_offset,
                )
                continue
            except OSError as error:
                results[tp] = FetchResult(self.failures.report_log(partition.log, "reading", error).code)
                continue
            bytes_read += len(records)
            if not from_consumer and records:
                leader_quota = self.replication_quotas.leader
                if leader_quota.is_throttled(tp):
                    leader_quota.record(len(records))
            remaining = max(0, remaining - len(records))
            results[tp] = FetchResult(NO_ERROR, records, hw, log_start, leo, partition.last_stable_offset, aborted)
        self.topic_stats.read(results)
        return results, bytes_read

    def preferred_read_replica(self, partition, client_rack, fetch_offset):
        """Kafka's findPreferredReadReplica: on the leader, the replica the selector prefers for a consumer in
        ``client_rack`` reading from ``fetch_offset``, among the leader and the live in-sync followers that
        hold that offset; -1 for the leader itself, on a follower, or without a selector."""
        select = self.replica_selector
        if select is None or not partition.is_leader:
            return -1
        rack = self.broker_rack
        leader = ReplicaView(self.broker_id, rack(self.broker_id), partition.log.log_end_offset, 0)
        replicas = [
            ReplicaView(replica, rack(replica), log_end_offset, lag)
            for replica, log_end_offset, lag in partition.read_replica_candidates(
                fetch_offset, milliseconds(self.clock)
            )
            if self.is_broker_alive(replica)
        ]
        replicas.append(leader)
        chosen = select(client_rack, replicas, leader)
        return -1 if chosen is None or chosen == leader else chosen.broker_id

    def fetch_messages(self, *arguments, **options):
        """fetch_messages_or_park's answer as a Deferred of {tp: FetchResult}, fired at once or when the parked
        fetch completes."""
        results = self.fetch_messages_or_park(*arguments, **options)
        if results.__class__ is not DelayedFetch:
            return defer.succeed(results)
        done = defer.Deferred()
        results.done = done.callback
        return done

    def fetch_messages_or_park(
        self,
        max_wait_ms,
        min_bytes,
        max_bytes,
        fetch_infos,
        replica_id=-1,
        isolation_level=READ_UNCOMMITTED,
        session=None,
        client_rack=None,
    ):
        """{tp: FetchResult} when the fetch is answered at once, else the parked DelayedFetch, not completed yet:
        the caller sets its ``done(results)``, called once min_bytes of data are there or max_wait_ms has passed.
        A follower's fetch (replica_id >= 0) also reports how far that follower has got. ``session``: the fetch
        context of a session that tracks changes; a parked fetch then also wakes when any partition of the
        session changes, and reads the changed ones as well. ``client_rack``: see read_partitions."""
        if replica_id >= 0:
            self._update_followers(replica_id, fetch_infos)
        results, bytes_read = self.read_partitions(fetch_infos, replica_id, max_bytes, isolation_level, client_rack)
        # A named preferred replica is answered at once too (as Kafka does since KAFKA-13767).
        tracking = session is not None
        if max_wait_ms <= 0 or (not fetch_infos and not tracking) or bytes_read >= min_bytes:
            return results
        for result in results.values():
            if result.error != NO_ERROR or result.preferred_read_replica >= 0:
                return results
        keys = [info.tp for info in fetch_infos]
        operation = DelayedFetch(
            max_wait_ms,
            self,
            fetch_infos,
            replica_id,
            min_bytes,
            max_bytes,
            None,
            isolation_level,
            parked_results=results,
            changed_since=session.changed_since if tracking else None,
            client_rack=client_rack,
        )
        if tracking:
            keys.append(session_key(session.session.id))
        if self.fetch_purgatory.try_complete_else_watch(operation, keys):
            return operation.results  # completed as it was parked: answered at once after all
        return operation

    def fetchable_changed(self, tps):
        """Partitions whose data, high watermark, log start offset or leadership changed: wake the fetches
        waiting on them and put them back among the changed partitions of the sessions that hold them."""
        sessions = self.fetch_sessions.mark_changed(tps)
        if self.fetch_purgatory.watchers:  # else no fetch is parked: nothing to wake
            keys = list(tps)
            keys.extend(map(session_key, sessions))
            self.fetch_purgatory.check_and_complete_keys(keys)

    def link_quiet_followers(self, replica_id, results, session):
        """The partitions of ``results`` (just answered to follower ``replica_id`` in ``session``) that are quiet
        now: nothing to send, no error, the follower in sync at the log end. Their follower state then
        follows the session's fetches (FollowerState) until they change."""
        quiet = []
        partitions = self.partitions
        for tp, result in results.items():
            if result.error != NO_ERROR or result.records:
                continue
            partition = partitions.get(tp)
            if partition is not None and partition.link_quiet_follower(replica_id, session):
                quiet.append(tp)
        return quiet

    def unlink_followers(self, replica_id, tps):
        """A follower's session forgot these partitions: their follower state stops following its fetches."""
        for tp in tps:
            partition = self.partitions.get(tp)
            follower = partition.followers.get(replica_id) if partition is not None else None
            if follower is not None:
                follower.unlink()

    def should_leader_throttle(self, partition, replica_id):
        """Kafka's shouldLeaderThrottle: leave a follower that is out of the ISR without this throttled
        partition's data while the leader replication quota is exceeded."""
        return should_throttle(self.replication_quotas.leader, partition.tp, replica_id in partition.isr)

    def _update_followers(self, replica_id, fetch_infos):
        now = milliseconds(self.clock)
        advanced, moved_start = [], []
        for info in fetch_infos:
            partition = self.partitions.get(info.tp)
            if partition is None or partition.leader_id != partition.broker_id or partition.log is None:
                continue
            if 0 <= info.current_leader_epoch != partition.leader_epoch:
                # Answered FENCED_LEADER_EPOCH (or UNKNOWN_LEADER_EPOCH): as in Kafka, such a fetch moves no
                # follower state, so a fetch sent before the controller took a replica out of the ISR (its
                # controlled shutdown) cannot put it back.
                continue
            if partition.note_idle_follower_fetch(replica_id, info.fetch_offset, info.log_start_offset, now):
                continue  # an in-sync follower at the log end fetching again: only its caught-up time moves
            if partition.update_follower(replica_id, info.fetch_offset, info.log_start_offset, now) is None:
                continue
            expanded = partition.isr_to_expand(replica_id)
            if expanded is not None:
                self.isr_updates.change(partition, expanded, "expand")
            if partition.maybe_advance_high_watermark(now, self.replica_lag_time_max_ms):
                advanced.append(info.tp)
            moved_start.append(info.tp)
        if advanced:
            self.this_turn.advanced(advanced)
        if moved_start:
            self.delete_records_purgatory.check_and_complete_keys(moved_start)

    def _advance_high_watermark(self, partition, now_ms):
        if partition.maybe_advance_high_watermark(now_ms, self.replica_lag_time_max_ms):
            self.this_turn.advanced([partition.tp])

    def _answer_waiting_produces(self, tps):
        """Leadership or the replica changed: the produces waiting on these partitions answer what they can."""
        self.produce_purgatory.check_and_complete_keys(tps)
        self.produce_waiters.forget_completed(tps)

    def _end_of_turn(self, appended, advanced):
        """What this reactor turn appended and which high watermarks it moved: try the waiting acks=-1 produces
        of those partitions, then wake the fetches parked on any of them."""
        if advanced:
            partitions, waiters = self.partitions, self.produce_waiters
            for tp in advanced:
                partition = partitions.get(tp)
                if partition is not None:
                    waiters.passed(tp, partition.high_watermark)
            appended = list(dict.fromkeys(appended + advanced)) if appended else advanced
        self.fetchable_changed(appended)

    # -- the ISR --------------------------------------------------------------------------------

    def shrink_isrs(self):
        """Periodic: drop followers that have not caught up within replica.lag.time.max.ms."""
        self.isr_updates.shrink_lagging(list(self.partitions.values()))

    # -- control plane --------------------------------------------------------------------------

    def check_controller_epoch(self, controller_epoch):
        if controller_epoch < self.controller_epoch:
            raise KafkaError(
                Errors.STALE_CONTROLLER_EPOCH,
                "Received a request with controller epoch %d older than %d" % (controller_epoch, self.controller_epoch),
            )
        self.controller_epoch = controller_epoch

    def become_leader_or_follower(self, partition_states, leader_endpoints):
        """partition_states: dicts with topic, partition, leader, leader_epoch, isr, replicas, zk_version,
        controller_epoch; leader_endpoints: {broker id: (host, port)}. Returns {tp: error code}."""
        errors = {}
        now = milliseconds(self.clock)
        new_leaders, new_followers = [], {}
        for state in partition_states:
            tp = (state["topic"], state["partition"])
            if not is_valid_topic_partition(*tp):  # would name a directory outside the log's rules
                errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                continue
            if tp in self.offline_partitions:
                errors[tp] = Errors.KAFKA_STORAGE_ERROR
                continue
            partition = self.partitions.get(tp)
            current_epoch = partition.leader_epoch if partition is not None else 0
            if state["leader_epoch"] < max(current_epoch, 0):  # epochs start at 0; older ones are stale
                errors[tp] = Errors.STALE_CONTROLLER_EPOCH
                continue
            if self.broker_id not in state["replicas"]:
                errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                continue
            try:
                if partition is None or partition.log is None:
                    self.log_manager.get_or_create_log(
                        tp[0], tp[1], to_log_config(self.topic_config(tp[0])), is_new=state.get("is_new", True)
                    )
                else:
                    partition.log.config = to_log_config(self.topic_config(tp[0]))
            except KafkaStorageError as error:
                log.error("[ReplicaManager broker=%d] %s", self.broker_id, error.message)
                errors[tp] = Errors.KAFKA_STORAGE_ERROR
                continue
            if partition is None:
                partition = Partition(tp[0], tp[1], self.broker_id, self.log_manager.get_log)
                self.partitions[tp] = partition
            try:
                initial_hw = self.high_watermarks.get(tp, 0)
                if state["leader"] == self.broker_id:
                    partition.make_leader(state, now, initial_hw)
                    new_leaders.append(tp)
                else:
                    if partition.make_follower(state, initial_hw) and state["leader"] >= 0:
                        new_followers[tp] = partition
                errors[tp] = NO_ERROR
            except OSError as error:
                self.failures.report_log(partition.log, "applying LeaderAndIsr for", error)
                errors[tp] = Errors.KAFKA_STORAGE_ERROR
            except Exception:
                log.exception("failed to apply LeaderAndIsr for %s-%d", tp[0], tp[1])
                errors[tp] = Errors.KAFKA_STORAGE_ERROR
            if self.log_manager.get_future_log(*tp) is not None:
                self.log_dir_mover.start(tp)  # a move interrupted by a restart goes on
        self._answer_waiting_produces(list(errors))
        self.fetchable_changed(list(errors))
        self.delete_records_purgatory.check_and_complete_keys(list(errors))
        self.fetchers.remove_partitions(new_leaders + list(new_followers))
        by_leader = {}
        for tp, partition in new_followers.items():
            endpoint = leader_endpoints.get(partition.leader_id)
            if endpoint is None:
                log.warning("no endpoint for leader %d of %s-%d", partition.leader_id, *tp)
                continue
            by_leader.setdefault((partition.leader_id, endpoint), []).append(partition)
        for (leader_id, endpoint), partitions in by_leader.items():
            self.fetchers.add_partitions(leader_id, endpoint, partitions)
        return errors

    def stop_replica(self, topic, partition, delete):
        tp = (topic, partition)
        if tp in self.offline_partitions:
            return Errors.KAFKA_STORAGE_ERROR
        self.fetchers.remove_partitions([tp])
        self.log_dir_mover.cancel(tp)
        found = self.partitions.pop(tp, None)
        self.high_watermarks.pop(tp, None)
        self.stopped_high_watermarks.pop(tp, None)
        if found is not None:
            if found.log is not None and not delete:
                # Kafka keeps a replica stopped without delete (its followers at a controlled shutdown) with its log:
                # its high watermark stays in the final checkpoint and is where it starts again.
                self.high_watermarks[tp] = self.stopped_high_watermarks[tp] = found.high_watermark
            found.close()
        error = NO_ERROR
        if delete and self.topic_stats.has_topic(topic) and not any(name == topic for name, _ in self.partitions):
            self.topic_stats.remove_topic(topic)  # Kafka's maybeRemoveTopicMetrics
        if delete:
            try:
                self.log_manager.async_delete(topic, partition)
            except KafkaStorageError:
                error = Errors.KAFKA_STORAGE_ERROR
        self._answer_waiting_produces([tp])
        self.fetchable_changed([tp])
        self.delete_records_purgatory.check_and_complete(tp)
        return error

    def handle_log_dir_failure(self, log_dir):
        """Stop serving, fetching and moving the replicas in an offline log dir (Kafka's handleLogDirFailure):
        they answer KAFKA_STORAGE_ERROR from now on. Returns the partitions taken offline."""
        offline = [tp for tp in self.partitions if self.log_manager.log_dir_of(*tp) == log_dir]
        moving_out = [
            tp for tp, _ in self.log_manager.future_logs().items() if self.log_manager.future_log_dir_of(*tp) == log_dir
        ]
        self.fetchers.remove_partitions(offline)
        for tp in offline + moving_out:
            self.log_dir_mover.cancel(tp)
        for tp in offline:
            self.partitions.pop(tp).close()
            self.high_watermarks.pop(tp, None)
            self.stopped_high_watermarks.pop(tp, None)
            self.offline_partitions.add(tp)
        self.log_manager.handle_dir_failure(log_dir)
        log.info(
            "[ReplicaManager broker=%d] stopped fetcher for partitions %s and stopped moving logs for "
            "partitions %s because they are in the failed log directory %s",
            self.broker_id,
            _names(offline),
            _names(moving_out),
            log_dir,
        )
        self._answer_waiting_produces(offline)
        self.fetchable_changed(offline)
        self.delete_records_purgatory.check_and_complete_keys(offline)
        return offline

    def enforce_retention(self):
        """Periodic: delete the segments retention lets go; partitions whose log start offset moved wake the
        fetches waiting on them and tell their leader with their next fetch."""
        started_later = []
        self.log_manager.cleanup_logs(milliseconds(self.clock), self.high_watermark_snapshot(), started_later)
        if started_later:  # fetch sessions report log start offsets only of partitions said to have changed
            self.fetchable_changed(started_later)
            self.fetchers.log_starts_moved(started_later)

    def reconfigure_logs(self, topic):
        """The topic's config changed: this broker's logs of it take the new one."""
        log_config = to_log_config(self.topic_config(topic))
        for log_ in self.log_manager.configurable_logs():
            if log_.topic == topic:
                log_.config = log_config

    def high_watermark_snapshot(self):
        marks = {tp: mark for tp, mark in self.stopped_high_watermarks.items() if tp not in self.offline_partitions}
        marks.update(
            (tp, partition.high_watermark) for tp, partition in self.partitions.items() if partition.log is not None
        )
        return marks

    def shutdown(self):
        self.this_turn.cancel()
        self.fetchers.shutdown()
        self.log_dir_mover.shutdown()
        self.produce_purgatory.shutdown()
        self.fetch_purgatory.shutdown()
        self.delete_records_purgatory.shutdown()


def _names(tps):
    return ",".join("%s-%d" % tp for tp in sorted(tps)) or "none"


def _diff_limit(value):
    return None if value >= 0x7FFFFFFFFFFFFFFF else value


def _produce_checks(config):
    """What an append is checked against for a log's LogConfig: (max_message_bytes, timestamp_type,
    codec_for_topic, compacted, timestamp_diff_max_ms), validate_produce_records' arguments after the time, and
    min.insync.replicas."""
    return (
        config.max_message_bytes,
        config.message_timestamp_type,
        config.compression_type,
        config.compact,
        _diff_limit(config.message_timestamp_difference_max_ms),
        config.min_insync_replicas,
    )
