"""The produce-side validator: header-only checks, in-place offset assignment, conversions."""

import random
import struct

import pytest

from kafka_zk.record import records as records_module
from kafka_zk.record import validation
from kafka_zk.record.batch_header import (
    BATCH_HEADER_SIZE,
    CRC_POS,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    InvalidRecordError,
    check_crc,
    compute_crc,
    read_batch_header,
)
from kafka_zk.record.compression import GZIP, LZ4, NONE, SNAPPY, ZSTD, compress
from kafka_zk.record.legacy import encode_message_set
from kafka_zk.record.records import Record, control_marker_record, decode_batch, encode_batch
from kafka_zk.record.validation import (
    InvalidBatchError,
    InvalidTimestampError,
    MissingKeyError,
    RecordTooLargeError,
    down_convert,
    validate_produce_records,
)
from kafka_zk.record.varint import encode_varint

NOW = 1_700_000_000_000


def items(count=10, start=NOW - 1000):
    return [(b"k%d" % i, b"value-%d" % i * 4, [("trace", b"t%d" % i)], start + i) for i in range(count)]


def with_crc(buf):
    buf = bytearray(buf)
    struct.pack_into(">I", buf, CRC_POS, compute_crc(buf, 0, len(buf)))
    return bytes(buf)


def patch_header(data, **fields):
    """The batch with some header fields replaced and its CRC recomputed."""
    header = read_batch_header(data)._replace(**fields)
    buf = bytearray(data)
    HEADER_STRUCT.pack_into(buf, 0, *header)
    return with_crc(buf)


def test_uncompressed_batch_is_not_decoded(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the record decoder must not run for an uncompressed batch")

    monkeypatch.setattr(validation, "decode_records", forbidden)
    monkeypatch.setattr(records_module, "decode_records", forbidden)
    monkeypatch.setattr(validation, "batch_records_data", forbidden)
    data = encode_batch(items(10), producer_id=12, producer_epoch=3, base_sequence=40)
    result = validate_produce_records(memoryview(data), NOW)
    assert isinstance(result.buffer, bytearray) and bytes(result.buffer) == data
    assert result.record_count == 10 and result.shallow_count == 1
    assert result.max_timestamp == NOW - 991
    assert (result.producer_id, result.producer_epoch, result.base_sequence, result.last_sequence) == (12, 3, 40, 49)
    assert not result.is_transactional
    assert result.header.record_count == 10


def test_assign_offsets_create_time_touches_only_offset_and_epoch():
    data = encode_batch(items(5))
    result = validate_produce_records(data, NOW)
    assert result.assign_offsets(1000, 7) == 1004
    changed = [i for i in range(len(data)) if result.buffer[i] != data[i]]
    assert changed and set(changed) <= set(range(0, 8)) | set(range(12, 16))
    header, decoded = decode_batch(bytes(result.buffer))
    assert header.base_offset == 1000 and header.partition_leader_epoch == 7
    assert [r.offset for r in decoded] == list(range(1000, 1005))
    assert result.header.base_offset == 1000 and result.header.partition_leader_epoch == 7


def test_assign_offsets_log_append_time_rewrites_max_timestamp_and_crc():
    data = encode_batch(items(5))
    result = validate_produce_records(data, NOW, timestamp_type="LogAppendTime")
    assert result.assign_offsets(0, 1, log_append_time_ms=NOW + 5) == 4
    assert result.max_timestamp == NOW + 5
    header, decoded = decode_batch(bytes(result.buffer))
    assert header.is_log_append_time and header.max_timestamp == NOW + 5
    assert [r.timestamp for r in decoded] == [NOW + 5] * 5
    default_time = validate_produce_records(data, NOW, timestamp_type="LogAppendTime")
    default_time.assign_offsets(0, 1)
    assert read_batch_header(default_time.buffer).max_timestamp == NOW


@pytest.mark.parametrize("codec", [GZIP, SNAPPY, LZ4, ZSTD])
def test_compressed_batch_is_decoded_and_checked(codec):
    data = encode_batch(items(20), compression=codec)
    result = validate_produce_records(data, NOW)
    assert result.record_count == 20 and result.max_timestamp == NOW - 981
    assert result.assign_offsets(50, 2) == 69
    check_crc(result.buffer, 0, read_batch_header(result.buffer))
    wrong_count = patch_header(data, record_count=21, last_offset_delta=20)
    with pytest.raises(InvalidRecordError, match="declares"):
        validate_produce_records(wrong_count, NOW)


def test_compressed_batch_with_gapped_offsets_is_rebuilt_as_kafka_25_does():
    """Kafka rebuilds, rather than rejects, a compressed batch whose inner offsets are not 0, 1, 2, ... (old clients
    wrote such batches)."""
    gapped = encode_batch([Record(0, NOW, b"a", b"1"), Record(2, NOW, b"b", b"2")], compression=GZIP)
    gapped = patch_header(gapped, last_offset_delta=1)
    result = validate_produce_records(gapped, NOW)
    assert result.converted and result.assign_offsets(40, 0) == 41
    header, decoded = decode_batch(bytes(result.buffer))
    assert header.compression == GZIP
    assert [(r.offset, r.key, r.value) for r in decoded] == [(40, b"a", b"1"), (41, b"b", b"2")]


def test_compressed_batch_with_wrong_max_timestamp_is_corrected():
    data = patch_header(encode_batch(items(3), compression=GZIP), max_timestamp=5)
    result = validate_produce_records(data, NOW)
    assert result.max_timestamp == NOW - 998
    result.assign_offsets(0, 0)
    header = read_batch_header(result.buffer)
    assert header.max_timestamp == NOW - 998
    check_crc(result.buffer, 0, header)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d + b"\x00",  # trailing garbage
        lambda d: d + d,  # two batches
        lambda d: d + d[:30],  # trailing partial batch
        lambda d: d[:-1],  # truncated batch
        lambda d: d[: BATCH_HEADER_SIZE - 1],  # truncated header
        lambda d: b"",  # nothing
        lambda d: d[:16],  # not even a magic byte
    ],
)
def test_not_exactly_one_whole_batch(mutate):
    with pytest.raises(InvalidRecordError):
        validate_produce_records(mutate(encode_batch(items(3))), NOW)


def test_header_checks():
    data = encode_batch(items(3))
    corrupt = bytearray(data)
    corrupt[40] ^= 0x10
    with pytest.raises(InvalidRecordError, match="CRC"):
        validate_produce_records(bytes(corrupt), NOW)
    bad_magic = bytearray(data)
    bad_magic[16] = 3
    with pytest.raises(InvalidRecordError, match="magic"):
        validate_produce_records(bytes(bad_magic), NOW)
    short = bytearray(data)
    struct.pack_into(">i", short, 8, 20)
    with pytest.raises(InvalidRecordError, match="below minimum"):
        validate_produce_records(bytes(short), NOW)
    with pytest.raises(InvalidRecordError, match="inconsistent"):
        validate_produce_records(patch_header(data, last_offset_delta=5), NOW)
    with pytest.raises(InvalidRecordError, match="record count"):
        validate_produce_records(patch_header(data, record_count=0, last_offset_delta=-1), NOW)
    with pytest.raises(InvalidRecordError, match="sequence"):
        validate_produce_records(patch_header(data, producer_id=5, producer_epoch=0), NOW)


def test_record_too_large():
    data = encode_batch(items(30))
    with pytest.raises(RecordTooLargeError):
        validate_produce_records(data, NOW, max_message_bytes=len(data) - 1)
    assert validate_produce_records(data, NOW, max_message_bytes=len(data)).record_count == 30


def test_control_batches_only_from_the_coordinator():
    marker = encode_batch(
        [control_marker_record(True, 3)],
        producer_id=4,
        producer_epoch=0,
        base_sequence=0,
        is_transactional=True,
        is_control=True,
    )
    with pytest.raises(InvalidRecordError, match="control"):
        validate_produce_records(marker, NOW)
    result = validate_produce_records(marker, NOW, from_client=False, codec_for_topic="gzip")
    assert result.header.is_control and result.header.compression == NONE


def test_producer_must_not_set_log_append_time():
    data = encode_batch(items(2), timestamp_type=1, log_append_time_ms=NOW)
    with pytest.raises(InvalidTimestampError):
        validate_produce_records(data, NOW)
    legacy = encode_message_set([Record(0, NOW, b"k", b"v")], 1, timestamp_type=1)
    with pytest.raises(InvalidTimestampError):
        validate_produce_records(legacy, NOW)


def test_timestamp_difference_and_compacted_keys():
    data = encode_batch(items(3, start=NOW - 10_000))
    with pytest.raises(InvalidTimestampError):
        validate_produce_records(data, NOW, timestamp_diff_max_ms=5000)
    assert validate_produce_records(data, NOW, timestamp_diff_max_ms=20_000).record_count == 3
    assert (
        validate_produce_records(data, NOW, timestamp_diff_max_ms=5000, timestamp_type="LogAppendTime").record_count
        == 3
    )
    keyless = encode_batch([(None, b"v")])
    assert validate_produce_records(keyless, NOW).record_count == 1
    with pytest.raises(MissingKeyError, match="One or more records have been rejected") as error:
        validate_produce_records(keyless, NOW, compacted=True, topic_partition=("t", 3))
    assert error.value.record_errors == [
        (0, "Compacted topic cannot accept message without key in topic partition t-3.")
    ]
    with pytest.raises(MissingKeyError):
        validate_produce_records(encode_batch([(None, b"v")], compression=GZIP), NOW, compacted=True)


@pytest.mark.parametrize("codec", [NONE, GZIP])
def test_every_failing_record_is_named_and_a_timestamp_error_decides_the_code(codec):
    """Kafka 2.5's RecordValidationException: a record's key is checked before its timestamp, every record is
    checked, and any timestamp error makes the batch INVALID_TIMESTAMP."""
    batch = encode_batch(
        [(b"k", b"v", (), NOW), (None, b"v", (), NOW), (b"k", b"v", (), NOW - 10_000), (None, b"v", (), NOW - 10_000)],
        compression=codec,
    )
    with pytest.raises(MissingKeyError) as error:
        validate_produce_records(batch, NOW, compacted=True, topic_partition=("t", 0))
    assert [index for index, _ in error.value.record_errors] == [1, 3]
    with pytest.raises(InvalidTimestampError, match="due to invalid timestamp") as error:
        validate_produce_records(batch, NOW, compacted=True, timestamp_diff_max_ms=5000, topic_partition=("t", 0))
    assert error.value.record_errors == [
        (1, "Compacted topic cannot accept message without key in topic partition t-0."),
        (
            2,
            "Timestamp %d of message with offset 2 is out of range. The timestamp should be within [%d, %d]"
            % (NOW - 10_000, NOW - 5000, NOW + 5000),
        ),
        (3, "Compacted topic cannot accept message without key in topic partition t-0."),
    ]
    appended_at = encode_batch(
        [(b"key", b"value"), (None, b"v")], compression=codec, timestamp_type=1, log_append_time_ms=NOW
    )
    with pytest.raises(InvalidTimestampError) as error:
        validate_produce_records(appended_at, NOW)
    assert error.value.record_errors == [
        (
            index,
            "Invalid timestamp type in message DefaultRecord(offset=%d, timestamp=%d, key=%d bytes, value=%d "
            "bytes). Producer should not set timestamp type to LogAppendTime." % (index, NOW, key, value),
        )
        for index, key, value in [(0, 3, 5), (1, 0, 1)]
    ]


def test_a_batch_refused_whole_is_an_invalid_batch_and_a_corrupt_one_is_not():
    data = encode_batch(items(2))
    with pytest.raises(InvalidBatchError):
        validate_produce_records(data + data, NOW)
    with pytest.raises(InvalidBatchError):
        validate_produce_records(patch_header(data, last_offset_delta=5), NOW)
    corrupt = bytearray(data)
    corrupt[-1] ^= 0xFF
    with pytest.raises(InvalidRecordError) as error:
        validate_produce_records(bytes(corrupt), NOW)
    assert not isinstance(error.value, InvalidBatchError)


@pytest.mark.parametrize("target", ["lz4", "uncompressed", ZSTD])
def test_topic_codec_recompresses(target):
    data = encode_batch(
        items(8), compression=GZIP, producer_id=3, producer_epoch=1, base_sequence=0, is_transactional=True
    )
    result = validate_produce_records(data, NOW, codec_for_topic=target)
    header, decoded = decode_batch(bytes(result.buffer))
    assert header.compression == {"lz4": LZ4, "uncompressed": NONE, ZSTD: ZSTD}[target]
    assert (header.producer_id, header.producer_epoch, header.base_sequence, header.is_transactional) == (3, 1, 0, True)
    assert [(r.key, r.value, r.headers, r.timestamp) for r in decoded] == [
        (k, v, list(h), ts) for k, v, h, ts in items(8)
    ]
    assert result.assign_offsets(10, 0) == 17


def test_producer_codec_is_kept():
    data = encode_batch(items(4), compression=SNAPPY)
    assert bytes(validate_produce_records(data, NOW, codec_for_topic="producer").buffer) == data
    assert bytes(validate_produce_records(data, NOW, codec_for_topic=SNAPPY).buffer) == data


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("codec", [NONE, GZIP, LZ4])
def test_legacy_input_is_up_converted(magic, codec):
    legacy = encode_message_set([Record(i, NOW + i, b"k%d" % i, b"v%d" % i) for i in range(6)], magic, codec)
    result = validate_produce_records(legacy, NOW)
    assert result.record_count == 6
    assert result.assign_offsets(100, 1) == 105
    header, decoded = decode_batch(bytes(result.buffer))
    assert header.compression == codec
    assert [(r.offset, r.key) for r in decoded] == [(100 + i, b"k%d" % i) for i in range(6)]
    assert [r.timestamp for r in decoded] == ([NOW + i for i in range(6)] if magic == 1 else [-1] * 6)


def test_legacy_message_too_large():
    legacy = encode_message_set([Record(0, NOW, b"k", b"x" * 2000)], 1)
    with pytest.raises(RecordTooLargeError):
        validate_produce_records(legacy, NOW, max_message_bytes=1000)


def test_down_convert_is_exported():
    data = encode_batch(items(2))
    assert down_convert(data, 1) == encode_message_set(
        [Record(i, NOW - 1000 + i, b"k%d" % i, b"value-%d" % i * 4) for i in range(2)], 1
    )


@pytest.mark.parametrize("codec", [NONE, GZIP])
def test_fuzz_byte_flips(codec):
    rng = random.Random(99 + codec)
    original = encode_batch(items(8), compression=codec)
    for _ in range(1500):
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.5 and len(data) >= BATCH_HEADER_SIZE:
            data = bytearray(with_crc(data))
        try:
            validate_produce_records(bytes(data), NOW)
        except (InvalidRecordError, InvalidTimestampError):
            pass


def test_hostile_record_inside_compressed_batch():
    body = encode_varint(9) + b"\x00\x00\x00" + encode_varint(1 << 20) + b"ab"
    payload = compress(GZIP, body)
    buf = bytearray(BATCH_HEADER_SIZE) + payload
    HEADER_STRUCT.pack_into(buf, 0, 0, len(buf) - LOG_OVERHEAD, -1, 2, 0, GZIP, 0, NOW, NOW, -1, -1, -1, 1)
    with pytest.raises(InvalidRecordError):
        validate_produce_records(with_crc(buf), NOW)
