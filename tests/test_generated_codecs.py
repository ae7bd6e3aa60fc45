"""The hot messages' generated codecs module: it is what the generator writes today, its factories serve Produce
and Fetch, and a codec whose source it does not hold is exec'd as before, with the same bytes and bodies."""

import os

import pytest

from kafka_zk.protocol import codec_module, generated_codecs, struct_source
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.primitives import Reader, Writer
from kafka_zk.protocol.schema import StructCodec
from tests.test_protocol_roundtrip import SampleMaker

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOT = [
    (message, version, use_nulls)
    for message in codec_module.generated_schemas()
    for version in range(message.min_version, message.max_version + 1)
    for use_nulls in (False, True)
]


def test_the_committed_module_is_what_the_generator_writes():
    with open(os.path.join(ROOT, codec_module.GENERATED_MODULE)) as module:
        committed = module.read()
    assert committed == codec_module.generated_codecs_source(codec_module.generated_schemas()), (
        "stale: python -m kafka_zk.tools.compile_twins codecs"
    )


def _codecs(message, version):
    return StructCodec(message.fields, version, message.is_flexible(version), "%s v%d" % (message.name, version))


@pytest.mark.parametrize("message, version, use_nulls", HOT, ids=lambda value: getattr(value, "name", value))
def test_a_hot_codec_comes_from_its_factory_and_does_what_the_execd_one_does(message, version, use_nulls, monkeypatch):
    generated = _codecs(message, version)
    assert generated._read_fields.__qualname__.startswith("_reader_" + message.name)
    assert generated._write_fields.__qualname__.startswith("_writer_" + message.name)
    monkeypatch.setattr(struct_source, "FACTORIES", {})
    execd = _codecs(message, version)
    assert execd._read_fields.__qualname__ == "read_fields"
    body = SampleMaker(version, use_nulls).struct(message.fields)
    encoded = []
    for codec in (generated, execd):
        writer = Writer()
        codec.encode(writer, body)
        encoded.append(writer.getvalue())
    assert encoded[0] == encoded[1]
    assert generated.decode(Reader(encoded[0])) == execd.decode(Reader(encoded[0])) == body
    assert len(generated_codecs.FACTORIES) >= 2


@pytest.mark.parametrize("size", [0, 255, 256, 70000])
def test_lengths_and_counts_on_either_side_of_the_small_table_round_trip(size):
    fetch_response = API_SPECS[1].response
    name = "t" * min(size, 32767)
    records = b"r" * size
    partitions = [
        {"partition_index": index, "error_code": 0, "high_watermark": 5, "records": records}
        for index in range(min(size, 300))
    ]
    body = {
        "throttle_time_ms": 0,
        "error_code": 0,
        "session_id": 0,
        "responses": [{"topic": name, "partitions": partitions}],
    }
    decoded = fetch_response.decode(fetch_response.encode(body, 11), 11)
    assert decoded["responses"][0]["topic"] == name
    assert [(p["partition_index"], bytes(p["records"])) for p in decoded["responses"][0]["partitions"]] == [
        (p["partition_index"], records) for p in partitions
    ]
