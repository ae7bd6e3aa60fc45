"""Moves replicas between this broker's log dirs in reactor-sized steps (Kafka's ReplicaAlterLogDirsThread).

A move copies whole batches from the current log into the future log, a chunk per reactor turn,
throttled by replica.alter.log.dirs.io.max.bytes.per.second; once both end at the same offset
(checked in the same turn as the copy, so no append can slip in between) the future log is swapped
in and the partition keeps serving from it, with its ISR membership untouched.
"""

import logging

from kafka_zk.common.clock import milliseconds
from kafka_zk.log.future_log import caught_up, copy_step

log = logging.getLogger(__name__)

UNLIMITED = 2**63 - 1


class ReplicaAlterLogDirsManager:
    def __init__(self, reactor, get_partition, log_manager, chunk_bytes=1048576, bytes_per_second=UNLIMITED):
        """``get_partition(topic, partition)``: the replica manager's Partition of a replica hosted here, or None."""
        self.reactor = reactor
        self.get_partition = get_partition
        self.log_manager = log_manager
        self.chunk_bytes = max(1, chunk_bytes)
        self.bytes_per_second = bytes_per_second
        self.moving = {}  # (topic, partition) -> the IDelayedCall of its next step
        self.moved = 0  # completed moves, for logs and tests

    def start(self, tp):
        """Start (or keep going) moving ``tp`` into its future log."""
        partition = self.get_partition(*tp)
        future = self.log_manager.get_future_log(*tp)
        if partition is None or future is None:
            return False
        partition.future_log = future
        if tp not in self.moving:
            self.moving[tp] = self.reactor.callLater(0, self._step, tp)
        return True

    def cancel(self, tp):
        """Stop moving ``tp`` (the future log stays on disk unless the caller removes it)."""
        call = self.moving.pop(tp, None)
        if call is not None and call.active():
            call.cancel()
        partition = self.get_partition(*tp)
        if partition is not None:
            partition.future_log = None

    def _step(self, tp):
        self.moving.pop(tp, None)
        partition = self.get_partition(*tp)
        current = self.log_manager.get_log(*tp)
        future = self.log_manager.get_future_log(*tp)
        if partition is None or future is None or partition.log is None or partition.log is not current:
            return
        try:
            copied = copy_step(current, future, self.chunk_bytes)
            if caught_up(current, future):
                self._swap(tp, partition)
                return
        except OSError as error:  # the copy writes the future log: its dir goes offline, the replica stays
            self.log_manager.failures.report_log(future, "moving replica", error)
            partition.future_log = None
            return
        except Exception:
            log.exception(
                "moving replica %s-%d to %s failed; the move stops",
                tp[0],
                tp[1],
                self.log_manager.future_log_dir_of(*tp),
            )
            partition.future_log = None
            return
        delay = 0.0
        if self.bytes_per_second < UNLIMITED:
            delay = copied / float(max(1, self.bytes_per_second))
        elif copied == 0:
            delay = 0.1
        self.moving[tp] = self.reactor.callLater(delay, self._step, tp)

    def _swap(self, tp, partition):
        now_ms = milliseconds(self.reactor)
        replaced = self.log_manager.replace_current_with_future(tp[0], tp[1], now_ms)
        partition.log = replaced
        partition.future_log = None
        self.moved += 1
        delay_ms = replaced.config.file_delete_delay_ms
        self.reactor.callLater(delay_ms / 1000.0, self._remove_replaced)
        log.info("replica %s-%d now lives in %s", tp[0], tp[1], self.log_manager.log_dir_of(*tp))

    def _remove_replaced(self):
        try:
            self.log_manager.remove_deleted_logs(milliseconds(self.reactor))
        except OSError as error:
            log.error("removing replaced logs failed: %s", error)

    def shutdown(self):
        for tp in list(self.moving):
            self.cancel(tp)
