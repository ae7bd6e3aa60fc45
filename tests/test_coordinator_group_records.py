"""`__consumer_offsets` record formats and partitionFor, byte for byte."""

import pytest

from kafka_zk.coordinator.group.records import (
    GroupKey,
    GroupValue,
    MemberRecord,
    OffsetKey,
    OffsetValue,
    RecordFormatError,
    decode_group_value,
    decode_key,
    decode_offset_value,
    encode_group_key,
    encode_group_value,
    encode_offset_key,
    encode_offset_value,
    java_string_hash,
    partition_for,
)


def test_java_string_hash_matches_java():
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -2147483648
    assert java_string_hash("\U0001f600") == 31 * 0xD83D + 0xDE00  # surrogate pair, two code units


def test_partition_for_uses_abs_with_min_value_to_zero():
    assert partition_for("polygenelubricants", 50) == 0
    assert partition_for("hello", 50) == 99162322 % 50
    negative = "my-group-with-a-long-name"
    assert 0 <= partition_for(negative, 50) < 50
    assert partition_for("Aa", 50) == partition_for("BB", 50) == 2112 % 50


def test_offset_key_bytes_and_round_trip():
    key = OffsetKey("g", "t", 7)
    data = encode_offset_key(key)
    assert data == b"\x00\x01" + b"\x00\x01g" + b"\x00\x01t" + b"\x00\x00\x00\x07"
    assert decode_key(data) == key
    assert decode_key(encode_offset_key(key, version=0)) == key


def test_group_key_bytes_and_round_trip():
    data = encode_group_key(GroupKey("grp"))
    assert data == b"\x00\x02\x00\x03grp"
    assert decode_key(data) == GroupKey("grp")


def test_unknown_or_truncated_key_is_rejected():
    with pytest.raises(RecordFormatError):
        decode_key(b"\x00\x03\x00\x01g")
    with pytest.raises(RecordFormatError):
        decode_key(b"\x00\x01\x00\x05ab")


def test_offset_value_v3_is_written_without_expire_time():
    value = OffsetValue(offset=42, metadata="m", commit_timestamp=1000, leader_epoch=5)
    data = encode_offset_value(value)
    assert data == (
        b"\x00\x03" + (42).to_bytes(8, "big") + (5).to_bytes(4, "big") + b"\x00\x01m" + (1000).to_bytes(8, "big")
    )
    assert decode_offset_value(data) == value


def test_offset_value_v1_is_written_with_explicit_expire_time():
    value = OffsetValue(offset=3, metadata="", commit_timestamp=10, expire_timestamp=99)
    data = encode_offset_value(value)
    assert data[:2] == b"\x00\x01"
    assert len(data) == 2 + 8 + 2 + 8 + 8
    assert decode_offset_value(data) == value


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_offset_value_all_versions_round_trip(version):
    value = OffsetValue(
        offset=12345678901,
        metadata="meta",
        commit_timestamp=1600000000000,
        expire_timestamp=1600000099999 if version == 1 else None,
        leader_epoch=9 if version == 3 else -1,
    )
    assert decode_offset_value(encode_offset_value(value, version)) == value


def test_tombstones_decode_to_none():
    assert decode_offset_value(None) is None
    assert decode_group_value(None) is None


def _member(i, instance=None):
    return MemberRecord(
        "member-%d" % i,
        instance,
        "client-%d" % i,
        "/10.0.0.%d" % i,
        30000 + i,
        10000 + i,
        b"\x00\x00sub%d" % i,
        b"\x00\x00assign%d" % i,
    )


def test_group_value_v3_bytes_start_and_round_trip():
    value = GroupValue("consumer", 4, "range", "member-1", 1700000000000, [_member(1, "inst-1"), _member(2)])
    data = encode_group_value(value)
    assert data.startswith(b"\x00\x03\x00\x08consumer\x00\x00\x00\x04\x00\x05range\x00\x08member-1")
    assert decode_group_value(data) == value


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_group_value_all_versions_round_trip(version):
    member = _member(3, "inst" if version >= 3 else None)
    if version == 0:
        member.rebalance_timeout = member.session_timeout  # v0 has no rebalance timeout
    value = GroupValue("consumer", 1, "range", "member-3", 123 if version >= 2 else None, [member])
    assert decode_group_value(encode_group_value(value, version)) == value


def test_empty_group_value_has_null_protocol_and_leader():
    value = GroupValue("consumer", 2, None, None, 55, [])
    data = encode_group_value(value)
    assert b"\xff\xff\xff\xff" in data
    assert decode_group_value(data) == value


def test_truncated_values_are_rejected():
    data = encode_group_value(GroupValue("consumer", 1, "range", "m", 1, [_member(1)]))
    with pytest.raises(RecordFormatError):
        decode_group_value(data[:-3])
    with pytest.raises(RecordFormatError):
        decode_offset_value(b"\x00\x03\x00")
    with pytest.raises(RecordFormatError):
        decode_offset_value(b"\x00\x09" + bytes(20))
