"""Encoding and decoding of whole v2 record batches and the records inside them."""

import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, TypeAlias

from kafka_zk.record.batch_header import (
    BATCH_HEADER_SIZE,
    COMPRESSION_MASK,
    CONTROL_MASK,
    CRC_POS,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    MIN_BATCH_LENGTH,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    InvalidRecordError,
    check_crc,
    compute_crc,
    iter_batch_headers,
    read_batch_header,
)
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.compression import DEFAULT_MAX_DECOMPRESSED, NONE, compress, decompress
from kafka_zk.record.varint import read_uvarint, read_varint, read_varlong, write_varint

NO_TIMESTAMP = -1
CREATE_TIME = 0
LOG_APPEND_TIME = 1

# Control record types (the key of a record in a control batch).
CONTROL_ABORT = 0
CONTROL_COMMIT = 1
_CONTROL_KEY = struct.Struct(">hh")
_END_TXN_MARKER_VALUE = struct.Struct(">hi")
_CRC = struct.Struct(">I")
_ZIGZAG_TABLE_SIZE = 1 << 14  # every varint of one or two bytes
_ZIGZAG = [(raw >> 1) ^ -(raw & 1) for raw in range(_ZIGZAG_TABLE_SIZE)]
_BELOW_ANY_DELTA = -(1 << 70)  # a varlong of at most 10 bytes (70 bits) zigzag-decodes above this


# A record header as decoded (str key); the encoders also take the key as bytes.
Header: TypeAlias = tuple[str, bytes | None]
EncodableHeader: TypeAlias = tuple[str | bytes, bytes | None]


class Record(NamedTuple):
    """One record: absolute offset, timestamp in ms (-1 for none), key/value bytes or None, and
    headers as a sequence of (str key, bytes-or-None value).

    Records handed to the encoders may carry None as their offset (the next offset is taken); decoded records
    always have one, which is what the type says."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: Sequence[EncodableHeader] = ()


# What encode_batch takes besides Records: (key, value), (key, value, headers) or (key, value, headers, timestamp).
RecordTuple: TypeAlias = (
    tuple[bytes | None, bytes | None]
    | tuple[bytes | None, bytes | None, Sequence[EncodableHeader]]
    | tuple[bytes | None, bytes | None, Sequence[EncodableHeader], int | None]
)
# A found problem of scan_records: (kind, index in the batch, offset delta or timestamp or None).
ScanProblem: TypeAlias = tuple[str, int, int | None]


def control_marker_record(commit: bool, coordinator_epoch: int) -> tuple[bytes, bytes]:
    """(key, value) of the single record in a transaction marker batch."""
    return (
        _CONTROL_KEY.pack(0, CONTROL_COMMIT if commit else CONTROL_ABORT),
        _END_TXN_MARKER_VALUE.pack(0, coordinator_epoch),
    )


def parse_control_key(key: bytes | None) -> tuple[int, int]:
    """(version, type) of a control record key; InvalidRecordError if it is too short."""
    if key is None or len(key) < _CONTROL_KEY.size:
        raise InvalidRecordError("control record key too short")
    version, control_type = _CONTROL_KEY.unpack_from(key, 0)
    return version, control_type


def parse_end_txn_marker(value: bytes | None) -> tuple[int, int]:
    """(version, coordinator_epoch) of a transaction marker's value."""
    if value is None or len(value) < _END_TXN_MARKER_VALUE.size:
        raise InvalidRecordError("transaction marker value too short")
    version, coordinator_epoch = _END_TXN_MARKER_VALUE.unpack_from(value, 0)
    return version, coordinator_epoch


def _normalize(
    item: Record | RecordTuple, default_timestamp: int
) -> tuple[int | None, int, bytes | None, bytes | None, Sequence[EncodableHeader]]:
    """(offset or None, timestamp, key, value, headers) from a Record or a short tuple.

    Tuples are (key, value), (key, value, headers) or (key, value, headers, timestamp).
    """
    offset: int | None
    timestamp: int | None
    headers: Sequence[EncodableHeader]
    if isinstance(item, Record):
        offset, timestamp, key, value, headers = item
    else:
        offset = None
        key, value = item[0], item[1]
        headers = item[2] if len(item) > 2 else ()  # the length says which tuple it is
        timestamp = item[3] if len(item) > 3 else None
    if timestamp is None:
        timestamp = default_timestamp
    return offset, timestamp, key, value, headers


def _write_bytes(out: bytearray, data: bytes | None) -> None:
    if data is None:
        out.append(1)  # zigzag(-1)
    else:
        write_varint(out, len(data))
        out += data


def _encode_record(
    out: bytearray,
    offset_delta: int,
    timestamp_delta: int,
    key: bytes | None,
    value: bytes | None,
    headers: Sequence[EncodableHeader],
) -> None:
    body = bytearray(b"\x00")  # record attributes, unused
    write_varint(body, timestamp_delta)
    write_varint(body, offset_delta)
    _write_bytes(body, key)
    _write_bytes(body, value)
    write_varint(body, len(headers))
    for header_key, header_value in headers:
        _write_bytes(body, header_key.encode("utf-8") if isinstance(header_key, str) else header_key)
        _write_bytes(body, header_value)
    write_varint(out, len(body))
    out += body


def encode_batch(
    records: Iterable[Record | RecordTuple],
    base_offset: int = 0,
    compression: int = NONE,
    timestamp_type: int = CREATE_TIME,
    producer_id: int = NO_PRODUCER_ID,
    producer_epoch: int = NO_PRODUCER_EPOCH,
    base_sequence: int = NO_SEQUENCE,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
    is_transactional: bool = False,
    is_control: bool = False,
    first_timestamp: int | None = None,
    log_append_time_ms: int | None = None,
    last_offset_delta: int | None = None,
) -> bytes:
    """Build one complete v2 batch (header, records, CRC-32C) and return it as bytes.

    ``records`` holds Record objects (whose offsets, when not None, are absolute and increasing)
    or tuples as described in _normalize; a record without an offset takes the next one. A record
    without a timestamp takes ``first_timestamp`` (or -1). The header's firstTimestamp is
    ``first_timestamp`` if given, else the first record's. With LogAppendTime, maxTimestamp is
    ``log_append_time_ms``. ``last_offset_delta`` overrides the computed one (the log cleaner keeps
    it when trailing records are removed); it is required for an empty batch.
    """
    default_timestamp = NO_TIMESTAMP if first_timestamp is None else first_timestamp
    entries = [_normalize(item, default_timestamp) for item in records]
    if first_timestamp is None:
        first_timestamp = entries[0][1] if entries else NO_TIMESTAMP
    body = bytearray()
    max_timestamp = NO_TIMESTAMP
    offset_delta = -1
    for offset, timestamp, key, value, headers in entries:
        if offset is None:
            offset_delta += 1
        else:
            if offset - base_offset <= offset_delta:
                raise ValueError("record offsets must be increasing and not below the base offset")
            offset_delta = offset - base_offset
        if timestamp > max_timestamp:
            max_timestamp = timestamp
        _encode_record(body, offset_delta, timestamp - first_timestamp, key, value, headers)
    if last_offset_delta is None:
        if not entries:
            raise ValueError("an empty batch needs last_offset_delta")
        last_offset_delta = offset_delta
    elif last_offset_delta < offset_delta:
        raise ValueError("last_offset_delta below the last record's offset delta")

    attributes = compression & COMPRESSION_MASK
    if timestamp_type == LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_MASK
        if log_append_time_ms is not None:
            max_timestamp = log_append_time_ms
    if is_transactional:
        attributes |= TRANSACTIONAL_MASK
    if is_control:
        attributes |= CONTROL_MASK
    records_section: bytes | bytearray = body
    if compression != NONE:
        records_section = compress(compression, body)

    out = bytearray(BATCH_HEADER_SIZE)
    out += records_section
    HEADER_STRUCT.pack_into(
        out,
        0,
        base_offset,
        len(out) - LOG_OVERHEAD,
        partition_leader_epoch,
        2,
        0,
        attributes,
        last_offset_delta,
        first_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        len(entries),
    )
    _CRC.pack_into(out, CRC_POS, compute_crc(out, 0, len(out)))
    return bytes(out)


def _read_length(data: ReadableBuffer, pos: int, end: int, what: str) -> tuple[int, int]:
    length, pos = read_varint(data, pos)
    if length < -1:
        raise InvalidRecordError("negative %s length %d" % (what, length))
    if pos + length > end:
        raise InvalidRecordError("%s length %d exceeds the record" % (what, length))
    return length, pos


def _decode_one(
    data: bytes, pos: int, end: int, base_offset: int, first_timestamp: int, log_append_time: int | None
) -> Record:
    """Decode the record whose body spans data[pos:end]."""
    pos += 1  # attributes
    timestamp_delta, pos = read_varlong(data, pos)
    offset_delta, pos = read_varint(data, pos)
    key_len, pos = _read_length(data, pos, end, "key")
    if key_len < 0:
        key = None
    else:
        key = data[pos : pos + key_len]
        pos += key_len
    value_len, pos = _read_length(data, pos, end, "value")
    if value_len < 0:
        value = None
    else:
        value = data[pos : pos + value_len]
        pos += value_len
    header_count, pos = read_varint(data, pos)
    # Each header takes at least two bytes, so a larger count cannot fit.
    if header_count < 0 or header_count > (end - pos) // 2:
        raise InvalidRecordError("invalid header count %d" % header_count)
    headers: list[Header] = []
    for _ in range(header_count):
        name_len, pos = _read_length(data, pos, end, "header key")
        if name_len < 0:
            raise InvalidRecordError("null header key")
        name = data[pos : pos + name_len].decode("utf-8")
        pos += name_len
        header_len, pos = _read_length(data, pos, end, "header value")
        if header_len < 0:
            header_value = None
        else:
            header_value = data[pos : pos + header_len]
            pos += header_len
        headers.append((name, header_value))
    if pos != end:
        raise InvalidRecordError("record body has %d bytes left over" % (end - pos))
    timestamp = log_append_time if log_append_time is not None else first_timestamp + timestamp_delta
    return Record(base_offset + offset_delta, timestamp, key, value, headers)


def decode_records(header: BatchHeader, data: bytes) -> list[Record]:
    """Decode the uncompressed records section ``data`` (bytes) of the batch with ``header``.

    Every length is checked against the data; the count must equal the header's recordCount.
    """
    log_append_time = header.max_timestamp if header.is_log_append_time else None
    base_offset = header.base_offset
    first_timestamp = header.first_timestamp
    expected = header.record_count
    records: list[Record] = []
    pos = 0
    end = len(data)
    try:
        while pos < end:
            if len(records) == expected:
                raise InvalidRecordError("more records than the batch's count %d" % expected)
            length, pos = read_varint(data, pos)
            if length <= 0 or pos + length > end:
                raise InvalidRecordError("record length %d exceeds the batch" % length)
            records.append(_decode_one(data, pos, pos + length, base_offset, first_timestamp, log_append_time))
            pos += length
    except InvalidRecordError:
        raise
    except (ValueError, IndexError) as exc:  # truncated varints, bad UTF-8 in header keys
        raise InvalidRecordError("malformed record: %s" % exc) from None
    if len(records) != expected:
        raise InvalidRecordError("batch declares %d records but holds %d" % (expected, len(records)))
    return records


def read_full_header(buf: ReadableBuffer, pos: int = 0) -> BatchHeader:
    """Parse and check the header of the batch at ``pos``: present in full, length, magic."""
    if len(buf) - pos < BATCH_HEADER_SIZE:
        raise InvalidRecordError("truncated record batch header")
    header = read_batch_header(buf, pos)
    if header.batch_length < MIN_BATCH_LENGTH:
        raise InvalidRecordError("batch length %d below minimum" % header.batch_length)
    if header.magic != 2:
        raise InvalidRecordError("unsupported magic %d in batch" % header.magic)
    if pos + header.size > len(buf):
        raise InvalidRecordError("record batch truncated: %d of %d bytes" % (len(buf) - pos, header.size))
    return header


def batch_records_data(
    buf: ReadableBuffer, pos: int, header: BatchHeader, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> bytes:
    """The batch's records section as bytes, decompressed if the batch is compressed."""
    data = memoryview(buf)[pos + BATCH_HEADER_SIZE : pos + header.size]
    if header.compression == NONE:
        return bytes(data)
    return decompress(header.compression, data, max_decompressed)


def decode_batch(
    buf: ReadableBuffer, pos: int = 0, verify_crc: bool = True, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> tuple[BatchHeader, list[Record]]:
    """Decode the whole batch at ``buf[pos:]``: returns (BatchHeader, [Record])."""
    header = read_full_header(buf, pos)
    if verify_crc:
        check_crc(buf, pos, header)
    return header, decode_records(header, batch_records_data(buf, pos, header, max_decompressed))


def iter_batches(
    buf: ReadableBuffer, verify_crc: bool = True, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> Iterator[tuple[BatchHeader, list[Record]]]:
    """Yield (BatchHeader, [Record]) for each complete batch; a trailing partial batch is skipped."""
    for pos, _ in iter_batch_headers(buf):
        yield decode_batch(buf, pos, verify_crc, max_decompressed)


def iter_records(buf: ReadableBuffer, include_control: bool = False, verify_crc: bool = True) -> Iterator[Record]:
    """Yield every Record of every complete batch in ``buf``; control batches only if asked."""
    for header, records in iter_batches(buf, verify_crc):
        if include_control or not header.is_control:
            yield from records


def _slow_varint(data: ReadableBuffer, pos: int, max_bytes: int) -> tuple[int, int]:
    raw, pos = read_uvarint(data, pos, max_bytes)
    return (raw >> 1) ^ -(raw & 1), pos


def scan_records(
    header: BatchHeader,
    data: bytes,
    check_offsets: bool = True,
    compacted: bool = False,
    now_ms: int = 0,
    timestamp_diff_max_ms: int | None = None,
) -> tuple[int, ScanProblem | None]:
    """Walk the uncompressed records section ``data`` of the batch with ``header`` without building
    keys, values or headers (as Kafka's skipKeyValueIterator); return (max_timestamp, problem).

    Raises InvalidRecordError for exactly the malformed sections decode_records rejects. ``problem``
    is None or the first failing record's check, as (kind, index, value) with kind "offset" (offset
    delta not the record's index, if ``check_offsets``), "key" (no key and ``compacted``) or
    "timestamp" (further than ``timestamp_diff_max_ms`` from ``now_ms``), for the caller to raise.
    """
    first_timestamp = header.first_timestamp
    expected = header.record_count
    log_append_time = header.max_timestamp if header.is_log_append_time else None
    end = len(data)
    pos = 0
    count = 0
    max_delta = _BELOW_ANY_DELTA
    problem: ScanProblem | None = None
    # A record needing a closer look: offset delta not its index, no key when keys are required, or any record when
    # timestamps are checked. Keys are at least -1 long, so -1 here never asks.
    min_key_length = 0 if compacted else -1
    check_each = timestamp_diff_max_ms is not None
    try:
        while pos < end:
            # Each varint is read inline when it takes one or two bytes (nearly all do).
            raw = data[pos]
            if raw < 0x80:
                pos += 1
            elif data[pos + 1] < 0x80:
                raw = (raw & 0x7F) | (data[pos + 1] << 7)
                pos += 2
            else:
                raw, pos = read_uvarint(data, pos, 5)
            length = _ZIGZAG[raw] if raw < _ZIGZAG_TABLE_SIZE else (raw >> 1) ^ -(raw & 1)
            record_end = pos + length
            if length <= 0 or record_end > end:
                raise InvalidRecordError("record length %d exceeds the batch" % length)
            pos += 1  # attributes
            raw = data[pos]
            if raw < 0x80:
                pos += 1
            elif data[pos + 1] < 0x80:
                raw = (raw & 0x7F) | (data[pos + 1] << 7)
                pos += 2
            else:
                raw, pos = read_uvarint(data, pos, 10)
            timestamp_delta = _ZIGZAG[raw] if raw < _ZIGZAG_TABLE_SIZE else (raw >> 1) ^ -(raw & 1)
            raw = data[pos]
            if raw < 0x80:
                pos += 1
            elif data[pos + 1] < 0x80:
                raw = (raw & 0x7F) | (data[pos + 1] << 7)
                pos += 2
            else:
                raw, pos = read_uvarint(data, pos, 5)
            offset_delta = _ZIGZAG[raw] if raw < _ZIGZAG_TABLE_SIZE else (raw >> 1) ^ -(raw & 1)
            raw = data[pos]
            if raw < 0x80:
                pos += 1
            else:
                raw, pos = read_uvarint(data, pos, 5)
            key_length = _ZIGZAG[raw] if raw < _ZIGZAG_TABLE_SIZE else (raw >> 1) ^ -(raw & 1)
            if key_length < -1 or pos + key_length > record_end:
                raise InvalidRecordError("invalid key length %d" % key_length)
            if key_length > 0:
                pos += key_length
            raw = data[pos]
            if raw < 0x80:
                pos += 1
            elif data[pos + 1] < 0x80:
                raw = (raw & 0x7F) | (data[pos + 1] << 7)
                pos += 2
            else:
                raw, pos = read_uvarint(data, pos, 5)
            value_length = _ZIGZAG[raw] if raw < _ZIGZAG_TABLE_SIZE else (raw >> 1) ^ -(raw & 1)
            if value_length < -1 or pos + value_length > record_end:
                raise InvalidRecordError("invalid value length %d" % value_length)
            if value_length > 0:
                pos += value_length
            if data[pos] == 0 and pos + 1 == record_end:  # no headers, the common case
                pos = record_end
            else:
                pos = _skip_headers(data, pos, record_end)
            if (offset_delta != count or key_length < min_key_length or check_each) and problem is None:
                if check_offsets and offset_delta != count:
                    problem = ("offset", count, offset_delta)
                elif compacted and key_length < 0:
                    problem = ("key", count, None)
                elif check_each:
                    timestamp = first_timestamp + timestamp_delta if log_append_time is None else log_append_time
                    if (
                        timestamp != NO_TIMESTAMP
                        and timestamp_diff_max_ms is not None
                        and abs(timestamp - now_ms) > timestamp_diff_max_ms
                    ):
                        problem = ("timestamp", count, timestamp)
            if timestamp_delta > max_delta:
                max_delta = timestamp_delta
            count += 1
    except InvalidRecordError:
        raise
    except (ValueError, IndexError) as exc:  # truncated varints, bad UTF-8 in header keys
        raise InvalidRecordError("malformed record: %s" % exc) from None
    if count != expected:
        raise InvalidRecordError("batch declares %d records but holds %d" % (expected, count))
    if log_append_time is not None:
        max_timestamp = log_append_time if count else NO_TIMESTAMP
    else:
        max_timestamp = first_timestamp + max_delta if count else NO_TIMESTAMP
    return max_timestamp, problem


def _skip_headers(data: bytes, pos: int, end: int) -> int:
    """Walk a record's header count and headers ending at ``end``; return ``end``."""
    header_count, pos = _slow_varint(data, pos, 5)
    if header_count < 0 or header_count > (end - pos) // 2:
        raise InvalidRecordError("invalid header count %d" % header_count)
    for _ in range(header_count):
        name_length, pos = _slow_varint(data, pos, 5)
        if name_length < 0 or pos + name_length > end:
            raise InvalidRecordError("invalid header key length %d" % name_length)
        data[pos : pos + name_length].decode("utf-8")  # as decode_records, which rejects a key that is not UTF-8
        pos += name_length
        value_length, pos = _slow_varint(data, pos, 5)
        if value_length < -1 or pos + value_length > end:
            raise InvalidRecordError("invalid header value length %d" % value_length)
        if value_length > 0:
            pos += value_length
    if pos != end:
        raise InvalidRecordError("record body has %d bytes left over" % (end - pos))
    return end
