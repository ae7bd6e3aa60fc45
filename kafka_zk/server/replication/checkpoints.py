"""The broker's checkpoint files on their schedule: high watermarks (read at start, written periodically and at
shutdown) and the leader epoch checkpoints the logs gather, written in batches on a pool thread."""

import logging
import os

from twisted.internet import defer, task, threads

from kafka_zk.log.checkpoints import OffsetCheckpointFile
from kafka_zk.log.leader_epoch_cache import DeferredCheckpoints

log = logging.getLogger(__name__)

HIGH_WATERMARK_CHECKPOINT = "replication-offset-checkpoint"


class HighWatermarkCheckpoints:
    """Each live log dir's replication-offset-checkpoint: the high watermarks of the partitions it holds."""

    def __init__(self, reactor, log_manager, failures):
        """``reactor``: runs the periodic writes on its thread pool; ``failures``: the LogDirFailureChannel an
        I/O error takes a dir offline through."""
        self.reactor = reactor
        self.log_manager = log_manager
        self.failures = failures
        self._last_written = None

    def read(self):
        """{tp: high watermark} from the checkpoints of every live log dir."""
        marks = {}
        for directory in self.log_manager.live_log_dirs:
            path = os.path.join(directory, HIGH_WATERMARK_CHECKPOINT)
            try:
                if os.path.exists(path):
                    marks.update(OffsetCheckpointFile(path).read())
            except OSError as error:
                self.failures.report(directory, "Error while reading %s" % path, error)
        return marks

    def checkpoint(self, high_watermarks):
        """Periodic, given the replica manager's snapshot taken on the reactor: write and fsync on a pool thread
        (an fsync stalls requests); nothing to write when no high watermark moved since the last checkpoint."""
        checkpoints = self._by_dir(high_watermarks)
        if checkpoints == self._last_written:
            return defer.succeed(None)

        def written(_):
            self._last_written = checkpoints

        return threads.deferToThreadPool(
            self.reactor, self.reactor.getThreadPool(), _write_checkpoints, checkpoints, self.failures
        ).addCallback(written)

    def write_now(self, high_watermarks):
        """The final checkpoint at shutdown, written on this thread."""
        _write_checkpoints(self._by_dir(high_watermarks), self.failures)

    def _by_dir(self, high_watermarks):
        """[(checkpoint path, {tp: high watermark})] for every live log dir."""
        by_dir = {directory: {} for directory in self.log_manager.live_log_dirs}
        for tp, mark in high_watermarks.items():
            directory = self.log_manager.log_dir_of(*tp)
            if directory in by_dir:
                by_dir[directory][tp] = mark
        return [(os.path.join(directory, HIGH_WATERMARK_CHECKPOINT), marks) for directory, marks in by_dir.items()]


def _write_checkpoints(checkpoints, failures):
    """Write each dir's high watermark checkpoint; an I/O error takes that dir offline (any thread)."""
    for path, marks in checkpoints:
        log_dir = os.path.dirname(path)
        if failures.is_offline(log_dir):
            continue
        try:
            OffsetCheckpointFile(path).write(marks)
        except OSError as error:
            failures.report(log_dir, "Error while writing %s" % path, error)


class LeaderEpochCheckpointWriter:
    """Writes the leader epoch checkpoints the logs gather in ``pending`` (a DeferredCheckpoints handed to the
    LogManager): a batch on a pool thread in the reactor turn after the first one waits, one batch at a time,
    so a file's newest entries are always written last."""

    def __init__(self, reactor, failures):
        self.reactor = reactor
        self.failures = failures
        self.pending = DeferredCheckpoints(on_pending=self._schedule)
        self._batch = None  # the Deferred of the batch being written

    def _schedule(self):
        if self._batch is None:
            self._batch = task.deferLater(self.reactor, 0, self._write)

    @defer.inlineCallbacks
    def _write(self):
        try:
            while True:
                items = self.pending.drain()
                if not items:
                    break
                yield threads.deferToThreadPool(
                    self.reactor, self.reactor.getThreadPool(), DeferredCheckpoints.write, items, self.failures
                )
        except Exception:
            log.exception("writing leader epoch checkpoints failed")
        finally:
            self._batch = None

    def wait_written(self):
        """A Deferred that fires once the batch being written (if any) is done: at shutdown, older entries must
        not land after the final ones the logs write when they close."""
        if self._batch is None:
            return defer.succeed(None)
        return self._batch
