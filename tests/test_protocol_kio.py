"""Our codec against kio's, a second opinion generated from Kafka's own message specs: for every API key and
version both know (within Kafka 2.5's ranges, which our registry holds), the fields agree one by one (position,
tag, type, nullability, declared default), and a populated request and response encoded by either side decodes on
the other to the same values and re-encodes to the same bytes.

kio follows Kafka's newest specs: what Kafka added after 2.5 to a version 2.5 already had (tagged fields only) is
listed in AFTER_KAFKA_25 and is not a difference of ours. kio no longer carries the versions Kafka 4 removed nor
the ZooKeeper-era controller APIs (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown)."""

import dataclasses
import io
import itertools

import pytest

pytest.importorskip("kio")  # a test dependency (setup.cfg) from Python 3.11 on

from kio.index import load_request_schema, load_response_schema  # noqa: E402
from kio.schema.index import api_key_map, schema_name_map  # noqa: E402
from kio.serial import entity_reader, entity_writer  # noqa: E402
from kio.serial._introspect import is_optional  # noqa: E402

from kafka_zk.protocol.api_keys import API_SPECS  # noqa: E402
from kafka_zk.protocol.schema import MISSING, Array  # noqa: E402
from tests.kio_pairing import (  # noqa: E402
    kio_default,
    kio_kind,
    names_agree,
    our_kind,
    paired_fields,
    same_kind,
    to_kio,
    to_ours,
)

# (schema name, version, kio's field name): tagged fields Kafka added after 2.5 to versions 2.5 has.
AFTER_KAFKA_25 = {
    # KIP-584 feature versioning (2.7) and KIP-866's KRaft migration flag (3.4), tagged into ApiVersions v3+
    ("ApiVersionsResponse", 3, "supported_features"),
    ("ApiVersionsResponse", 3, "finalized_features_epoch"),
    ("ApiVersionsResponse", 3, "finalized_features"),
    ("ApiVersionsResponse", 3, "zk_migration_ready"),
}

# Fields later Kafka versions renamed (names never reach the wire): our path, as Kafka 2.5 names it -> kio's name.
RENAMED_AFTER_KAFKA_25 = {
    "ProduceRequest.topics": "topic_data",
    "ProduceRequest.topics.partitions": "partition_data",
    "ProduceRequest.topics.partitions.partition_index": "index",
    "ProduceResponse.responses.partitions": "partition_responses",
    "ProduceResponse.responses.partitions.partition_index": "index",
    "OffsetCommitRequest.generation_id": "generation_id_or_member_epoch",  # KIP-848
    "AddPartitionsToTxnRequest.transactional_id": "v3_and_below_transactional_id",  # KIP-890 (v4)
    "AddPartitionsToTxnRequest.producer_id": "v3_and_below_producer_id",
    "AddPartitionsToTxnRequest.producer_epoch": "v3_and_below_producer_epoch",
    "AddPartitionsToTxnRequest.topics": "v3_and_below_topics",
    "AddPartitionsToTxnResponse.results": "results_by_topic_v3_and_below",
    "AddPartitionsToTxnResponse.results.results": "results_by_partition",
    "AddPartitionsToTxnResponse.results.results.error_code": "partition_error_code",
    "DescribeLogDirsRequest.topics.partition_index": "partitions",
    "ElectLeadersRequest.topic_partitions.partition_id": "partitions",
}

# Defaults Kafka's specs gained after 2.5: our path -> the newer default.
DEFAULTS_AFTER_KAFKA_25 = {
    "FetchRequest.replica_id": -1,  # KIP-903 (3.5) moved it into ReplicaState and gave the old field a default
}


def _kio_versions(api_key):
    name = api_key_map.get(api_key)
    return set(schema_name_map.get(name, {})) if name else set()


CASES = [
    (key, version, kind)
    for key, spec in sorted(API_SPECS.items())
    for version in range(spec.min_version, spec.max_version + 1)
    if version in _kio_versions(key)
    for kind in ("request", "response")
]


def _sides(key, version, kind):
    spec = API_SPECS[key]
    schema = getattr(spec, kind)
    kio_class = (load_request_schema if kind == "request" else load_response_schema)(key, version)
    return schema, kio_class, spec.is_flexible(version)


def test_kio_knows_most_of_our_apis():
    """kio covers every API of ours but the ZooKeeper-era controller requests (keys 4-7) and WriteTxnMarkers,
    whose only version in 2.5 (v0) Kafka 4 removed."""
    assert {key for key, _, _ in CASES} == set(API_SPECS) - {4, 5, 6, 7, 27}


# ---------------------------------------------------------------------------------------------- field by field


def field_differences(fields, version, flexible, kio_class, path, schema_name):
    """Lines naming each way our fields at ``version`` differ from kio's."""
    found = []
    for ours, theirs in paired_fields(fields, version, flexible, kio_class):
        where = "%s.%s" % (path, (ours or theirs).name)
        if theirs is None:
            found.append("%s: ours only" % where)
            continue
        if ours is None:
            if (schema_name, version, theirs.name) not in AFTER_KAFKA_25:
                found.append("%s: kio only" % where)
            continue
        if not names_agree(ours.name, theirs.name) and RENAMED_AFTER_KAFKA_25.get(where) != theirs.name:
            found.append("%s: named %r in the spec" % (where, theirs.name))
        mine, kios = our_kind(ours.type), kio_kind(theirs)
        if not same_kind(mine, kios):
            found.append("%s: %r here, %r in the spec" % (where, mine, kios))
            continue
        tagged = flexible and ours.tagged_in(version)
        if timestamp_or_none(theirs):
            # kio holds an int64 time whose default is -1 as a datetime or None; on the wire it is -1
            if ours.nullable_in(version) or ours.default != -1:
                found.append(
                    "%s: nullable %s and default %r here, a time defaulting to -1 in the spec"
                    % (where, ours.nullable_in(version), ours.default)
                )
            continue
        if not tagged and ours.nullable_in(version) != is_optional(theirs):
            found.append(
                "%s: nullable %s here, %s in the spec" % (where, ours.nullable_in(version), is_optional(theirs))
            )
        if not isinstance(mine, tuple):
            spec_default = kio_default(theirs)
            if where in DEFAULTS_AFTER_KAFKA_25 and spec_default == DEFAULTS_AFTER_KAFKA_25[where]:
                spec_default = MISSING
            if ours.default is not MISSING and spec_default is MISSING:
                found.append("%s: default %r here, none in the spec" % (where, ours.default))
            elif ours.default is not MISSING and ours.default != spec_default:
                found.append("%s: default %r here, %r in the spec" % (where, ours.default, spec_default))
            elif ours.default is MISSING and spec_default is not MISSING:
                found.append("%s: no default here, %r in the spec" % (where, spec_default))
        if isinstance(mine, tuple) and (mine[0] == "struct" or isinstance(mine[1], tuple)):
            nested = ours.type.element if isinstance(ours.type, Array) else ours.type
            nested_class = kios[1] if kios[0] == "struct" else kios[1][1]
            found += field_differences(nested, version, flexible, nested_class, where, schema_name)
    return found


def timestamp_or_none(kio_field):
    return kio_field.metadata.get("kafka_type") == "datetime_i64" and kio_field.default is None


@pytest.mark.parametrize("key, version, kind", CASES)
def test_fields_agree_with_kio(key, version, kind):
    schema, kio_class, flexible = _sides(key, version, kind)
    assert field_differences(schema.fields, version, flexible, kio_class, schema.name, schema.name) == []


# ---------------------------------------------------------------------------------------------------- values

ERROR_CODES = (0, 3, 29, 41, 87)


class KioSample:
    """A body of ours with every field the version carries set (or null, with ``use_nulls``, where ours is
    nullable), each value one kio can hold: valid error codes, non-negative durations and times."""

    def __init__(self, version, flexible, use_nulls):
        self.version = version
        self.flexible = flexible
        self.use_nulls = use_nulls
        self.counter = itertools.count(1)

    def struct(self, fields, kio_class):
        body = {}
        for ours, theirs in paired_fields(fields, self.version, self.flexible, kio_class):
            if ours is None:
                continue
            if self.use_nulls and ours.nullable_in(self.version):
                body[ours.name] = None
            else:
                body[ours.name] = self.value(ours, ours.type, theirs)
        return body

    def value(self, field, type_, theirs):
        n = next(self.counter)
        kind = kio_kind(theirs) if theirs is not None else None
        if isinstance(type_, Array):
            element = kind[1] if isinstance(kind, tuple) else None
            return [self.value(field, type_.element, theirs if element is not None else None) for _ in range(2)]
        if isinstance(type_, list):
            nested = None
            if isinstance(kind, tuple):
                nested = kind[1] if kind[0] == "struct" else kind[1][1]
            return self.struct(type_, nested) if nested is not None else {}
        kafka_type = theirs.metadata.get("kafka_type") if theirs is not None else type_
        if kafka_type == "error_code":
            return ERROR_CODES[n % len(ERROR_CODES)]
        if kafka_type == "datetime_i64":
            return 1700000000000 + n
        if type_ == "bool":
            return not (field.default if field.default is not MISSING else False)
        if type_ == "string":
            return "s%d-é" % n
        if type_ in ("bytes", "records"):
            return b"\x00\xffb%d" % n
        if type_ == "float64":
            return n + 0.5
        bits = {"int8": 6, "int16": 14, "int32": 30, "int64": 62, "uint16": 16, "uint32": 32}[type_]
        return (n * 37) % (2 ** min(bits, 12)) + 2


def kio_struct_to_ours(fields, version, flexible, kio_class, entity):
    body = {}
    for ours, theirs in paired_fields(fields, version, flexible, kio_class):
        if ours is None or theirs is None:
            continue
        value = getattr(entity, theirs.name)
        nested = ours.type.element if isinstance(ours.type, Array) else ours.type
        body[ours.name] = to_ours(
            theirs, value, lambda cls, item, nested=nested: kio_struct_to_ours(nested, version, flexible, cls, item)
        )
    return body


def our_struct_to_kio(fields, version, flexible, kio_class, body):
    arguments = {}
    for ours, theirs in paired_fields(fields, version, flexible, kio_class):
        if ours is None or theirs is None:
            continue
        nested = ours.type.element if isinstance(ours.type, Array) else ours.type
        arguments[theirs.name] = to_kio(
            theirs,
            body[ours.name],
            lambda cls, item, nested=nested: our_struct_to_kio(nested, version, flexible, cls, item),
        )
    return kio_class(**arguments)


def plain(value):
    """A decoded body with records as bytes, for comparing."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, (memoryview, bytearray)):
        return bytes(value)
    return value


def present_only(fields, version, body):
    """``body`` without the fields ``version`` does not carry, at every depth."""
    result = {}
    for field in fields:
        if not field.present_in(version) or field.name not in body:
            continue
        value = body[field.name]
        nested = field.type.element if isinstance(field.type, Array) else field.type
        if isinstance(nested, list) and value is not None:
            value = (
                [present_only(nested, version, item) for item in value]
                if isinstance(field.type, Array)
                else present_only(nested, version, value)
            )
        result[field.name] = value
    return result


def kio_encode(kio_class, entity):
    buffer = io.BytesIO()
    entity_writer(kio_class)(buffer, entity)
    return buffer.getvalue()


@pytest.mark.parametrize("use_nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("key, version, kind", CASES)
def test_ours_decodes_in_kio(key, version, kind, use_nulls):
    """Encoded by us, decoded by kio: the same values, and kio writes them back to our very bytes."""
    schema, kio_class, flexible = _sides(key, version, kind)
    sample = KioSample(version, flexible, use_nulls).struct(schema.fields, kio_class)
    data = schema.encode_strictly(sample, version)
    entity, size = entity_reader(kio_class)(data, 0)
    assert size == len(data)
    assert kio_struct_to_ours(schema.fields, version, flexible, kio_class, entity) == plain(sample)
    assert kio_encode(kio_class, entity) == data


@pytest.mark.parametrize("use_nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("key, version, kind", CASES)
def test_kio_decodes_in_ours(key, version, kind, use_nulls):
    """Encoded by kio, decoded by us: the same values, and we write them back to kio's very bytes."""
    schema, kio_class, flexible = _sides(key, version, kind)
    sample = KioSample(version, flexible, use_nulls).struct(schema.fields, kio_class)
    data = kio_encode(kio_class, our_struct_to_kio(schema.fields, version, flexible, kio_class, sample))
    decoded = schema.decode(data, version)
    assert plain(present_only(schema.fields, version, decoded)) == plain(sample)
    assert schema.encode(decoded, version) == data


def test_kio_classes_are_the_versions_asked_for():
    for key, version, kind in CASES[:6]:
        _, kio_class, flexible = _sides(key, version, kind)
        assert kio_class.__version__ == version and kio_class.__flexible__ == flexible
        assert dataclasses.is_dataclass(kio_class)
