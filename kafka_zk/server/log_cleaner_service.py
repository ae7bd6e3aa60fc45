"""LogCleanerService: the broker's log cleaner threads, fed and finished on the reactor.

Choosing the dirtiest log and swapping cleaned segments in happen on the reactor thread, where
appends, reads, retention and truncation also run, so they never race; the long part (building
the offset map and writing ``.cleaned`` segments) runs on log.cleaner.threads threads that
only touch files. A pass whose log changed meanwhile (deleted, truncated, retention) is dropped
at the swap. Progress is kept per log dir in ``cleaner-offset-checkpoint``.
"""

import logging
import os
import time

from twisted.internet import threads
from twisted.python.threadpool import ThreadPool

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.log.checkpoints import CLEANER_OFFSET_CHECKPOINT, MalformedCheckpointError, OffsetCheckpointFile
from kafka_zk.log.cleaner import CleanAbortedError, Cleaner, CleaningPlan, apply_cleaning, grab_filthiest, log_to_clean
from kafka_zk.log.cleaner_metrics import CleanerStats, register_cleaner_gauges

logger = logging.getLogger(__name__)

_INT32_MAX = 2**31 - 1


class LogCleanerService:
    """Runs Kafka's cleaning loop for the compacted logs of one broker."""

    def __init__(self, reactor, log_manager, replica_manager, config, clock, metrics=None):
        """``metrics``: the MetricsRegistry that gets the cleaner's gauges (log.cleaner_metrics)."""
        self.reactor = reactor
        self.log_manager = log_manager
        self.replica_manager = replica_manager
        self.clock = clock
        self.enabled = config["log.cleaner.enable"] and config["log.cleaner.threads"] > 0
        self.num_threads = max(1, config["log.cleaner.threads"])
        self.backoff_ms = config["log.cleaner.backoff.ms"]
        self.dedupe_buffer_size = min(config["log.cleaner.dedupe.buffer.size"] // self.num_threads, _INT32_MAX)
        self.io_buffer_size = max(1, config["log.cleaner.io.buffer.size"] // self.num_threads // 2)
        self.load_factor = config["log.cleaner.io.buffer.load.factor"]
        self.max_io_bytes_per_second = config["log.cleaner.io.max.bytes.per.second"]
        self.checkpoints = {}
        self.in_progress = set()
        self.uncleanable = set()
        self.passes = 0
        self._stopping = False
        self._pool = None
        self._timer = None
        self.stats = CleanerStats(self.num_threads, clock)
        register_cleaner_gauges(
            metrics if metrics is not None else MetricsRegistry(),
            self.stats,
            log_manager.log_dirs,
            self._uncleanable_in,
        )

    def _uncleanable_in(self, log_dir):
        """(partitions, cleanable bytes) of the uncleanable partitions in ``log_dir``."""
        count = size = 0
        high_watermarks = None
        for tp in list(self.uncleanable):
            log = self.log_manager.get_log(*tp)
            if log is None or self.log_manager.log_dir_of(*tp) != log_dir:
                continue
            count += 1
            if high_watermarks is None:
                high_watermarks = self.replica_manager.high_watermark_snapshot()
            size += log_to_clean(
                tp[0],
                tp[1],
                log,
                self.checkpoints.get(tp),
                milliseconds(self.clock),
                high_watermarks.get(tp, log.log_end_offset),
            ).cleanable_bytes
        return count, size

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self):
        for log_dir in self.log_manager.live_log_dirs:
            self.checkpoints.update(self._read_checkpoint(log_dir))
        if not self.enabled:
            return
        self._pool = ThreadPool(self.num_threads, self.num_threads, name="kafka-log-cleaner")
        self._pool.start()
        self._schedule(self.backoff_ms)

    def stop(self):
        """Abort passes in flight and join the threads (a pass stops at its next batch)."""
        self._stopping = True
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        if self._pool is not None:
            self._pool.stop()
            self._pool = None

    def _schedule(self, delay_ms):
        if self._stopping:
            return
        if self._timer is not None and self._timer.active():
            if delay_ms > 0:
                return
            self._timer.cancel()
        self._timer = self.reactor.callLater(delay_ms / 1000.0, self._tick)

    # -- choosing ----------------------------------------------------------------------------

    def _tick(self):
        self._timer = None
        while not self._stopping and len(self.in_progress) < self.num_threads:
            ltc = self._grab_filthiest()
            if ltc is None:
                break
            self._start_pass(ltc)
        self._schedule(self.backoff_ms)

    def _grab_filthiest(self):
        now = milliseconds(self.clock)
        high_watermarks = self.replica_manager.high_watermark_snapshot()
        candidates = []
        for log in self.log_manager.all_logs():
            tp = (log.topic, log.partition)
            if log.truncated_to is not None:
                # Kafka's maybeTruncateCheckpoint: what follows the truncation point is new, dirty data.
                if self.checkpoints.get(tp, -1) > log.truncated_to:
                    self.checkpoints[tp] = log.truncated_to
                    self._write_checkpoint(self.log_manager.log_dir_of(*tp))
                log.truncated_to = None
            if not log.config.compact or tp in self.in_progress or tp in self.uncleanable:
                continue
            if tp not in high_watermarks:
                continue  # not (yet) a replica this broker serves
            candidates.append(
                log_to_clean(log.topic, log.partition, log, self.checkpoints.get(tp), now, high_watermarks[tp])
            )
        self.stats.chose(candidates)
        return grab_filthiest(candidates)

    def _producer_last_offsets(self, tp):
        partition = self.replica_manager.partitions.get(tp)
        if partition is None:
            return {}
        return {
            pid: entry.batches[-1].last_offset
            for pid, entry in partition.producer_state.producers.items()
            if entry.batches
        }

    def _start_pass(self, ltc):
        tp = (ltc.topic, ltc.partition)
        plan = CleaningPlan.snapshot(ltc, self._producer_last_offsets(tp))
        self.in_progress.add(tp)
        logger.info(
            "Beginning cleaning of log %s-%d (first dirty offset %d, uncleanable from %d, ratio %.2f)",
            ltc.topic,
            ltc.partition,
            ltc.first_dirty_offset,
            ltc.first_uncleanable_offset,
            ltc.cleanable_ratio,
        )
        log = ltc.log

        def should_abort(_plan):
            # Read from the cleaner thread: a stop, or the log deleted or replaced meanwhile.
            return self._stopping or self.log_manager.get_log(*tp) is not log

        cleaner = Cleaner(
            self.dedupe_buffer_size,
            self.clock,
            self.load_factor,
            self.io_buffer_size,
            self.max_io_bytes_per_second,
            time.sleep,
            should_abort,
        )
        started_ms = milliseconds(self.clock)
        d = threads.deferToThreadPool(self.reactor, self._pool, cleaner.clean, plan)
        d.addCallbacks(self._finished, self._failed, callbackArgs=(tp, log, started_ms, cleaner), errbackArgs=(tp, log))
        d.addBoth(self._done, tp)

    # -- finishing (reactor thread) ----------------------------------------------------------

    def _finished(self, result, tp, log, started_ms, cleaner):
        if self.log_manager.get_log(*tp) is not log or self._stopping:  # deleted, or moved to another dir
            result.discard()
            return
        size_before = log.size
        end_offset = apply_cleaning(log, result)
        if end_offset is None:
            return
        self.passes += 1
        self.checkpoints[tp] = end_offset
        self._write_checkpoint(self.log_manager.log_dir_of(*tp))
        elapsed = max(1, milliseconds(self.clock) - started_ms)
        offset_map = cleaner.offset_map
        self.stats.passed(
            len(offset_map) / max(1, offset_map.slots), result.bytes_read, result.bytes_written, elapsed / 1000.0
        )
        logger.info(
            "Cleaned log %s-%d up to offset %d: %d -> %d bytes of the log (%d of %d records kept "
            "in the cleaned segments, %.1f MB/s read) in %d ms",
            tp[0],
            tp[1],
            end_offset,
            size_before,
            log.size,
            result.records_written,
            result.records_read,
            result.bytes_read / 1048.576 / elapsed,
            elapsed,
        )
        logger.info("%s", cleaning_stats(tp, result, elapsed / 1000.0))

    def _failed(self, failure, tp, log):
        if failure.check(CleanAbortedError) or self.log_manager.get_log(*tp) is not log:
            logger.info("Cleaning of %s-%d aborted: %s", tp[0], tp[1], failure.value)
            return
        if self._stopping:
            return
        if failure.check(OSError):
            self.log_manager.failures.report_log(log, "cleaning", failure.value)
            return
        logger.error(
            "Unexpected error cleaning %s-%d; marking it uncleanable: %s", tp[0], tp[1], failure.getTraceback()
        )
        self.uncleanable.add(tp)

    def _done(self, outcome, tp):
        if outcome is not None and hasattr(outcome, "check") and outcome.check(OSError):
            log_dir = self.log_manager.log_dir_of(*tp)
            if log_dir is not None:
                self.log_manager.failures.report(
                    log_dir, "Error while finishing the cleaning of %s-%d" % tp, outcome.value
                )
        elif outcome is not None and hasattr(outcome, "getTraceback"):
            logger.error("Error finishing the cleaning of %s-%d: %s", tp[0], tp[1], outcome.getTraceback())
            self.uncleanable.add(tp)
        self.in_progress.discard(tp)
        self._schedule(0)

    # -- checkpoints -------------------------------------------------------------------------

    def _read_checkpoint(self, log_dir):
        checkpoint = OffsetCheckpointFile(os.path.join(log_dir, CLEANER_OFFSET_CHECKPOINT))
        try:
            return checkpoint.read()
        except MalformedCheckpointError as exc:
            logger.warning("ignoring %s: %s", checkpoint.path, exc)
            return {}
        except OSError as error:
            self.log_manager.failures.report(log_dir, "Error while reading %s" % checkpoint.path, error)
            return {}

    def _write_checkpoint(self, log_dir):
        """Rewrite a dir's checkpoint with the offsets of the logs it still holds."""
        if log_dir is None:
            return
        present = {
            (log.topic, log.partition)
            for log in self.log_manager.all_logs()
            if self.log_manager.log_dir_of(log.topic, log.partition) == log_dir
        }
        for tp in [tp for tp in self.checkpoints if self.log_manager.get_log(*tp) is None]:
            del self.checkpoints[tp]
        try:
            OffsetCheckpointFile(os.path.join(log_dir, CLEANER_OFFSET_CHECKPOINT)).write(
                {tp: offset for tp, offset in self.checkpoints.items() if tp in present}
            )
        except OSError as error:
            self.log_manager.failures.report(log_dir, "Error while writing %s" % CLEANER_OFFSET_CHECKPOINT, error)


def cleaning_stats(tp, result, seconds):
    """Kafka's LogCleaner stats message for one pass (log-cleaner.log)."""
    mb_read, mb_written = result.bytes_read / 1048576.0, result.bytes_written / 1048576.0
    seconds = max(seconds, 0.001)
    reduction = 100.0 * (1 - mb_written / mb_read) if mb_read else 0.0
    fewer = 100.0 * (1 - result.records_written / result.records_read) if result.records_read else 0.0
    return (
        "\n\tLog cleaner thread 0 cleaned log %s-%d (dirty section = [%d, %d])\n"
        "\t%.1f MB of log processed in %.1f seconds (%.1f MB/sec).\n"
        "\tStart size: %.1f MB (%d messages)\n"
        "\tEnd size: %.1f MB (%d messages)\n"
        "\t%.1f%% size reduction (%.1f%% fewer messages)\n"
        % (
            tp[0],
            tp[1],
            result.plan.first_dirty_offset,
            result.end_offset,
            mb_read,
            seconds,
            mb_read / seconds,
            mb_read,
            result.records_read,
            mb_written,
            result.records_written,
            reduction,
            fewer,
        )
    )
