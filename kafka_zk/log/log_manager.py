"""All partition logs of a broker across its log dirs: loading, placement, checkpoints, retention, flush, shutdown.

Nothing here runs on a timer: the server calls cleanup_logs, flush_dirty_logs and the
checkpoint methods periodically.
"""

import logging
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from typing import TypeAlias

from kafka_zk.common.clock import Clock, milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.log.checkpoints import (
    BATCH_SYNC_MIN_FILES,
    LOG_START_OFFSET_CHECKPOINT,
    META_PROPERTIES,
    RECOVERY_POINT_CHECKPOINT,
    MalformedCheckpointError,
    MetaProperties,
    OffsetCheckpointFile,
    can_sync_filesystems,
    read_meta_properties,
    sync_filesystems_of,
    write_meta_properties,
)
from kafka_zk.log.dir_failure import KafkaStorageError, LogDirFailureChannel
from kafka_zk.log.future_log import copy_leader_epochs
from kafka_zk.log.leader_epoch_cache import DeferredCheckpoints
from kafka_zk.log.log import (
    DEFAULT_MAX_PRODUCER_IDLE_MS,
    DELETE_DIR_SUFFIX,
    Log,
    delete_dir_name,
    future_dir_name,
    is_future_dir,
    log_dir_name,
    parse_topic_partition,
)
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_metrics import LogGauges

logger = logging.getLogger(__name__)

CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"

TopicPartition: TypeAlias = tuple[str, int]


class InconsistentBrokerIdError(Exception):
    """meta.properties holds a different broker.id than the configured one (or dirs disagree)."""


class InconsistentClusterIdError(Exception):
    """meta.properties holds a different cluster.id than the one in ZooKeeper."""


class NoLogDirError(Exception):
    """Every configured log dir is offline: the broker cannot hold any replica."""


class LogManager:
    """Owns the Log objects of this broker, keyed by (topic, partition).

    An I/O error on a log dir takes the whole dir offline through ``failures`` (a LogDirFailureChannel):
    the dir's logs are dropped by handle_dir_failure and nothing here touches it again."""

    def __init__(
        self,
        log_dirs: Iterable[str],
        default_config: LogConfig,
        clock: Clock,
        epoch_checkpoints: DeferredCheckpoints | None = None,
        failures: LogDirFailureChannel | None = None,
        metrics: MetricsRegistry | None = None,
        max_producer_idle_ms: int = DEFAULT_MAX_PRODUCER_IDLE_MS,
    ) -> None:
        """``clock``: anything with seconds() (the reactor, task.Clock), handed on to every Log.
        ``epoch_checkpoints``: a DeferredCheckpoints that gathers the logs' epoch checkpoint writes (the
        broker writes them in batches off the reactor); without one each is written at once. A dir that
        cannot be created, read and written is offline from the start; NoLogDirError when none can.
        ``metrics``: the MetricsRegistry that gets the logs' gauges (log_metrics) and LogFlushRateAndTimeMs.
        ``max_producer_idle_ms``: transactional.id.expiration.ms, after which the logs forget a producer."""
        self.log_dirs = [os.path.abspath(d) for d in log_dirs]
        self.failures = failures if failures is not None else LogDirFailureChannel()
        self.default_config = default_config
        self._clock = clock
        self.epoch_checkpoints = epoch_checkpoints
        self.max_producer_idle_ms = max_producer_idle_ms
        self._logs: dict[TopicPartition, Log] = {}
        self._dir_of: dict[TopicPartition, str] = {}
        self._future_logs: dict[TopicPartition, Log] = {}  # replicas being moved to another dir
        self._future_dir_of: dict[TopicPartition, str] = {}
        # AlterReplicaLogDirs for a replica not created yet: tp -> log dir
        self.preferred_dirs: dict[TopicPartition, str] = {}
        # (due ms, Log) of replaced logs renamed -delete, removed after the delay
        self._deleted_logs: list[tuple[int, Log]] = []
        registry = metrics if metrics is not None else MetricsRegistry()
        self._flush_timer = registry.timer("kafka.log", "LogFlushStats", "LogFlushRateAndTimeMs")
        registry.add_collector(LogGauges(self).collect)
        for log_dir in self.log_dirs:
            try:
                os.makedirs(log_dir, exist_ok=True)
                if not os.access(log_dir, os.R_OK | os.W_OK | os.X_OK):
                    raise PermissionError("cannot read and write %s" % log_dir)
            except OSError as error:
                self.failures.report(log_dir, "Failed to create or validate data directory %s" % log_dir, error)
        if not self.live_log_dirs:
            raise NoLogDirError(
                "None of the specified log dirs from %s can be created or validated" % ", ".join(self.log_dirs)
            )

    @property
    def live_log_dirs(self) -> list[str]:
        """The configured dirs that are not offline."""
        return [d for d in self.log_dirs if not self.failures.is_offline(d)]

    # -- broker metadata ---------------------------------------------------------------------

    def stored_broker_id(self) -> int | None:
        """The broker.id recorded in the dirs' meta.properties, or None; raises if dirs disagree."""
        ids = {meta["broker_id"] for meta in self._read_metas().values() if meta is not None}
        if len(ids) > 1:
            raise InconsistentBrokerIdError("log dirs %s record different broker ids %s" % (self.log_dirs, sorted(ids)))
        return ids.pop() if ids else None

    def check_meta(self, broker_id: int, cluster_id: str | None) -> None:
        """Check every dir's meta.properties against this broker and cluster; write it where absent."""
        now = milliseconds(self._clock)
        for log_dir, meta in self._read_metas().items():
            path = os.path.join(log_dir, META_PROPERTIES)
            if meta is not None:
                stored_cluster = meta["cluster_id"]
                if cluster_id is not None and stored_cluster is not None and stored_cluster != cluster_id:
                    raise InconsistentClusterIdError(
                        "cluster id %s does not match cluster.id %s stored in %s: this broker's data belongs "
                        "to another cluster (check zookeeper.connect)" % (cluster_id, stored_cluster, path)
                    )
                if meta["broker_id"] != broker_id:
                    raise InconsistentBrokerIdError(
                        "configured broker.id %d does not match broker.id %d stored in %s; if the data was "
                        "moved, configure the stored id, otherwise empty log.dirs for a new broker"
                        % (broker_id, meta["broker_id"], path)
                    )
                if stored_cluster is not None or cluster_id is None:
                    continue
            try:
                write_meta_properties(path, broker_id, cluster_id, now)
            except OSError as error:
                self.failures.report(log_dir, "Failed to write %s" % path, error)

    def _read_metas(self) -> dict[str, MetaProperties | None]:
        metas: dict[str, MetaProperties | None] = {}
        for log_dir in self.live_log_dirs:
            try:
                metas[log_dir] = read_meta_properties(os.path.join(log_dir, META_PROPERTIES))
            except OSError as error:
                self.failures.report(log_dir, "Failed to read %s in %s" % (META_PROPERTIES, log_dir), error)
        return metas

    # -- loading -----------------------------------------------------------------------------

    def _read_offsets(self, log_dir: str, name: str) -> dict[TopicPartition, int]:
        checkpoint = OffsetCheckpointFile(os.path.join(log_dir, name))
        try:
            return checkpoint.read()
        except MalformedCheckpointError as exc:
            logger.warning("ignoring %s: %s", checkpoint.path, exc)
            return {}

    def load_logs(self, config_for: Callable[[str], LogConfig] | None = None) -> dict[str, bool]:
        """Open every partition dir; logs in a dir without the clean-shutdown marker are recovered.

        ``config_for(topic)`` gives a topic's LogConfig (default: the manager's default config).
        Leftover ``-delete`` dirs are removed. Returns {log_dir: had_clean_shutdown}.
        """
        clean_by_dir = {}
        for log_dir in self.live_log_dirs:
            try:
                clean_by_dir[log_dir] = self._load_dir(log_dir, config_for)
            except OSError as error:
                self.failures.report(log_dir, "Error while loading log dir %s" % log_dir, error)
                self.handle_dir_failure(log_dir)
        for tp in [tp for tp in self._future_logs if tp not in self._logs]:
            self._promote_orphan_future(tp)
        return clean_by_dir

    def _load_dir(self, log_dir: str, config_for: Callable[[str], LogConfig] | None) -> bool:
        """Open the partition dirs of one log dir; whether it had the clean-shutdown marker."""
        marker = os.path.join(log_dir, CLEAN_SHUTDOWN_FILE)
        clean = os.path.exists(marker)
        recovery_points = self._read_offsets(log_dir, RECOVERY_POINT_CHECKPOINT)
        log_start_offsets = self._read_offsets(log_dir, LOG_START_OFFSET_CHECKPOINT)
        for name in sorted(os.listdir(log_dir)):
            path = os.path.join(log_dir, name)
            if not os.path.isdir(path):
                continue
            if name.endswith(DELETE_DIR_SUFFIX):
                shutil.rmtree(path, ignore_errors=True)
                continue
            try:
                tp = parse_topic_partition(name)
            except ValueError:
                continue
            config = config_for(tp[0]) if config_for is not None else self.default_config
            if is_future_dir(name):
                if tp in self._future_logs:
                    raise RuntimeError(
                        "future replicas of %s-%d found in both %s and %s"
                        % (tp[0], tp[1], self._future_dir_of[tp], log_dir)
                    )
                self._future_logs[tp] = Log(
                    path,
                    config,
                    self._clock,
                    log_start_offset=log_start_offsets.get(tp, 0),
                    recovery_point=recovery_points.get(tp, 0),
                    clean_shutdown=clean,
                    epoch_checkpoints=self.epoch_checkpoints,
                    max_producer_idle_ms=self.max_producer_idle_ms,
                )
                self._future_dir_of[tp] = log_dir
                continue
            if tp in self._logs:
                raise RuntimeError(
                    "partition %s-%d found in both %s and %s" % (tp[0], tp[1], self._dir_of[tp], log_dir)
                )
            self._logs[tp] = Log(
                path,
                config,
                self._clock,
                log_start_offset=log_start_offsets.get(tp, 0),
                recovery_point=recovery_points.get(tp, 0),
                clean_shutdown=clean,
                epoch_checkpoints=self.epoch_checkpoints,
                max_producer_idle_ms=self.max_producer_idle_ms,
            )
            self._dir_of[tp] = log_dir
        if clean:
            os.remove(marker)
        return clean

    def _promote_orphan_future(self, tp: TopicPartition) -> None:
        """A future log without a current one was interrupted in the swap: it becomes the current log."""
        future, log_dir = self._future_logs.pop(tp), self._future_dir_of.pop(tp)
        logger.warning("%s: completing the interrupted move of %s-%d into %s", future.dir, tp[0], tp[1], log_dir)
        future.rename_dir(os.path.join(log_dir, log_dir_name(*tp)))
        self._logs[tp] = future
        self._dir_of[tp] = log_dir

    # -- access ------------------------------------------------------------------------------

    def get_log(self, topic: str, partition: int) -> Log | None:
        return self._logs.get((topic, partition))

    def all_logs(self) -> list[Log]:
        return list(self._logs.values())

    def configurable_logs(self) -> list[Log]:
        """Every log a config change reaches: the replicas' and those being moved to another log dir (a future log
        becomes its replica's log when the move ends)."""
        return [*self._logs.values(), *self._future_logs.values()]

    def remove_expired_producers(self, now_ms: int) -> None:
        """Kafka's periodic producer id expiration check over every log."""
        for log in self.all_logs():
            log.producer_state.remove_expired(now_ms, self.max_producer_idle_ms)

    def log_dir_of(self, topic: str, partition: int) -> str | None:
        return self._dir_of.get((topic, partition))

    def _next_log_dir(self, tp: TopicPartition | None = None) -> str:
        live = self.live_log_dirs
        preferred = self.preferred_dirs.pop(tp, None) if tp is not None else None
        if preferred is not None and preferred in live:
            return preferred
        if not live:
            raise KafkaStorageError("no log dir is online: %s" % ", ".join(self.log_dirs))
        counts = {d: 0 for d in live}
        for log_dir in self._dir_of.values():
            if log_dir in counts:
                counts[log_dir] += 1
        return min(live, key=lambda d: counts[d])

    def get_or_create_log(
        self, topic: str, partition: int, config: LogConfig | None = None, is_new: bool = True
    ) -> Log:
        """The partition's log, created empty in the dir holding the fewest partitions if new.

        An existing log (loaded at startup with the default config) takes ``config`` when given. A replica
        that is not new (LeaderAndIsr's is_new) and has no log here may have had it in an offline dir: as in
        Kafka, it is not created again elsewhere (KafkaStorageError)."""
        tp = (topic, partition)
        log = self._logs.get(tp)
        if log is not None and config is not None:
            log.config = config
        if log is None:
            if not is_new and self.failures.offline_dirs:
                raise KafkaStorageError(
                    "Can not create log for %s-%d because log directories %s are offline"
                    % (topic, partition, ",".join(self.failures.offline_dirs))
                )
            log_dir = self._next_log_dir(tp)
            try:
                log = Log(
                    os.path.join(log_dir, log_dir_name(topic, partition)),
                    config or self.default_config,
                    self._clock,
                    epoch_checkpoints=self.epoch_checkpoints,
                    max_producer_idle_ms=self.max_producer_idle_ms,
                )
            except OSError as error:
                raise self.failures.report(log_dir, "Error while creating log for %s-%d" % tp, error) from error
            self._logs[tp] = log
            self._dir_of[tp] = log_dir
        return log

    def handle_dir_failure(self, log_dir: str) -> list[TopicPartition]:
        """Drop every current and future log of an offline dir, letting go of their files without writing.
        Returns the (topic, partition)s whose current log was there."""
        current = [tp for tp, d in self._dir_of.items() if d == log_dir]
        for tp in current:
            del self._dir_of[tp]
            self._logs.pop(tp).abandon()
        for tp in [tp for tp, d in self._future_dir_of.items() if d == log_dir]:
            del self._future_dir_of[tp]
            self._future_logs.pop(tp).abandon()
        self._deleted_logs = [(when, log) for when, log in self._deleted_logs if os.path.dirname(log.dir) != log_dir]
        self.preferred_dirs = {tp: d for tp, d in self.preferred_dirs.items() if d != log_dir}
        logger.info(
            "logs in %s dropped: %d partitions; live log dirs: %s",
            log_dir,
            len(current),
            ", ".join(self.live_log_dirs) or "none",
        )
        return current

    def logs_in_dir(self, log_dir: str) -> list[tuple[TopicPartition, Log, bool]]:
        """[((topic, partition), Log, is_future)] of the replicas in ``log_dir``, sorted."""
        current = [(tp, self._logs[tp], False) for tp, d in self._dir_of.items() if d == log_dir]
        future = [(tp, self._future_logs[tp], True) for tp, d in self._future_dir_of.items() if d == log_dir]
        return sorted(current + future, key=lambda entry: (entry[0], entry[2]))

    def _logs_in(self, log_dir: str) -> dict[TopicPartition, Log]:
        """{tp: Log} of the current and future logs in one dir (a dir never holds both of one partition)."""
        logs = {tp: self._logs[tp] for tp, d in self._dir_of.items() if d == log_dir}
        logs.update({tp: self._future_logs[tp] for tp, d in self._future_dir_of.items() if d == log_dir})
        return logs

    # -- moving replicas between log dirs ----------------------------------------------------

    def get_future_log(self, topic: str, partition: int) -> Log | None:
        return self._future_logs.get((topic, partition))

    def future_log_dir_of(self, topic: str, partition: int) -> str | None:
        return self._future_dir_of.get((topic, partition))

    def future_logs(self) -> dict[TopicPartition, Log]:
        return dict(self._future_logs)

    def maybe_update_preferred_dir(self, topic: str, partition: int, log_dir: str) -> None:
        """Remember ``log_dir`` for a replica that does not exist here yet (Kafka's preferredLogDirs)."""
        if (topic, partition) not in self._logs:
            self.preferred_dirs[(topic, partition)] = log_dir

    def create_future_log(self, topic: str, partition: int, log_dir: str, config: LogConfig | None = None) -> Log:
        """An empty ``<topic>-<partition>.<uuid>-future`` log in ``log_dir`` (the existing one if already there)."""
        tp = (topic, partition)
        future = self._future_logs.get(tp)
        if future is not None:
            if self._future_dir_of[tp] != log_dir:
                raise ValueError(
                    "the future replica of %s-%d is in %s, not %s"
                    % (topic, partition, self._future_dir_of[tp], log_dir)
                )
            return future
        current = self._logs.get(tp)
        config = config or (current.config if current is not None else self.default_config)
        future = Log(
            os.path.join(log_dir, future_dir_name(topic, partition)),
            config,
            self._clock,
            epoch_checkpoints=self.epoch_checkpoints,
            max_producer_idle_ms=self.max_producer_idle_ms,
        )
        self._future_logs[tp] = future
        self._future_dir_of[tp] = log_dir
        return future

    def remove_future_log(self, topic: str, partition: int) -> bool:
        """Delete the future replica (a cancelled or superseded move). False if there is none."""
        tp = (topic, partition)
        future = self._future_logs.pop(tp, None)
        if future is None:
            return False
        del self._future_dir_of[tp]
        future.delete()
        return True

    def replace_current_with_future(self, topic: str, partition: int, now_ms: int) -> Log:
        """Swap in the caught-up future log: it takes the partition's name in its dir and the old log is
        renamed ``-delete`` (its files go after file.delete.delay.ms, so slices handed out stay readable).
        Returns the new current Log."""
        tp = (topic, partition)
        current, future = self._logs[tp], self._future_logs[tp]
        if current.log_end_offset != future.log_end_offset:
            raise ValueError(
                "future log of %s-%d ends at %d, the current one at %d"
                % (topic, partition, future.log_end_offset, current.log_end_offset)
            )
        destination = self._future_dir_of[tp]
        copy_leader_epochs(current, future)
        future.flush()
        # The old log goes first: a crash in between leaves a caught-up future log and no current one,
        # which load_logs promotes (two current dirs of one partition would stop the broker instead).
        old_dir = current.dir
        current.rename_dir(os.path.join(os.path.dirname(old_dir), delete_dir_name(topic, partition)))
        future.rename_dir(os.path.join(destination, log_dir_name(topic, partition)))
        replaced = future
        del self._future_logs[tp]
        del self._future_dir_of[tp]
        self._logs[tp] = replaced
        self._dir_of[tp] = destination
        self._deleted_logs.append((now_ms + current.config.file_delete_delay_ms, current))
        logger.info("replica %s-%d moved from %s to %s", topic, partition, os.path.dirname(old_dir), destination)
        return replaced

    def remove_deleted_logs(self, now_ms: int, everything: bool = False) -> None:
        """Remove the ``-delete`` dirs of replaced logs whose delay has passed."""
        due = [log for when, log in self._deleted_logs if everything or when <= now_ms]
        self._deleted_logs = [(when, log) for when, log in self._deleted_logs if not (everything or when <= now_ms)]
        for log in due:
            try:
                log.delete()
            except OSError as error:
                self.failures.report_log(log, "deleting", error)

    # -- periodic work -----------------------------------------------------------------------

    def checkpoint_recovery_points(self) -> None:
        for log_dir in self.live_log_dirs:
            logs = self._logs_in(log_dir)
            self._write_checkpoint(
                log_dir, RECOVERY_POINT_CHECKPOINT, {tp: log.recovery_point for tp, log in logs.items()}
            )
            for log in logs.values():
                log.delete_snapshots_after_recovery_point_checkpoint()

    def checkpoint_log_start_offsets(self) -> None:
        """Record log start offsets that are above the first segment's base (after DeleteRecords)."""
        for log_dir in self.live_log_dirs:
            self._write_checkpoint(
                log_dir,
                LOG_START_OFFSET_CHECKPOINT,
                {
                    tp: log.log_start_offset
                    for tp, log in self._logs_in(log_dir).items()
                    if log.log_start_offset > log.segments[0].base_offset
                },
            )

    def _write_checkpoint(self, log_dir: str, name: str, offsets: Mapping[TopicPartition, int]) -> None:
        path = os.path.join(log_dir, name)
        try:
            OffsetCheckpointFile(path).write(offsets)
        except OSError as error:
            self.failures.report(log_dir, "Error while writing %s" % path, error)

    def cleanup_logs(
        self,
        now_ms: int,
        max_offsets: Mapping[TopicPartition, int] | None = None,
        started_later: list[TopicPartition] | None = None,
    ) -> int:
        """Retention on every log; ``max_offsets`` maps (topic, partition) to its high watermark.

        Also removes files of segments deleted more than file.delete.delay.ms ago. Returns the
        number of segments deleted; the (topic, partition)s whose log start offset moved are appended
        to ``started_later`` when given.
        """
        deleted = 0
        for tp, log in list(self._logs.items()):
            max_offset = max_offsets.get(tp) if max_offsets is not None else None
            try:
                removed = log.delete_old_segments(now_ms, max_offset)
                log.remove_deleted_segments(now_ms)
            except OSError as error:
                self.failures.report_log(log, "deleting old segments of", error)
                continue
            if removed and started_later is not None:
                started_later.append(tp)
            deleted += removed
        for log in list(self._future_logs.values()):
            try:
                log.remove_deleted_segments(now_ms)
            except OSError as error:
                self.failures.report_log(log, "deleting old segments of", error)
        self.remove_deleted_logs(now_ms)
        return deleted

    def flush_dirty_logs(self, now_ms: int) -> None:
        """fsync logs not flushed for flush.ms, and rolled segments not yet flushed (walks every log: the
        broker calls it every FLUSH_CHECK_MS, not at each second)."""
        for log in list(self._logs.values()):
            try:
                if now_ms - log.last_flush_ms >= log.config.flush_ms:
                    self._timed_flush(log, None)
                elif log.recovery_point < log.active_segment.base_offset:
                    self._timed_flush(log, log.active_segment.base_offset)
            except OSError as error:
                self.failures.report_log(log, "flushing", error)

    def _timed_flush(self, log: Log, up_to_offset: int | None) -> None:
        """Kafka's LogFlushStats: the flushes that wrote something, and how long each took."""
        recovery_point = log.recovery_point
        started = self._clock.seconds()
        log.flush(up_to_offset)
        if log.recovery_point != recovery_point:
            self._flush_timer.update((self._clock.seconds() - started) * 1000.0)

    def async_delete(self, topic: str, partition: int) -> bool:
        """Remove a partition's log: its dir is renamed ``...-delete`` and then deleted. False if unknown."""
        tp = (topic, partition)
        log = self._logs.pop(tp, None)
        if log is None:
            return False
        del self._dir_of[tp]
        self.preferred_dirs.pop(tp, None)
        try:
            self.remove_future_log(topic, partition)  # first, so a crash leaves no future log to promote
            log.delete()
        except OSError as error:
            raise self.failures.report_log(log, "deleting log for", error) from error
        self.checkpoint_recovery_points()
        self.checkpoint_log_start_offsets()
        return True

    def shutdown(self) -> None:
        """Flush and close every log, write the checkpoints, then the clean-shutdown marker in each dir.

        When many logs took writes since their last flush (each has a segment, two indexes and a producer
        snapshot to make durable: a broker that was taking writes for 1,000 partitions had some 4,000 fsyncs
        to do, seconds of a controlled shutdown), they are written back without fsyncs and made durable by
        one filesystem sync, before anything records their recovery points."""
        logs = list(self._logs.values()) + list(self._future_logs.values())
        unflushed = sum(1 for log in logs if log.log_end_offset > log.recovery_point)
        batch = unflushed * 4 >= BATCH_SYNC_MIN_FILES and can_sync_filesystems()
        for log in logs:
            try:
                log.flush(sync=not batch)
                log.close(sync=not batch)
            except OSError as error:
                self.failures.report_log(log, "closing", error)
        if batch:
            sync_filesystems_of(self.live_log_dirs)
        if self.epoch_checkpoints is not None:
            self.epoch_checkpoints.write(self.epoch_checkpoints.drain(), self.failures)
        self.remove_deleted_logs(0, everything=True)
        self.checkpoint_recovery_points()
        self.checkpoint_log_start_offsets()
        for log_dir in self.live_log_dirs:  # a dir that failed on the way down is recovered at the next start
            try:
                with open(os.path.join(log_dir, CLEAN_SHUTDOWN_FILE), "wb") as f:
                    os.fsync(f.fileno())
            except OSError as error:
                self.failures.report(log_dir, "Error while writing the clean-shutdown marker", error)
        self._logs = {}
        self._dir_of = {}
        self._future_logs = {}
        self._future_dir_of = {}
