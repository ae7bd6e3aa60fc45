"""A corpus of filled requests (every field set, every array non-empty) for each API we serve, built from its schema."""

from typing import Any

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.schema import Array, Field, FieldType
from kafka_zk.record.records import encode_batch

PRODUCE_KEY, FETCH_KEY, OFFSET_FETCH_KEY = 0, 1, 9

# Values Kafka 2.5.1's request parsers accept: ACL filters must be known types, configs known resource types.
_BY_NAME: dict[str, Any] = {
    "resource_type": 2,  # TOPIC
    "resource_type_filter": 2,
    "pattern_type": 3,  # LITERAL
    "pattern_type_filter": 3,
    "resource_pattern_type": 3,
    "resource_pattern_type_filter": 3,
    "operation": 3,  # READ
    "permission_type": 3,  # ALLOW
    "acks": -1,
    "replica_id": -1,
    "isolation_level": 0,
    "key_type": 0,
    "election_type": 0,
    "config_operation": 0,
    "timeout_ms": 1000,
    "timeout": 1000,
    "max_wait_ms": 100,
    "max_wait_time": 100,
}


def _value(field: Field, type_: FieldType, version: int) -> Any:
    if field.name in _BY_NAME and isinstance(type_, str) and type_ != "string":
        return _BY_NAME[field.name]
    if isinstance(type_, Array):
        if isinstance(type_.element, str):
            return (
                [_value(field, type_.element, version), _value(field, type_.element, version) + 1]
                if (type_.element.startswith("int"))
                else ["a-" + field.name, "b-" + field.name]
            )
        return [_struct(type_.element, version)]
    if isinstance(type_, list):
        return _struct(type_, version)
    if type_ == "string":
        return "topic-a" if field.name in ("name", "topic", "topic_name") else "s-" + field.name
    if type_ in ("bytes", "records"):
        return b""
    if type_ == "bool":
        return True
    if type_ == "float64":
        return 1.5
    return 0


def _struct(fields: list[Field], version: int) -> dict[str, Any]:
    return {field.name: _value(field, field.type, version) for field in fields if field.present_in(version)}


def filled_request(api_key: int, version: int) -> dict[str, Any]:
    """A request of ``api_key`` at ``version`` with every field present set and one element in each array (two in
    arrays of integers)."""
    body = _struct(API_SPECS[api_key].request.fields, version)
    if api_key == PRODUCE_KEY:  # Kafka's parser reads each partition's first batch
        for topic in body["topics"]:
            for partition in topic["partitions"]:
                partition["records"] = encode_batch([(b"key", b"value")])
    elif api_key == FETCH_KEY and version >= 7:
        body["session_id"], body["session_epoch"] = 5, 1  # the error response echoes the session id
    elif api_key == OFFSET_FETCH_KEY:  # Kafka answers in hash order: keep one partition
        for topic in body["topics"]:
            topic["partition_indexes"] = [0]
    return body


def corpus() -> list[tuple[int, int]]:
    """(api_key, version) for every API we serve at its lowest and highest version."""
    return sorted(
        {(spec.api_key, version) for spec in API_SPECS.values() for version in (spec.min_version, spec.max_version)}
    )
