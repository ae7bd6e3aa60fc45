"""Headers, golden bytes from the published layouts, header-version rules, the ApiVersions fallback."""

import struct

import pytest

from kafka_zk.protocol import api_keys
from kafka_zk.protocol.api_keys import (
    API_SPECS,
    encode_unsupported_api_versions,
    request_header_version,
    response_header_version,
    supported_api_versions,
)
from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.protocol.headers import (
    RequestHeader,
    decode_request,
    decode_request_header,
    decode_response,
    encode_request,
    encode_response,
    encode_response_chunks,
)
from kafka_zk.protocol.primitives import ProtocolDecodeError
from kafka_zk.protocol.schema import UnsupportedVersionError


def test_golden_api_versions_v0_request():
    data = encode_request(18, 0, 1, "c", {})
    assert data == bytes.fromhex("0012000000000001000163")


def test_golden_metadata_v0_request_for_one_topic():
    data = encode_request(3, 0, 7, "cl", {"topics": [{"name": "t"}]})
    assert data == bytes.fromhex("00030000000000070002636c00000001000174")


def test_golden_produce_v3_request():
    records = b"R" * 5
    body = {
        "transactional_id": None,
        "acks": -1,
        "timeout_ms": 1500,
        "topics": [{"name": "t", "partitions": [{"partition_index": 2, "records": records}]}],
    }
    data = encode_request(0, 3, 0x01020304, "p", body)
    header = bytes.fromhex("0000000301020304000170")
    payload = (
        b"\xff\xff"
        + b"\xff\xff"
        + struct.pack(">i", 1500)
        + struct.pack(">i", 1)
        + b"\x00\x01t"
        + struct.pack(">i", 1)
        + struct.pack(">i", 2)
        + struct.pack(">i", 5)
        + records
    )
    assert data == header + payload
    parsed, offset = decode_request_header(data)
    assert parsed == RequestHeader(0, 3, 0x01020304, "p") and offset == len(header)


def test_golden_api_versions_v3_request_uses_header_v2_and_compact_strings():
    data = encode_request(18, 3, 9, "c", {"client_software_name": "a", "client_software_version": "1"})
    assert data == bytes.fromhex("0012000300000009000163000261023100")


def test_golden_api_versions_v3_response_keeps_header_v0():
    body = {"error_code": 0, "api_keys": [{"api_key": 0, "min_version": 0, "max_version": 8}], "throttle_time_ms": 0}
    data = encode_response(18, 3, 5, body)
    assert data == bytes.fromhex("00000005000002000000000008000000000000")
    assert decode_response(18, 3, data) == (5, body)


def test_flexible_response_has_header_tagged_fields():
    data = encode_response(3, 9, 11, {"throttle_time_ms": 0, "brokers": [], "topics": []})
    assert data[:5] == bytes.fromhex("0000000b00")
    correlation_id, body = decode_response(3, 9, data)
    assert correlation_id == 11 and body["controller_id"] == -1


def test_request_header_versions():
    assert request_header_version(7, 0) == 0
    assert request_header_version(7, 1) == 1
    assert request_header_version(7, 3) == 2
    assert request_header_version(3, 8) == 1
    assert request_header_version(3, 9) == 2
    assert request_header_version(18, 3) == 2
    assert request_header_version(0, 8) == 1
    assert request_header_version(45, 0) == 2
    with pytest.raises(UnsupportedVersionError):
        request_header_version(3, 10)
    with pytest.raises(UnsupportedVersionError):
        request_header_version(99, 0)


def test_response_header_versions():
    assert [response_header_version(18, v) for v in range(4)] == [0, 0, 0, 0]
    assert response_header_version(3, 8) == 0
    assert response_header_version(3, 9) == 1
    assert response_header_version(0, 8) == 0
    assert response_header_version(7, 3) == 1


def test_controlled_shutdown_v0_has_no_client_id():
    data = encode_request(7, 0, 3, "ignored", {"broker_id": 2})
    assert data == bytes.fromhex("000700000000000300000002")
    header, offset = decode_request_header(data)
    assert header == RequestHeader(7, 0, 3, None) and offset == 8
    assert decode_request(data)[1]["broker_id"] == 2


def test_flexible_request_header_skips_tagged_fields():
    body = {"broker_id": 4, "broker_epoch": 77}
    data = encode_request(7, 3, 21, "b", body)
    # Insert an unknown header tag (tag 3, two bytes) where the empty tag section was.
    prefix = bytes.fromhex("0007000300000015000162")
    assert data.startswith(prefix + b"\x00")
    tagged = prefix + b"\x01\x03\x02zz" + data[len(prefix) + 1 :]
    header, body_decoded = decode_request(tagged)
    assert header == RequestHeader(7, 3, 21, "b") and body_decoded["broker_epoch"] == 77


def test_unknown_api_or_version_still_yields_the_correlation_id():
    unknown_key = struct.pack(">hhi", 99, 0, 42) + b"\x00\x02id" + b"rest"
    header, offset = decode_request_header(unknown_key)
    assert header == RequestHeader(99, 0, 42, "id") and offset == 12
    # kafka-python 3 opens with ApiVersions v4, which we do not serve (a flexible header).
    v4 = struct.pack(">hhi", 18, 4, 1) + b"\x00\x03kpy" + b"\x00" + b"\x00"
    header, _ = decode_request_header(v4)
    assert header == RequestHeader(18, 4, 1, "kpy")
    with pytest.raises(UnsupportedVersionError):
        decode_request(v4)
    garbled = struct.pack(">hhi", 18, 9, 8) + b"\x7f\x00"
    header, offset = decode_request_header(garbled)
    assert header == RequestHeader(18, 9, 8, None) and offset == 8


def test_truncated_request_header():
    with pytest.raises(ProtocolDecodeError):
        decode_request_header(b"\x00\x03\x00\x00\x00\x00")
    with pytest.raises(ProtocolDecodeError):
        decode_request_header(struct.pack(">hhi", 3, 1, 1) + b"\x00\x09ab")


def test_request_and_response_round_trip():
    body = {
        "topics": [{"name": "a"}, {"name": "b"}],
        "allow_auto_topic_creation": False,
        "include_cluster_authorized_operations": True,
        "include_topic_authorized_operations": False,
    }
    header, decoded = decode_request(encode_request(3, 9, 123, None, body))
    assert header == RequestHeader(3, 9, 123, None) and decoded == body
    fetch_body = {
        "throttle_time_ms": 3,
        "error_code": 0,
        "session_id": 9,
        "responses": [
            {
                "topic": "t",
                "partitions": [
                    {
                        "partition_index": 0,
                        "error_code": 0,
                        "high_watermark": 10,
                        "last_stable_offset": 10,
                        "log_start_offset": 0,
                        "aborted_transactions": None,
                        "preferred_read_replica": -1,
                        "records": [b"x" * 4096, b"y" * 10],
                    }
                ],
            }
        ],
    }
    chunks = encode_response_chunks(1, 11, 77, fetch_body)
    assert b"".join(chunks) == encode_response(1, 11, 77, fetch_body)
    correlation_id, decoded = decode_response(1, 11, b"".join(chunks))
    assert correlation_id == 77
    assert decoded["responses"][0]["partitions"][0]["records"] == b"x" * 4096 + b"y" * 10


def test_unsupported_api_versions_response_bytes():
    data = encode_unsupported_api_versions(7, [(0, 0, 8), (18, 0, 3)])
    assert data == bytes.fromhex("00000007002300000001001200000003")


def test_unsupported_api_versions_response_lists_only_api_versions_range_as_kafka_does():
    data = encode_unsupported_api_versions(1)
    correlation_id, body = decode_response(18, 0, data)
    assert correlation_id == 1 and body["error_code"] == Errors.UNSUPPORTED_VERSION
    listed = [(k["api_key"], k["min_version"], k["max_version"]) for k in body["api_keys"]]
    assert listed == [(18, 0, 3)] and (18, 0, 3) in supported_api_versions() and len(API_SPECS) == 48


def test_spec_lookup():
    assert api_keys.get_spec(0, 8).name == "Produce"
    with pytest.raises(UnsupportedVersionError):
        api_keys.get_spec(0, 9)


def test_error_table():
    assert Errors.CORRUPT_MESSAGE == 2 and Errors.from_code(2).name == "CORRUPT_MESSAGE"
    assert Errors.UNKNOWN_SERVER_ERROR == -1 and Errors.NONE == 0
    assert Errors.NOT_LEADER_FOR_PARTITION == 6 and Errors.NOT_LEADER_FOR_PARTITION.retriable
    assert Errors.UNSUPPORTED_VERSION == 35 and not Errors.UNSUPPORTED_VERSION.retriable
    assert Errors.UNSTABLE_OFFSET_COMMIT == 88
    assert sorted(int(e) for e in Errors) == list(range(-1, 89))
    assert Errors.from_code(1000) is Errors.UNKNOWN_SERVER_ERROR
    assert all(e.message for e in Errors if e is not Errors.NONE)


def test_kafka_error_carries_a_code():
    error = KafkaError(Errors.NOT_CONTROLLER, "moved")
    assert error.code == 41 and error.error is Errors.NOT_CONTROLLER and error.retriable
    assert "NOT_CONTROLLER" in str(error) and "moved" in str(error)
    assert KafkaError(36).message == Errors.TOPIC_ALREADY_EXISTS.message
    with pytest.raises(KafkaError):
        raise KafkaError(Errors.INVALID_REQUEST)
