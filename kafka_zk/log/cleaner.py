"""The log cleaner's pure core: which log to clean, the key -> last offset map, and writing cleaned segments.

Kafka 2.5's compaction, in three steps that may run on different threads:

1. ``log_to_clean`` / ``grab_filthiest`` (on the owner's thread): the cleanable range of each
   compacted log ([first dirty offset, first uncleanable offset)) and the dirtiest eligible log.
   ``CleaningPlan.snapshot`` copies what the cleaning needs (segment paths, sizes, mtimes).
2. ``Cleaner.clean(plan)`` (any thread; touches only files): builds the OffsetMap over the dirty
   range, then rewrites the segments below the map's end in groups, one ``.cleaned`` segment per
   group. It opens its own file handles, so the owner may keep appending and reading meanwhile.
3. ``apply_cleaning(log, result)`` (the owner's thread): if the log still holds exactly the
   segments that were cleaned, swap each group in (``.cleaned`` -> ``.swap`` -> old segments
   ``.deleted`` -> final name) and return the new cleaner checkpoint; otherwise discard.
"""

import dataclasses
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Dict, List, Optional

from kafka_zk.common.clock import Clock, milliseconds
from kafka_zk.log.cleaner_transactions import TransactionTracker, overlapping
from kafka_zk.log.offset_index import INT32_MAX
from kafka_zk.log.segment import CLEANED_SUFFIX, LogSegment
from kafka_zk.log.transaction_index import AbortedTxn
from kafka_zk.record.batch_header import (
    BATCH_HEADER_SIZE,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    NO_PRODUCER_ID,
    BatchHeader,
    InvalidRecordError,
    compute_crc,
    read_batch_header,
)
from kafka_zk.record.records import (
    CREATE_TIME,
    LOG_APPEND_TIME,
    Record,
    batch_records_data,
    decode_records,
    encode_batch,
)

if TYPE_CHECKING:
    from kafka_zk.log.log import Log

logger = logging.getLogger(__name__)

# Kafka's SkimpyOffsetMap: each slot holds a 16-byte MD5 of the key and an 8-byte offset.
OFFSET_MAP_ENTRY_BYTES = 24
_CRC_STRUCT_POS = 17


class CleanAbortedError(Exception):
    """The log changed under the cleaner (deleted, truncated, segments removed): the pass is dropped."""


class OffsetMap:
    """Key -> last offset over the dirty range, bounded like Kafka's SkimpyOffsetMap.

    ``memory_bytes`` (the dedupe buffer per cleaner thread) gives memory // 24 slots, of which
    ``load_factor`` may be filled; a pass stops once the map is full.
    """

    def __init__(self, memory_bytes: int, load_factor: float = 0.9) -> None:
        self.slots = max(0, memory_bytes) // OFFSET_MAP_ENTRY_BYTES
        self.max_entries = int(self.slots * load_factor)
        self._offsets: dict[bytes, int] = {}
        self.latest_offset = -1

    @staticmethod
    def _hash(key: bytes) -> bytes:
        return hashlib.md5(key).digest()

    def put(self, key: bytes, offset: int) -> None:
        self._offsets[self._hash(key)] = offset
        self.latest_offset = offset

    def get(self, key: bytes) -> int:
        """The last offset recorded for ``key``, or -1."""
        return self._offsets.get(self._hash(key), -1)

    def __len__(self) -> int:
        return len(self._offsets)

    @property
    def full(self) -> bool:
        return len(self._offsets) >= self.max_entries

    def clear(self) -> None:
        self._offsets.clear()
        self.latest_offset = -1


# -- choosing what to clean ------------------------------------------------------------------


@dataclasses.dataclass
class LogToClean:
    """A compacted log's cleanable range and the byte counts that rank it."""

    topic: str
    partition: int
    log: "Log"
    first_dirty_offset: int
    first_uncleanable_offset: int
    clean_bytes: int
    cleanable_bytes: int
    max_compaction_delay_ms: int

    @property
    def total_bytes(self) -> int:
        return self.clean_bytes + self.cleanable_bytes

    @property
    def cleanable_ratio(self) -> float:
        return self.cleanable_bytes / self.total_bytes if self.total_bytes else 0.0

    @property
    def needs_compaction_now(self) -> bool:
        return self.max_compaction_delay_ms > 0


def _segments_in(log: "Log", start: int, end: int) -> list[LogSegment]:
    """Kafka's logSegments(from, to): segments overlapping [start, end) (the one holding start included)."""
    segments = log.segments
    result = []
    for i, segment in enumerate(segments):
        following = segments[i + 1].base_offset if i + 1 < len(segments) else None
        if segment.base_offset >= end:
            break
        if following is not None and following <= start:
            continue
        result.append(segment)
    return result


def _first_batch_timestamp(segment: LogSegment) -> int:
    for _, header in segment._iter_headers(0):
        return header.max_timestamp if header.first_timestamp < 0 else header.first_timestamp
    return -1


def cleanable_offsets(
    log: "Log", checkpoint_offset: int | None, now_ms: int, max_offset: int | None = None
) -> tuple[int, int, int]:
    """(first dirty offset, first uncleanable offset, max compaction delay ms) as Kafka's cleaner manager.

    The checkpoint is reset to the log start offset when it is below it or past the log end.
    The active segment, the segment holding ``max_offset`` (a high watermark), the first unstable
    offset (transactions not yet decided) and every segment younger than min.compaction.lag.ms bound
    the cleanable range.
    """
    start = log.log_start_offset
    if checkpoint_offset is None or checkpoint_offset < start:
        first_dirty = start
    elif checkpoint_offset > log.log_end_offset:
        logger.warning(
            "%s: cleaner checkpoint %d is past the log end offset %d; resetting to the log start %d",
            log.dir,
            checkpoint_offset,
            log.log_end_offset,
            start,
        )
        first_dirty = start
    else:
        first_dirty = checkpoint_offset
    config = log.config
    dirty_non_active = [s for s in _segments_in(log, first_dirty, log.active_segment.base_offset)]
    bounds = [log.active_segment.base_offset]
    first_unstable = log.first_unstable_offset(log.log_end_offset if max_offset is None else max_offset)
    if first_unstable is not None:
        bounds.append(first_unstable)
    if max_offset is not None:
        for segment in log.segments:
            if segment.next_offset() > max_offset:
                bounds.append(segment.base_offset)
                break
    min_lag = config.min_compaction_lag_ms
    if min_lag > 0:
        for segment in dirty_non_active:
            if segment.largest_timestamp > now_ms - min_lag:
                bounds.append(segment.base_offset)
                break
    first_uncleanable = max(first_dirty, min(bounds))
    delay = 0
    max_lag = max(config.max_compaction_lag_ms, 0)
    if max_lag < 2**63 - 1:
        stamps = [t for t in (_first_batch_timestamp(s) for s in dirty_non_active) if t > 0]
        clean_until = now_ms - max_lag
        if stamps and min(stamps) < clean_until:
            delay = clean_until - min(stamps)
    return first_dirty, first_uncleanable, delay


def log_to_clean(
    topic: str, partition: int, log: "Log", checkpoint_offset: int | None, now_ms: int, max_offset: int | None = None
) -> LogToClean:
    first_dirty, first_uncleanable, delay = cleanable_offsets(log, checkpoint_offset, now_ms, max_offset)
    clean_bytes = sum(s.size for s in _segments_in(log, -1, first_dirty))
    cleanable_bytes = sum(s.size for s in _segments_in(log, first_dirty, max(first_dirty, first_uncleanable)))
    return LogToClean(topic, partition, log, first_dirty, first_uncleanable, clean_bytes, cleanable_bytes, delay)


def grab_filthiest(candidates: Iterable[LogToClean]) -> LogToClean | None:
    """The eligible LogToClean with the highest cleanable ratio, or None.

    Eligible: a non-empty log whose ratio is above min.cleanable.dirty.ratio, or that
    max.compaction.lag.ms forces and that has cleanable bytes.
    """
    eligible = [
        c
        for c in candidates
        if c.total_bytes > 0
        and (
            (c.needs_compaction_now and c.cleanable_bytes > 0)
            or c.cleanable_ratio > c.log.config.min_cleanable_dirty_ratio
        )
    ]
    if not eligible:
        return None
    return max(eligible, key=lambda c: c.cleanable_ratio)


# -- the plan the cleaning thread works from ------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SegmentInfo:
    """What the cleaning thread knows of one source segment (no shared file handles)."""

    base_offset: int
    log_path: str
    size: int
    last_modified_ms: int
    offset_index_bytes: int
    time_index_bytes: int
    next_offset: int
    segment: LogSegment  # the Log's LogSegment, compared by identity when swapping


@dataclasses.dataclass
class CleaningPlan:
    topic: str
    partition: int
    dir: str
    first_dirty_offset: int
    first_uncleanable_offset: int
    segments: List[SegmentInfo]
    segment_bytes: int
    max_index_size: int
    index_interval_bytes: int
    delete_retention_ms: int
    producer_last_offsets: Dict[int, int]
    aborted_transactions: List[AbortedTxn] = dataclasses.field(default_factory=list)  # of the log's .txnindex

    @classmethod
    def snapshot(cls, ltc: LogToClean, producer_last_offsets: dict[int, int] | None = None) -> "CleaningPlan":
        """Copy what cleaning ``ltc`` needs from its log; the segments up to the uncleanable offset."""
        log = ltc.log
        infos = []
        for segment in _segments_in(log, 0, ltc.first_uncleanable_offset):
            if segment is log.active_segment:
                break
            infos.append(
                SegmentInfo(
                    segment.base_offset,
                    segment.log_path,
                    segment.size,
                    segment.last_modified_ms,
                    segment.offset_index.entries * 8,
                    segment.time_index.entries * 12,
                    segment.next_offset(),
                    segment,
                )
            )
        config = log.config
        aborted = [entry for segment in log.segments for entry in segment.txn_index.entries()]
        return cls(
            ltc.topic,
            ltc.partition,
            log.dir,
            ltc.first_dirty_offset,
            ltc.first_uncleanable_offset,
            infos,
            config.segment_bytes,
            config.max_index_size,
            config.index_interval_bytes,
            config.delete_retention_ms,
            dict(producer_last_offsets or {}),
            aborted,
        )


def group_segments_by_size(
    segments: Iterable[SegmentInfo], max_size: int, max_index_size: int, max_offset_delta: int = INT32_MAX
) -> list[list[SegmentInfo]]:
    """Consecutive SegmentInfos grouped so each group's log and indexes fit one segment.

    A group grows while the summed log size stays <= max_size, each summed index stays
    <= max_index_size, and its last offset stays within an int32 of its base offset.
    """
    groups = []
    remaining = list(segments)
    while remaining:
        group = [remaining.pop(0)]
        log_size = group[0].size
        offset_index = group[0].offset_index_bytes
        time_index = group[0].time_index_bytes
        while remaining:
            following = remaining[0]
            if (
                log_size + following.size > max_size
                or offset_index + following.offset_index_bytes > max_index_size
                or time_index + following.time_index_bytes > max_index_size
                or following.next_offset - 1 - group[0].base_offset > max_offset_delta
            ):
                break
            group.append(remaining.pop(0))
            log_size += following.size
            offset_index += following.offset_index_bytes
            time_index += following.time_index_bytes
        groups.append(group)
    return groups


# -- the cleaning itself ---------------------------------------------------------------------


@dataclasses.dataclass
class CleanedGroup:
    old: List[SegmentInfo]
    cleaned: Optional[LogSegment]


@dataclasses.dataclass
class CleanResult:
    plan: CleaningPlan
    end_offset: int
    groups: List[CleanedGroup]
    bytes_read: int = 0
    bytes_written: int = 0
    records_read: int = 0
    records_written: int = 0

    def discard(self) -> None:
        for group in self.groups:
            if group.cleaned is not None:
                group.cleaned.delete()
                group.cleaned = None


class Throttler:
    """Limits bytes per second (log.cleaner.io.max.bytes.per.second) with an injected clock (anything with
    seconds()) and sleep."""

    def __init__(
        self, max_bytes_per_second: float, clock: Clock, sleep: Callable[[float], object], check_interval_ms: int = 300
    ) -> None:
        self.rate = max_bytes_per_second
        self._clock = clock
        self._sleep = sleep
        self._check_interval_ms = check_interval_ms
        self._period_start: int | None = None
        self._observed = 0

    def maybe_throttle(self, observed: int) -> None:
        if self.rate >= 1e300:
            return
        now = milliseconds(self._clock)
        if self._period_start is None:
            self._period_start = now
        self._observed += observed
        elapsed = now - self._period_start
        if elapsed >= self._check_interval_ms:
            wanted_ms = self._observed * 1000.0 / self.rate
            if wanted_ms > elapsed:
                self._sleep((wanted_ms - elapsed) / 1000.0)
            self._period_start = milliseconds(self._clock)
            self._observed = 0


class _CleanedChunk:
    """What the cleaner kept of one read of a segment: appended to the cleaned segment at once."""

    def __init__(self) -> None:
        self.start: int | None = None
        self.parts: list[bytes] = []
        self.largest_offset = -1
        self.max_timestamp = -1
        self.offset_of_max_timestamp = -1

    def add(self, last_offset: int, max_timestamp: int, offset_of_max: int, kept: bytes) -> None:
        self.parts.append(kept)
        self.largest_offset = max(self.largest_offset, last_offset)
        if max_timestamp > self.max_timestamp:
            self.max_timestamp, self.offset_of_max_timestamp = max_timestamp, offset_of_max

    def append_to(self, cleaned: LogSegment) -> None:
        if self.parts:
            cleaned.append(self.largest_offset, self.max_timestamp, self.offset_of_max_timestamp, b"".join(self.parts))


def _read_batches(fd: int, size: int, io_buffer_size: int, start: int = 0) -> Iterator[tuple[BatchHeader, bytes]]:
    """Yield (header, batch bytes) for the complete batches of a segment file read through ``fd``."""
    pos = start
    buf = b""
    buf_start = start
    while pos + BATCH_HEADER_SIZE <= size:
        off = pos - buf_start
        if off + BATCH_HEADER_SIZE > len(buf):
            buf = os.pread(fd, min(max(io_buffer_size, BATCH_HEADER_SIZE), size - pos), pos)
            buf_start, off = pos, 0
            if len(buf) < BATCH_HEADER_SIZE:
                return
        header = read_batch_header(buf, off)
        if header.magic != 2 or header.batch_length < BATCH_HEADER_SIZE - LOG_OVERHEAD:
            raise InvalidRecordError("bad batch header at position %d" % pos)
        if pos + header.size > size:
            return
        if off + header.size > len(buf):
            buf = os.pread(fd, max(io_buffer_size, header.size), pos)
            buf_start, off = pos, 0
            if len(buf) < header.size:
                return
        yield header, buf[off : off + header.size]
        pos += header.size


def _empty_batch(header: BatchHeader) -> bytes:
    """Kafka's empty batch header: no records, base/last offset, producer fields and attributes kept."""
    attributes = header.attributes & ~0x07
    out = bytearray(BATCH_HEADER_SIZE)
    HEADER_STRUCT.pack_into(
        out,
        0,
        header.base_offset,
        BATCH_HEADER_SIZE - LOG_OVERHEAD,
        header.partition_leader_epoch,
        2,
        0,
        attributes,
        header.last_offset_delta,
        header.max_timestamp,
        header.max_timestamp,
        header.producer_id,
        header.producer_epoch,
        header.base_sequence,
        0,
    )
    out[_CRC_STRUCT_POS : _CRC_STRUCT_POS + 4] = compute_crc(out, 0, len(out)).to_bytes(4, "big")
    return bytes(out)


class Cleaner:
    """Runs one cleaning pass over a CleaningPlan; touches only files (safe off the owner's thread).
    ``clock`` is anything with seconds() (the reactor, task.Clock)."""

    def __init__(
        self,
        dedupe_buffer_size: int,
        clock: Clock,
        load_factor: float = 0.9,
        io_buffer_size: int = 524288,
        max_io_bytes_per_second: float = 1.7976931348623157e308,
        sleep: Callable[[float], object] | None = None,
        should_abort: Callable[[CleaningPlan], bool] | None = None,
    ) -> None:
        self.offset_map = OffsetMap(dedupe_buffer_size, load_factor)
        self.io_buffer_size = io_buffer_size
        self._clock = clock
        self.throttler = Throttler(max_io_bytes_per_second, clock, sleep or (lambda seconds: None))
        self._should_abort = should_abort or (lambda plan: False)

    def _check_abort(self, plan: CleaningPlan) -> None:
        if self._should_abort(plan):
            raise CleanAbortedError("cleaning of %s-%d aborted" % (plan.topic, plan.partition))

    def clean(self, plan: CleaningPlan) -> CleanResult:
        """Build the map over the dirty range, then write one ``.cleaned`` segment per group.

        Returns a CleanResult whose end_offset is the next first dirty offset. Raises
        CleanAbortedError (after removing its own files) when the log goes away meanwhile.
        """
        self.offset_map.clear()
        end_offset = self._build_offset_map(plan)
        cleaned_up_to = [s for s in plan.segments if s.base_offset < end_offset]
        already_clean = [s for s in plan.segments if s.base_offset < plan.first_dirty_offset]
        if already_clean:
            delete_horizon_ms = already_clean[-1].last_modified_ms - plan.delete_retention_ms
        else:
            delete_horizon_ms = 0
        result = CleanResult(plan, end_offset, [])
        try:
            for group in group_segments_by_size(cleaned_up_to, plan.segment_bytes, plan.max_index_size):
                self._check_abort(plan)
                result.groups.append(CleanedGroup(group, None))
                result.groups[-1].cleaned = self._clean_group(plan, group, delete_horizon_ms, result)
        except (CleanAbortedError, OSError, ValueError):
            result.discard()
            raise
        return result

    def _open(self, info: SegmentInfo) -> int:
        try:
            return os.open(info.log_path, os.O_RDONLY)
        except FileNotFoundError:
            raise CleanAbortedError("segment %s is gone" % info.log_path) from None

    def _build_offset_map(self, plan: CleaningPlan) -> int:
        """Fill the map from the first dirty offset up to the first uncleanable offset, or until full.

        Returns the offset after the last one mapped (the first dirty offset if none was).
        """
        offset_map = self.offset_map
        start, end = plan.first_dirty_offset, plan.first_uncleanable_offset
        transactions = TransactionTracker(overlapping(plan.aborted_transactions, start, end))
        for info in plan.segments:
            if info.next_offset <= start:
                continue
            if info.base_offset >= end or offset_map.full:
                break
            self._check_abort(plan)
            fd = self._open(info)
            try:
                for header, raw in _read_batches(fd, info.size, self.io_buffer_size):
                    if header.last_offset < start:
                        continue
                    if header.base_offset >= end:
                        break
                    if offset_map.full:
                        break
                    self._check_abort(plan)
                    self.throttler.maybe_throttle(len(raw))
                    if header.is_control:
                        transactions.can_discard_marker(header, raw)
                        offset_map.latest_offset = max(offset_map.latest_offset, header.last_offset)
                        continue
                    if transactions.is_aborted(header):  # aborted data never shadows other records
                        offset_map.latest_offset = max(offset_map.latest_offset, header.last_offset)
                        continue
                    for record in decode_records(header, batch_records_data(raw, 0, header)):
                        if record.offset >= start and record.key is not None:
                            offset_map.put(record.key, record.offset)
                    offset_map.latest_offset = max(offset_map.latest_offset, header.last_offset)
            finally:
                os.close(fd)
        return max(start, offset_map.latest_offset + 1) if offset_map.latest_offset >= 0 else start

    def _clean_group(
        self, plan: CleaningPlan, group: Sequence[SegmentInfo], delete_horizon_ms: int, result: CleanResult
    ) -> LogSegment:
        base = group[0].base_offset
        for suffix in (".log", ".index", ".timeindex", ".txnindex"):
            stale = os.path.join(plan.dir, "%020d%s%s" % (base, suffix, CLEANED_SUFFIX))
            if os.path.exists(stale):
                os.remove(stale)
        cleaned = LogSegment(
            plan.dir, base, milliseconds(self._clock), plan.index_interval_bytes, plan.max_index_size, CLEANED_SUFFIX
        )
        transactions = TransactionTracker(overlapping(plan.aborted_transactions, base, group[-1].next_offset))
        try:
            for info in group:
                retain_deletes = info.last_modified_ms > delete_horizon_ms
                self._clean_into(plan, info, cleaned, retain_deletes, result, transactions)
            for entry in transactions.cleaned_index:
                cleaned.txn_index.append(entry)
            cleaned.on_become_inactive()
            cleaned.flush()
            modified = group[-1].last_modified_ms / 1000.0
            os.utime(cleaned.log_path, (modified, modified))
        except BaseException:
            cleaned.delete()
            raise
        return cleaned

    def _clean_into(
        self,
        plan: CleaningPlan,
        info: SegmentInfo,
        cleaned: LogSegment,
        retain_deletes: bool,
        result: CleanResult,
        transactions: TransactionTracker,
    ) -> None:
        self._check_abort(plan)
        # Kafka's cleaner reads a segment a read buffer (half the I/O buffer) at a time and appends what it kept of
        # each read in one append, so the cleaned segment's index entries fall where Kafka's do.
        read_size = max(1, self.io_buffer_size // 2)
        chunk = _CleanedChunk()
        position = 0
        fd = self._open(info)
        try:
            for header, raw in _read_batches(fd, info.size, self.io_buffer_size):
                self._check_abort(plan)
                if chunk.start is not None and position + len(raw) - chunk.start > read_size:
                    chunk.append_to(cleaned)
                    chunk = _CleanedChunk()
                if chunk.start is None:
                    chunk.start = position
                position += len(raw)
                result.bytes_read += len(raw)
                self.throttler.maybe_throttle(len(raw))
                out, max_timestamp, offset_of_max, count = self._filter_batch(
                    plan, header, raw, retain_deletes, transactions
                )
                result.records_read += header.record_count
                if out is None:
                    continue
                result.records_written += count
                result.bytes_written += len(out)
                chunk.add(header.last_offset, max_timestamp, offset_of_max, out)
            chunk.append_to(cleaned)
        finally:
            os.close(fd)

    def _filter_batch(
        self,
        plan: CleaningPlan,
        header: BatchHeader,
        raw: bytes,
        retain_deletes: bool,
        transactions: TransactionTracker,
    ) -> tuple[bytes | None, int, int, int]:
        """(bytes or None, max timestamp, its offset, records kept) for one source batch."""
        if header.is_control:
            if transactions.can_discard_marker(header, raw) and not retain_deletes:
                return None, 0, 0, 0
            return raw, header.max_timestamp, header.last_offset, header.record_count
        if transactions.is_aborted(header):
            if plan.producer_last_offsets.get(header.producer_id) == header.last_offset:
                return _empty_batch(header), header.max_timestamp, header.last_offset, 0
            return None, 0, 0, 0
        records = decode_records(header, batch_records_data(raw, 0, header))
        offset_map = self.offset_map
        kept: list[Record] = []
        for record in records:
            if record.key is not None and offset_map.get(record.key) > record.offset:
                continue
            if record.value is None and not retain_deletes:
                continue
            kept.append(record)
        if len(kept) == len(records):
            return raw, header.max_timestamp, header.last_offset, len(kept)
        if not kept:
            if (
                header.producer_id != NO_PRODUCER_ID
                and plan.producer_last_offsets.get(header.producer_id) == header.last_offset
            ):
                return _empty_batch(header), header.max_timestamp, header.last_offset, 0
            return None, 0, 0, 0
        log_append = header.is_log_append_time
        out = encode_batch(
            kept,
            base_offset=header.base_offset,
            compression=header.compression,
            timestamp_type=LOG_APPEND_TIME if log_append else CREATE_TIME,
            producer_id=header.producer_id,
            producer_epoch=header.producer_epoch,
            base_sequence=header.base_sequence,
            partition_leader_epoch=header.partition_leader_epoch,
            is_transactional=header.is_transactional,
            first_timestamp=kept[0].timestamp,
            log_append_time_ms=header.max_timestamp if log_append else None,
            last_offset_delta=header.last_offset_delta,
        )
        if log_append:
            return out, header.max_timestamp, header.last_offset, len(kept)
        best = max(kept, key=lambda r: r.timestamp)
        return out, best.timestamp, best.offset, len(kept)


# -- swapping in -----------------------------------------------------------------------------


def apply_cleaning(log: "Log", result: CleanResult) -> int | None:
    """Swap the cleaned groups into ``log`` (owner's thread); returns the new checkpoint offset or None.

    Nothing is swapped, and the ``.cleaned`` files are removed, when the log no longer holds
    exactly the segments that were cleaned (deleted, truncated or retention ran meanwhile).
    """
    plan = result.plan
    current = {id(s) for s in log.segments}
    old = [info for group in result.groups for info in group.old]
    stale = log.dir != plan.dir or any(
        id(info.segment) not in current or info.segment is log.active_segment or info.segment.size != info.size
        for info in old
    )
    if stale:
        logger.info("%s: dropping a cleaning pass; the log changed meanwhile", plan.dir)
        result.discard()
        return None
    for group in result.groups:
        assert group.cleaned is not None, "a cleaning pass that returned has every group cleaned"
        log.replace_segments(group.cleaned, [info.segment for info in group.old])
        group.cleaned = None
    return result.end_offset


__all__ = [
    "OffsetMap",
    "LogToClean",
    "cleanable_offsets",
    "log_to_clean",
    "grab_filthiest",
    "CleaningPlan",
    "SegmentInfo",
    "group_segments_by_size",
    "Cleaner",
    "CleanResult",
    "CleanAbortedError",
    "Throttler",
    "apply_cleaning",
]
