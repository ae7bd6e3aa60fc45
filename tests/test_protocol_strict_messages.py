"""Strict messages: every response type the broker serves, at every version it advertises, goes through the strict
encoder; a missing field or an unknown key is an error there, and only there (production stays lenient)."""

import os
import subprocess
import sys

import pytest

from kafka_zk.protocol import schema
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.headers import decode_response, encode_response
from kafka_zk.protocol.schema import Array, StrictMessageError, may_be_omitted, set_strict_messages
from kafka_zk.server.apis import supported_versions
from tests.test_protocol_roundtrip import SampleMaker

SERVED = [(key, version) for key, low, high in supported_versions() for version in range(low, high + 1)]


def _response(key):
    return API_SPECS[key].response


def test_the_suite_runs_strict_and_so_do_the_brokers_it_starts():
    assert schema.strict_messages
    started = subprocess.run(
        [sys.executable, "-c", "from kafka_zk.protocol import schema; print(schema.strict_messages)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert started.stdout.strip() == "True"


def test_every_registered_api_is_checked():
    assert {key for key, _ in SERVED} == set(API_SPECS)


@pytest.mark.parametrize("use_nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("key, version", SERVED)
def test_a_whole_response_passes_the_strict_encoder(key, version, use_nulls):
    response = _response(key)
    body = SampleMaker(version, use_nulls).struct(response.fields)
    assert response.strict_problems(body, version) == []
    correlation_id, decoded = decode_response(key, version, encode_response(key, version, 7, body))
    assert correlation_id == 7
    assert decoded == body


def _required(fields, version, flexible):
    return [field for field in fields if not may_be_omitted(field, version, flexible)]


@pytest.mark.parametrize("key, version", SERVED)
def test_a_missing_field_is_an_error(key, version):
    response = _response(key)
    flexible = response.is_flexible(version)
    body = SampleMaker(version, use_nulls=False).struct(response.fields)
    required = _required(response.fields, version, flexible)
    for field in required:
        partial = {name: value for name, value in body.items() if name != field.name}
        with pytest.raises(StrictMessageError, match="missing '%s'" % field.name):
            encode_response(key, version, 1, partial)
    # and one level down, in the first element of each array of structs
    for field in response.fields:
        if field.present_in(version) and isinstance(field.type, Array) and isinstance(field.type.element, list):
            for inner in _required(field.type.element, version, flexible):
                element = dict(body[field.name][0])
                del element[inner.name]
                partial = dict(body, **{field.name: [element]})
                with pytest.raises(StrictMessageError, match=r"%s\[0\]: missing '%s'" % (field.name, inner.name)):
                    encode_response(key, version, 1, partial)


@pytest.mark.parametrize("key, version", SERVED)
def test_an_unknown_key_is_an_error(key, version):
    body = SampleMaker(version, use_nulls=False).struct(_response(key).fields)
    with pytest.raises(StrictMessageError, match="unknown key 'error_cod'"):
        encode_response(key, version, 1, dict(body, error_cod=0))


@pytest.mark.parametrize("key, version", SERVED)
def test_what_the_specs_let_a_body_leave_out_may_be_left_out(key, version):
    """Fields with a declared default, fields the version does not carry, tagged fields."""
    response = _response(key)
    flexible = response.is_flexible(version)
    body = SampleMaker(version, use_nulls=False).struct(response.fields)
    sparse = {
        name: value
        for name, value in body.items()
        if not may_be_omitted(next(f for f in response.fields if f.name == name), version, flexible)
    }
    assert response.strict_problems(sparse, version) == []
    decoded = decode_response(key, version, encode_response(key, version, 1, sparse))[1]
    assert decoded == response.decode(response.encode(sparse, version), version)


def test_fields_other_versions_carry_are_known_keys():
    """A body built once for every version may carry fields the version at hand leaves out."""
    body = {"error_code": 0, "api_keys": [], "throttle_time_ms": 0}
    assert API_SPECS[18].response.strict_problems(body, 0) == []


def test_every_problem_is_named_with_its_path():
    body = {
        "throttle_time_ms": 0,
        "brokers": [{"node_id": 1, "host": "h", "port": 1, "rak": "r"}],
        "topics": [{"error_code": 0, "name": "t", "is_internal": False, "partitions": [{}]}],
    }
    problems = API_SPECS[3].response.strict_problems(body, 9)
    assert "MetadataResponse v9.brokers[0]: unknown key 'rak'" in problems
    assert "MetadataResponse v9.topics[0].partitions[0]: missing 'error_code'" in problems
    assert "MetadataResponse v9.topics[0].partitions[0]: missing 'replica_nodes'" in problems
    assert not any("leader_epoch" in line for line in problems)  # its spec default is -1


def test_without_strict_messages_a_missing_field_takes_its_default_as_before():
    environment = os.environ.get(schema.STRICT_MESSAGES_ENV)
    set_strict_messages(False)
    try:
        assert schema.STRICT_MESSAGES_ENV not in os.environ
        data = encode_response(3, 9, 11, {"toppics": []})
    finally:
        set_strict_messages(True)
        if environment is not None:
            os.environ[schema.STRICT_MESSAGES_ENV] = environment
    assert decode_response(3, 9, data)[1]["topics"] == []
