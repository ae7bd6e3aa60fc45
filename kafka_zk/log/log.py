"""The log of one partition (`<topic>-<partition>/`): append, read, roll, retention, truncation and durability
over its segments, and its producer state (transactions, the last stable offset, `.txnindex` and `.snapshot`
files). Opening the dir and recovery are log_loader's; the settings are log_config's."""

import bisect
import logging
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence

from kafka_zk.common.clock import Clock, milliseconds
from kafka_zk.log.checkpoints import LEADER_EPOCH_CHECKPOINT, LeaderEpochCheckpointFile
from kafka_zk.log.leader_epoch_cache import DeferredCheckpoints, LeaderEpochFileCache
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_loader import LogLoader
from kafka_zk.log.producer_state import ProducerStateManager
from kafka_zk.log.producer_state_loader import apply_batch, delete_snapshots_before, load_producer_state, take_snapshot
from kafka_zk.log.segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    EMPTY_SLICE,
    INDEX_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    FetchDataInfo,
    LogOffsetMetadata,
    LogSegment,
    OffsetAndTimestamp,
    new_offset_metadata,
    segment_file_name,
)
from kafka_zk.log.transaction_index import TXN_INDEX_SUFFIX
from kafka_zk.record.batch_header import (
    LOG_OVERHEAD,
    NO_PRODUCER_ID,
    BatchHeader,
    InvalidRecordError,
    iter_batch_headers,
)
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.records import Record, iter_batches

logger = logging.getLogger(__name__)

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
NO_TIMESTAMP = -1
DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
DEFAULT_MAX_PRODUCER_IDLE_MS = 604800000  # Kafka 2.5's transactional.id.expiration.ms


class OffsetOutOfRangeError(Exception):
    """An offset outside [log start offset, log end offset] (OFFSET_OUT_OF_RANGE)."""


class RecordBatchTooLargeError(Exception):
    """A set of batches larger than segment.bytes (RECORD_LIST_TOO_LARGE)."""


class UnexpectedAppendOffsetError(Exception):
    """Batches whose first offset is below the log end offset."""


def log_dir_name(topic: str, partition: int) -> str:
    return "%s-%d" % (topic, partition)


def parse_topic_partition(dir_name: str) -> tuple[str, int]:
    """(topic, partition) from ``<topic>-<partition>``, also with a ``.<uuid>-future`` or ``.<uuid>-delete``
    suffix; ValueError for anything else."""
    for suffix in (FUTURE_DIR_SUFFIX, DELETE_DIR_SUFFIX):
        stem, dot, unique = dir_name[: -len(suffix)].rpartition(".")
        if dir_name.endswith(suffix) and dot and len(unique) == 32 and all(c in "0123456789abcdef" for c in unique):
            dir_name = stem
            break
    topic, sep, partition = dir_name.rpartition("-")
    if not sep or not topic or not partition.isdigit():
        raise ValueError("%r is not a <topic>-<partition> directory name" % dir_name)
    return topic, int(partition)


def delete_dir_name(topic: str, partition: int) -> str:
    return "%s.%s%s" % (log_dir_name(topic, partition), uuid.uuid4().hex, DELETE_DIR_SUFFIX)


def future_dir_name(topic: str, partition: int) -> str:
    """``<topic>-<partition>.<uuid>-future``: a replica being moved into another log dir of this broker."""
    return "%s.%s%s" % (log_dir_name(topic, partition), uuid.uuid4().hex, FUTURE_DIR_SUFFIX)


def is_future_dir(dir_name: str) -> bool:
    return dir_name.endswith(FUTURE_DIR_SUFFIX)


def _batch_reader(records: ReadableBuffer, pos: int, size: int) -> Callable[[], bytes]:
    """A reader of the batch at ``pos`` in ``records``, for the producer state when it needs the batch's bytes."""

    def read_batch() -> bytes:
        return bytes(memoryview(records)[pos : pos + size])

    return read_batch


class Log:
    """An append-only sequence of segments; the last one is active.

    Offsets are assigned by the caller. Deleted segments are renamed ``.deleted`` at once and
    their files removed ``file_delete_delay_ms`` later by remove_deleted_segments(now_ms), so
    slices handed out just before stay readable. ``clock`` is anything with seconds() (the reactor, task.Clock).
    """

    # slotted: the append and read paths read several of these per request, and a slot costs less than a dict
    __slots__ = (
        "dir",
        "topic",
        "partition",
        "config",
        "_clock",
        "log_start_offset",
        "recovery_point",
        "last_flush_ms",
        "max_producer_idle_ms",
        "_segments",
        "_bases",
        "_pending_deletes",
        "_leo",
        "log_end_offset",
        "truncated_to",
        "leader_epoch_cache",
        "producer_state",
    )

    def __init__(
        self,
        dir_path: str,
        config: LogConfig,
        clock: Clock,
        log_start_offset: int = 0,
        recovery_point: int = 0,
        clean_shutdown: bool = False,
        epoch_checkpoints: DeferredCheckpoints | None = None,
        max_producer_idle_ms: int = DEFAULT_MAX_PRODUCER_IDLE_MS,
    ) -> None:
        self.dir = dir_path
        self.topic, self.partition = parse_topic_partition(os.path.basename(dir_path))
        self.config = config
        self._clock = clock
        self.log_start_offset = log_start_offset
        self.recovery_point = recovery_point
        self.last_flush_ms = milliseconds(clock)
        self.max_producer_idle_ms = max_producer_idle_ms  # transactional.id.expiration.ms
        self._segments: list[LogSegment] = []
        self._bases: list[int] = []
        self._pending_deletes: list[tuple[int, LogSegment]] = []  # (when its files go, segment)
        # _leo's offset, set with it: a plain attribute, as a request reads it several times
        self.log_end_offset = log_start_offset
        # The lowest offset truncated to since the cleaner last looked (it lowers its checkpoint there).
        self.truncated_to: int | None = None
        os.makedirs(dir_path, exist_ok=True)
        self.leader_epoch_cache = LeaderEpochFileCache(
            LeaderEpochCheckpointFile(os.path.join(dir_path, LEADER_EPOCH_CHECKPOINT)), epoch_checkpoints
        )
        self.producer_state = ProducerStateManager()
        self._load(clean_shutdown)

    def __repr__(self) -> str:
        return "Log(%s, start=%d, end=%d)" % (self.dir, self.log_start_offset, self.log_end_offset)

    # -- segments ----------------------------------------------------------------------------

    @property
    def segments(self) -> tuple[LogSegment, ...]:
        return tuple(self._segments)

    @property
    def num_segments(self) -> int:
        return len(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    @property
    def size(self) -> int:
        segments = self._segments
        if len(segments) == 1:  # most logs, read for each of them at every metrics scrape
            return segments[0].size
        return sum(segment.size for segment in segments)

    @property
    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        return self._leo

    def _move_log_end(self, offset: int, segment_base_offset: int, position: int) -> None:
        """The log end's metadata, and its offset in the plain attribute requests read."""
        self._leo = LogOffsetMetadata(offset, segment_base_offset, position)
        self.log_end_offset = offset

    def _now_ms(self) -> int:
        return milliseconds(self._clock)

    def _new_segment(self, base_offset: int, file_suffix: str = "") -> LogSegment:
        return LogSegment(
            self.dir,
            base_offset,
            self._now_ms(),
            self.config.index_interval_bytes,
            self.config.max_index_size,
            file_suffix,
        )

    def _add_segment(self, segment: LogSegment) -> None:
        i = bisect.bisect_left(self._bases, segment.base_offset)
        self._bases.insert(i, segment.base_offset)
        self._segments.insert(i, segment)

    def _floor_index(self, offset: int) -> int:
        """Index of the segment whose base offset is the largest <= offset (-1 if none)."""
        return bisect.bisect_right(self._bases, offset) - 1

    def _delete_segments(self, segments: Iterable[LogSegment], now_ms: int) -> None:
        for segment in segments:
            i = self._bases.index(segment.base_offset)
            del self._bases[i]
            del self._segments[i]
            segment.change_file_suffixes("", DELETED_SUFFIX)
            self._pending_deletes.append((now_ms + self.config.file_delete_delay_ms, segment))
        self.remove_deleted_segments(now_ms)

    def remove_deleted_segments(self, now_ms: int) -> None:
        """Remove the files of segments deleted at least file_delete_delay_ms ago."""
        due = [segment for when, segment in self._pending_deletes if when <= now_ms]
        self._pending_deletes = [(when, s) for when, s in self._pending_deletes if when > now_ms]
        for segment in due:
            segment.delete()

    # -- opening -----------------------------------------------------------------------------

    def _load(self, clean_shutdown: bool) -> None:
        loaded = LogLoader(self.dir, self._new_segment, self.leader_epoch_cache).load(
            clean_shutdown, self.recovery_point, self.log_start_offset
        )
        for segment in loaded.segments:
            self._add_segment(segment)
        if not self._segments:
            self._add_segment(self._new_segment(self.log_start_offset))
        active = self.active_segment
        active.resize_indexes(self.config.max_index_size)
        self._move_log_end(active.next_offset(), active.base_offset, active.size)
        self.recovery_point = self._leo.offset
        self.leader_epoch_cache.truncate_from_end(self._leo.offset)
        self.log_start_offset = max(self.log_start_offset, self._segments[0].base_offset)
        self.leader_epoch_cache.truncate_from_start(self.log_start_offset)
        live = {segment.base_offset for segment in self._segments}
        load_producer_state(self, self._now_ms(), {base for base in loaded.recovered_bases if base in live})

    def replace_segments(self, new_segment: LogSegment, old_segments: Iterable[LogSegment]) -> None:
        """Swap a cleaned ``.cleaned`` segment in for ``old_segments`` as Kafka does, crash-safely.

        The new files are renamed ``.swap``; the old segments leave the log (renamed ``.deleted``,
        removed file.delete.delay.ms later); then the ``.swap`` suffix is dropped. A crash at any
        point is finished or undone by the next load (see LogLoader).
        """
        new_segment.change_file_suffixes(CLEANED_SUFFIX, SWAP_SUFFIX)
        self._delete_segments([s for s in old_segments if s in self._segments], self._now_ms())
        self._add_segment(new_segment)
        new_segment.change_file_suffixes(SWAP_SUFFIX, "")

    # -- appending ---------------------------------------------------------------------------

    def append(
        self,
        records: ReadableBuffer,
        last_offset: int,
        max_timestamp: int,
        offset_of_max_timestamp: int,
        headers: Sequence[tuple[int, BatchHeader]] | None = None,
    ) -> None:
        """Append complete v2 batches whose offsets the caller assigned (first offset >= log end offset).

        ``headers``: [(position, BatchHeader)] of the batches when the caller has read them (the leader's
        validated batch), else they are read here. Rolls a new segment first when needed.
        """
        size = len(records)
        if headers is None:
            headers = list(iter_batch_headers(records))
        if not headers:
            raise InvalidRecordError("append needs whole record batches")
        last_position, last_header = headers[-1]
        if last_position + last_header.batch_length + LOG_OVERHEAD != size:
            raise InvalidRecordError("append needs whole record batches")
        first_offset = headers[0][1].base_offset
        if last_header.base_offset + last_header.last_offset_delta != last_offset:
            raise ValueError("last_offset %d does not match the batches' %d" % (last_offset, last_header.last_offset))
        leo = self._leo.offset
        if first_offset < leo:
            raise UnexpectedAppendOffsetError("first offset %d is below the log end offset %d" % (first_offset, leo))
        config = self.config
        if size > config.segment_bytes:
            raise RecordBatchTooLargeError("%d bytes exceed segment.bytes %d" % (size, config.segment_bytes))
        segment = self._segments[-1]
        position = segment.append_unless_roll_due(
            config, self._clock, last_offset, max_timestamp, offset_of_max_timestamp, records
        )
        if position < 0:
            segment = self.roll(first_offset)
            position = segment.size
            segment.append(last_offset, max_timestamp, offset_of_max_timestamp, records)
        epoch_cache = self.leader_epoch_cache
        epochs = epoch_cache._entries
        for pos, header in headers:
            epoch = header.partition_leader_epoch
            if epoch >= 0 and not (  # assign's early return (the leader's epoch already there), without its call
                epochs and epochs[-1].epoch == epoch and header.base_offset >= epochs[-1].start_offset
            ):
                epoch_cache.assign(epoch, header.base_offset)
            if header.producer_id != NO_PRODUCER_ID:
                aborted = apply_batch(
                    self.producer_state, header, _batch_reader(records, pos, header.batch_length + LOG_OVERHEAD)
                )
                if aborted is not None:
                    segment.txn_index.append(aborted)
        self.producer_state.map_end_offset = last_offset + 1
        # _move_log_end's two assignments, without its call at every append; the segment grew by ``size``
        self._leo = new_offset_metadata((last_offset + 1, segment.base_offset, position + size))
        self.log_end_offset = last_offset + 1

    def append_as_leader(self, records: ReadableBuffer, header: BatchHeader, max_timestamp: int) -> None:
        """Append the leader's one validated v2 batch (``header`` its BatchHeader, base offset the log end offset):
        append()'s path for every Produce, without the whole-batch checks validation already made."""
        size = len(records)
        config = self.config
        if size > config.segment_bytes:
            raise RecordBatchTooLargeError("%d bytes exceed segment.bytes %d" % (size, config.segment_bytes))
        first_offset = header.base_offset
        if first_offset < self.log_end_offset:
            raise UnexpectedAppendOffsetError(
                "first offset %d is below the log end offset %d" % (first_offset, self.log_end_offset)
            )
        last_offset = first_offset + header.last_offset_delta
        segment = self._segments[-1]
        position = segment.append_unless_roll_due(config, self._clock, last_offset, max_timestamp, last_offset, records)
        if position < 0:
            segment = self.roll(first_offset)
            position = segment.size
            segment.append(last_offset, max_timestamp, last_offset, records)
        epoch = header.partition_leader_epoch
        epochs = self.leader_epoch_cache._entries
        if epoch >= 0 and not (epochs and epochs[-1].epoch == epoch and first_offset >= epochs[-1].start_offset):
            self.leader_epoch_cache.assign(epoch, first_offset)
        if header.producer_id != NO_PRODUCER_ID:
            aborted = apply_batch(self.producer_state, header, _batch_reader(records, 0, size))
            if aborted is not None:
                segment.txn_index.append(aborted)
        self.producer_state.map_end_offset = last_offset + 1
        self._leo = new_offset_metadata((last_offset + 1, segment.base_offset, position + size))
        self.log_end_offset = last_offset + 1

    def append_copied(
        self,
        records: ReadableBuffer,
        first_offset: int,
        last_offset: int,
        max_timestamp: int,
        offset_of_max_timestamp: int,
        headers: Sequence[tuple[int, BatchHeader]] | None = None,
    ) -> None:
        """Append whole batches copied from another replica of this partition (``headers`` as for append).

        When the log is empty at a start offset that falls inside the first batch (DeleteRecords moved
        the start offset into a batch), the log restarts at the batch and keeps its start offset.
        """
        if first_offset < self._leo.offset and self._leo.offset == self.log_start_offset:
            start = self.log_start_offset
            self.truncate_fully_and_start_at(first_offset)
            self.append(records, last_offset, max_timestamp, offset_of_max_timestamp, headers)
            self.maybe_increment_log_start_offset(start)
            return
        self.append(records, last_offset, max_timestamp, offset_of_max_timestamp, headers)

    def roll(self, expected_next_offset: int = 0) -> LogSegment:
        """Start a new active segment at max(expected_next_offset, log end offset)."""
        new_base = max(expected_next_offset, self._leo.offset)
        active = self.active_segment
        if new_base == active.base_offset and active.size == 0:
            return active
        if new_base <= active.base_offset:
            raise ValueError(
                "cannot roll to offset %d at or below the active segment %d" % (new_base, active.base_offset)
            )
        for suffix in (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX):
            stale = os.path.join(self.dir, segment_file_name(new_base, suffix))
            if os.path.exists(stale):
                logger.warning("%s: removing stale index file %s before rolling", self.dir, stale)
                os.remove(stale)
        active.on_become_inactive()
        segment = self._new_segment(new_base)
        self._add_segment(segment)
        self._move_log_end(self._leo.offset, new_base, 0)
        self.producer_state.map_end_offset = new_base
        take_snapshot(self)
        self.delete_snapshots_after_recovery_point_checkpoint()
        return segment

    def delete_snapshots_after_recovery_point_checkpoint(self) -> None:
        """Keep the producer snapshots of the last two segments and from the segment below the recovery point on, as
        Kafka does after each recovery-point checkpoint (and at a roll)."""

        def base_below(offset: int) -> int | None:
            index = bisect.bisect_left(self._bases, offset) - 1
            return self._bases[index] if index >= 0 else None

        active = self._bases[-1]
        below_active = base_below(active)
        below_recovery = base_below(self.recovery_point)
        delete_snapshots_before(
            self,
            min(
                active if below_active is None else below_active,
                self.recovery_point if below_recovery is None else below_recovery,
            ),
        )

    # -- reading -----------------------------------------------------------------------------

    def _check_in_range(self, offset: int) -> None:
        if offset < self.log_start_offset or offset > self._leo.offset:
            raise OffsetOutOfRangeError(
                "offset %d is outside [%d, %d] of %s" % (offset, self.log_start_offset, self._leo.offset, self.dir)
            )

    def read(
        self,
        start_offset: int,
        max_bytes: int,
        max_offset: int | LogOffsetMetadata | None = None,
        min_one_message: bool = True,
    ) -> FetchDataInfo:
        """Batches from the one holding ``start_offset``, as a FetchDataInfo with a FileSlice.

        ``max_offset`` (exclusive; an int or a LogOffsetMetadata, e.g. the high watermark) stops
        the read before the batch that holds it. Reads stay within one segment.
        """
        if not self.log_start_offset <= start_offset <= self.log_end_offset:
            self._check_in_range(start_offset)  # raises
        if isinstance(max_offset, LogOffsetMetadata):
            limit = max_offset
        elif max_offset is None or max_offset >= self._leo.offset:
            limit = self._leo
        elif start_offset >= max_offset:
            return FetchDataInfo(self.offset_metadata(start_offset), EMPTY_SLICE, False)
        else:
            limit = self.offset_metadata(max_offset)
        if start_offset == limit.offset:
            return FetchDataInfo(limit, EMPTY_SLICE, False)
        if start_offset > limit.offset:
            return FetchDataInfo(self.offset_metadata(start_offset), EMPTY_SLICE, False)
        segments = self._segments
        if start_offset >= segments[-1].base_offset:  # a reader near the log end: the active segment, no search
            candidates: Sequence[LogSegment] = segments[-1:]
        else:
            candidates = segments[max(0, self._floor_index(start_offset)) :]
        for segment in candidates:
            max_position = limit.position if limit.segment_base_offset == segment.base_offset else segment.size
            info = segment.read(start_offset, max_bytes, max_position, min_one_message)
            if info is not None:
                return info
        return FetchDataInfo(self._leo, EMPTY_SLICE, False)

    def iter_batches_to_end(self, buffer_size: int) -> Iterator[tuple[BatchHeader, list[Record]]]:
        """(header, records) of every batch from the log start to the end offset as it is now, read
        ``buffer_size`` bytes at a time: how a coordinator replays its partition when it takes it over."""
        position, end = self.log_start_offset, self._leo.offset
        while position < end:
            data = self.read(position, buffer_size, end).read_bytes()
            if not data:
                return
            for header, records in iter_batches(data):
                yield header, records
                position = header.last_offset + 1

    def offset_metadata(self, offset: int) -> LogOffsetMetadata:
        """LogOffsetMetadata of ``offset``: the segment and position of the batch holding it."""
        self._check_in_range(offset)
        if offset == self._leo.offset:
            return self._leo
        for segment in self._segments[max(0, self._floor_index(offset)) :]:
            found = segment.translate_offset(offset)
            if found is not None:
                return LogOffsetMetadata(offset, segment.base_offset, found[0])
        return self._leo

    def iter_batch_headers(self, start_offset: int = 0) -> Iterator[BatchHeader]:
        """Yield the BatchHeader of every batch from the segment holding start_offset on (headers only)."""
        for segment in self._segments[max(0, self._floor_index(start_offset)) :]:
            for _, header in segment._iter_headers(0):
                if header.last_offset >= start_offset:
                    yield header

    def bytes_between(self, start_offset: int, end_offset: int) -> int:
        """Bytes of the batches from start_offset up to end_offset; a lower bound when they span segments."""
        if end_offset <= start_offset:
            return 0
        start = self.offset_metadata(start_offset)
        end = self.offset_metadata(end_offset)
        if start.segment_base_offset == end.segment_base_offset:
            return end.position - start.position
        return max(1, self.segments[self._floor_index(start_offset)].size - start.position)

    def fetch_offset_by_timestamp(self, timestamp: int) -> OffsetAndTimestamp | None:
        """ListOffsets: -2 earliest, -1 latest, else the first record with timestamp >= ``timestamp``.

        Returns OffsetAndTimestamp(offset, timestamp, leader_epoch) (-1 where unknown) or None.
        """
        cache = self.leader_epoch_cache
        if timestamp == EARLIEST_TIMESTAMP:
            earliest = cache.earliest_entry
            epoch = earliest.epoch if earliest is not None and earliest.start_offset <= self.log_start_offset else -1
            return OffsetAndTimestamp(self.log_start_offset, NO_TIMESTAMP, epoch)
        if timestamp == LATEST_TIMESTAMP:
            latest = cache.latest_epoch
            return OffsetAndTimestamp(self._leo.offset, NO_TIMESTAMP, -1 if latest is None else latest)
        for segment in self._segments:
            if segment.largest_timestamp >= timestamp:
                return segment.find_offset_by_timestamp(timestamp, self.log_start_offset)
        return None

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int]:
        """(epoch, end offset) for OffsetForLeaderEpoch; (-1, -1) when unknown."""
        return self.leader_epoch_cache.end_offset_for(leader_epoch, self._leo.offset)

    # -- transactions ------------------------------------------------------------------------

    def first_unstable_offset(self, high_watermark: int | None) -> int | None:
        """The first offset of a transaction undecided or decided at/after ``high_watermark`` (never
        below the log start offset), or None."""
        first = self.producer_state.first_unstable_offset(high_watermark)
        return None if first is None else max(first, self.log_start_offset)

    def last_stable_offset(self, high_watermark: int) -> int:
        """The LSO: the first unstable offset when it is below the high watermark, else the high watermark."""
        producer_state = self.producer_state
        if not producer_state.ongoing and not producer_state.unreplicated:  # no transaction: asked at every fetch
            return high_watermark
        first = self.first_unstable_offset(high_watermark)
        return first if first is not None and first < high_watermark else high_watermark

    def collect_aborted_transactions(self, fetch_offset: int, upper_bound_offset: int) -> list[tuple[int, int]]:
        """[(producer_id, first_offset)] of the aborted transactions overlapping
        [fetch_offset, upper_bound_offset), from the .txnindex of the segment holding fetch_offset on."""
        found: list[tuple[int, int]] = []
        for segment in self._segments[max(0, self._floor_index(fetch_offset)) :]:
            entries, complete = segment.txn_index.collect_aborted(fetch_offset, upper_bound_offset)
            found.extend(entries)
            if complete:
                break
        return found

    # -- retention ---------------------------------------------------------------------------

    def delete_old_segments(self, now_ms: int, max_offset: int | None = None) -> int:
        """Apply retention.ms and retention.bytes (policy delete) and the log start offset.

        Only whole segments before the active one go, and only those wholly below ``max_offset``
        (e.g. the high watermark) when given. Returns how many segments were deleted.
        """
        deleted = 0
        if self.config.delete_enabled:
            retention_ms = self.config.retention_ms
            if retention_ms >= 0:
                deleted += self._delete_old(
                    lambda segment, following: now_ms - segment.largest_timestamp > retention_ms,
                    now_ms,
                    max_offset,
                    "retention.ms %d" % retention_ms,
                )
            deleted += self._delete_retention_size_breached(now_ms, max_offset)
        deleted += self._delete_old(
            lambda segment, following: following.base_offset <= self.log_start_offset,
            now_ms,
            max_offset,
            "log start offset %d" % self.log_start_offset,
        )
        return deleted

    def _delete_retention_size_breached(self, now_ms: int, max_offset: int | None) -> int:
        retention = self.config.retention_bytes
        size = self.size
        if retention < 0 or size < retention:
            return 0
        excess = size - retention

        def over_size(segment: LogSegment, following: LogSegment) -> bool:
            nonlocal excess
            if excess - segment.size >= 0:
                excess -= segment.size
                return True
            return False

        return self._delete_old(over_size, now_ms, max_offset, "retention.bytes %d" % retention)

    def _delete_old(
        self, predicate: Callable[[LogSegment, LogSegment], bool], now_ms: int, max_offset: int | None, reason: str
    ) -> int:
        """Delete the leading non-active segments for which predicate(segment, following) holds."""
        upper_limit = self._leo.offset if max_offset is None else min(max_offset, self._leo.offset)
        deletable: list[LogSegment] = []
        for segment, following in zip(self._segments, self._segments[1:]):
            if following.base_offset > upper_limit or not predicate(segment, following):
                break
            deletable.append(segment)
        if deletable:
            logger.info("%s: deleting segments %s (%s)", self.dir, [s.base_offset for s in deletable], reason)
            self._delete_segments(deletable, now_ms)
            self.maybe_increment_log_start_offset(self._segments[0].base_offset)
        return len(deletable)

    def delete_segments_below_log_start(self, now_ms: int | None = None) -> int:
        """Delete (``.deleted`` rename, files removed later) the segments wholly below the log start offset."""
        now_ms = self._now_ms() if now_ms is None else now_ms
        return self._delete_old(
            lambda segment, following: following.base_offset <= self.log_start_offset,
            now_ms,
            None,
            "log start offset %d" % self.log_start_offset,
        )

    def maybe_increment_log_start_offset(self, new_start_offset: int) -> bool:
        """Raise the log start offset (retention, DeleteRecords); returns True if it moved."""
        if new_start_offset > self._leo.offset:
            raise OffsetOutOfRangeError(
                "log start offset %d beyond log end offset %d" % (new_start_offset, self._leo.offset)
            )
        if new_start_offset <= self.log_start_offset:
            return False
        self.log_start_offset = new_start_offset
        self.leader_epoch_cache.truncate_from_start(new_start_offset)
        self.producer_state.truncate_head(new_start_offset)
        delete_snapshots_before(self, new_start_offset)
        take_snapshot(self)  # producers whose batches are all below the start now live on only in memory
        return True

    # -- truncation --------------------------------------------------------------------------

    def truncate_to(self, target_offset: int) -> bool:
        """Remove everything at or after ``target_offset``; returns False if there was nothing to remove."""
        if target_offset < 0:
            raise ValueError("cannot truncate to negative offset %d" % target_offset)
        if target_offset >= self._leo.offset:
            return False
        if self._segments[0].base_offset > target_offset:
            self.truncate_fully_and_start_at(target_offset)
            return True
        now = self._now_ms()
        self._note_truncation(target_offset)
        self._delete_segments(self._segments[self._floor_index(target_offset) + 1 :], now)
        active = self.active_segment
        active.truncate_to(target_offset, now)
        self._move_log_end(target_offset, active.base_offset, active.size)
        self.recovery_point = min(target_offset, self.recovery_point)
        self.log_start_offset = min(target_offset, self.log_start_offset)
        self.leader_epoch_cache.truncate_from_end(target_offset)
        load_producer_state(self, self._now_ms())
        return True

    def _note_truncation(self, offset: int) -> None:
        self.truncated_to = offset if self.truncated_to is None else min(self.truncated_to, offset)

    def truncate_fully_and_start_at(self, new_offset: int) -> None:
        """Delete every segment and start empty at ``new_offset`` (also the new log start offset)."""
        self._note_truncation(new_offset)
        self._delete_segments(list(self._segments), self._now_ms())
        self._add_segment(self._new_segment(new_offset))
        self._move_log_end(new_offset, new_offset, 0)
        self.leader_epoch_cache.clear_and_flush()
        self.log_start_offset = new_offset
        self.recovery_point = min(new_offset, self.recovery_point)
        delete_snapshots_before(self, 2**63 - 1)
        self.producer_state.truncate(new_offset)

    # -- durability and lifecycle ------------------------------------------------------------

    def flush(self, up_to_offset: int | None = None, sync: bool = True) -> None:
        """fsync the segments holding [recovery_point, up_to_offset) and move the recovery point there.
        ``sync=False``: only write them back; the caller makes them durable (a filesystem sync) before it
        records the recovery point anywhere."""
        offset = self._leo.offset if up_to_offset is None else up_to_offset
        if offset <= self.recovery_point:
            return
        start = max(0, self._floor_index(self.recovery_point))
        for segment in self._segments[start:]:
            if segment.base_offset >= offset:
                break
            segment.flush(sync)
        self.recovery_point = offset
        self.last_flush_ms = self._now_ms()

    def close(self, sync: bool = True) -> None:
        """Snapshot the producer state, remove pending deleted files and close every segment (indexes trimmed).
        ``sync=False``: the snapshot is not fsynced; the caller syncs the filesystem."""
        if self._segments:
            try:
                take_snapshot(self, sync)
            except OSError as error:
                logger.warning("%s: could not write the producer snapshot: %s", self.dir, error)
        for _, segment in self._pending_deletes:
            segment.delete()
        self._pending_deletes = []
        for segment in self._segments:
            segment.close()

    def abandon(self) -> None:
        """Let go of every open file without writing anything: the log's dir failed (KIP-112)."""
        for segment in self._segments + [segment for _, segment in self._pending_deletes]:
            try:
                segment.abandon()
            except OSError:
                pass

    def rename_dir(self, new_dir: str) -> None:
        """Rename this log's dir (e.g. to ``...-delete`` or out of ``...-future``), keeping every open file
        and every path the segments, indexes and epoch checkpoint hold pointing at the right place."""
        old_dir = self.dir
        os.rename(old_dir, new_dir)
        self.dir = new_dir

        def moved(path: str) -> str:
            return os.path.join(new_dir, os.path.relpath(path, old_dir))

        for segment in list(self._segments) + [s for _, s in self._pending_deletes]:
            segment.dir = new_dir
            segment.log_path = moved(segment.log_path)
            segment.offset_index.path = moved(segment.offset_index.path)
            segment.time_index.path = moved(segment.time_index.path)
            segment.txn_index.path = moved(segment.txn_index.path)
        checkpoint = self.leader_epoch_cache._checkpoint
        checkpoint.path = moved(checkpoint.path)

    def delete(self) -> None:
        """Rename the dir to ``<topic>-<partition>.<uuid>-delete``, then remove it and everything in it."""
        new_dir = os.path.join(os.path.dirname(self.dir), delete_dir_name(self.topic, self.partition))
        os.rename(self.dir, new_dir)
        self.dir = new_dir
        for _, segment in self._pending_deletes:
            segment.delete()
        for segment in self._segments:
            segment.delete()
        self._pending_deletes = []
        self._segments = []
        self._bases = []
        shutil.rmtree(new_dir, ignore_errors=True)
