"""Our schemas side by side with kio's message classes (generated from Kafka's message specs): which field of
ours is which field of theirs, what each side says a field is, and values carried from one side's form to the
other's. For the round-trip test against kio (tests/test_protocol_kio.py)."""

import dataclasses
import datetime

from kio.schema.errors import ErrorCode
from kio.serial._introspect import (
    EntityField,
    EntityTupleField,
    PrimitiveTupleField,
    classify_field,
    get_field_tag,
    get_schema_field_type,
)
from kio.serial.readers import tz_aware_from_i64

from kafka_zk.protocol.schema import MISSING, Array

# kio's kafka_type names for what our schemas call int16, int32 and int64
KIO_TYPE_AS_OURS = {"error_code": "int16", "timedelta_i32": "int32", "timedelta_i64": "int64", "datetime_i64": "int64"}
MILLISECOND = datetime.timedelta(milliseconds=1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def our_fields_at(fields, version, flexible):
    """(untagged fields in order, {tag: field}) of the fields ``version`` carries."""
    untagged, tagged = [], {}
    for field in fields:
        if not field.present_in(version):
            continue
        if flexible and field.tagged_in(version):
            tagged[field.tag] = field
        else:
            untagged.append(field)
    return untagged, tagged


def kio_fields_of(kio_class):
    untagged, tagged = [], {}
    for field in dataclasses.fields(kio_class):
        tag = get_field_tag(field)
        if tag is None:
            untagged.append(field)
        else:
            tagged[tag] = field
    return untagged, tagged


def paired_fields(fields, version, flexible, kio_class):
    """[(our Field or None, kio's dataclass field or None)]: untagged fields by position, tagged ones by tag."""
    ours, our_tags = our_fields_at(fields, version, flexible)
    theirs, their_tags = kio_fields_of(kio_class)
    pairs = [
        (ours[i] if i < len(ours) else None, theirs[i] if i < len(theirs) else None)
        for i in range(max(len(ours), len(theirs)))
    ]
    pairs += [(our_tags.get(tag), their_tags.get(tag)) for tag in sorted(set(our_tags) | set(their_tags))]
    return pairs


def kio_kind(kio_field):
    """("struct", class) | ("array", ("struct", class)) | ("array", type name) | type name, in our type names."""
    shape = classify_field(kio_field)
    if isinstance(shape, EntityField):
        return ("struct", shape.type_)
    if isinstance(shape, EntityTupleField):
        return ("array", ("struct", shape.type_))
    name = get_schema_field_type(kio_field)
    name = KIO_TYPE_AS_OURS.get(name, name)
    return ("array", name) if isinstance(shape, PrimitiveTupleField) else name


def our_kind(field_type):
    if isinstance(field_type, Array):
        return ("array", our_kind(field_type.element))
    if isinstance(field_type, list):
        return ("struct", None)
    return field_type


def same_kind(ours, theirs):
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        return ours[0] == theirs[0] and (ours[0] == "struct" or same_kind(ours[1], theirs[1]))
    if {ours, theirs} == {"bytes", "records"}:
        return False
    return ours == theirs


def names_agree(our_name, kio_name):
    """kio drops the unit of durations and times (throttle_time_ms is its throttle_time)."""
    return our_name == kio_name or our_name == kio_name + "_ms"


def kio_default(kio_field):
    """A scalar field's spec default in our form, or MISSING when the spec declares none."""
    if kio_field.default is dataclasses.MISSING:
        return MISSING
    return to_ours(kio_field, kio_field.default)


def to_ours(kio_field, value, struct_to_ours=None):
    """A value of kio's field in our form: milliseconds for durations and times, plain ints for error codes,
    lists for tuples, dicts (through ``struct_to_ours``) for structs."""
    if value is None:
        return None
    kind = kio_kind(kio_field)
    if isinstance(kind, tuple):
        if kind[0] == "struct":
            return struct_to_ours(kind[1], value)
        element = kind[1]
        if isinstance(element, tuple):
            return [struct_to_ours(element[1], item) for item in value]
        return [_scalar_to_ours(get_schema_field_type(kio_field), item) for item in value]
    return _scalar_to_ours(get_schema_field_type(kio_field), value)


def _scalar_to_ours(kafka_type, value):
    if isinstance(value, datetime.timedelta):
        return value // MILLISECOND
    if isinstance(value, datetime.datetime):
        return (value - EPOCH) // MILLISECOND
    if isinstance(value, ErrorCode):
        return int(value.value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if kafka_type in ("int8", "int16", "int32", "int64", "uint16", "uint32", "error_code"):
        return int(value)
    return value


def to_kio(kio_field, value, struct_to_kio=None):
    """Our value of a field in kio's form (the inverse of to_ours)."""
    if value is None:
        return None
    kind = kio_kind(kio_field)
    if isinstance(kind, tuple):
        if kind[0] == "struct":
            return struct_to_kio(kind[1], value)
        element = kind[1]
        if isinstance(element, tuple):
            return tuple(struct_to_kio(element[1], item) for item in value)
        return tuple(_scalar_to_kio(get_schema_field_type(kio_field), item) for item in value)
    return _scalar_to_kio(get_schema_field_type(kio_field), value)


def _scalar_to_kio(kafka_type, value):
    if kafka_type in ("timedelta_i32", "timedelta_i64"):
        return datetime.timedelta(milliseconds=value)
    if kafka_type == "datetime_i64":
        return tz_aware_from_i64(value)
    if kafka_type == "error_code":
        return ErrorCode(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value
