"""Codecs of record batches: round trips, snappy framings, LZ4 header checksums, bounds."""

import gzip
import os
import struct

import lz4.frame
import pytest
import snappy
from kafka import codec as kafka_python_codec

from kafka_zk.record.batch_header import InvalidRecordError
from kafka_zk.record.compression import (
    GZIP,
    LZ4,
    NONE,
    SNAPPY,
    XERIAL_MAGIC,
    ZSTD,
    UnsupportedCodecError,
    _xxh32,
    codec_from_name,
    compress,
    decompress,
)

ALL_CODECS = [NONE, GZIP, SNAPPY, LZ4, ZSTD]
PAYLOADS = [b"", b"x", b"hello kafka " * 5000, os.urandom(100000)]


@pytest.mark.parametrize("codec", ALL_CODECS)
@pytest.mark.parametrize("payload", PAYLOADS, ids=["empty", "one", "text", "random"])
def test_round_trip(codec, payload):
    assert decompress(codec, compress(codec, payload)) == payload


def test_snappy_writes_xerial_framing_in_32k_blocks():
    payload = b"abcdefgh" * 10000  # 80000 bytes: three blocks
    data = compress(SNAPPY, payload)
    assert data[:8] == XERIAL_MAGIC
    assert struct.unpack_from(">ii", data, 8) == (1, 1)
    pos, blocks = 16, 0
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4 + length
        blocks += 1
    assert pos == len(data) and blocks == 3


def test_snappy_reads_raw_and_xerial_from_kafka_python():
    payload = b"some value " * 4000
    assert decompress(SNAPPY, snappy.compress(payload)) == payload
    assert decompress(SNAPPY, kafka_python_codec.snappy_encode(payload, xerial_blocksize=1024)) == payload
    assert kafka_python_codec.snappy_decode(compress(SNAPPY, payload)) == payload


def test_gzip_reads_concatenated_members_and_plain_gzip():
    assert decompress(GZIP, gzip.compress(b"abc") + gzip.compress(b"def")) == b"abcdef"
    assert gzip.decompress(compress(GZIP, b"payload")) == b"payload"


def test_lz4_frame_uses_independent_blocks_without_checksum():
    frame = compress(LZ4, b"data" * 1000)
    flags = frame[4]
    assert frame[:4] == b"\x04\x22\x4d\x18"
    assert flags & 0x20  # block independence
    assert not flags & 0x04  # no content checksum
    assert lz4.frame.decompress(frame) == b"data" * 1000


def test_xxh32_known_vectors():
    assert _xxh32(b"") == 0x02CC5D05
    assert _xxh32(b"a") == 0x550D7456
    assert _xxh32(b"abc") == 0x32D153FF
    assert _xxh32(b"Nobody inspects the spammish repetition") == 0xE2293B2F


def test_legacy_lz4_header_checksum():
    payload = b"magic zero " * 100
    legacy = compress(LZ4, payload, legacy_lz4_checksum=True)
    standard = compress(LZ4, payload)
    assert legacy[:6] == standard[:6] and legacy[7:] == standard[7:]
    assert legacy[6] == (_xxh32(legacy[:6]) >> 8) & 0xFF != standard[6]
    assert decompress(LZ4, legacy, legacy_lz4_checksum=True) == payload
    assert decompress(LZ4, standard, legacy_lz4_checksum=True) == payload
    with pytest.raises(InvalidRecordError):
        decompress(LZ4, legacy)


@pytest.mark.parametrize("codec", [GZIP, SNAPPY, LZ4, ZSTD])
def test_decompression_is_bounded(codec):
    bomb = compress(codec, bytes(2 * 1024 * 1024))
    assert len(bomb) < 200 * 1024
    with pytest.raises(InvalidRecordError, match="exceeds"):
        decompress(codec, bomb, limit=1024 * 1024)
    assert len(decompress(codec, bomb, limit=2 * 1024 * 1024)) == 2 * 1024 * 1024


def test_raw_snappy_bound_uses_declared_length():
    with pytest.raises(InvalidRecordError, match="exceeds"):
        decompress(SNAPPY, snappy.compress(bytes(5000)), limit=4999)


@pytest.mark.parametrize("codec", [GZIP, SNAPPY, LZ4, ZSTD])
@pytest.mark.parametrize(
    "garbage",
    [b"", b"\x00", b"\xff" * 40, XERIAL_MAGIC + b"\x00" * 8 + b"\x7f\xff\xff\xff", os.urandom(64)],
    ids=["empty", "zero", "ones", "xerial-header", "random"],
)
def test_garbage_raises_invalid_record(codec, garbage):
    try:
        decompress(codec, garbage)
    except InvalidRecordError:
        pass


@pytest.mark.parametrize("codec", [GZIP, SNAPPY, LZ4, ZSTD])
def test_truncated_data_raises_invalid_record(codec):
    data = compress(codec, os.urandom(5000))
    with pytest.raises(InvalidRecordError):
        decompress(codec, data[: len(data) // 2])


def test_unknown_codec():
    with pytest.raises(UnsupportedCodecError):
        compress(5, b"")
    with pytest.raises(InvalidRecordError):
        decompress(6, b"abc")


def test_codec_from_name():
    assert codec_from_name("producer") is None
    assert codec_from_name(None) is None
    assert codec_from_name("uncompressed") == NONE
    assert [codec_from_name(n) for n in ("gzip", "snappy", "lz4", "zstd")] == [GZIP, SNAPPY, LZ4, ZSTD]
    assert codec_from_name(3) == LZ4
    with pytest.raises(UnsupportedCodecError):
        codec_from_name("brotli")
