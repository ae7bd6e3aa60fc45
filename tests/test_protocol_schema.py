"""Schema machinery: versions, defaults, tagged fields, null handling, records without copies."""

import struct

import pytest

from kafka_zk.protocol.messages import produce
from kafka_zk.protocol.primitives import ProtocolDecodeError, ProtocolEncodeError, Writer
from kafka_zk.protocol.schema import Array, Field, Schema, UnsupportedVersionError, Versions
from tests.raw_wire import produce_body

SAMPLE = Schema(
    "Sample",
    [
        Field("id", "int32"),
        Field("name", "string", "1+", nullable_versions="2+"),
        Field("note", "string", "2+", nullable_versions="2+", default=None),
        Field("limit", "int64", "1+", default=-1),
        Field(
            "items",
            Array(
                [
                    Field("key", "string"),
                    Field("values", Array("int32")),
                    Field("flag", "bool", "2+"),
                    Field("extra", "int32", "3+", tagged_versions="3+", tag=0, default=-1),
                ]
            ),
        ),
        Field("labels", Array("string"), "2+", nullable_versions="2+"),
        Field("hint", "string", "3+", tagged_versions="3+", tag=1, default=""),
        Field("hint_count", "int16", "3+", tagged_versions="3+", tag=5),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)


def test_versions_notation():
    assert 5 in Versions("0+") and 0 in Versions("0+")
    assert 3 in Versions("3-5") and 6 not in Versions("3-5") and 2 not in Versions("3-5")
    assert 7 in Versions("7") and 8 not in Versions("7")
    assert 0 not in Versions("none")


def test_decode_fills_fields_the_version_lacks():
    data = SAMPLE.encode({"id": 4, "items": [{"key": "k", "values": [1, 2]}]}, 0)
    assert data == struct.pack(">i", 4) + struct.pack(">i", 1) + b"\x00\x01k" + struct.pack(">iii", 2, 1, 2)
    decoded = SAMPLE.decode(data, 0)
    assert decoded == {
        "id": 4,
        "name": None,
        "note": None,
        "limit": -1,
        "labels": [],
        "hint": "",
        "hint_count": 0,
        "items": [{"key": "k", "values": [1, 2], "flag": False, "extra": -1}],
    }


def test_encode_takes_defaults_for_missing_keys():
    # v1: name is not nullable, so its default is the empty string; limit defaults to -1.
    assert SAMPLE.encode({}, 1) == struct.pack(">i", 0) + b"\x00\x00" + struct.pack(">q", -1) + struct.pack(">i", 0)
    # v2: name and note are nullable and default to null.
    v2 = SAMPLE.decode(SAMPLE.encode({}, 2), 2)
    assert v2["name"] is None and v2["note"] is None and v2["labels"] == []


def test_encode_ignores_keys_the_version_lacks():
    assert SAMPLE.encode({"id": 1, "limit": 99, "labels": ["x"]}, 0) == SAMPLE.encode({"id": 1}, 0)


def test_flexible_version_uses_compact_forms_and_tagged_fields():
    body = {
        "id": 1,
        "name": "ab",
        "note": None,
        "limit": 2,
        "labels": None,
        "items": [{"key": "k", "values": [], "flag": True}],
    }
    data = SAMPLE.encode(body, 3)
    expected = (
        struct.pack(">i", 1)
        + b"\x03ab"
        + b"\x00"
        + struct.pack(">q", 2)
        + b"\x02"
        + b"\x02k"
        + b"\x01"
        + b"\x01"
        + b"\x00"  # items: 1 item, key, [], flag, no tags
        + b"\x00"  # labels: null
        + b"\x00"
    )  # no top-level tags
    assert data == expected
    decoded = SAMPLE.decode(data, 3)
    assert decoded["items"][0]["extra"] == -1 and decoded["hint"] == "" and decoded["labels"] is None


def test_tagged_fields_round_trip_only_when_not_default():
    body = {"id": 1, "hint": "h", "hint_count": 3, "items": [{"key": "k", "values": [5], "extra": 9}]}
    data = SAMPLE.encode(body, 3)
    decoded = SAMPLE.decode(data, 3)
    assert decoded["hint"] == "h" and decoded["hint_count"] == 3
    assert decoded["items"][0]["extra"] == 9
    # Tags in ascending order at the end of the top-level struct: tag 1 ("h"), tag 5 (int16 3).
    assert data.endswith(b"\x02" + b"\x01\x02\x02h" + b"\x05\x02\x00\x03")


def test_unknown_tagged_fields_are_skipped():
    base = SAMPLE.encode({"id": 7}, 3)
    assert base.endswith(b"\x00")
    with_unknown = base[:-1] + b"\x02" + b"\x09\x03abc" + b"\x05\x02\x00\x04"
    decoded = SAMPLE.decode(with_unknown, 3)
    assert decoded["id"] == 7 and decoded["hint_count"] == 4 and decoded["hint"] == ""


def test_tagged_field_errors():
    base = SAMPLE.encode({"id": 7}, 3)[:-1]
    with pytest.raises(ProtocolDecodeError):
        SAMPLE.decode(base + b"\x01\x09\x7fabc", 3)  # size overruns the message
    with pytest.raises(ProtocolDecodeError):
        SAMPLE.decode(base + b"\x01\x05\x03\x00\x04\x00", 3)  # int16 declared as 3 bytes
    with pytest.raises(ProtocolDecodeError):
        SAMPLE.decode(base + b"\x7f", 3)  # more tags than bytes


def test_none_for_non_nullable_field_is_a_clear_error():
    with pytest.raises(ProtocolEncodeError, match=r"Sample v1\.name"):
        SAMPLE.encode({"name": None}, 1)
    with pytest.raises(ProtocolEncodeError, match=r"Sample v0\.items\[\]\.key"):
        SAMPLE.encode({"items": [{"key": None}]}, 0)
    with pytest.raises(ProtocolEncodeError, match=r"Sample v0\.id"):
        SAMPLE.encode({"id": None}, 0)
    with pytest.raises(ProtocolEncodeError, match=r"Sample v0\.items"):
        SAMPLE.encode({"items": None}, 0)
    with pytest.raises(ProtocolEncodeError, match=r"Sample v0\.id"):
        SAMPLE.encode({"id": 2**40}, 0)


def test_unsupported_version():
    with pytest.raises(UnsupportedVersionError):
        SAMPLE.encode({}, 4)
    with pytest.raises(UnsupportedVersionError):
        SAMPLE.decode(b"", -1)


def test_codecs_are_compiled_once_per_version():
    assert SAMPLE.codec(2) is SAMPLE.codec(2)
    assert SAMPLE.codec(2) is not SAMPLE.codec(3)


def test_truncated_body_raises():
    data = SAMPLE.encode({"id": 1, "items": [{"key": "abc", "values": [1, 2, 3]}]}, 2)
    for cut in range(len(data)):
        with pytest.raises(ProtocolDecodeError):
            SAMPLE.decode(data[:cut], 2)


def test_hostile_array_count_fails_fast():
    data = struct.pack(">i", 1) + struct.pack(">i", 0x7FFFFFFF)
    with pytest.raises(ProtocolDecodeError):
        SAMPLE.decode(data, 0)


def test_mutable_defaults_are_fresh():
    first = SAMPLE.decode(SAMPLE.encode({}, 0), 0)
    first["labels"].append("x")
    assert SAMPLE.decode(SAMPLE.encode({}, 0), 0)["labels"] == []


def test_produce_records_encode_without_intermediate_copies():
    blob = bytes(range(256)) * 64  # 16 KiB
    writer = Writer()
    produce.REQUEST.encode_into(writer, produce_body("t", 0, blob, acks=-1), 3)
    assert any(chunk is blob for chunk in writer.chunks())
    encoded = produce.REQUEST.encode(produce_body("t", 0, blob, acks=-1), 3)
    assert encoded.endswith(struct.pack(">i", len(blob)) + blob)


def test_produce_records_decode_to_a_view_of_the_request_buffer():
    blob = bytes(range(256)) * 64
    encoded = produce.REQUEST.encode(produce_body("t", 0, blob, acks=-1), 3)
    decoded = produce.REQUEST.decode(encoded, 3)
    records = decoded["topics"][0]["partitions"][0]["records"]
    assert isinstance(records, memoryview) and records.obj is encoded
    assert records == blob


def test_records_from_several_chunks():
    chunks = [b"a" * 2000, memoryview(b"b" * 3000), bytearray(b"c" * 10)]
    encoded = produce.REQUEST.encode(produce_body("t", 0, chunks, acks=-1), 5)
    decoded = produce.REQUEST.decode(encoded, 5)
    assert decoded["topics"][0]["partitions"][0]["records"] == b"a" * 2000 + b"b" * 3000 + b"c" * 10
    null = produce.REQUEST.decode(produce.REQUEST.encode(produce_body("t", 0, None, acks=-1), 5), 5)
    assert null["topics"][0]["partitions"][0]["records"] is None


def test_schema_definition_errors():
    with pytest.raises(ValueError):
        Field("x", "int99")
    with pytest.raises(ValueError):
        Field("x", "int32", tag=1)
    with pytest.raises(ValueError):
        Schema("Dup", [Field("a", "int8"), Field("a", "int8")], valid_versions="0").codec(0)
    with pytest.raises(ValueError):
        Schema("Open", [], valid_versions="0+")


RUNS = Schema(
    "Runs",
    [
        Field("a", "int32"),
        Field("b", "int16"),
        Field("c", "int64"),
        Field("ok", "bool"),
        Field("d", "int8"),
        Field("ids", Array("int32"), nullable_versions="1+"),
    ],
    valid_versions="0-1",
    flexible_versions="1+",
)


def test_runs_of_fixed_width_fields_round_trip_and_errors_name_the_field():
    body = {"a": -5, "b": 300, "c": 2**40, "ok": True, "d": -1, "ids": [7, -8]}
    for version in (0, 1):
        data = RUNS.encode(body, version)
        assert data[:14] == struct.pack(">ihq", -5, 300, 2**40)
        assert RUNS.decode(data, version) == body
        for cut in range(len(data)):
            with pytest.raises(ProtocolDecodeError):
                RUNS.decode(data[:cut], version)
    with pytest.raises(ProtocolEncodeError, match=r"Runs v0\.b"):
        RUNS.encode(dict(body, b=None), 0)
    with pytest.raises(ProtocolEncodeError, match=r"Runs v1\.c"):
        RUNS.encode(dict(body, c="x"), 1)
    with pytest.raises(ProtocolEncodeError, match=r"Runs v1\.ok"):
        RUNS.encode(dict(body, ok=None), 1)
    with pytest.raises(ProtocolEncodeError, match=r"Runs v0\.ids"):
        RUNS.encode(dict(body, ids=[1, None]), 0)


@pytest.mark.parametrize("count", [0, 1, 125, 126, 127, 300])
def test_int32_arrays_of_every_length_prefix_size(count):
    ids = list(range(-count // 2, count - count // 2))
    for version in (0, 1):
        data = RUNS.encode({"ids": ids}, version)
        assert RUNS.decode(data, version)["ids"] == ids
        with pytest.raises(ProtocolDecodeError):
            RUNS.decode(data[:-1], version)


def test_null_int32_arrays():
    assert RUNS.decode(RUNS.encode({"ids": None}, 1), 1)["ids"] is None
    with pytest.raises(ProtocolEncodeError, match=r"Runs v0\.ids"):
        RUNS.encode({"ids": None}, 0)
    flexible_null = RUNS.encode({"ids": []}, 1)[:-2] + b"\x00\x00"  # compact length 0: null
    assert RUNS.decode(flexible_null, 1)["ids"] is None
    with pytest.raises(ProtocolDecodeError):
        RUNS.decode(RUNS.encode({}, 0)[:-4] + struct.pack(">i", -1), 0)  # null where v0 does not allow it
