"""Magic 0 and 1 message sets of pre-0.11 clients, and conversion to and from v2 batches."""

import struct
import zlib
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from kafka_zk.record.batch_header import COMPRESSION_MASK, LOG_OVERHEAD, TIMESTAMP_TYPE_MASK, InvalidRecordError
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.compression import (
    DEFAULT_MAX_DECOMPRESSED,
    LZ4,
    NONE,
    ZSTD,
    UnsupportedCodecError,
    compress,
    decompress,
)
from kafka_zk.record.records import CREATE_TIME, LOG_APPEND_TIME, NO_TIMESTAMP, Record, encode_batch, iter_batches

# crc uint32, magic int8, attributes int8, key length int32, value length int32 (+ timestamp int64 in v1)
RECORD_OVERHEAD_V0 = 14
RECORD_OVERHEAD_V1 = 22

_ENTRY_HEAD = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_CRC_POS = LOG_OVERHEAD
_MAGIC_POS = LOG_OVERHEAD + 4


class LegacyMessage(NamedTuple):
    """One shallow message; size counts its offset and size fields too."""

    offset: int
    magic: int
    attributes: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    size: int


def _read_bytes(buf: ReadableBuffer, pos: int, end: int) -> tuple[bytes | None, int]:
    length = _INT32.unpack_from(buf, pos)[0]
    pos += 4
    if length == -1:
        return None, pos
    if length < 0 or pos + length > end:
        raise InvalidRecordError("legacy message field length %d exceeds the message" % length)
    return bytes(buf[pos : pos + length]), pos + length


def iter_messages(buf: ReadableBuffer, verify_crc: bool = True) -> Iterator[LegacyMessage]:
    """Yield each shallow LegacyMessage of a message set made of whole messages only.

    A trailing partial message, a size below the minimum, a magic other than 0/1, a CRC-32
    mismatch or a field longer than its message raise InvalidRecordError.
    """
    pos = 0
    end = len(buf)
    while pos < end:
        if pos + LOG_OVERHEAD + RECORD_OVERHEAD_V0 > end:
            raise InvalidRecordError("truncated legacy message at byte %d" % pos)
        offset, size, crc, magic, attributes = _ENTRY_HEAD.unpack_from(buf, pos)
        if magic not in (0, 1):
            raise InvalidRecordError("unexpected magic %d in a legacy message set" % magic)
        if size < (RECORD_OVERHEAD_V0 if magic == 0 else RECORD_OVERHEAD_V1):
            raise InvalidRecordError("legacy message size %d below minimum" % size)
        message_end = pos + LOG_OVERHEAD + size
        if message_end > end:
            raise InvalidRecordError("truncated legacy message at byte %d" % pos)
        if verify_crc and zlib.crc32(memoryview(buf)[pos + _MAGIC_POS : message_end]) != crc:
            raise InvalidRecordError("legacy message CRC mismatch at offset %d" % offset)
        field_pos = pos + _MAGIC_POS + 2
        if magic == 1:
            timestamp = _INT64.unpack_from(buf, field_pos)[0]
            field_pos += 8
        else:
            timestamp = NO_TIMESTAMP
        key, field_pos = _read_bytes(buf, field_pos, message_end)
        if field_pos + 4 > message_end:
            raise InvalidRecordError("legacy message too short for its value length")
        value, field_pos = _read_bytes(buf, field_pos, message_end)
        if field_pos != message_end:
            raise InvalidRecordError("legacy message has %d bytes left over" % (message_end - field_pos))
        yield LegacyMessage(offset, magic, attributes, timestamp, key, value, LOG_OVERHEAD + size)
        pos = message_end


def decode_message_set(
    buf: ReadableBuffer, verify_crc: bool = True, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> list[Record]:
    """Decode a magic 0/1 message set into Records, expanding compressed wrapper messages."""
    records: list[Record] = []
    for message in iter_messages(buf, verify_crc):
        codec = message.attributes & COMPRESSION_MASK
        if codec == NONE:
            records.append(Record(message.offset, message.timestamp, message.key, message.value, []))
        else:
            records.extend(_expand_wrapper(message, codec, verify_crc, max_decompressed))
    return records


def _expand_wrapper(wrapper: LegacyMessage, codec: int, verify_crc: bool, max_decompressed: int) -> list[Record]:
    if wrapper.value is None:
        raise InvalidRecordError("compressed legacy message without a value")
    if codec == ZSTD:
        raise InvalidRecordError("zstd is not allowed in magic %d messages" % wrapper.magic)
    inner_set = decompress(codec, wrapper.value, max_decompressed, legacy_lz4_checksum=wrapper.magic == 0)
    inner = list(iter_messages(inner_set, verify_crc))
    if not inner:
        raise InvalidRecordError("compressed legacy message with no inner messages")
    # Magic 1 wrappers carry the absolute offset of the last inner message; inner offsets are relative.
    offset_shift = wrapper.offset - inner[-1].offset if wrapper.magic == 1 else 0
    log_append_time = wrapper.magic == 1 and wrapper.attributes & TIMESTAMP_TYPE_MASK
    records: list[Record] = []
    for message in inner:
        if message.attributes & COMPRESSION_MASK:
            raise InvalidRecordError("nested compressed legacy message")
        if message.magic != wrapper.magic:
            raise InvalidRecordError("inner message magic %d differs from its wrapper's" % message.magic)
        timestamp = wrapper.timestamp if log_append_time else message.timestamp
        records.append(Record(message.offset + offset_shift, timestamp, message.key, message.value, []))
    return records


def _write_bytes(out: bytearray, data: bytes | None) -> None:
    if data is None:
        out += _INT32.pack(-1)
    else:
        out += _INT32.pack(len(data))
        out += data


def _write_message(
    out: bytearray, offset: int, magic: int, attributes: int, timestamp: int, key: bytes | None, value: bytes | None
) -> None:
    body = bytearray((magic, attributes))
    if magic == 1:
        body += _INT64.pack(timestamp)
    _write_bytes(body, key)
    _write_bytes(body, value)
    out += struct.pack(">qiI", offset, len(body) + 4, zlib.crc32(body))
    out += body


def encode_message_set(
    records: Iterable[Record],
    magic: int,
    compression: int = NONE,
    base_offset: int = 0,
    timestamp_type: int = CREATE_TIME,
) -> bytes:
    """Encode Records (headers are dropped) as a magic 0 or 1 message set.

    Records without an offset take consecutive offsets from ``base_offset``. Compressed records
    go into one wrapper message whose offset is the last record's; inner offsets are relative to
    the first record for magic 1 and absolute for magic 0. zstd raises UnsupportedCodecError.
    """
    if magic not in (0, 1):
        raise ValueError("legacy magic must be 0 or 1")
    if compression == ZSTD:
        raise UnsupportedCodecError("zstd cannot be carried by magic %d messages" % magic)
    type_bit = TIMESTAMP_TYPE_MASK if magic == 1 and timestamp_type == LOG_APPEND_TIME else 0
    entries: list[tuple[int, int, bytes | None, bytes | None]] = []
    next_offset = base_offset
    for record in records:
        offset = record.offset if record.offset is not None else next_offset
        next_offset = offset + 1
        entries.append((offset, record.timestamp, record.key, record.value))
    if compression == NONE:
        out = bytearray()
        for offset, timestamp, key, value in entries:
            _write_message(out, offset, magic, type_bit, timestamp, key, value)
        return bytes(out)
    if not entries:
        return b""
    first_offset = entries[0][0]
    inner = bytearray()
    for offset, timestamp, key, value in entries:
        inner_offset = offset - first_offset if magic == 1 else offset
        _write_message(inner, inner_offset, magic, type_bit, timestamp, key, value)
    payload = compress(compression, inner, legacy_lz4_checksum=magic == 0 and compression == LZ4)
    max_timestamp = max(timestamp for _, timestamp, _, _ in entries)
    out = bytearray()
    _write_message(out, entries[-1][0], magic, compression | type_bit, max_timestamp, None, payload)
    return bytes(out)


def up_convert(buf: ReadableBuffer, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
    """Turn a produce request's magic 0/1 message set into one v2 batch with the same codec.

    Offsets become 0..n-1 and magic 0 records get no timestamp (-1), as Kafka does. A compressed
    message must be the only one in the set, and all messages must share one magic.
    """
    messages = list(iter_messages(buf))
    if not messages:
        raise InvalidRecordError("empty legacy message set")
    magic = messages[0].magic
    codec = NONE
    for message in messages:
        if message.magic != magic:
            raise InvalidRecordError("legacy message set mixes magic %d and %d" % (magic, message.magic))
        if message.attributes & COMPRESSION_MASK:
            codec = message.attributes & COMPRESSION_MASK
    if codec != NONE and len(messages) > 1:
        raise InvalidRecordError("a compressed legacy message set must hold exactly one wrapper")
    records = decode_message_set(buf, verify_crc=False, max_decompressed=max_decompressed)
    return encode_batch([(record.key, record.value, (), record.timestamp) for record in records], compression=codec)


def down_convert(
    buf: ReadableBuffer, to_magic: int, first_offset: int = 0, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> bytes:
    """Rewrite the complete v2 batches of ``buf`` as a magic 0/1 message set for old Fetch versions.

    Control batches and records below ``first_offset`` are dropped, headers are lost, a trailing
    partial batch is skipped. Each compressed batch becomes one wrapper message with the batch's
    codec; zstd raises UnsupportedCodecError (UNSUPPORTED_COMPRESSION_TYPE for the fetcher).
    """
    out: list[bytes] = []
    for header, records in iter_batches(buf, verify_crc=False, max_decompressed=max_decompressed):
        if header.is_control:
            continue
        records = [record for record in records if record.offset >= first_offset]
        if records:
            timestamp_type = LOG_APPEND_TIME if header.is_log_append_time else CREATE_TIME
            out.append(encode_message_set(records, to_magic, header.compression, timestamp_type=timestamp_type))
    return b"".join(out)
