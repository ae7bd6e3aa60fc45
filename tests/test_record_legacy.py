"""Magic 0/1 message sets: encode/decode, the kafka-python oracle, up- and down-conversion."""

import gzip
import struct
import zlib

import pytest
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

from kafka_zk.record.batch_header import InvalidRecordError
from kafka_zk.record.compression import GZIP, LZ4, NONE, SNAPPY, ZSTD, UnsupportedCodecError, decompress
from kafka_zk.record.legacy import decode_message_set, down_convert, encode_message_set, iter_messages, up_convert
from kafka_zk.record.records import (
    LOG_APPEND_TIME,
    Record,
    control_marker_record,
    decode_batch,
    encode_batch,
    iter_records,
)

LEGACY_CODECS = [NONE, GZIP, SNAPPY, LZ4]


def sample(count=30, base_offset=0, magic=1):
    return [
        Record(
            base_offset + i,
            1000 + i if magic == 1 else -1,
            None if i % 5 == 0 else b"k%d" % i,
            None if i % 7 == 3 else b"v%d" % i * 3,
            [],
        )
        for i in range(count)
    ]


def kafka_python_records(buf):
    records = MemoryRecords(bytes(buf))
    out = []
    while True:
        batch = records.next_batch()
        if batch is None:
            return out
        out.extend((r.offset, r.timestamp, r.key, r.value) for r in batch)


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", LEGACY_CODECS)
def test_round_trip(magic, codec):
    records = sample(40, base_offset=500, magic=magic)
    data = encode_message_set(records, magic, codec)
    assert decode_message_set(data) == records
    shallow = list(iter_messages(data))
    assert len(shallow) == (40 if codec == NONE else 1)
    if codec != NONE:
        assert shallow[0].offset == 539 and shallow[0].key is None


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", LEGACY_CODECS)
def test_kafka_python_reads_ours(magic, codec):
    records = sample(25, base_offset=100, magic=magic)
    data = encode_message_set(records, magic, codec)
    assert kafka_python_records(data) == [
        (r.offset, None if magic == 0 else r.timestamp, r.key, r.value) for r in records
    ]


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", LEGACY_CODECS)
def test_we_read_kafka_python(magic, codec):
    records = sample(25, magic=magic)
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    for r in records:
        builder.append(r.offset, timestamp=r.timestamp, key=r.key, value=r.value)
    decoded = decode_message_set(bytes(builder.build()))
    # kafka-python, like any producer, writes wrapper offset 0: only the spacing of offsets is meaningful.
    shift = decoded[0].offset
    assert [r._replace(offset=r.offset - shift) for r in decoded] == records


def test_magic0_lz4_uses_the_legacy_header_checksum():
    data = encode_message_set(sample(5, magic=0), 0, LZ4)
    wrapper = next(iter_messages(data))
    with pytest.raises(InvalidRecordError):
        decompress(LZ4, wrapper.value)
    assert decode_message_set(data) == sample(5, magic=0)


def test_magic1_relative_inner_offsets_and_log_append_time():
    records = [Record(10, 5, b"a", b"1"), Record(12, 7, b"b", b"2")]
    data = encode_message_set(records, 1, GZIP, timestamp_type=LOG_APPEND_TIME)
    wrapper = next(iter_messages(data))
    assert wrapper.offset == 12 and wrapper.timestamp == 7 and wrapper.attributes == GZIP | 0x08
    inner = list(iter_messages(zlib.decompress(wrapper.value, 31)))
    assert [m.offset for m in inner] == [0, 2]
    assert [(r.offset, r.timestamp) for r in decode_message_set(data)] == [(10, 7), (12, 7)]


def test_crc_and_truncation_checks():
    data = bytearray(encode_message_set(sample(3), 1))
    data[-1] ^= 0xFF
    with pytest.raises(InvalidRecordError, match="CRC"):
        decode_message_set(bytes(data))
    good = encode_message_set(sample(3), 1)
    for cut in (5, 20, len(good) - 1):
        with pytest.raises(InvalidRecordError):
            decode_message_set(good[:cut])
    with pytest.raises(InvalidRecordError):
        decode_message_set(good + b"\x00" * 5)


def _message(offset, magic, attributes, key_field, value_field, timestamp=0):
    body = bytes([magic, attributes]) + (struct.pack(">q", timestamp) if magic == 1 else b"") + key_field + value_field
    return struct.pack(">qiI", offset, len(body) + 4, zlib.crc32(body)) + body


@pytest.mark.parametrize(
    "raw",
    [
        _message(0, 1, 0, struct.pack(">i", 100) + b"k", struct.pack(">i", -1)),  # key past the end
        _message(0, 1, 0, struct.pack(">i", -5), struct.pack(">i", -1)),  # negative key length
        _message(0, 1, 0, struct.pack(">i", -1), struct.pack(">i", -1) + b"xx"),  # bytes left over
        _message(0, 0, GZIP, struct.pack(">i", -1), struct.pack(">i", -1)),  # compressed without value
        _message(0, 0, GZIP, struct.pack(">i", -1), struct.pack(">i", 3) + b"bad"),  # corrupt gzip
        _message(0, 1, 0, b"", b"")[:12] + struct.pack(">i", 4) + b"\x00" * 4,  # size below minimum
        _message(0, 2, 0, struct.pack(">i", -1), struct.pack(">i", -1)),  # magic 2 in a legacy set
    ],
)
def test_hostile_legacy_messages(raw):
    with pytest.raises(InvalidRecordError):
        decode_message_set(raw)


def _gzip_wrapper(inner_set, magic=1):
    payload = gzip.compress(inner_set)
    return _message(0, magic, GZIP, struct.pack(">i", -1), struct.pack(">i", len(payload)) + payload)


def test_compressed_wrapper_rules():
    assert len(decode_message_set(_gzip_wrapper(encode_message_set(sample(2), 1)))) == 2
    with pytest.raises(InvalidRecordError, match="nested"):
        decode_message_set(_gzip_wrapper(encode_message_set(sample(2), 1, GZIP)))
    with pytest.raises(InvalidRecordError, match="no inner"):
        decode_message_set(_gzip_wrapper(b""))
    with pytest.raises(InvalidRecordError, match="magic"):
        decode_message_set(_gzip_wrapper(encode_message_set(sample(2, magic=0), 0)))


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", LEGACY_CODECS)
def test_up_convert(magic, codec):
    records = sample(20, base_offset=77, magic=magic)
    batch = up_convert(encode_message_set(records, magic, codec))
    header, decoded = decode_batch(batch)
    assert header.compression == codec and header.record_count == 20 and not header.is_log_append_time
    assert [r.offset for r in decoded] == list(range(20))
    assert [(r.timestamp, r.key, r.value) for r in decoded] == [(r.timestamp, r.key, r.value) for r in records]
    if magic == 0:
        assert header.max_timestamp == -1 and header.first_timestamp == -1


def test_up_convert_rejects_mixed_sets():
    plain = encode_message_set(sample(2), 1)
    compressed = encode_message_set(sample(2), 1, GZIP)
    with pytest.raises(InvalidRecordError, match="exactly one"):
        up_convert(compressed + compressed)
    with pytest.raises(InvalidRecordError, match="exactly one"):
        up_convert(plain + compressed)
    with pytest.raises(InvalidRecordError, match="mixes magic"):
        up_convert(plain + encode_message_set(sample(1, magic=0), 0))
    with pytest.raises(InvalidRecordError):
        up_convert(b"")


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", LEGACY_CODECS)
def test_down_convert(magic, codec):
    first = encode_batch([(b"a", b"1", [("h", b"x")], 100), (b"b", b"2", (), 150)], base_offset=0, compression=codec)
    marker = encode_batch(
        [control_marker_record(True, 0)],
        base_offset=2,
        is_control=True,
        is_transactional=True,
        producer_id=1,
        producer_epoch=0,
    )
    third = encode_batch(
        [(b"c", b"3", (), 170), (None, b"4", (), 180)],
        base_offset=3,
        compression=codec,
        timestamp_type=LOG_APPEND_TIME,
        log_append_time_ms=999,
    )
    data = down_convert(first + marker + third + third[:20], magic)
    decoded = decode_message_set(data)
    expected_ts = [100, 150, 999, 999] if magic == 1 else [-1] * 4
    assert [(r.offset, r.timestamp, r.key, r.value) for r in decoded] == [
        (0, expected_ts[0], b"a", b"1"),
        (1, expected_ts[1], b"b", b"2"),
        (3, expected_ts[2], b"c", b"3"),
        (4, expected_ts[3], None, b"4"),
    ]
    assert all(r.headers == [] for r in decoded)
    if not (magic == 0 and codec == LZ4):
        assert [(o, k) for o, _, k, _ in kafka_python_records(data)] == [(0, b"a"), (1, b"b"), (3, b"c"), (4, None)]
    later = decode_message_set(down_convert(first + third, magic, first_offset=1))
    assert [r.offset for r in later] == [1, 3, 4]


def test_down_convert_then_up_convert_round_trip():
    items = [(b"k%d" % i, b"v%d" % i, (), 2000 + i) for i in range(10)]
    original = encode_batch(items, compression=SNAPPY)
    back = up_convert(down_convert(original, 1))
    assert [(r.key, r.value, r.timestamp) for r in iter_records(back)] == [(k, v, ts) for k, v, _, ts in items]
    assert decode_batch(back)[0].compression == SNAPPY


def test_down_convert_zstd_is_unsupported():
    with pytest.raises(UnsupportedCodecError):
        down_convert(encode_batch([(b"k", b"v")], compression=ZSTD), 1)
