"""Zigzag varints and varlongs as used inside v2 records, and unsigned varints of flexible versions."""

from kafka_zk.record.buffers import ReadableBuffer


def zigzag_encode(value: int) -> int:
    return (value << 1) ^ (value >> 63)


def zigzag_decode(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def write_uvarint(out: bytearray, value: int) -> None:
    """Append an unsigned varint to bytearray ``out``."""
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def encode_uvarint(value: int) -> bytes:
    out = bytearray()
    write_uvarint(out, value)
    return bytes(out)


def write_varint(out: bytearray, value: int) -> None:
    """Append a signed (zigzag) varint or varlong to bytearray ``out``."""
    write_uvarint(out, zigzag_encode(value) & 0xFFFFFFFFFFFFFFFF)


def encode_varint(value: int) -> bytes:
    out = bytearray()
    write_varint(out, value)
    return bytes(out)


def read_uvarint(buf: ReadableBuffer, pos: int, max_bytes: int = 10) -> tuple[int, int]:
    """Return (value, new_pos). Raises ValueError on a truncated or overlong varint."""
    result = 0
    shift = 0
    end = len(buf)
    for _ in range(max_bytes):
        if pos >= end:
            raise ValueError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise ValueError("varint too long")


def read_varint(buf: ReadableBuffer, pos: int) -> tuple[int, int]:
    """Signed zigzag varint (up to 5 bytes). Returns (value, new_pos)."""
    raw, pos = read_uvarint(buf, pos, 5)
    return zigzag_decode(raw), pos


def read_varlong(buf: ReadableBuffer, pos: int) -> tuple[int, int]:
    """Signed zigzag varlong (up to 10 bytes). Returns (value, new_pos)."""
    raw, pos = read_uvarint(buf, pos, 10)
    return zigzag_decode(raw), pos


def sizeof_varint(value: int) -> int:
    raw = zigzag_encode(value) & 0xFFFFFFFFFFFFFFFF
    size = 1
    while raw >= 0x80:
        raw >>= 7
        size += 1
    return size
