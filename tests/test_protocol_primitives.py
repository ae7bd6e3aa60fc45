"""Reader/Writer primitives: round trips, truncation and hostile lengths."""

import struct

import pytest

from kafka_zk.protocol.primitives import (
    CHUNK_THRESHOLD,
    ProtocolDecodeError,
    ProtocolEncodeError,
    Reader,
    Writer,
)


def test_fixed_width_round_trip():
    w = Writer()
    w.write_int8(-128)
    w.write_int16(-2)
    w.write_int32(2**31 - 1)
    w.write_int64(-(2**63))
    w.write_uint32(2**32 - 1)
    w.write_bool(True)
    w.write_bool(False)
    w.write_float64(1.5)
    r = Reader(w.getvalue())
    assert r.read_int8() == -128
    assert r.read_int16() == -2
    assert r.read_int32() == 2**31 - 1
    assert r.read_int64() == -(2**63)
    assert r.read_uint32() == 2**32 - 1
    assert r.read_bool() is True
    assert r.read_bool() is False
    assert r.read_float64() == 1.5
    assert r.remaining() == 0


def test_big_endian_layout():
    w = Writer()
    w.write_int16(0x0102)
    w.write_int32(-1)
    assert w.getvalue() == b"\x01\x02\xff\xff\xff\xff"


@pytest.mark.parametrize(
    "method, size",
    [
        ("read_int8", 1),
        ("read_int16", 2),
        ("read_int32", 4),
        ("read_int64", 8),
        ("read_uint32", 4),
        ("read_bool", 1),
        ("read_float64", 8),
    ],
)
def test_truncated_fixed_width(method, size):
    r = Reader(b"\x00" * (size - 1))
    with pytest.raises(ProtocolDecodeError):
        getattr(r, method)()


def test_varints_round_trip_and_errors():
    w = Writer()
    for value in (0, 1, 127, 128, 300, 2**32 - 1):
        w.write_uvarint(value)
    for value in (0, -1, 1, -(2**31), 2**31 - 1):
        w.write_varint(value)
    w.write_varlong(-(2**63))
    r = Reader(w.getvalue())
    assert [r.read_uvarint() for _ in range(6)] == [0, 1, 127, 128, 300, 2**32 - 1]
    assert [r.read_varint() for _ in range(5)] == [0, -1, 1, -(2**31), 2**31 - 1]
    assert r.read_varlong() == -(2**63)
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\x80\x80").read_uvarint()  # truncated
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\xff" * 6).read_uvarint()  # longer than 5 bytes
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\xff\xff\xff\xff\x7f").read_uvarint()  # above 32 bits
    with pytest.raises(ProtocolEncodeError):
        Writer().write_uvarint(-1)


def test_strings_plain_nullable_and_compact():
    w = Writer()
    w.write_string("héllo")
    w.write_nullable_string(None)
    w.write_nullable_string("")
    w.write_compact_string("ab")
    w.write_compact_nullable_string(None)
    data = w.getvalue()
    assert data[:2] == b"\x00\x06"  # length counts UTF-8 bytes
    r = Reader(data)
    assert r.read_string() == "héllo"
    assert r.read_nullable_string() is None
    assert r.read_nullable_string() == ""
    assert r.read_compact_string() == "ab"
    assert r.read_compact_nullable_string() is None
    assert r.remaining() == 0


def test_string_hostile_lengths():
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\xff\xff").read_string()  # null where not nullable
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\xff\xfe").read_nullable_string()  # -2 is never valid
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\x00\x05abc").read_string()  # longer than what remains
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\x00").read_compact_string()  # compact null where not nullable
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\x0aabc").read_compact_nullable_string()
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\x00\x02\xff\xfe").read_string()  # invalid UTF-8


def test_bytes_hostile_lengths_fail_before_allocating():
    with pytest.raises(ProtocolDecodeError):
        Reader(struct.pack(">i", 0x7FFFFFFF) + b"abc").read_bytes()
    with pytest.raises(ProtocolDecodeError):
        Reader(struct.pack(">i", -1)).read_bytes()
    with pytest.raises(ProtocolDecodeError):
        Reader(struct.pack(">i", -5)).read_nullable_bytes()
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\xff\xff\xff\xff\x0f").read_compact_bytes()
    with pytest.raises(ProtocolDecodeError):
        Reader(struct.pack(">i", 1 << 30)).read_records()
    assert Reader(struct.pack(">i", -1)).read_nullable_bytes() is None
    assert Reader(struct.pack(">i", -1)).read_records() is None


def test_bytes_decode_to_bytes():
    w = Writer()
    w.write_bytes(b"xyz")
    w.write_compact_nullable_bytes(b"")
    r = Reader(w.getvalue())
    value = r.read_bytes()
    assert type(value) is bytes and value == b"xyz"
    assert r.read_compact_nullable_bytes() == b""


def test_array_length_cannot_exceed_remaining_bytes():
    r = Reader(struct.pack(">i", 1_000_000_000) + b"\x00" * 8)
    with pytest.raises(ProtocolDecodeError):
        r.array_length(nullable=False, compact=False)
    assert Reader(struct.pack(">i", -1)).array_length(nullable=True, compact=False) is None
    with pytest.raises(ProtocolDecodeError):
        Reader(struct.pack(">i", -1)).array_length(nullable=False, compact=False)
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\xff\xff\xff\x7f").array_length(nullable=False, compact=True)
    with pytest.raises(ProtocolDecodeError):
        Reader(b"\x00" * 8).read_int32_array_items(3)


def test_records_decode_is_a_zero_copy_view():
    payload = bytes(range(256)) * 64
    buf = struct.pack(">i", len(payload)) + payload
    view = Reader(buf).read_records()
    assert isinstance(view, memoryview)
    assert view.obj is buf
    assert view == payload


def test_records_encode_accepts_chunks_without_copying_large_ones():
    big = bytes(CHUNK_THRESHOLD * 4)
    small = b"tail"
    w = Writer()
    w.write_int16(7)
    w.write_records([big, memoryview(small)])
    chunks = w.chunks()
    assert any(chunk is big for chunk in chunks)
    expected = b"\x00\x07" + struct.pack(">i", len(big) + len(small)) + big + small
    assert b"".join(chunks) == expected
    assert w.getvalue() == expected
    assert w.size() == len(expected)


def test_records_null_and_compact():
    w = Writer()
    w.write_records(None)
    w.write_records(b"ab", compact=True)
    w.write_records(None, compact=True)
    r = Reader(w.getvalue())
    assert r.read_records() is None
    assert r.read_compact_records() == b"ab"
    assert r.read_compact_records() is None
    with pytest.raises(ProtocolEncodeError):
        Writer().write_records(None, nullable=False)


def test_writer_rejects_none_for_non_nullable():
    for method in ("write_string", "write_compact_string", "write_bytes", "write_compact_bytes", "write_bool"):
        with pytest.raises(ProtocolEncodeError):
            getattr(Writer(), method)(None)


def test_reader_accepts_bytearray_and_offset():
    r = Reader(bytearray(b"\x00\x00\x00\x05\x00\x01"), 4)
    assert r.read_int16() == 1
