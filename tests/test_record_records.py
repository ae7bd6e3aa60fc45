"""v2 record batches: round trips, the kafka-python oracle, hostile input and fuzzing."""

import random
import struct

import pytest
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder

from kafka_zk.record.batch_header import (
    BATCH_HEADER_SIZE,
    CRC_POS,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    InvalidRecordError,
    compute_crc,
    iter_batch_headers,
)
from kafka_zk.record.compression import GZIP, LZ4, NONE, SNAPPY, ZSTD
from kafka_zk.record.records import (
    CONTROL_ABORT,
    CONTROL_COMMIT,
    LOG_APPEND_TIME,
    Record,
    control_marker_record,
    decode_batch,
    encode_batch,
    iter_batches,
    iter_records,
    parse_control_key,
    parse_end_txn_marker,
)
from kafka_zk.record.varint import encode_varint

ALL_CODECS = [NONE, GZIP, SNAPPY, LZ4, ZSTD]


def sample_records(count=50, start_ts=1_600_000_000_000):
    """A mix of null and empty keys/values, headers with null values, and growing timestamps."""
    out = []
    for i in range(count):
        key = None if i % 7 == 0 else b"key-%d" % i
        value = None if i % 11 == 0 else (b"" if i % 13 == 0 else b"value %d " % i * (i % 5 + 1))
        headers = [("h%d" % j, None if j == 1 else b"hv%d" % j) for j in range(i % 4)]
        out.append((key, value, headers, start_ts + i * 3 - (5 if i % 9 == 0 else 0)))
    return out


def with_crc(buf):
    buf = bytearray(buf)
    struct.pack_into(">I", buf, CRC_POS, compute_crc(buf, 0, len(buf)))
    return bytes(buf)


def raw_batch(body, record_count, attributes=0, last_offset_delta=None):
    """A batch around a hand-made records section, with a correct CRC."""
    if last_offset_delta is None:
        last_offset_delta = record_count - 1
    buf = bytearray(BATCH_HEADER_SIZE) + body
    HEADER_STRUCT.pack_into(
        buf,
        0,
        0,
        len(buf) - LOG_OVERHEAD,
        -1,
        2,
        0,
        attributes,
        last_offset_delta,
        1000,
        1000,
        -1,
        -1,
        -1,
        record_count,
    )
    return with_crc(buf)


def record_body(*fields):
    """One record from already encoded fields, prefixed with its varint length."""
    body = b"".join(fields)
    return encode_varint(len(body)) + body


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_round_trip_every_codec(codec):
    items = sample_records(300)
    data = encode_batch(items, base_offset=1000, compression=codec, partition_leader_epoch=4)
    header, records = decode_batch(data)
    assert header.size == len(data)
    assert header.compression == codec
    assert header.base_offset == 1000 and header.partition_leader_epoch == 4
    assert header.record_count == 300 and header.last_offset_delta == 299
    assert header.first_timestamp == items[0][3]
    assert header.max_timestamp == max(item[3] for item in items)
    assert [r.offset for r in records] == list(range(1000, 1300))
    assert [(r.key, r.value, r.headers, r.timestamp) for r in records] == [(k, v, list(h), ts) for k, v, h, ts in items]


def test_producer_fields_and_flags():
    data = encode_batch(
        [(b"k", b"v")], producer_id=77, producer_epoch=3, base_sequence=41, is_transactional=True, first_timestamp=5
    )
    header, records = decode_batch(data)
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (77, 3, 41)
    assert header.is_transactional and not header.is_control and not header.is_log_append_time
    assert header.last_sequence == 41
    assert records == [Record(0, 5, b"k", b"v", [])]


def test_log_append_time_rule():
    data = encode_batch(
        [(b"a", b"1", (), 10), (b"b", b"2", (), 20)], timestamp_type=LOG_APPEND_TIME, log_append_time_ms=99999
    )
    header, records = decode_batch(data)
    assert header.is_log_append_time and header.max_timestamp == 99999 and header.first_timestamp == 10
    assert [r.timestamp for r in records] == [99999, 99999]


def test_explicit_offsets_with_gaps_and_last_offset_override():
    records = [Record(10, 1, b"a", b"1"), Record(13, 2, b"b", b"2")]
    data = encode_batch(records, base_offset=10, last_offset_delta=5)
    header, decoded = decode_batch(data)
    assert header.last_offset_delta == 5 and header.record_count == 2
    assert [r.offset for r in decoded] == [10, 13]
    with pytest.raises(ValueError):
        encode_batch([Record(3, 1, b"a", b"1"), Record(3, 1, b"b", b"1")], base_offset=0)
    empty = encode_batch([], base_offset=7, last_offset_delta=2, producer_id=1, producer_epoch=0, base_sequence=0)
    header, decoded = decode_batch(empty)
    assert decoded == [] and header.record_count == 0 and header.next_offset == 10


def test_control_batch():
    key, value = control_marker_record(commit=True, coordinator_epoch=7)
    data = encode_batch([(key, value)], producer_id=5, producer_epoch=1, is_transactional=True, is_control=True)
    header, records = decode_batch(data)
    assert header.is_control and header.is_transactional
    assert parse_control_key(records[0].key) == (0, CONTROL_COMMIT)
    assert parse_end_txn_marker(records[0].value) == (0, 7)
    assert parse_control_key(control_marker_record(False, 0)[0]) == (0, CONTROL_ABORT)
    with pytest.raises(InvalidRecordError):
        parse_control_key(b"\x00")


def test_iter_records_over_batches_skips_partial_and_control():
    first = encode_batch([(b"a", b"1"), (b"b", b"2")], base_offset=0)
    marker = encode_batch(
        [control_marker_record(True, 0)],
        base_offset=2,
        is_control=True,
        is_transactional=True,
        producer_id=1,
        producer_epoch=0,
    )
    third = encode_batch([(b"c", b"3")], base_offset=3, compression=GZIP)
    buf = first + marker + third + third[:30]
    assert [r.key for r in iter_records(buf)] == [b"a", b"b", b"c"]
    assert [r.offset for r in iter_records(buf, include_control=True)] == [0, 1, 2, 3]
    assert [h.base_offset for h, _ in iter_batches(buf)] == [0, 2, 3]


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_kafka_python_reads_our_batches(codec):
    items = sample_records(200)
    data = encode_batch(items, compression=codec, producer_id=9, producer_epoch=2, base_sequence=100)
    theirs = DefaultRecordBatch(bytearray(data))
    assert theirs.validate_crc()
    assert theirs.compression_type == codec
    assert (theirs.producer_id, theirs.producer_epoch, theirs.base_sequence) == (9, 2, 100)
    decoded = [(r.offset, r.timestamp, r.key, r.value, [(k, v) for k, v in r.headers]) for r in theirs]
    assert decoded == [(i, ts, k, v, list(h)) for i, (k, v, h, ts) in enumerate(items)]


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_we_read_kafka_python_batches(codec):
    items = sample_records(200)
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=codec,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 22,
    )
    for offset, (key, value, headers, ts) in enumerate(items):
        builder.append(offset, timestamp=ts, key=key, value=value, headers=headers)
    data = bytes(builder.build())
    header, records = decode_batch(data)
    assert header.compression == codec
    assert [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in records] == [
        (i, ts, k, v, list(h)) for i, (k, v, h, ts) in enumerate(items)
    ]


def test_corrupt_crc():
    data = bytearray(encode_batch(sample_records(5)))
    data[30] ^= 0x01  # inside firstTimestamp: covered by the CRC, harmless to the parser
    with pytest.raises(InvalidRecordError, match="CRC"):
        decode_batch(bytes(data))
    header, records = decode_batch(bytes(data), verify_crc=False)
    assert len(records) == 5


def test_truncated_and_bad_headers():
    data = encode_batch(sample_records(5))
    for cut in (0, 10, BATCH_HEADER_SIZE - 1, BATCH_HEADER_SIZE, len(data) - 1):
        with pytest.raises(InvalidRecordError):
            decode_batch(data[:cut])
    bad_magic = bytearray(data)
    bad_magic[16] = 1
    with pytest.raises(InvalidRecordError, match="magic"):
        decode_batch(bytes(bad_magic))
    short = bytearray(data)
    struct.pack_into(">i", short, 8, 10)
    with pytest.raises(InvalidRecordError, match="below minimum"):
        decode_batch(bytes(short))
    with pytest.raises(InvalidRecordError):
        list(iter_batch_headers(bytes(short)))


KEY = encode_varint(1) + b"k"
VALUE = encode_varint(1) + b"v"
HEAD = b"\x00" + encode_varint(0) + encode_varint(0)  # attributes, timestampDelta, offsetDelta


@pytest.mark.parametrize(
    "body,count",
    [
        (encode_varint(500) + HEAD + KEY + VALUE + encode_varint(0), 1),  # record longer than the batch
        (encode_varint(-3) + HEAD, 1),  # negative record length
        (record_body(HEAD, encode_varint(-2), VALUE, encode_varint(0)), 1),  # key length -2
        (record_body(HEAD, encode_varint(50), b"k", VALUE, encode_varint(0)), 1),  # key beyond the record
        (record_body(HEAD, KEY, encode_varint(-7), encode_varint(0)), 1),  # value length -7
        (record_body(HEAD, KEY, VALUE, encode_varint(1 << 30)), 1),  # huge header count
        (record_body(HEAD, KEY, VALUE, encode_varint(-1)), 1),  # negative header count
        (record_body(HEAD, KEY, VALUE, encode_varint(1), encode_varint(-1), VALUE), 1),  # null header key
        (record_body(HEAD, KEY, VALUE, encode_varint(1), encode_varint(2), b"\xff\xfe", VALUE), 1),  # bad UTF-8
        (record_body(HEAD, KEY, VALUE, encode_varint(0), b"extra"), 1),  # bytes left over in the record
        (record_body(HEAD, KEY, VALUE, encode_varint(0)), 2),  # fewer records than declared
        (record_body(HEAD, KEY, VALUE, encode_varint(0)) * 3, 2),  # more records than declared
        (record_body(b"\x00", b"\xff\xff\xff\xff\xff\xff"), 1),  # overlong varint
        (record_body(HEAD, KEY), 1),  # record ends before the value
    ],
)
def test_hostile_lengths_raise_invalid_record(body, count):
    with pytest.raises(InvalidRecordError):
        decode_batch(raw_batch(body, count))


def test_hostile_compressed_payload():
    from kafka_zk.record.compression import compress

    with pytest.raises(InvalidRecordError):
        decode_batch(raw_batch(b"not gzip at all", 1, attributes=GZIP))
    bomb = compress(ZSTD, bytes(4 * 1024 * 1024))
    with pytest.raises(InvalidRecordError, match="exceeds"):
        decode_batch(raw_batch(bomb, 1, attributes=ZSTD), max_decompressed=1024 * 1024)


@pytest.mark.parametrize("codec", [NONE, GZIP, LZ4])
def test_fuzz_byte_flips_only_raise_invalid_record(codec):
    rng = random.Random(1234 + codec)
    original = encode_batch(sample_records(20), compression=codec)
    decoded_ok = 0
    for _ in range(1500):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        # Half the time bypass the CRC so the record parser itself sees the damage.
        verify = rng.random() < 0.5
        if not verify:
            data = bytearray(with_crc(data)) if len(data) >= BATCH_HEADER_SIZE else data
        try:
            decode_batch(bytes(data), verify_crc=verify)
            decoded_ok += 1
        except InvalidRecordError:
            pass
    assert decoded_ok < 1500
