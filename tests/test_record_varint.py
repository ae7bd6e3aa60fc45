"""Zigzag varints and varlongs of v2 records at their edge values."""

import pytest

from kafka_zk.record.varint import (
    encode_uvarint,
    encode_varint,
    read_uvarint,
    read_varint,
    read_varlong,
    sizeof_varint,
    zigzag_decode,
    zigzag_encode,
)

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


@pytest.mark.parametrize(
    "value,encoded",
    [
        (0, b"\x00"),
        (-1, b"\x01"),
        (1, b"\x02"),
        (63, b"\x7e"),
        (-64, b"\x7f"),
        (64, b"\x80\x01"),
        (-65, b"\x81\x01"),
        (INT32_MAX, b"\xfe\xff\xff\xff\x0f"),
        (INT32_MIN, b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_known_encodings(value, encoded):
    assert encode_varint(value) == encoded
    assert read_varint(encoded, 0) == (value, len(encoded))
    assert sizeof_varint(value) == len(encoded)


@pytest.mark.parametrize(
    "value", [0, 1, -1, 127, 128, -129, INT32_MIN, INT32_MAX, INT32_MAX + 1, INT64_MIN, INT64_MAX, 1 << 40, -(1 << 40)]
)
def test_varlong_round_trip(value):
    encoded = encode_varint(value)
    assert len(encoded) == sizeof_varint(value) <= 10
    assert read_varlong(b"\xaa" + encoded + b"\xbb", 1) == (value, 1 + len(encoded))
    assert zigzag_decode(zigzag_encode(value) & 0xFFFFFFFFFFFFFFFF) == value


def test_int64_extremes_take_ten_bytes():
    assert encode_varint(INT64_MIN) == b"\xff" * 9 + b"\x01"
    assert encode_varint(INT64_MAX) == b"\xfe" + b"\xff" * 8 + b"\x01"


def test_unsigned_varint():
    assert encode_uvarint(0) == b"\x00"
    assert encode_uvarint(300) == b"\xac\x02"
    assert read_uvarint(b"\xac\x02", 0) == (300, 2)


def test_truncated_and_overlong_varints_raise_value_error():
    with pytest.raises(ValueError):
        read_varint(b"\x80\x80", 0)
    with pytest.raises(ValueError):
        read_varint(b"", 0)
    with pytest.raises(ValueError):
        read_varint(b"\x80" * 5 + b"\x01", 0)  # six bytes: too long for an int32 varint
    with pytest.raises(ValueError):
        read_varlong(b"\x80" * 10 + b"\x01", 0)
