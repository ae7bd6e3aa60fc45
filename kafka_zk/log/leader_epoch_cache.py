"""Per-partition leader epoch -> start offset entries, kept in the leader-epoch-checkpoint file."""

import os
from collections.abc import Callable, Iterable
from typing import NamedTuple

from kafka_zk.log.checkpoints import LeaderEpochCheckpointFile, write_all_atomically
from kafka_zk.log.dir_failure import LogDirFailureChannel

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class EpochEntry(NamedTuple):
    epoch: int
    start_offset: int


class DeferredCheckpoints:
    """Epoch checkpoint writes gathered so that many are done together and away from the thread that asked
    (a LeaderAndIsr for thousands of partitions must not fsync each on the reactor). ``on_pending()`` is
    called when the first write starts waiting; the latest entries of a file replace earlier ones."""

    def __init__(self, on_pending: Callable[[], object] | None = None) -> None:
        self._pending: dict[int, tuple[LeaderEpochCheckpointFile, list[EpochEntry]]] = {}
        self.on_pending = on_pending

    def add(self, checkpoint: LeaderEpochCheckpointFile, entries: Iterable[EpochEntry]) -> None:
        first = not self._pending
        self._pending[id(checkpoint)] = (checkpoint, list(entries))
        if first and self.on_pending is not None:
            self.on_pending()

    def drain(self) -> list[tuple[LeaderEpochCheckpointFile, list[EpochEntry]]]:
        items, self._pending = list(self._pending.values()), {}
        return items

    @staticmethod
    def write(
        items: Iterable[tuple[LeaderEpochCheckpointFile, list[EpochEntry]]],
        failures: LogDirFailureChannel | None = None,
    ) -> None:
        """Write drained items (on any thread) durably, with a filesystem sync per log dir rather than fsyncs
        per file; a log deleted meanwhile has nothing left to write to. With ``failures`` (a
        LogDirFailureChannel) an I/O error takes that log dir offline and the other dirs are still written."""
        by_dir: dict[str, list[tuple[str, str]]] = {}
        for checkpoint, entries in items:
            log_dir = os.path.dirname(os.path.dirname(os.path.abspath(checkpoint.path)))
            by_dir.setdefault(log_dir, []).append((checkpoint.path, checkpoint.text(entries)))
        for log_dir, files in by_dir.items():
            if failures is None:
                write_all_atomically(files)
            elif not failures.is_offline(log_dir):
                try:
                    write_all_atomically(files)
                except OSError as error:
                    failures.report(log_dir, "Error while writing leader epoch checkpoints", error)


class LeaderEpochFileCache:
    """Entries increase in both epoch and start offset; every change is written to the checkpoint, at once
    or, given ``deferred``, with the next batch of DeferredCheckpoints."""

    def __init__(self, checkpoint: LeaderEpochCheckpointFile, deferred: DeferredCheckpoints | None = None) -> None:
        self._checkpoint = checkpoint
        self._deferred = deferred
        self._entries: list[EpochEntry] = []
        for epoch, start_offset in checkpoint.read():
            self._assign(EpochEntry(epoch, start_offset))

    @property
    def entries(self) -> list[EpochEntry]:
        return list(self._entries)

    @property
    def latest_entry(self) -> EpochEntry | None:
        return self._entries[-1] if self._entries else None

    @property
    def earliest_entry(self) -> EpochEntry | None:
        return self._entries[0] if self._entries else None

    @property
    def latest_epoch(self) -> int | None:
        """The latest epoch, or None when the cache is empty."""
        return self._entries[-1].epoch if self._entries else None

    def assign(self, epoch: int, start_offset: int) -> None:
        """Record that ``epoch`` starts at ``start_offset``.

        Nothing changes when the latest entry already has this epoch at an offset <= start_offset.
        Otherwise entries whose epoch or start offset is not below the new one are dropped first.
        """
        entries = self._entries
        if entries and entries[-1].epoch == epoch and start_offset >= entries[-1].start_offset:
            return  # every append of the leader's epoch after its first
        if self._assign(EpochEntry(epoch, start_offset)):
            self.flush()

    def _assign(self, entry: EpochEntry) -> bool:
        if entry.epoch < 0 or entry.start_offset < 0:
            raise ValueError("invalid leader epoch entry %r" % (entry,))
        last = self.latest_entry
        if last is not None and entry.epoch == last.epoch and entry.start_offset >= last.start_offset:
            return False
        while self._entries and (
            self._entries[-1].epoch >= entry.epoch or self._entries[-1].start_offset >= entry.start_offset
        ):
            self._entries.pop()
        self._entries.append(entry)
        return True

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """(epoch, end offset) for OffsetForLeaderEpoch.

        The epoch is the largest known epoch <= requested_epoch and the end offset is the start of
        the first later epoch, or the log end offset when the latest epoch is requested. Unknown:
        (-1, -1).
        """
        if requested_epoch == UNDEFINED_EPOCH or not self._entries:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if requested_epoch == self._entries[-1].epoch:
            return requested_epoch, log_end_offset
        floor: EpochEntry | None = None
        for entry in self._entries:
            if entry.epoch > requested_epoch:
                if floor is None:
                    # Older epochs are gone from the log; the first later epoch's start is the answer.
                    return requested_epoch, entry.start_offset
                return floor.epoch, entry.start_offset
            floor = entry
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET

    def truncate_from_end(self, end_offset: int) -> None:
        """Remove every entry starting at or after ``end_offset``."""
        if end_offset < 0 or not self._entries or self._entries[-1].start_offset < end_offset:
            return
        while self._entries and self._entries[-1].start_offset >= end_offset:
            self._entries.pop()
        self.flush()

    def truncate_from_start(self, start_offset: int) -> None:
        """Drop entries wholly before ``start_offset``; the epoch covering it now starts there."""
        removed = None
        while self._entries and self._entries[0].start_offset <= start_offset:
            removed = self._entries.pop(0)
        if removed is not None:
            self._entries.insert(0, EpochEntry(removed.epoch, start_offset))
            self.flush()

    def clear_and_flush(self) -> None:
        self._entries = []
        self.flush()

    def flush(self) -> None:
        if self._deferred is not None:
            self._deferred.add(self._checkpoint, self._entries)
        else:
            self._checkpoint.write(self._entries)
