"""Compression codecs of Kafka record batches: gzip, snappy (xerial or raw), LZ4 frame, zstd."""

import struct
import zlib

import lz4.frame
import snappy
import zstandard

from kafka_zk.record.batch_header import InvalidRecordError
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.varint import read_uvarint

NONE = 0
GZIP = 1
SNAPPY = 2
LZ4 = 3
ZSTD = 4

CODEC_NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}
_CODECS_BY_NAME = {"none": NONE, "uncompressed": NONE, "gzip": GZIP, "snappy": SNAPPY, "lz4": LZ4, "zstd": ZSTD}

# A batch is limited by message.max.bytes (1 MiB by default) before compression; this bound only
# exists to stop a small hostile payload from expanding into gigabytes.
DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")
# What the Java client's SnappyOutputStream writes: format version 1, compatible with version 1.
_XERIAL_VERSION = 1
_XERIAL_BLOCK_SIZE = 32 * 1024
_INT32 = struct.Struct(">i")

_ZSTD_MAX_BLOCK = 128 * 1024
_LZ4_FIRST_STEP = 64 * 1024

_LZ4_MAGIC = b"\x04\x22\x4d\x18"
_LZ4_CONTENT_SIZE_FLAG = 0x08


class UnsupportedCodecError(ValueError):
    """A codec id outside 0-4, or one the requested format cannot carry (zstd in magic 0/1)."""


def codec_from_name(name: str | int | None) -> int | None:
    """Codec id for a compression.type value; None for "producer" (keep what the producer sent)."""
    if name is None or name == "producer":
        return None
    if isinstance(name, int):
        _check_codec(name)
        return name
    try:
        return _CODECS_BY_NAME[name.lower()]
    except KeyError:
        raise UnsupportedCodecError("unknown compression type %r" % (name,)) from None


def _check_codec(codec: int) -> None:
    if codec not in CODEC_NAMES:
        raise UnsupportedCodecError("unknown compression codec %r" % (codec,))


def compress(codec: int, data: ReadableBuffer, legacy_lz4_checksum: bool = False) -> bytes:
    """Compress ``data`` as one block for a batch of the given codec.

    Snappy is written in the xerial framing, which is what the Java producer and broker write and
    what every client reads (snappy-java's SnappyInputStream, librdkafka and kafka-python also
    accept raw snappy, but xerial is the one format all of them produce). ``legacy_lz4_checksum``
    reproduces the header checksum that magic 0 messages carry (computed over the magic bytes too).
    """
    if codec == NONE:
        return bytes(data)
    if codec == GZIP:
        compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return compressor.compress(data) + compressor.flush()
    if codec == SNAPPY:
        return _xerial_compress(data)
    if codec == LZ4:
        # Independent blocks: Kafka's Java reader decompresses every block on its own.
        frame: bytes = lz4.frame.compress(data, block_linked=False, content_checksum=False, store_size=False)
        if legacy_lz4_checksum:
            frame = frame[:6] + bytes([(_xxh32(frame[:6]) >> 8) & 0xFF]) + frame[7:]
        return frame
    if codec == ZSTD:
        compressed: bytes = zstandard.ZstdCompressor(level=3).compress(data)
        return compressed
    raise UnsupportedCodecError("unknown compression codec %r" % (codec,))


def decompress(
    codec: int, data: ReadableBuffer, limit: int = DEFAULT_MAX_DECOMPRESSED, legacy_lz4_checksum: bool = False
) -> bytes:
    """Decompress a batch's records block; InvalidRecordError if it is corrupt or exceeds ``limit``.

    ``legacy_lz4_checksum`` accepts the incorrect LZ4 header checksum of magic 0 messages.
    """
    if codec == NONE:
        return _bounded(bytes(data), limit)
    try:
        if codec == GZIP:
            return _gzip_decompress(data, limit)
        if codec == SNAPPY:
            if bytes(data[:8]) == XERIAL_MAGIC:
                return _xerial_decompress(data, limit)
            return _raw_snappy_decompress(data, limit)
        if codec == LZ4:
            if legacy_lz4_checksum:
                data = _fix_lz4_header_checksum(data)
            return _lz4_decompress(data, limit)
        if codec == ZSTD:
            return _zstd_decompress(data, limit)
    except InvalidRecordError:
        raise
    except (ValueError, RuntimeError, zlib.error, snappy.UncompressError, zstandard.ZstdError) as exc:
        raise InvalidRecordError("corrupt %s data: %s" % (CODEC_NAMES[codec], exc)) from None
    raise InvalidRecordError("unknown compression codec %r" % (codec,))


def _bounded(out: bytes, limit: int) -> bytes:
    if len(out) > limit:
        raise InvalidRecordError("decompressed size exceeds %d bytes" % limit)
    return out


def _gzip_decompress(data: ReadableBuffer, limit: int) -> bytes:
    """Decompress possibly concatenated gzip members."""
    parts: list[bytes] = []
    total = 0
    data = bytes(data)
    while True:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        part = inflater.decompress(data, limit - total + 1)
        total += len(part)
        if total > limit:
            raise InvalidRecordError("decompressed size exceeds %d bytes" % limit)
        if not inflater.eof:
            raise InvalidRecordError("truncated gzip data")
        parts.append(part)
        data = inflater.unused_data
        if not data:
            return b"".join(parts)


def _raw_snappy_decompress(data: ReadableBuffer, limit: int) -> bytes:
    length, _ = read_uvarint(data, 0, 5)
    if length > limit:
        raise InvalidRecordError("decompressed size exceeds %d bytes" % limit)
    uncompressed: bytes = snappy.uncompress(bytes(data))
    return uncompressed


def _xerial_compress(data: ReadableBuffer) -> bytes:
    view = memoryview(data)
    out = [_XERIAL_HEADER.pack(XERIAL_MAGIC, _XERIAL_VERSION, _XERIAL_VERSION)]
    for start in range(0, len(view), _XERIAL_BLOCK_SIZE):
        block = snappy.compress(bytes(view[start : start + _XERIAL_BLOCK_SIZE]))
        out.append(_INT32.pack(len(block)))
        out.append(block)
    return b"".join(out)


def _xerial_decompress(data: ReadableBuffer, limit: int) -> bytes:
    if len(data) < _XERIAL_HEADER.size:
        raise InvalidRecordError("truncated xerial snappy header")
    pos = _XERIAL_HEADER.size
    end = len(data)
    parts: list[bytes] = []
    total = 0
    while pos < end:
        if pos + 4 > end:
            raise InvalidRecordError("truncated xerial snappy block length")
        block_len = _INT32.unpack_from(data, pos)[0]
        pos += 4
        if block_len < 0 or pos + block_len > end:
            raise InvalidRecordError("xerial snappy block length %d exceeds the data" % block_len)
        block = data[pos : pos + block_len]
        pos += block_len
        total += read_uvarint(block, 0, 5)[0]
        if total > limit:
            raise InvalidRecordError("decompressed size exceeds %d bytes" % limit)
        parts.append(snappy.uncompress(bytes(block)))
    return b"".join(parts)


def _lz4_decompress(data: ReadableBuffer, limit: int) -> bytes:
    """Decompress an LZ4 frame, asking for output in growing steps: lz4 allocates the whole ``max_length``
    up front, so asking for ``limit`` at once costs more than decompressing a small batch."""
    decompressor = lz4.frame.LZ4FrameDecompressor()
    step = min(limit + 1, max(_LZ4_FIRST_STEP, 8 * len(data)))
    parts: list[bytes] = [decompressor.decompress(data, max_length=step)]
    total = len(parts[0])
    while total <= limit and not decompressor.eof and not decompressor.needs_input and parts[-1]:
        step = min(limit + 1 - total, 2 * step)
        parts.append(decompressor.decompress(b"", max_length=step))
        total += len(parts[-1])
    if total > limit:
        raise InvalidRecordError("decompressed size exceeds %d bytes" % limit)
    if not decompressor.eof:
        raise InvalidRecordError("truncated lz4 frame")
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _zstd_decompress(data: ReadableBuffer, limit: int) -> bytes:
    """Decompress zstd frames, feeding input in steps small enough that one step cannot overshoot
    the limit by much: a zstd block yields at most 128 KiB and takes at least three input bytes."""
    source = memoryview(bytes(data))
    if not source:
        raise InvalidRecordError("empty zstd data")
    parts: list[bytes] = []
    total = 0
    pos = 0
    while pos < len(source):
        inflater = zstandard.ZstdDecompressor().decompressobj()
        while not inflater.eof:
            if pos >= len(source):
                raise InvalidRecordError("truncated zstd frame")
            step = max(64, (limit - total) // _ZSTD_MAX_BLOCK * 3)
            chunk = source[pos : pos + step]
            pos += len(chunk)
            part = inflater.decompress(chunk)
            total += len(part)
            if total > limit:
                raise InvalidRecordError("decompressed size exceeds %d bytes" % limit)
            parts.append(part)
        pos -= len(inflater.unused_data)
    return b"".join(parts)


def _fix_lz4_header_checksum(data: ReadableBuffer) -> bytes:
    """Replace the magic-0 style header checksum with the one the LZ4 frame format specifies."""
    data = bytes(data)
    if len(data) < 7 or data[:4] != _LZ4_MAGIC:
        raise InvalidRecordError("not an lz4 frame")
    checksum_pos = 6 + (8 if data[4] & _LZ4_CONTENT_SIZE_FLAG else 0)
    if len(data) <= checksum_pos:
        raise InvalidRecordError("truncated lz4 frame header")
    checksum = (_xxh32(data[4:checksum_pos]) >> 8) & 0xFF
    return data[:checksum_pos] + bytes([checksum]) + data[checksum_pos + 1 :]


_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M32 = 0xFFFFFFFF


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _M32


def _xxh32(data: bytes, seed: int = 0) -> int:
    """XXH32 of a short input (LZ4 frame descriptors are at most 15 bytes)."""
    length = len(data)
    pos = 0
    if length >= 16:
        acc = [(seed + _P1 + _P2) & _M32, (seed + _P2) & _M32, seed, (seed - _P1) & _M32]
        while pos + 16 <= length:
            for lane in range(4):
                word = int.from_bytes(data[pos : pos + 4], "little")
                acc[lane] = (_rotl((acc[lane] + word * _P2) & _M32, 13) * _P1) & _M32
                pos += 4
        h32 = (_rotl(acc[0], 1) + _rotl(acc[1], 7) + _rotl(acc[2], 12) + _rotl(acc[3], 18)) & _M32
    else:
        h32 = (seed + _P5) & _M32
    h32 = (h32 + length) & _M32
    while pos + 4 <= length:
        word = int.from_bytes(data[pos : pos + 4], "little")
        h32 = (_rotl((h32 + word * _P3) & _M32, 17) * _P4) & _M32
        pos += 4
    while pos < length:
        h32 = (_rotl((h32 + data[pos] * _P5) & _M32, 11) * _P1) & _M32
        pos += 1
    h32 ^= h32 >> 15
    h32 = (h32 * _P2) & _M32
    h32 ^= h32 >> 13
    h32 = (h32 * _P3) & _M32
    h32 ^= h32 >> 16
    return h32
