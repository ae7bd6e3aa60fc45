"""One log segment: a `.log` file of v2 record batches with its `.index`, `.timeindex` and `.txnindex`."""

import os
import struct
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, NamedTuple, cast

import crc32c

from kafka_zk.common.clock import Clock, milliseconds
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.offset_index import INT32_MAX, OffsetIndex
from kafka_zk.log.open_files import SEGMENT_FILES, OpenFileBudget, SegmentFile
from kafka_zk.log.time_index import NO_TIMESTAMP, TimeIndex
from kafka_zk.log.transaction_index import TXN_INDEX_SUFFIX, TransactionIndex
from kafka_zk.record.batch_header import (
    ATTRIBUTES_POS,
    BATCH_HEADER_SIZE,
    MAGIC_POS,
    MIN_BATCH_LENGTH,
    BatchHeader,
    InvalidRecordError,
    compute_crc,
    read_batch_header,
)
from kafka_zk.record.records import decode_batch

if TYPE_CHECKING:
    from kafka_zk.log.leader_epoch_cache import LeaderEpochFileCache

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
DELETED_SUFFIX = ".deleted"
CLEANED_SUFFIX = ".cleaned"
SWAP_SUFFIX = ".swap"

DEFAULT_MAX_INDEX_SIZE = 10 * 1024 * 1024
_SCAN_CHUNK = 8 * 1024
_RECENT_APPENDS = 8
_BASE_OFFSET = struct.Struct(">q")
_RECOVERY_CHUNK = 1024 * 1024


def segment_file_name(base_offset: int, suffix: str) -> str:
    """``00000000000000000042.log`` and friends: the base offset as 20 zero-padded digits."""
    return "%020d%s" % (base_offset, suffix)


class LogOffsetMetadata(NamedTuple):
    offset: int
    segment_base_offset: int
    position: int


class OffsetAndTimestamp(NamedTuple):
    offset: int
    timestamp: int
    leader_epoch: int


# NamedTuples from a tuple in one C call (their generated __new__ is Python code): at every append and read.
new_offset_metadata = cast(
    Callable[[tuple[int, int, int]], LogOffsetMetadata], partial(tuple.__new__, LogOffsetMetadata)
)


class FileSlice:
    """``size`` bytes at ``position`` of an open segment file: what a fetch response sends.

    ``file`` is the segment's SegmentFile (None for an empty slice), held so that its descriptor stays
    open while the slice lives; copy the bytes with read_bytes(). A Fetch response carries it as a file
    region (protocol.primitives), which a plaintext connection sends with sendfile (net.file_sender).
    """

    __slots__ = ("file", "position", "size")

    def __init__(self, file: SegmentFile | None, position: int, size: int) -> None:
        self.file = file
        self.position = position
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        # as Kafka's FileRecords prints (a request log line shows a Fetch response's records so)
        return "FileRecords(size=%d, file=%s, start=%d, end=%d)" % (
            self.size,
            getattr(self.file, "name", None),
            self.position,
            self.position + self.size,
        )

    def fileno(self) -> int:
        assert self.file is not None, "the empty slice has no file"
        return self.file.fileno()

    def read_bytes(self) -> bytes:
        """The slice's bytes (fewer if the file was truncated since the slice was made)."""
        if self.size == 0:
            return b""
        assert self.file is not None, "only the empty slice has no file"
        return os.pread(self.file.fileno(), self.size, self.position)

    __bytes__ = read_bytes


EMPTY_SLICE = FileSlice(None, 0, 0)


class FetchDataInfo(NamedTuple):
    """A read's result: where it started, the file slice to send, and whether max_bytes cut the first batch."""

    offset_metadata: LogOffsetMetadata
    records: FileSlice
    first_entry_incomplete: bool

    def read_bytes(self) -> bytes:
        return self.records.read_bytes()


_fetch_data_info = cast(
    Callable[[tuple[LogOffsetMetadata, FileSlice, bool]], FetchDataInfo], partial(tuple.__new__, FetchDataInfo)
)


class LogSegment:
    """Appends offset-assigned batches, keeps the sparse indexes, reads slices, and recovers itself."""

    # slotted: attribute reads on the append and read paths are cheaper; OpenFileBudget holds segments by weakref
    __slots__ = (
        "dir",
        "base_offset",
        "index_interval_bytes",
        "max_index_size",
        "log_path",
        "_open_files",
        "_file",
        "_closed",
        "recently_used",
        "_size",
        "offset_index",
        "time_index",
        "txn_index",
        "created_ms",
        "_rolling_based_timestamp",
        "_bytes_since_last_index_entry",
        "_max_timestamp",
        "_offset_of_max_timestamp",
        "_next_offset",
        "_recent_appends",
        "__weakref__",
    )

    def __init__(
        self,
        dir_path: str,
        base_offset: int,
        now_ms: int,
        index_interval_bytes: int = 4096,
        max_index_size: int = DEFAULT_MAX_INDEX_SIZE,
        file_suffix: str = "",
        open_files: OpenFileBudget | None = None,
    ) -> None:
        self.dir = dir_path
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.max_index_size = max_index_size
        self.log_path = os.path.join(dir_path, segment_file_name(base_offset, LOG_SUFFIX + file_suffix))
        # The .log descriptor is opened when first used and let go when the budget needs it elsewhere.
        self._open_files = SEGMENT_FILES if open_files is None else open_files
        self._file: SegmentFile | None = None
        self._closed = False
        self.recently_used = True
        try:
            self._size = os.stat(self.log_path).st_size
        except FileNotFoundError:
            with self._open_files.lock:
                self._file = SegmentFile(self.log_path, create=True)
                self._open_files.opened(self)
            self._size = 0
        self.offset_index = OffsetIndex(
            os.path.join(dir_path, segment_file_name(base_offset, INDEX_SUFFIX + file_suffix)),
            base_offset,
            max_index_size,
        )
        self.time_index = TimeIndex(
            os.path.join(dir_path, segment_file_name(base_offset, TIME_INDEX_SUFFIX + file_suffix)),
            base_offset,
            max_index_size,
        )
        self.txn_index = TransactionIndex(
            os.path.join(dir_path, segment_file_name(base_offset, TXN_INDEX_SUFFIX + file_suffix))
        )
        self.created_ms = now_ms
        self._rolling_based_timestamp: int | None = None
        self._bytes_since_last_index_entry = 0
        # Loaded lazily: a segment that is about to be recovered should not be scanned first.
        self._max_timestamp: int | None = None
        self._offset_of_max_timestamp: int | None = None
        self._next_offset: int | None = None
        # (base offset, position) of the first batch of each of the last appends, newest last: reads near
        # the log end (followers, consumers at the high watermark) start their scan there, not at an index entry.
        self._recent_appends: list[tuple[int, int]] | None = None

    @staticmethod
    def index_files_exist(dir_path: str, base_offset: int, file_suffix: str = "") -> bool:
        return all(
            os.path.exists(os.path.join(dir_path, segment_file_name(base_offset, suffix + file_suffix)))
            for suffix in (INDEX_SUFFIX, TIME_INDEX_SUFFIX)
        )

    def __repr__(self) -> str:
        return "LogSegment(%s, size=%d)" % (self.log_path, self._size)

    @property
    def size(self) -> int:
        return self._size

    @property
    def file(self) -> SegmentFile:
        """The open SegmentFile; hold it (not its descriptor number) for as long as the descriptor is used."""
        self.recently_used = True
        file = self._file
        if file is None:
            with self._open_files.lock:
                if self._closed:
                    raise ValueError("segment %s is closed" % self.log_path)
                file = self._file
                if file is None:
                    file = self._file = SegmentFile(self.log_path)
                    self._open_files.opened(self)
        return file

    def let_go_of_file(self) -> None:
        """Called by the budget: drop the reference; holders of the SegmentFile keep it open."""
        self._file = None

    def pread(self, size: int, position: int) -> bytes:
        file = self.file
        return os.pread(file.fileno(), size, position)

    # -- appending ---------------------------------------------------------------------------

    def can_convert_to_relative_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= INT32_MAX

    def append(
        self,
        largest_offset: int,
        largest_timestamp: int,
        offset_of_max_timestamp: int,
        records: bytes | bytearray | memoryview,
    ) -> None:
        """Write ``records`` (complete batches whose offsets are assigned) at the end of the file."""
        if not records:
            return
        if not 0 <= largest_offset - self.base_offset <= INT32_MAX:
            raise InvalidRecordError("offset %d does not fit in segment %d" % (largest_offset, self.base_offset))
        self._write(largest_offset, largest_timestamp, offset_of_max_timestamp, records)

    def append_unless_roll_due(
        self,
        config: LogConfig,
        clock: Clock,
        largest_offset: int,
        largest_timestamp: int,
        offset_of_max_timestamp: int,
        records: bytes | bytearray | memoryview,
    ) -> int:
        """Append unless the segment must roll first, in one call for a log's every append: the position ``records``
        (not empty) went to, or -1, nothing written, when the records would overflow segment.bytes, the time since
        the segment's first timestamp (or its creation, without timestamps) passed segment.ms (or the
        max.compaction.lag.ms of a compacted log), an index is full, or an offset would not fit the index."""
        size = self._size
        if size > config.segment_bytes - len(records):
            return -1
        if size > 0:
            rolling = self._rolling_based_timestamp
            if rolling is not None and rolling >= 0:  # every append after the first of a segment with timestamps
                waited = largest_timestamp - rolling
            else:
                waited = self.time_waited_for_roll(milliseconds(clock), largest_timestamp)
            # max_segment_ms is segment.ms or the lower max.compaction.lag.ms: asked only when the lag is passed
            if waited > config.segment_ms or (waited > config.max_compaction_lag_ms and waited > config.max_segment_ms):
                return -1
        offset_index, time_index = self.offset_index, self.time_index
        if (
            offset_index._entries >= offset_index._max_entries  # the indexes' is_full, without two property calls
            or time_index._entries >= time_index._max_entries - 1
            or not 0 <= largest_offset - self.base_offset <= INT32_MAX
        ):
            return -1
        self._write(largest_offset, largest_timestamp, offset_of_max_timestamp, records)
        return size

    def _write(
        self,
        largest_offset: int,
        largest_timestamp: int,
        offset_of_max_timestamp: int,
        records: bytes | bytearray | memoryview,
    ) -> None:
        position = self._size
        if position == 0:
            self._rolling_based_timestamp = largest_timestamp
        max_timestamp = self._max_timestamp
        offset_of_max_timestamp_so_far = self._offset_of_max_timestamp
        if max_timestamp is None or offset_of_max_timestamp_so_far is None:  # not loaded yet (always set together)
            max_timestamp, offset_of_max_timestamp_so_far = self._load_max_timestamp()
        view = memoryview(records)
        size = len(view)
        self.recently_used = True  # the ``file`` property's bookkeeping, without its call while the file is open
        file = self._file
        if file is None:
            file = self.file
        fd = file.fileno()
        written = os.pwrite(fd, view, position)
        while written < size:  # one write, unless the file system takes it in parts
            written += os.pwrite(fd, view[written:], position + written)
        recent = self._recent_appends
        if recent is None:
            recent = self._recent_appends = []
        elif len(recent) >= _RECENT_APPENDS:
            del recent[0]
        recent.append((_BASE_OFFSET.unpack_from(view)[0], position))
        self._size = position + size
        if largest_timestamp > max_timestamp:
            max_timestamp, offset_of_max_timestamp_so_far = largest_timestamp, offset_of_max_timestamp
            self._max_timestamp = largest_timestamp
            self._offset_of_max_timestamp = offset_of_max_timestamp
        if self._bytes_since_last_index_entry > self.index_interval_bytes:
            self.offset_index.append(largest_offset, position)
            self.time_index.maybe_append(max_timestamp, offset_of_max_timestamp_so_far)
            self._bytes_since_last_index_entry = 0
        self._bytes_since_last_index_entry += size
        self._next_offset = largest_offset + 1

    # -- scanning ----------------------------------------------------------------------------

    def _iter_headers(self, start: int, end: int | None = None) -> Iterator[tuple[int, BatchHeader]]:
        """Yield (position, BatchHeader) for the complete batches in [start, end), reading headers only."""
        end = self._size if end is None else end
        file = self.file
        fd = file.fileno()
        pos = start
        buf = b""
        buf_start = start
        while pos + BATCH_HEADER_SIZE <= end:
            off = pos - buf_start
            if off + BATCH_HEADER_SIZE > len(buf):
                buf = os.pread(fd, max(BATCH_HEADER_SIZE, min(_SCAN_CHUNK, end - pos)), pos)
                buf_start, off = pos, 0
                if len(buf) < BATCH_HEADER_SIZE:
                    return
            header = read_batch_header(buf, off)
            if header.batch_length < MIN_BATCH_LENGTH or header.magic != 2:
                raise InvalidRecordError("bad batch header at position %d of %s" % (pos, self.log_path))
            if pos + header.size > end:
                return
            yield pos, header
            pos += header.size

    def tail_is_intact(self) -> bool:
        """True when the bytes after the last index entry are whole, well-formed batch headers."""
        end = self._last_index_position()
        try:
            for pos, header in self._iter_headers(end):
                end = pos + header.size
        except InvalidRecordError:
            return False
        return end == self._size

    def _last_index_position(self) -> int:
        index = self.offset_index
        return index.entry(index.entries - 1).position if index.entries else 0

    def translate_offset(self, offset: int, starting_position: int = 0) -> tuple[int, BatchHeader] | None:
        """(position, header) of the first batch whose last offset >= ``offset``, or None."""
        start = max(self._scan_start(offset), starting_position)
        for position, header in self._iter_headers(start):
            if header.last_offset >= offset:
                return position, header
        return None

    def _scan_start(self, offset: int) -> int:
        """A position no later than the batch holding ``offset``: every batch before it ends below ``offset``."""
        for base_offset, position in reversed(self._recent_appends or ()):
            if base_offset <= offset:
                return position
        return self.offset_index.lookup(offset).position

    def next_offset(self) -> int:
        """The offset after the last batch in this segment (the base offset when empty)."""
        if self._next_offset is None:
            next_offset = self.base_offset
            for _, header in self._iter_headers(self._last_index_position()):
                next_offset = header.next_offset
            self._next_offset = next_offset
        return self._next_offset

    def _load_max_timestamp(self) -> tuple[int, int]:
        """(max timestamp, offset of the max timestamp) of the segment, loaded when first asked."""
        if self._max_timestamp is not None and self._offset_of_max_timestamp is not None:  # always set together
            return self._max_timestamp, self._offset_of_max_timestamp
        last = self.time_index.last_entry
        max_timestamp, offset = last.timestamp, last.offset
        for _, header in self._iter_headers(self.offset_index.lookup(last.offset).position):
            if header.max_timestamp > max_timestamp:
                max_timestamp, offset = header.max_timestamp, header.last_offset
        self._max_timestamp, self._offset_of_max_timestamp = max_timestamp, offset
        return max_timestamp, offset

    @property
    def max_timestamp_so_far(self) -> int:
        return self._load_max_timestamp()[0]

    @property
    def last_modified_ms(self) -> int:
        return os.stat(self.log_path).st_mtime_ns // 1_000_000

    @property
    def largest_timestamp(self) -> int:
        """The largest record timestamp, or the file's modification time if there is none."""
        max_timestamp = self._load_max_timestamp()[0]
        if max_timestamp >= 0:
            return max_timestamp
        return self.last_modified_ms

    # -- reading -----------------------------------------------------------------------------

    def read(
        self, start_offset: int, max_size: int, max_position: int | None = None, min_one_message: bool = True
    ) -> FetchDataInfo | None:
        """A slice starting at the batch holding ``start_offset``; None if the offset is past this segment.

        At most ``max_size`` bytes and never past ``max_position``; with ``min_one_message`` the
        first batch is returned whole even if it is larger than max_size.
        """
        if max_size < 0:
            raise ValueError("invalid max_size %d" % max_size)
        # A reader keeping up starts at a recent append that max_size covers whole: its position is known, and its
        # first batch fits, so no header need be read; translate_offset finds every other start.
        recent = self._recent_appends
        if recent:
            end = self._size
            for base_offset, position in reversed(recent):
                if base_offset <= start_offset:
                    if base_offset == start_offset and end - position <= max_size:
                        limit = self._size if max_position is None else max_position
                        self.recently_used = True  # the ``file`` property, without its call while the file is open
                        file = self._file
                        if file is None:
                            file = self.file
                        return _fetch_data_info(
                            (
                                new_offset_metadata((start_offset, self.base_offset, position)),
                                FileSlice(file, position, max(0, min(limit - position, max_size))),
                                False,
                            )
                        )
                    break
                end = position
        found = self.translate_offset(start_offset)
        if found is None:
            return None
        position, header = found
        metadata = LogOffsetMetadata(start_offset, self.base_offset, position)
        adjusted_max = max(max_size, header.size) if min_one_message else max_size
        if adjusted_max == 0:
            return FetchDataInfo(metadata, EMPTY_SLICE, False)
        limit = self._size if max_position is None else max_position
        fetch_size = max(0, min(limit - position, adjusted_max))
        return FetchDataInfo(metadata, FileSlice(self.file, position, fetch_size), adjusted_max < header.size)

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int = 0) -> OffsetAndTimestamp | None:
        """The first record at or after ``starting_offset`` whose timestamp >= ``timestamp``, or None."""
        indexed = self.time_index.lookup(timestamp)
        position = self.offset_index.lookup(max(indexed.offset, starting_offset)).position
        file = self.file
        fd = file.fileno()
        for batch_position, header in self._iter_headers(position):
            if header.max_timestamp < timestamp:
                continue
            _, records = decode_batch(os.pread(fd, header.size, batch_position), verify_crc=False)
            for record in records:
                if record.timestamp >= timestamp and record.offset >= starting_offset:
                    epoch = header.partition_leader_epoch if header.partition_leader_epoch >= 0 else -1
                    return OffsetAndTimestamp(record.offset, record.timestamp, epoch)
        return None

    # -- rolling -----------------------------------------------------------------------------

    def time_waited_for_roll(self, now_ms: int, message_timestamp: int) -> int:
        """Time since the first batch's timestamp (by the new records' clock), else since creation."""
        if self._rolling_based_timestamp is None and self._size > 0:
            for _, header in self._iter_headers(0):
                self._rolling_based_timestamp = header.max_timestamp
                break
        if self._rolling_based_timestamp is not None and self._rolling_based_timestamp >= 0:
            return message_timestamp - self._rolling_based_timestamp
        return now_ms - self.created_ms

    def _append_final_time_index_entry(self) -> None:
        if (
            self._max_timestamp is not None and self._max_timestamp >= 0 and self._offset_of_max_timestamp is not None
        ):  # set with the max timestamp
            self.time_index.maybe_append(self._max_timestamp, self._offset_of_max_timestamp, skip_full_check=True)

    def on_become_inactive(self) -> None:
        """Called when a newer segment takes over: final time index entry, indexes trimmed."""
        self._load_max_timestamp()
        self._append_final_time_index_entry()
        self.offset_index.trim_to_valid_size()
        self.time_index.trim_to_valid_size()

    def resize_indexes(self, size: int) -> None:
        self.offset_index.resize(size)
        self.time_index.resize(size)

    # -- recovery and truncation -------------------------------------------------------------

    def sanity_check(self) -> None:
        """Raise CorruptIndexError if either index cannot be trusted."""
        self.offset_index.sanity_check()
        self.time_index.sanity_check()

    def _iter_checked_batches(self, max_message_size: int | None) -> Iterator[tuple[int, BatchHeader]]:
        """Yield (position, header) for each valid batch from the start; stop at the first bad one."""
        file = self.file
        fd = file.fileno()
        size = self._size
        pos = 0
        buf = b""
        buf_start = 0
        expected_offset = self.base_offset
        while pos + BATCH_HEADER_SIZE <= size:
            off = pos - buf_start
            if off + BATCH_HEADER_SIZE > len(buf):
                buf = os.pread(fd, min(_RECOVERY_CHUNK, size - pos), pos)
                buf_start, off = pos, 0
            header = read_batch_header(buf, off)
            if (
                header.batch_length < MIN_BATCH_LENGTH
                or pos + header.size > size
                or buf[off + MAGIC_POS] != 2
                or (max_message_size is not None and header.size > max_message_size)
                or header.base_offset < expected_offset
                or header.last_offset_delta < 0
                or not self.can_convert_to_relative_offset(header.last_offset)
            ):
                return
            if off + header.size > len(buf) and header.size <= _RECOVERY_CHUNK:
                buf = os.pread(fd, min(_RECOVERY_CHUNK, size - pos), pos)
                buf_start, off = pos, 0
            if off + header.size <= len(buf):
                crc = compute_crc(buf, off, header.size)
            else:
                crc = self._chunked_crc(pos, header.size)
            if crc != header.crc:
                return
            yield pos, header
            expected_offset = header.next_offset
            pos += header.size

    def _chunked_crc(self, pos: int, size: int) -> int:
        """CRC-32C of a batch too large for one read window, computed piecewise."""
        file = self.file
        fd = file.fileno()
        crc = 0
        cur = pos + ATTRIBUTES_POS
        end = pos + size
        while cur < end:
            chunk = os.pread(fd, min(_RECOVERY_CHUNK, end - cur), cur)
            if not chunk:
                break
            crc = crc32c.crc32c(chunk, crc)
            cur += len(chunk)
        return crc

    def recover(self, max_message_size: int | None = None, epoch_cache: "LeaderEpochFileCache | None" = None) -> int:
        """Re-validate every batch (size, magic, offsets, CRC), rebuild both indexes, and cut the
        file at the first bad batch. Returns the number of bytes truncated.

        Batches carrying a leader epoch above ``epoch_cache``'s latest are assigned to it.
        """
        self._recent_appends = None
        self.offset_index.reset()
        self.time_index.reset()
        self.txn_index.reset()  # the log rebuilds it from the producer state it replays
        max_timestamp, offset_of_max = NO_TIMESTAMP, self.base_offset
        valid_bytes = 0
        last_index_entry = 0
        next_offset = self.base_offset
        for position, header in self._iter_checked_batches(max_message_size):
            if header.max_timestamp > max_timestamp:
                max_timestamp, offset_of_max = header.max_timestamp, header.last_offset
            if position - last_index_entry > self.index_interval_bytes:
                self.offset_index.append(header.last_offset, position)
                self.time_index.maybe_append(max_timestamp, offset_of_max)
                last_index_entry = position
            epoch = header.partition_leader_epoch
            if (
                epoch_cache is not None
                and epoch >= 0
                and (epoch_cache.latest_epoch is None or epoch > epoch_cache.latest_epoch)
            ):
                epoch_cache.assign(epoch, header.base_offset)
            valid_bytes = position + header.size
            next_offset = header.next_offset
        truncated = self._size - valid_bytes
        if truncated:
            file = self.file
            os.ftruncate(file.fileno(), valid_bytes)
            self._size = valid_bytes
        self._max_timestamp, self._offset_of_max_timestamp = max_timestamp, offset_of_max
        self._next_offset = next_offset
        self._rolling_based_timestamp = None
        self._bytes_since_last_index_entry = valid_bytes - last_index_entry
        self.offset_index.trim_to_valid_size()
        self._append_final_time_index_entry()
        self.time_index.trim_to_valid_size()
        return truncated

    def truncate_to(self, offset: int, now_ms: int) -> int:
        """Remove the batch holding ``offset`` and everything after it; returns bytes removed.

        The indexes are re-expanded, as this segment becomes the active one.
        """
        found = self.translate_offset(offset)
        self._recent_appends = None
        self.offset_index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        self.resize_indexes(self.max_index_size)
        truncated = 0
        if found is not None:
            position = found[0]
            truncated = self._size - position
            file = self.file
            os.ftruncate(file.fileno(), position)
            self._size = position
        if self._size == 0:
            self.created_ms = now_ms
            self._rolling_based_timestamp = None
        self._bytes_since_last_index_entry = 0
        self._max_timestamp = self._offset_of_max_timestamp = None
        self._next_offset = None
        return truncated

    # -- files -------------------------------------------------------------------------------

    def flush(self, sync: bool = True) -> None:
        """Write back the indexes; ``sync``: and fsync all four files (else the caller syncs the filesystem)."""
        if sync:
            os.fsync(self.file.fileno())
        self.offset_index.flush(sync)
        self.time_index.flush(sync)
        if sync:
            self.txn_index.flush()

    def _close_file(self) -> None:
        with self._open_files.lock:
            self._closed = True
            file, self._file = self._file, None
            self._open_files.closed(self)
        if file is not None:
            file.close()

    def abandon(self) -> None:
        """Close the segment's file without writing anything (its log dir failed)."""
        self._close_file()

    def close(self) -> None:
        """Append the final time index entry, trim both indexes, and close all three files."""
        if not self._closed:
            self._append_final_time_index_entry()
            self.offset_index.close()
            self.time_index.close()
            self._close_file()

    def delete(self) -> None:
        """Close and remove all its files (whatever their current suffix)."""
        self.offset_index.delete()
        self.time_index.delete()
        self.txn_index.delete()
        self._close_file()
        try:
            os.remove(self.log_path)
        except FileNotFoundError:
            pass

    def change_file_suffixes(self, old_suffix: str, new_suffix: str) -> None:
        """Rename ``X.log<old>`` to ``X.log<new>`` (likewise the indexes), e.g. '' -> '.deleted'."""

        def renamed(path: str) -> str:
            if old_suffix and not path.endswith(old_suffix):
                raise ValueError("%s does not end with %r" % (path, old_suffix))
            return path[: len(path) - len(old_suffix)] + new_suffix

        new_log_path = renamed(self.log_path)
        with self._open_files.lock:  # no reopen by the old name in between
            os.rename(self.log_path, new_log_path)
            self.log_path = new_log_path
        self.offset_index.rename_to(renamed(self.offset_index.path))
        self.time_index.rename_to(renamed(self.time_index.path))
        self.txn_index.rename_to(renamed(self.txn_index.path))
