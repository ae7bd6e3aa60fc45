"""Opening a partition's log dir: leftover temporary and swap files, the segment files and their indexes,
recovery of unflushed segments after an unclean shutdown, and the checks a log's segments pass at open."""

import bisect
import dataclasses
import logging
import os
from collections.abc import Sequence
from typing import List, Protocol, Set

from kafka_zk.log.index_file import CorruptIndexError
from kafka_zk.log.leader_epoch_cache import LeaderEpochFileCache
from kafka_zk.log.segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    LogSegment,
    segment_file_name,
)
from kafka_zk.log.transaction_index import TXN_INDEX_SUFFIX

logger = logging.getLogger(__name__)


class SegmentOpener(Protocol):
    """Opens a LogSegment of the log being loaded, of ``base_offset`` and with ``file_suffix`` after its names."""

    def __call__(self, base_offset: int, file_suffix: str = ...) -> LogSegment: ...


def _base_offset_of(name: str, suffix: str) -> int | None:
    stem = name[: -len(suffix)]
    if name.endswith(suffix) and len(stem) == 20 and stem.isdigit():
        return int(stem)
    return None


@dataclasses.dataclass
class LoadedSegments:
    """What a log dir held once opened: its segments by base offset (possibly none), and the base offsets of
    the segments whose indexes were rebuilt (their ``.txnindex`` is rebuilt with the producer state)."""

    segments: List[LogSegment]
    recovered_bases: Set[int]


class LogLoader:
    """Opens the segments of one log dir, finishing or undoing what a crash interrupted.

    ``new_segment(base_offset, file_suffix)`` opens a LogSegment of the log being loaded; ``epoch_cache``
    is the log's leader epoch cache, which recovery feeds with the epochs of the batches it reads.
    """

    def __init__(self, dir_path: str, new_segment: SegmentOpener, epoch_cache: LeaderEpochFileCache) -> None:
        self.dir = dir_path
        self._new_segment = new_segment
        self._epoch_cache = epoch_cache
        self._segments: list[LogSegment] = []
        self._bases: list[int] = []
        self._recovered_bases: set[int] = set()

    def load(self, clean_shutdown: bool, recovery_point: int, log_start_offset: int) -> LoadedSegments:
        """Open every segment; after an unclean shutdown recover those from ``recovery_point`` on."""
        swap_bases = self._remove_temp_files()
        truncated_on_load = self._load_segment_files()
        for base_offset in swap_bases:
            self._complete_swap(base_offset)
        if not clean_shutdown:
            self._recover_unflushed(truncated_on_load, recovery_point)
        elif self._segments and not self._segments[-1].tail_is_intact():
            active = self._segments[-1]
            truncated = active.recover(epoch_cache=self._epoch_cache)
            self._recovered_bases.add(active.base_offset)
            logger.warning("%s: damaged tail after a clean shutdown; truncated %d bytes", self.dir, truncated)
        if self._segments and self._segments[-1].next_offset() < log_start_offset:
            logger.warning(
                "%s: log end offset %d is below log start offset %d; deleting all segments",
                self.dir,
                self._segments[-1].next_offset(),
                log_start_offset,
            )
            self._delete_now(list(self._segments))
        return LoadedSegments(list(self._segments), set(self._recovered_bases))

    def _add_segment(self, segment: LogSegment) -> None:
        i = bisect.bisect_left(self._bases, segment.base_offset)
        self._bases.insert(i, segment.base_offset)
        self._segments.insert(i, segment)

    def _delete_now(self, segments: Sequence[LogSegment]) -> None:
        for segment in segments:
            i = self._bases.index(segment.base_offset)
            del self._bases[i]
            del self._segments[i]
            segment.change_file_suffixes("", DELETED_SUFFIX)
            segment.delete()

    def _remove_temp_files(self) -> list[int]:
        """Delete ``.deleted`` and ``.cleaned`` leftovers and swapped index files; return swap log bases.

        As Kafka, a ``.swap`` segment at or above the lowest ``.cleaned`` file's base offset
        belongs to an operation that never finished writing, so it is deleted too.
        """
        swap_bases: list[int] = []
        min_cleaned: int | None = None
        for name in os.listdir(self.dir):
            path = os.path.join(self.dir, name)
            if name.endswith(DELETED_SUFFIX) or name.endswith(CLEANED_SUFFIX):
                if name.endswith(CLEANED_SUFFIX):
                    stem = name[: -len(CLEANED_SUFFIX)]
                    base = next(
                        (
                            b
                            for b in (
                                _base_offset_of(stem, sfx) for sfx in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX)
                            )
                            if b is not None
                        ),
                        None,
                    )
                    if base is not None and (min_cleaned is None or base < min_cleaned):
                        min_cleaned = base
                os.remove(path)
            elif name.endswith(SWAP_SUFFIX):
                base_offset = _base_offset_of(name[: -len(SWAP_SUFFIX)], LOG_SUFFIX)
                if base_offset is None:
                    os.remove(path)
                else:
                    swap_bases.append(base_offset)
        for base_offset in [b for b in swap_bases if min_cleaned is not None and b >= min_cleaned]:
            logger.info("%s: deleting swap segment %d of an unfinished operation", self.dir, base_offset)
            swap_bases.remove(base_offset)
            for suffix in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX):
                path = os.path.join(self.dir, segment_file_name(base_offset, suffix + SWAP_SUFFIX))
                if os.path.exists(path):
                    os.remove(path)
        return sorted(swap_bases)

    def _load_segment_files(self) -> dict[LogSegment, int]:
        """Open every segment; rebuild missing or corrupt indexes. Returns {segment: bytes truncated}."""
        names = sorted(os.listdir(self.dir))
        log_bases = {base for base in (_base_offset_of(name, LOG_SUFFIX) for name in names) if base is not None}
        for name in names:
            for suffix in (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX):
                base_offset = _base_offset_of(name, suffix)
                if base_offset is not None and base_offset not in log_bases:
                    os.remove(os.path.join(self.dir, name))
        truncated: dict[LogSegment, int] = {}
        for base_offset in sorted(log_bases):
            had_indexes = LogSegment.index_files_exist(self.dir, base_offset)
            segment = self._new_segment(base_offset)
            try:
                if not had_indexes:
                    raise CorruptIndexError("missing index files")
                segment.sanity_check()
            except CorruptIndexError as exc:
                logger.info("%s: rebuilding indexes of segment %d (%s)", self.dir, base_offset, exc)
                truncated[segment] = segment.recover(epoch_cache=self._epoch_cache)
                self._recovered_bases.add(base_offset)
            self._add_segment(segment)
        return truncated

    def _complete_swap(self, base_offset: int) -> None:
        """Finish a cleaner's replace interrupted by a crash: the ``.swap`` segment replaces the ones it covers."""
        swap = self._new_segment(base_offset, SWAP_SUFFIX)
        swap.recover()
        self._recovered_bases.add(base_offset)
        end = swap.next_offset()
        self._delete_now([s for s in self._segments if base_offset <= s.base_offset < end])
        swap.change_file_suffixes(SWAP_SUFFIX, "")
        self._add_segment(swap)

    def _recover_unflushed(self, truncated_on_load: dict[LogSegment, int], recovery_point: int) -> None:
        start = max(0, bisect.bisect_right(self._bases, recovery_point) - 1)
        unflushed = self._segments[start:]
        for i, segment in enumerate(unflushed):
            if segment in truncated_on_load:
                truncated = truncated_on_load[segment]
            else:
                logger.info("%s: recovering unflushed segment %d", self.dir, segment.base_offset)
                truncated = segment.recover(epoch_cache=self._epoch_cache)
                self._recovered_bases.add(segment.base_offset)
            if truncated > 0:
                logger.warning(
                    "%s: corruption in segment %d, truncated %d bytes to offset %d",
                    self.dir,
                    segment.base_offset,
                    truncated,
                    segment.next_offset(),
                )
                self._delete_now(unflushed[i + 1 :])
                return
