"""GroupMetadataManager: the group cache per `__consumer_offsets` partition, its loading, unloading, writes
(group metadata and offset commits through the replicated log) and offset expiration."""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.coordinator.coordinator_metrics import LoadTimes, group_metadata_collector, register_load_time_gauges
from kafka_zk.coordinator.group import decisions as d
from kafka_zk.coordinator.group.decisions import CoordinatorStatus
from kafka_zk.coordinator.group.log_records import (
    PartitionReplay,
    group_metadata_batch,
    offset_commit_batch,
    tombstone_batch,
)
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC, partition_for
from kafka_zk.coordinator.group.state import DEAD, EMPTY, expired_offsets
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import CONTROL_COMMIT, parse_control_key

log = logging.getLogger(__name__)


class GroupMetadataManager:
    def __init__(self, broker_id, config, replica_manager, clock, metrics=None):
        """``config``: the broker's KafkaConfig (offsets.* settings are read from it); ``metrics``: the
        MetricsRegistry that gets the group counts and partition load times (coordinator_metrics)."""
        self.broker_id = broker_id
        self.replica_manager = replica_manager
        self.clock = clock
        self.num_partitions = config["offsets.topic.num.partitions"]
        self.commit_timeout_ms = config["offsets.commit.timeout.ms"]
        self.required_acks = config["offsets.commit.required.acks"]
        self.load_buffer_size = config["offsets.load.buffer.size"]
        self.retention_ms = config["offsets.retention.minutes"] * 60 * 1000
        self.codec = config["offsets.topic.compression.codec"]
        self.groups = {}
        self.owned = set()
        self.loading = {}  # partition id -> load token (a later unload cancels the load)
        self._tokens = 0
        self.active = True
        self.on_group_loaded = lambda group: None
        self.on_group_unloaded = lambda group: None
        registry = metrics if metrics is not None else MetricsRegistry()
        registry.add_collector(group_metadata_collector(lambda: list(self.groups.values())))
        self.load_times = LoadTimes()
        register_load_time_gauges(
            registry, "group-coordinator-metrics", self.load_times, lambda: milliseconds(self.clock)
        )

    def shutdown(self):
        self.active = False
        self.loading.clear()
        self.owned.clear()
        self.groups.clear()

    # -- the cache ---------------------------------------------------------------------------------

    def partition_for(self, group_id):
        return partition_for(group_id, self.num_partitions)

    def status(self, group_id):
        pid = self.partition_for(group_id) if group_id is not None else -1
        return CoordinatorStatus(active=self.active, loading=pid in self.loading, owned=pid in self.owned)

    def get_group(self, group_id):
        return self.groups.get(group_id)

    def add_group(self, group):
        return self.groups.setdefault(group.group_id, group)

    def current_groups(self):
        return list(self.groups.values())

    def is_loading(self):
        return bool(self.loading)

    def group_not_exists(self, group_id):
        """Kafka's groupNotExists: this broker owns the group's partition and has no live group by that id."""
        if self.partition_for(group_id) not in self.owned:
            return False
        group = self.groups.get(group_id)
        return group is None or group.is_in(DEAD)

    # -- writes ------------------------------------------------------------------------------------

    def _offsets_tp(self, group_id):
        return OFFSETS_TOPIC, self.partition_for(group_id)

    def _append(self, tp, batch, acks):
        return self.replica_manager.append_records(self.commit_timeout_ms, acks, {tp: batch})

    def store_group(self, group, assignment):
        """Append the group's metadata; Deferred of the Kafka error for JoinGroup/SyncGroup."""
        tp = self._offsets_tp(group.group_id)
        if self.replica_manager.get_partition(*tp) is None:
            return defer.succeed(Errors.NOT_COORDINATOR)
        batch = group_metadata_batch(group, assignment, milliseconds(self.clock), self.codec)

        def done(results):
            return d.group_append_error(Errors(results[tp].error))

        return self._append(tp, batch, self.required_acks).addCallback(done)

    def store_offsets(self, group, commits):
        """Append commits ({tp: CommittedOffset}); they become visible to OffsetFetch once the append is
        acknowledged. Deferred of {tp: error}."""
        tp = self._offsets_tp(group.group_id)
        if self.replica_manager.get_partition(*tp) is None:
            return defer.succeed({key: Errors.NOT_COORDINATOR for key in commits})
        batch = offset_commit_batch(group.group_id, commits, milliseconds(self.clock), self.codec)
        group.offsets.prepare(list(commits))

        def record_outcome(key, commit, succeeded):
            if not group.is_in(DEAD):
                group.offsets.on_append(key, commit, succeeded)

        return self._append_commits(tp, commits, batch, record_outcome)

    def store_txn_offsets(self, group, producer_id, producer_epoch, commits):
        """TxnOffsetCommit: append ``commits`` as the producer's transactional batch; they stay pending until
        the transaction's marker reaches this partition (handle_txn_completion). Deferred of {tp: error}."""
        tp = self._offsets_tp(group.group_id)
        if self.replica_manager.get_partition(*tp) is None:
            return defer.succeed({key: Errors.NOT_COORDINATOR for key in commits})
        batch = offset_commit_batch(
            group.group_id, commits, milliseconds(self.clock), self.codec, producer_id, producer_epoch
        )
        group.offsets.prepare_txn(producer_id, commits)

        def record_outcome(key, commit, succeeded):
            group.offsets.on_txn_append(producer_id, key, commit, succeeded)

        return self._append_commits(tp, commits, batch, record_outcome, from_coordinator=True)

    def _append_commits(self, tp, commits, batch, record_outcome, **append_options):
        """Append an offset commit batch, then record_outcome(tp, commit, succeeded) for each of ``commits``
        (with its log offset when it succeeded). Deferred of {tp: error} as OffsetCommit answers them."""

        def done(results):
            result = results[tp]
            error = Errors(result.error)
            succeeded = error == Errors.NONE
            for index, (key, commit) in enumerate(commits.items()):
                if succeeded and result.base_offset >= 0:
                    commit.log_offset = result.base_offset + index
                record_outcome(key, commit, succeeded)
            mapped = d.commit_append_error(error)
            return {key: mapped for key in commits}

        appended = self.replica_manager.append_records(
            self.commit_timeout_ms, self.required_acks, {tp: batch}, **append_options
        )
        return appended.addCallback(done)

    def handle_txn_completion(self, producer_id, partition_ids, is_commit):
        """A COMMIT/ABORT marker of ``producer_id`` was written to these offsets partitions (Kafka's
        scheduleHandleTxnCompletion): their groups' pending transactional offsets are committed or dropped."""
        partition_ids = set(partition_ids)
        for group in self.current_groups():
            if self.partition_for(group.group_id) in partition_ids:
                group.offsets.complete_txn(producer_id, is_commit)

    def cleanup_groups(self, groups, selector):
        """Remove offsets chosen by ``selector(group)`` ({tp: commit}); Empty groups left without offsets go
        Dead and leave the cache. Tombstones are appended without waiting. Returns the offsets removed."""
        total = 0
        for group in groups:
            removed = selector(group)
            if group.is_in(EMPTY) and not group.offsets.has_offsets():
                group.transition_to(DEAD, milliseconds(self.clock))
            dead = group.is_in(DEAD)
            removed_from_cache = dead and self.groups.get(group.group_id) is group
            if removed_from_cache:
                del self.groups[group.group_id]
            total += len(removed)
            batch = tombstone_batch(
                group.group_id,
                list(removed),
                with_group=removed_from_cache and group.generation_id > 0,
                now_ms=milliseconds(self.clock),
                codec=self.codec,
            )
            tp = self._offsets_tp(group.group_id)
            partition = self.replica_manager.get_partition(*tp)
            if batch is not None and partition is not None and partition.is_leader:
                self._append(tp, batch, 1).addErrback(
                    lambda failure: log.warning("tombstone append failed: %s", failure.getErrorMessage())
                )
        return total

    def expire_offsets(self):
        """Periodic (offsets.retention.check.interval.ms): drop expired offsets and dead empty groups."""
        now = milliseconds(self.clock)
        removed = self.cleanup_groups(
            self.current_groups(), lambda g: g.offsets.remove(expired_offsets(g, now, self.retention_ms))
        )
        if removed:
            log.info("Removed %d expired offsets", removed)
        return removed

    # -- loading and unloading ---------------------------------------------------------------------

    def schedule_load(self, partition_id):
        """This broker now leads the partition: read it back (answering COORDINATOR_LOAD_IN_PROGRESS
        meanwhile), then serve its groups."""
        if partition_id in self.owned or partition_id in self.loading:
            return
        self._tokens += 1
        token = self.loading[partition_id] = self._tokens
        self.clock.callLater(0, self._load, partition_id, token, milliseconds(self.clock))

    def _load(self, partition_id, token, scheduled_ms):
        if self.loading.get(partition_id) != token:
            return
        partition = self.replica_manager.get_partition(OFFSETS_TOPIC, partition_id)
        if partition is None or partition.log is None or not partition.is_leader:
            del self.loading[partition_id]
            return
        replay = PartitionReplay()
        try:
            for header, records in partition.log.iter_batches_to_end(self.load_buffer_size):
                if header.is_control:
                    for record in records:
                        replay.marker(header.producer_id, _is_commit_marker(record))
                else:
                    producer = header.producer_id if header.is_transactional else None
                    for record in records:
                        replay.add(record, producer)
        except OSError as error:  # the dir goes offline and the partition's groups with it
            del self.loading[partition_id]
            self.replica_manager.failures.report_log(partition.log, "loading groups from", error)
            return
        del self.loading[partition_id]
        self.owned.add(partition_id)
        loaded = replay.loaded_groups()
        for group_id, group in loaded.items():
            if group_id not in self.groups:
                self.groups[group_id] = group
                self.on_group_loaded(group)
        now = milliseconds(self.clock)
        self.load_times.record(now - scheduled_ms, now)
        log.info(
            "Loaded %d groups from %s-%d in %d ms (%d records skipped)",
            len(loaded),
            OFFSETS_TOPIC,
            partition_id,
            now - scheduled_ms,
            replay.skipped,
        )

    def unload(self, partition_id):
        """This broker no longer leads the partition: drop its groups (their members get NOT_COORDINATOR)."""
        self.loading.pop(partition_id, None)
        self.owned.discard(partition_id)
        for group_id in [g for g in self.groups if self.partition_for(g) == partition_id]:
            self.on_group_unloaded(self.groups.pop(group_id))


def _is_commit_marker(record):
    try:
        return parse_control_key(record.key)[1] == CONTROL_COMMIT
    except ValueError:
        return False
