"""The fixed 61-byte header of a v2 record batch: parse, validate and patch in place."""

import struct
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple, cast

import crc32c

from kafka_zk.record.buffers import ReadableBuffer

# baseOffset int64, batchLength int32, partitionLeaderEpoch int32, magic int8, crc uint32,
# attributes int16, lastOffsetDelta int32, firstTimestamp int64, maxTimestamp int64,
# producerId int64, producerEpoch int16, baseSequence int32, recordCount int32
HEADER_STRUCT = struct.Struct(">qiibIhiqqqhii")
BATCH_HEADER_SIZE = HEADER_STRUCT.size  # 61
# Offset of fields within the header.
BASE_OFFSET_POS = 0
LENGTH_POS = 8
LEADER_EPOCH_POS = 12
MAGIC_POS = 16
CRC_POS = 17
ATTRIBUTES_POS = 21
MAX_TIMESTAMP_POS = 35
# Bytes before batchLength's count begins (baseOffset + batchLength).
LOG_OVERHEAD = 12
# The smallest legal value of batchLength (the header after baseOffset/batchLength).
MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD

COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1

_BASE_OFFSET = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_INT16 = struct.Struct(">h")
_INT64 = struct.Struct(">q")
_CRC = struct.Struct(">I")


class InvalidRecordError(ValueError):
    """A batch that fails a size, magic or CRC check (maps to CORRUPT_MESSAGE / INVALID_RECORD)."""


class BatchHeader(NamedTuple):
    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    first_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    record_count: int

    @property
    def size(self) -> int:
        """Total bytes of the batch including baseOffset and batchLength."""
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> int:
        return self.attributes & COMPRESSION_MASK

    @property
    def is_log_append_time(self) -> bool:
        return bool(self.attributes & TIMESTAMP_TYPE_MASK)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_MASK)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_MASK)

    @property
    def last_sequence(self) -> int:
        if self.base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return (self.base_sequence + self.last_offset_delta) & 0x7FFFFFFF


# BatchHeader from its 13 unpacked fields in one C call (BatchHeader._make is Python code checking the count,
# which HEADER_STRUCT always gives): every batch read, appended or fetched, builds one.
new_batch_header = cast(Callable[[tuple[Any, ...]], BatchHeader], partial(tuple.__new__, BatchHeader))


def read_batch_header(buf: ReadableBuffer, pos: int = 0) -> BatchHeader:
    """Parse the header at ``buf[pos:]``; the caller checks there are BATCH_HEADER_SIZE bytes."""
    return new_batch_header(HEADER_STRUCT.unpack_from(buf, pos))


def peek_magic(buf: ReadableBuffer, pos: int = 0) -> int:
    return buf[pos + MAGIC_POS]


def compute_crc(buf: ReadableBuffer, pos: int, size: int) -> int:
    """CRC-32C of a v2 batch from attributes to its end."""
    return crc32c.crc32c(memoryview(buf)[pos + ATTRIBUTES_POS : pos + size])


def check_crc(buf: ReadableBuffer, pos: int, header: BatchHeader) -> None:
    if compute_crc(buf, pos, header.size) != header.crc:
        raise InvalidRecordError("record batch CRC mismatch at base offset %d" % header.base_offset)


def set_base_offset(buf: bytearray | memoryview, pos: int, offset: int) -> None:
    """Rewrite baseOffset in place (not covered by the CRC)."""
    _BASE_OFFSET.pack_into(buf, pos + BASE_OFFSET_POS, offset)


def set_partition_leader_epoch(buf: bytearray | memoryview, pos: int, epoch: int) -> None:
    """Rewrite partitionLeaderEpoch in place (not covered by the CRC)."""
    _INT32.pack_into(buf, pos + LEADER_EPOCH_POS, epoch)


def set_max_timestamp(buf: bytearray | memoryview, pos: int, max_timestamp: int, log_append_time: bool) -> None:
    """Rewrite maxTimestamp and the timestamp-type bit in place, then the CRC they are covered by.

    Does nothing when both already hold these values.
    """
    attributes = _INT16.unpack_from(buf, pos + ATTRIBUTES_POS)[0]
    new_attributes = (attributes | TIMESTAMP_TYPE_MASK) if log_append_time else (attributes & ~TIMESTAMP_TYPE_MASK)
    if new_attributes == attributes and _INT64.unpack_from(buf, pos + MAX_TIMESTAMP_POS)[0] == max_timestamp:
        return
    _INT16.pack_into(buf, pos + ATTRIBUTES_POS, new_attributes)
    _INT64.pack_into(buf, pos + MAX_TIMESTAMP_POS, max_timestamp)
    size = _INT32.unpack_from(buf, pos + LENGTH_POS)[0] + LOG_OVERHEAD
    _CRC.pack_into(buf, pos + CRC_POS, compute_crc(buf, pos, size))


def iter_batch_headers(
    buf: ReadableBuffer, start: int = 0, end: int | None = None
) -> Iterator[tuple[int, BatchHeader]]:
    """Yield (pos, BatchHeader) for each complete v2 batch in ``buf[start:end]``.

    Stops silently at a trailing partial batch (a fetch response may cut one off). Raises
    InvalidRecordError for a length below the minimum or a magic other than 2.
    """
    if end is None:
        end = len(buf)
    pos = start
    while pos + LOG_OVERHEAD <= end:
        batch_length = _INT32.unpack_from(buf, pos + LENGTH_POS)[0]
        if batch_length < MIN_BATCH_LENGTH:
            raise InvalidRecordError("batch length %d below minimum" % batch_length)
        if pos + LOG_OVERHEAD + batch_length > end:
            return
        if buf[pos + MAGIC_POS] != 2:
            raise InvalidRecordError("unsupported magic %d in batch" % buf[pos + MAGIC_POS])
        header = read_batch_header(buf, pos)
        yield pos, header
        pos += header.size
