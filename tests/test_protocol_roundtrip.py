"""Every API key x every version x request/response: decode(encode(x)) == x for generated bodies."""

import itertools

import pytest

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.primitives import ProtocolDecodeError
from kafka_zk.protocol.schema import Array, decode_default

KAFKA_25_RANGES = {
    0: (0, 8, None),
    1: (0, 11, None),
    2: (0, 5, None),
    3: (0, 9, 9),
    4: (0, 4, 4),
    5: (0, 2, 2),
    6: (0, 6, 6),
    7: (0, 3, 3),
    8: (0, 8, 8),
    9: (0, 7, 6),
    10: (0, 3, 3),
    11: (0, 7, 6),
    12: (0, 4, 4),
    13: (0, 4, 4),
    14: (0, 5, 4),
    15: (0, 5, 5),
    16: (0, 3, 3),
    17: (0, 1, None),
    18: (0, 3, 3),
    19: (0, 5, 5),
    20: (0, 4, 4),
    21: (0, 1, None),
    22: (0, 3, 2),
    23: (0, 3, None),
    24: (0, 1, None),
    25: (0, 1, None),
    26: (0, 1, None),
    27: (0, 0, None),
    28: (0, 3, 3),
    29: (0, 2, 2),
    30: (0, 2, 2),
    31: (0, 2, 2),
    32: (0, 2, None),
    33: (0, 1, None),
    34: (0, 1, None),
    35: (0, 1, None),
    36: (0, 2, 2),
    37: (0, 2, 2),
    38: (0, 2, 2),
    39: (0, 2, 2),
    40: (0, 2, 2),
    41: (0, 2, 2),
    42: (0, 2, 2),
    43: (0, 2, 2),
    44: (0, 1, 1),
    45: (0, 0, 0),
    46: (0, 0, 0),
    47: (0, 0, None),
}


class SampleMaker:
    """Builds a body with every field the version carries set to a non-default value."""

    def __init__(self, version, use_nulls):
        self.version = version
        self.use_nulls = use_nulls
        self.counter = itertools.count(1)

    def struct(self, fields):
        body = {}
        for field in fields:
            if not field.present_in(self.version):
                body[field.name] = decode_default(field)
            elif self.use_nulls and field.nullable_in(self.version):
                body[field.name] = None
            else:
                body[field.name] = self.value(field.type, decode_default(field))
        return body

    def value(self, type_, default):
        n = next(self.counter)
        if isinstance(type_, Array):
            return [self.value(type_.element, None) for _ in range(2)]
        if isinstance(type_, list):
            return self.struct(type_)
        if type_ == "bool":
            return not default
        if type_ == "string":
            return "s%d-é" % n
        if type_ in ("bytes", "records"):
            return b"\x00\xffb%d" % n
        if type_ == "float64":
            return n + 0.5
        bits = {"int8": 7, "int16": 15, "int32": 31, "int64": 63, "uint16": 16, "uint32": 32}[type_]
        value = (n * 37) % (2 ** min(bits, 14)) + 1
        return value + 1 if value == default else value


CASES = [
    (key, version, kind)
    for key, spec in sorted(API_SPECS.items())
    for version in range(spec.min_version, spec.max_version + 1)
    for kind in ("request", "response")
]


def _schema(key, kind):
    return getattr(API_SPECS[key], kind)


def test_registry_matches_kafka_25_ranges():
    assert {key: (s.min_version, s.max_version, s.flexible_min) for key, s in API_SPECS.items()} == KAFKA_25_RANGES


@pytest.mark.parametrize("key, version, kind", CASES)
def test_populated_round_trip(key, version, kind):
    schema = _schema(key, kind)
    body = SampleMaker(version, use_nulls=False).struct(schema.fields)
    encoded = schema.encode(body, version)
    assert schema.decode(encoded, version) == body
    # Encoding is deterministic and re-encoding the decoded dict gives the same bytes.
    assert schema.encode(schema.decode(encoded, version), version) == encoded


@pytest.mark.parametrize("key, version, kind", CASES)
def test_nulls_round_trip(key, version, kind):
    schema = _schema(key, kind)
    body = SampleMaker(version, use_nulls=True).struct(schema.fields)
    assert schema.decode(schema.encode(body, version), version) == body


@pytest.mark.parametrize("key, version, kind", CASES)
def test_empty_dict_encodes_to_defaults(key, version, kind):
    schema = _schema(key, kind)
    decoded = schema.decode(schema.encode({}, version), version)
    assert decoded == schema.defaults(version)
    assert set(decoded) == {field.name for field in schema.fields}


@pytest.mark.parametrize("key, version, kind", [c for c in CASES if c[1] == API_SPECS[c[0]].max_version])
def test_truncation_is_detected(key, version, kind):
    schema = _schema(key, kind)
    encoded = schema.encode(SampleMaker(version, use_nulls=False).struct(schema.fields), version)
    for cut in range(0, len(encoded), max(1, len(encoded) // 25)):
        with pytest.raises(ProtocolDecodeError):
            schema.decode(encoded[:cut], version)
