"""The compiled struct codecs (arrays of structs read and written in place) and the one-unpack request header read
agree with a field-by-field reading of the schemas and with the Reader, on every API key, version and body."""

import random
import struct

import pytest

from kafka_zk.protocol import headers
from kafka_zk.protocol.api_keys import API_SPECS, HEADER_VERSIONS
from kafka_zk.protocol.primitives import ProtocolDecodeError, Reader, Writer
from kafka_zk.protocol.schema import Array, decode_default, encode_default
from tests.test_protocol_roundtrip import CASES, SampleMaker

_FIXED = {
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint16": "uint16",
    "uint32": "uint32",
    "float64": "float64",
    "bool": "bool",
}


def _variant(nullable, flexible):
    return ("compact_" if flexible else "") + ("nullable_" if nullable else "")


def read_struct(reader, fields, version, flexible):
    """The schema read one field at a time, as the wire format says (tagged fields: none expected here)."""
    body = {}
    for field in fields:
        if not field.present_in(version):
            body[field.name] = decode_default(field)
        elif flexible and field.tagged_in(version):
            body[field.name] = decode_default(field)
        else:
            body[field.name] = read_value(reader, field.type, field.nullable_in(version), version, flexible)
    if flexible:
        assert reader.read_uvarint() == 0
    return body


def read_value(reader, type_, nullable, version, flexible):
    if isinstance(type_, Array):
        count = reader.array_length(nullable, flexible)
        if count is None:
            return None
        return [read_value(reader, type_.element, False, version, flexible) for _ in range(count)]
    if isinstance(type_, list):
        return read_struct(reader, type_, version, flexible)
    if type_ in _FIXED:
        return getattr(reader, "read_" + type_)()
    if type_ == "records":
        value = reader.read_compact_records() if flexible else reader.read_records()
        return None if value is None else bytes(value)
    return getattr(reader, "read_" + _variant(nullable, flexible) + type_)()


def write_struct(writer, fields, body, version, flexible):
    for field in fields:
        if field.present_in(version) and not (flexible and field.tagged_in(version)):
            value = body.get(field.name, encode_default(field, version))
            write_value(writer, field.type, value, field.nullable_in(version), version, flexible)
    if flexible:
        writer.write_uvarint(0)


def write_value(writer, type_, value, nullable, version, flexible):
    if isinstance(type_, Array):
        writer.write_array_length(None if value is None else len(value), flexible)
        for item in value or ():
            write_value(writer, type_.element, item, False, version, flexible)
    elif isinstance(type_, list):
        write_struct(writer, type_, value, version, flexible)
    elif type_ in _FIXED:
        getattr(writer, "write_" + type_)(value)
    elif type_ == "records":
        writer.write_records(value, nullable, flexible)
    else:
        getattr(writer, "write_" + _variant(nullable, flexible) + type_)(value)


def _sample(fields, version, use_nulls):
    """A body with every field set, its tagged ones (at any depth) at their defaults: the reference reading
    leaves them out."""
    return _untag(fields, SampleMaker(version, use_nulls).struct(fields), version)


def _untag(fields, body, version):
    for field in fields:
        if field.tagged_in(version):
            body[field.name] = decode_default(field)
        elif isinstance(field.type, Array) and isinstance(field.type.element, list) and body[field.name]:
            body[field.name] = [_untag(field.type.element, item, version) for item in body[field.name]]
        elif isinstance(field.type, list) and body[field.name] is not None:
            body[field.name] = _untag(field.type, body[field.name], version)
    return body


def _plain(value):
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@pytest.mark.parametrize("key, version, kind", CASES)
def test_compiled_codec_matches_field_by_field(key, version, kind):
    schema = getattr(API_SPECS[key], kind)
    flexible = schema.is_flexible(version)
    for use_nulls in (False, True):
        body = _sample(schema.fields, version, use_nulls)
        reference = Writer()
        try:
            write_struct(reference, schema.fields, body, version, flexible)
        except Exception as error:  # a null where the version allows none: the compiled writer refuses it too
            with pytest.raises(type(error)):
                schema.encode(body, version)
            continue
        encoded = schema.encode(body, version)
        assert encoded == reference.getvalue()
        expected = read_struct(Reader(encoded), schema.fields, version, flexible)
        assert _plain(schema.decode(encoded, version)) == _plain(expected)
        for cut in range(0, len(encoded), 7):  # a short body fails as the field-by-field reading does
            with pytest.raises(ProtocolDecodeError):
                read_struct(Reader(encoded[:cut]), schema.fields, version, flexible)
            with pytest.raises(ProtocolDecodeError):
                schema.decode(encoded[:cut], version)


def _reader_header(buf):
    reader = Reader(buf)
    return headers._read_request_header(reader), reader.pos


def _header_cases():
    rng = random.Random(22)
    cases = []
    for (api_key, version), _ in sorted(HEADER_VERSIONS.items()):
        for client_id in (None, b"", b"rdkafka", "kl\u00e9nt".encode(), b"\xff\xfe", b"x" * 300):
            prefix = struct.pack(">hhi", api_key, version, rng.randrange(-(2**31), 2**31))
            length = -1 if client_id is None else len(client_id)
            cases.append(prefix + struct.pack(">h", length) + (client_id or b"") + b"body")
    cases += [
        struct.pack(">hhih", 0, 8, 1, 10) + b"short",
        struct.pack(">hhih", 0, 8, 1, -2),
        struct.pack(">hhih", 0, 99, 1, 3) + b"abc",
        struct.pack(">hhih", 999, 0, 1, -1),
        b"\x00\x00\x00",
    ]
    return cases


def test_request_header_read_at_once_matches_the_reader():
    for frame in _header_cases():
        try:
            expected = _reader_header(frame)
        except ProtocolDecodeError:
            with pytest.raises(ProtocolDecodeError):
                headers.decode_request_header(frame)
            continue
        assert headers.decode_request_header(frame) == expected
        assert headers.decode_request_header(memoryview(frame)) == expected
