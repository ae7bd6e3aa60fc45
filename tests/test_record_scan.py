"""scan_records, the produce path's walk over a kept batch's records, against the full record decoder."""

import random
import struct

import pytest

from kafka_zk.record import compression, validation
from kafka_zk.record import records as records_module
from kafka_zk.record.batch_header import (
    BATCH_HEADER_SIZE,
    CRC_POS,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    InvalidRecordError,
    compute_crc,
)
from kafka_zk.record.compression import GZIP, LZ4, SNAPPY, ZSTD, compress
from kafka_zk.record.records import (
    NO_TIMESTAMP,
    Record,
    batch_records_data,
    decode_records,
    encode_batch,
    read_full_header,
    scan_records,
)
from kafka_zk.record.validation import InvalidTimestampError, MissingKeyError, validate_produce_records

NOW = 1_700_000_000_000
CODECS = [GZIP, SNAPPY, LZ4, ZSTD]
_CRC = struct.Struct(">I")


def random_records(rng):
    count = rng.choice([1, 2, 3, 7, 40, 150])
    first = rng.choice([NOW, NOW - 10_000_000, NOW + 5_000, 0, NO_TIMESTAMP])
    offsets = list(range(count))
    if rng.random() < 0.2 and count > 1:
        offsets = sorted(rng.sample(range(count * 2), count))  # gaps: rejected when compressed
    out = []
    for offset in offsets:
        key = rng.choice([None, b"", b"k%d" % offset, bytes(rng.randrange(256) for _ in range(rng.randrange(200)))])
        if rng.random() < 0.1:
            key = None
        value = rng.choice([None, b"", b"v" * rng.choice([1, 60, 100, 300, 9_000])])
        headers = []
        for _ in range(rng.choice([0, 0, 0, 1, 3])):
            name = rng.choice(["h", "trace-id", "", b"\xff\xfe", "\u00e9"])
            headers.append((name, rng.choice([None, b"", b"x" * rng.randrange(300)])))
        delta = rng.choice([0, 1, 63, 64, 200, 10_000, -5, 1 << 40, rng.randrange(-100_000, 100_000)])
        out.append(Record(offset, first + delta, key, value, headers))
    return out, first


def mutate(rng, section):
    data = bytearray(section)
    kind = rng.randrange(6)
    if kind == 0 and data:
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == 1 and data:
        del data[rng.randrange(len(data)) :]
    elif kind == 2:
        at = rng.randrange(len(data) + 1)
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
    elif kind == 3 and data:
        at = rng.randrange(len(data))
        del data[at : at + rng.randint(1, 4)]
    elif kind == 4 and data:
        data[rng.randrange(len(data))] = rng.choice([0x00, 0x01, 0x7F, 0x80, 0xFF, 0x03])
    return bytes(data)


def full_outcome(header, data, check_offsets, compacted, diff):
    """What decode_records plus the broker's per-record checks say about the section."""
    try:
        records = decode_records(header, data)
    except InvalidRecordError:
        return "malformed"
    max_timestamp = max((record.timestamp for record in records), default=NO_TIMESTAMP)
    for index, record in enumerate(records):
        if check_offsets and record.offset - header.base_offset != index:
            return max_timestamp, ("offset", index)
        if compacted and record.key is None:
            return max_timestamp, ("key", index)
        if diff is not None and record.timestamp != NO_TIMESTAMP and abs(record.timestamp - NOW) > diff:
            return max_timestamp, ("timestamp", index)
    return max_timestamp, None


def scan_outcome(header, data, check_offsets, compacted, diff):
    try:
        max_timestamp, problem = scan_records(header, data, check_offsets, compacted, NOW, diff)
    except InvalidRecordError:
        return "malformed"
    return max_timestamp, problem and problem[:2]


def test_scan_accepts_and_rejects_what_the_full_decode_does():
    rng = random.Random(22)
    verdicts = set()
    for case in range(1000):
        records, first = random_records(rng)
        batch = encode_batch(records, first_timestamp=first, base_offset=records[0].offset)
        header = read_full_header(batch)
        if rng.random() < 0.1:
            header = header._replace(record_count=header.record_count + rng.choice([-1, 1]))
        section = bytes(batch[BATCH_HEADER_SIZE:])
        if case % 3:
            section = mutate(rng, section)
        flags = (rng.random() < 0.7, rng.random() < 0.3, rng.choice([None, None, 1000, 3_600_000]))
        expected = full_outcome(header, section, *flags)
        assert scan_outcome(header, section, *flags) == expected, (case, flags)
        verdicts.add(expected if expected == "malformed" else expected[1] and expected[1][0])
    assert verdicts == {"malformed", None, "offset", "key", "timestamp"}


def test_scan_of_log_append_time_and_empty_sections():
    batch = encode_batch([(None, b"v"), (None, b"w")], timestamp_type=1, log_append_time_ms=NOW)
    header = read_full_header(batch)
    assert scan_records(header, batch[BATCH_HEADER_SIZE:]) == (NOW, None)
    empty = encode_batch([], last_offset_delta=3)
    assert scan_records(read_full_header(empty), b"") == (NO_TIMESTAMP, None)


def with_crc(buf):
    buf = bytearray(buf)
    _CRC.pack_into(buf, CRC_POS, compute_crc(buf, 0, len(buf)))
    return bytes(buf)


def compressed_batch(codec, section, record_count, first, producer_id=-1, base_sequence=-1):
    """A v2 batch of ``section`` compressed with ``codec``, its header declaring ``record_count``."""
    buf = bytearray(BATCH_HEADER_SIZE) + compress(codec, section)
    HEADER_STRUCT.pack_into(
        buf,
        0,
        0,
        len(buf) - LOG_OVERHEAD,
        -1,
        2,
        0,
        codec,
        max(record_count - 1, 0),
        first,
        first,
        producer_id,
        0 if producer_id >= 0 else -1,
        base_sequence,
        record_count,
    )
    return with_crc(buf)


def old_validation(batch, compacted, diff):
    """The outcome of validating a compressed batch by decoding every record (the path before scan_records)."""
    header = read_full_header(batch)
    try:
        records = decode_records(header, batch_records_data(batch, 0, header))
        validation._check_records(records, header, NOW, compacted, diff, ("t", 0))
    except (InvalidRecordError, InvalidTimestampError) as exc:
        return type(exc), None
    consecutive = [record.offset for record in records] == list(range(len(records)))
    return max((record.timestamp for record in records), default=NO_TIMESTAMP), consecutive


@pytest.mark.parametrize("codec", CODECS)
def test_compressed_validation_matches_the_decoding_one(codec):
    rng = random.Random(codec)
    kinds = set()
    for case in range(150):
        records, first = random_records(rng)
        plain = encode_batch(records, first_timestamp=first)
        section = bytes(plain[BATCH_HEADER_SIZE:])
        if case % 2:
            section = mutate(rng, section)
        batch = compressed_batch(codec, section, len(records), first, producer_id=7, base_sequence=0)
        compacted, diff = rng.random() < 0.3, rng.choice([None, 1000, 3_600_000])
        expected, consecutive = old_validation(batch, compacted, diff)
        try:
            result = validate_produce_records(batch, NOW, compacted=compacted, timestamp_diff_max_ms=diff)
        except (InvalidRecordError, InvalidTimestampError) as exc:
            assert type(exc) is expected, case
            kinds.add(type(exc))
            continue
        assert result.max_timestamp == expected, case
        # the producer's compressed bytes are kept, unless offsets other than 0, 1, 2, ... have the batch rebuilt
        assert (bytes(result.buffer) == batch) is consecutive, case
        kinds.add(None if consecutive else "rebuilt")
    assert kinds == {None, "rebuilt", InvalidRecordError, MissingKeyError, InvalidTimestampError}


@pytest.mark.parametrize("codec", CODECS)
def test_kept_compressed_batch_is_decompressed_once_and_not_decoded(codec, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a batch kept as it is must not be decoded")

    calls = []
    real_decompress = compression.decompress

    def counting_decompress(*args, **kwargs):
        calls.append(args[0])
        return real_decompress(*args, **kwargs)

    monkeypatch.setattr(validation, "decode_records", forbidden)
    monkeypatch.setattr(records_module, "decode_records", forbidden)
    monkeypatch.setattr(records_module, "decompress", counting_decompress)
    items = [(b"k%d" % i, b"value" * 20, [("h", b"x")], NOW - 50 + i % 7) for i in range(300)]
    batch = encode_batch(items, compression=codec, producer_id=3, producer_epoch=0, base_sequence=0)
    result = validate_produce_records(batch, NOW, compacted=True, timestamp_diff_max_ms=60_000)
    assert calls == [codec]
    assert bytes(result.buffer) == batch and result.max_timestamp == NOW - 44
    result.assign_offsets(100, 5)
    header = read_full_header(result.buffer)
    assert (header.base_offset, header.partition_leader_epoch, header.compression) == (100, 5, codec)
    assert bytes(result.buffer[BATCH_HEADER_SIZE:]) == bytes(batch[BATCH_HEADER_SIZE:])
