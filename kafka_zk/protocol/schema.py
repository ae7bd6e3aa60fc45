"""Declarative message schemas: fields with version ranges, compiled per version into codecs."""

import os
import struct
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias, Union

from kafka_zk.protocol.primitives import (
    ProtocolDecodeError,
    ProtocolEncodeError,
    Reader,
    Writer,
)
from kafka_zk.protocol.struct_source import IN_PLACE_KINDS, compile_struct_reader, compile_struct_writer
from kafka_zk.protocol.type_codecs import (
    BYTES_READERS,
    BYTES_WRITERS,
    FIXED,
    FIXED_CODES,
    HUMAN_MESSAGE_FIELDS,
    STRING_READERS,
    STRING_WRITERS,
    ReadFunction,
    WriteFunction,
    array_codec,
    clipped,
    int32_array_codec,
    records_codec,
)
from kafka_zk.record.buffers import ReadableBuffer

MISSING = object()

# Strict messages: with this environment variable set (to anything but "" or "0"), every response the broker
# sends is first checked against its schema (see Schema.check_strictly), and one that misses a field or names a
# key the schema does not know fails to encode instead of going out with a default in its place. The test suite
# turns it on (tests/conftest.py), for the brokers it starts too; production keeps the lenient encoder.
STRICT_MESSAGES_ENV = "KAFKA_ZK_STRICT_MESSAGES"
strict_messages = os.environ.get(STRICT_MESSAGES_ENV, "") not in ("", "0")


def set_strict_messages(enabled: bool) -> None:
    """Turn the strict check of responses on or off for this process (and, through the environment, for the
    processes it starts from now on)."""
    global strict_messages
    strict_messages = bool(enabled)
    if enabled:
        os.environ[STRICT_MESSAGES_ENV] = "1"
    else:
        os.environ.pop(STRICT_MESSAGES_ENV, None)


INTEGER_TYPES = ("int8", "int16", "int32", "int64", "uint16", "uint32")
PRIMITIVE_TYPES = INTEGER_TYPES + ("float64", "bool", "string", "bytes", "records")


class UnsupportedVersionError(ValueError):
    """A message was asked for at a version outside its schema's valid range."""


class Versions:
    """A version range in Kafka's notation: "0+", "3-5", "7" or "none"."""

    __slots__ = ("low", "high", "text")
    low: int
    high: int | None  # None: no upper bound
    text: str

    def __init__(self, text: str) -> None:
        self.text = text
        text = text.strip()
        if text == "none":
            self.low, self.high = 0, -1
        elif text.endswith("+"):
            self.low, self.high = int(text[:-1]), None
        elif "-" in text:
            low, high = text.split("-", 1)
            self.low, self.high = int(low), int(high)
        else:
            self.low = self.high = int(text)

    def __contains__(self, version: object) -> bool:
        return self.low <= version and (self.high is None or version <= self.high)  # type: ignore[operator]

    def __repr__(self) -> str:
        return "Versions(%r)" % self.text


NO_VERSIONS = Versions("none")


class Array:
    """An array type: of a primitive type name, or of a struct given as a list of Fields."""

    __slots__ = ("element",)

    def __init__(self, element: "str | list[Field]") -> None:
        if isinstance(element, str) and element not in PRIMITIVE_TYPES:
            raise ValueError("unknown element type %r" % element)
        self.element = element

    def __repr__(self) -> str:
        return "Array(%r)" % (self.element,)


class Field:
    """One field of a struct. ``name`` is the snake_case dict key; ``type`` a primitive name,
    an ``Array``, or a nested struct as a list of Fields."""

    __slots__ = ("name", "type", "versions", "nullable_versions", "tagged_versions", "tag", "default")

    def __init__(
        self,
        name: str,
        type: "FieldType",
        versions: str = "0+",
        nullable_versions: str | None = None,
        tagged_versions: str | None = None,
        tag: int | None = None,
        default: Any = MISSING,
    ) -> None:
        if isinstance(type, str) and type not in PRIMITIVE_TYPES:
            raise ValueError("field %s: unknown type %r" % (name, type))
        if (tagged_versions is None) != (tag is None):
            raise ValueError("field %s: tag and tagged_versions go together" % name)
        self.name = name
        self.type = type
        self.versions = Versions(versions)
        self.nullable_versions = Versions(nullable_versions) if nullable_versions else NO_VERSIONS
        self.tagged_versions = Versions(tagged_versions) if tagged_versions else NO_VERSIONS
        self.tag = tag
        self.default = default

    def present_in(self, version: int) -> bool:
        return version in self.versions

    def nullable_in(self, version: int) -> bool:
        return version in self.nullable_versions

    def tagged_in(self, version: int) -> bool:
        return version in self.tagged_versions

    def __repr__(self) -> str:
        return "Field(%r, %r, %r)" % (self.name, self.type, self.versions.text)


# A field's type: a primitive type's name, an Array, or a nested struct as its list of Fields.
FieldType: TypeAlias = Union[str, Array, list[Field]]
# A message body, or a struct in it: field name -> value.
Body: TypeAlias = dict[str, Any]


def _zero_value(type_: FieldType) -> Any:
    if isinstance(type_, Array):
        return []
    if type_ == "bool":
        return False
    if type_ == "float64":
        return 0.0
    if type_ == "string":
        return ""
    if type_ in ("bytes", "records"):
        return b""
    if type_ in INTEGER_TYPES:
        return 0
    return {}  # a nested struct: every field at its default


def decode_default(field: Field) -> Any:
    """The value a decoded dict holds for ``field`` when the wire did not carry it."""
    if field.default is not MISSING:
        return field.default
    if field.type in ("string", "bytes", "records") and field.nullable_versions is not NO_VERSIONS:
        return None
    return _zero_value(field.type)


def encode_default(field: Field, version: int) -> Any:
    """The value written for ``field`` at ``version`` when the dict has no such key."""
    value = decode_default(field)
    if value is None and not field.nullable_in(version):
        value = _zero_value(field.type)
    return value


def _fresh(value: Any) -> Any:
    return list(value) if isinstance(value, list) else (dict(value) if isinstance(value, dict) else value)


def _type_codec(
    type_: FieldType, nullable: bool, version: int, flexible: bool, path: str
) -> tuple[ReadFunction, WriteFunction]:
    """(read(reader), write(writer, value)) for one type at one version."""
    if isinstance(type_, Array):
        element = type_.element
        if element == "int32":
            return int32_array_codec(nullable, flexible)
        read_item, write_item = _type_codec(element, False, version, flexible, path + "[]")
        return array_codec(read_item, write_item, nullable, flexible)
    if isinstance(type_, list):
        codec = StructCodec(type_, version, flexible, path)
        return codec.decode, codec.encode
    if type_ in FIXED:
        return FIXED[type_]
    if type_ == "records":
        return records_codec(nullable, flexible)
    variant = (2 if flexible else 0) + (1 if nullable else 0)
    if type_ == "string":
        return STRING_READERS[variant], STRING_WRITERS[variant]
    return BYTES_READERS[variant], BYTES_WRITERS[variant]


def _located(path: str, key: str | None, exc: Exception) -> ProtocolEncodeError:
    error = ProtocolEncodeError("%s.%s: %s" % (path, key, exc))
    error.located = True  # type: ignore[attr-defined]  # read back with getattr
    return error


class StructCodec:
    """A struct's fields compiled for one version into reader and writer functions."""

    __slots__ = (
        "path",
        "flexible",
        "readers",
        "writers",
        "absent",
        "tagged",
        "tagged_defaults",
        "_read_fields",
        "_write_fields",
        "read_body",
        "write_body",
    )

    def __init__(self, fields: Iterable[Field], version: int, flexible: bool, path: str) -> None:
        self.path = path
        self.flexible = flexible
        # (key, read, struct code of a fixed-width type or None, inline, kind, nullable) and (key, write, default
        # when the key is missing, struct code or None, inline, kind, nullable); inline: (nullable, StructCodec) of
        # an array of non-flexible structs, which the compiled reader and writer handle in place, else None; kind:
        # "string", "bytes" or "records" in a non-flexible version, which they handle in place too, else None
        self.readers: list[tuple[str, ReadFunction, str | None, tuple[bool, StructCodec] | None, str | None, bool]] = []
        self.writers: list[
            tuple[str, WriteFunction, Any, str | None, tuple[bool, StructCodec] | None, str | None, bool]
        ] = []
        self.absent: list[tuple[str, Any]] = []  # (key, default) for fields the version does not carry
        self.tagged: dict[int, tuple[str, ReadFunction, WriteFunction, Any]] = {}  # tag -> (key, read, write, default)
        seen = set()
        for field in fields:
            if field.name in seen:
                raise ValueError("%s: duplicate field %s" % (path, field.name))
            seen.add(field.name)
            if not field.present_in(version):
                self.absent.append((field.name, decode_default(field)))
                continue
            inline: tuple[bool, StructCodec] | None = None
            nullable = field.nullable_in(version)
            if isinstance(field.type, Array) and isinstance(field.type.element, list) and not flexible:
                nested = StructCodec(field.type.element, version, flexible, path + "." + field.name + "[]")
                read, write = array_codec(nested.decode, nested.encode, nullable, flexible)
                inline = (nullable, nested)
            else:
                read, write = _type_codec(field.type, nullable, version, flexible, path + "." + field.name)
            if field.name in HUMAN_MESSAGE_FIELDS:
                write = clipped(write)
            default = encode_default(field, version)
            if flexible and field.tagged_in(version):
                if field.tag in self.tagged:
                    raise ValueError("%s: duplicate tag %d" % (path, field.tag))
                self.tagged[field.tag] = (field.name, read, write, default)  # type: ignore[index]  # tagged: a tag
            else:
                code = FIXED_CODES.get(field.type)  # type: ignore[arg-type]  # None for an Array or a struct
                kind = field.type if not flexible and field.type in IN_PLACE_KINDS else None
                self.writers.append((field.name, write, default, code, inline, kind, nullable))
                self.readers.append((field.name, read, code, inline, kind, nullable))
        self.tagged = dict(sorted(self.tagged.items()))
        self._read_fields = compile_struct_reader(self)
        self._write_fields = compile_struct_writer(self)
        self.tagged_defaults = [(key, default) for key, _, _, default in self.tagged.values()]
        # decode(), as one call when there are no tagged fields to read
        self.read_body: Callable[[Reader], Body] = self.decode if flexible else self._read_fields
        # and encode(), as one call when there are none to write
        self.write_body: Callable[[Writer, Body], None] = self.encode if flexible else self._write_fields

    def decode(self, reader: Reader) -> Body:
        result = self._read_fields(reader)
        if self.flexible:
            for key, default in self.tagged_defaults:
                result[key] = _fresh(default)
            self._read_tagged(reader, result)
        return result

    def _read_tagged(self, reader: Reader, result: Body) -> None:
        count = reader.read_uvarint()
        if count > reader.remaining():
            raise ProtocolDecodeError("%d tagged fields cannot fit in %d bytes" % (count, reader.remaining()))
        for _ in range(count):
            tag = reader.read_uvarint()
            size = reader.read_uvarint()
            if size > reader.remaining():
                raise ProtocolDecodeError("tagged field %d of %d bytes overruns the message" % (tag, size))
            spec = self.tagged.get(tag)
            if spec is None:
                reader.pos += size
                continue
            end = reader.pos + size
            result[spec[0]] = spec[1](reader)
            if reader.pos != end:
                raise ProtocolDecodeError("tagged field %d: size %d does not match its contents" % (tag, size))

    def encode(self, writer: Writer, obj: Body) -> None:
        try:
            self._write_fields(writer, obj)
        except (ProtocolEncodeError, struct.error, TypeError, AttributeError, ValueError, OverflowError) as exc:
            if not getattr(exc, "located", False):
                self._locate_error(obj)
            raise
        key: str | None = None
        try:
            if self.flexible:
                key = "<tagged fields>"
                if self.tagged:
                    self._write_tagged(writer, obj)
                else:
                    writer.buf.append(0)
        except ProtocolEncodeError as exc:
            if getattr(exc, "located", False):
                raise
            raise _located(self.path, key, exc) from None
        except (struct.error, TypeError, AttributeError, ValueError, OverflowError) as exc:
            raise _located(self.path, key, exc) from None

    def _locate_error(self, obj: Body) -> None:
        """Write the fields one at a time (to a scratch writer) to raise the failure of the fast path again
        with the path and key of the field at fault."""
        writer = Writer()
        key: str | None = None
        try:
            for key, write, default, *_ in self.writers:
                write(writer, obj.get(key, default))
        except ProtocolEncodeError as exc:
            if getattr(exc, "located", False):
                raise
            raise _located(self.path, key, exc) from None
        except (struct.error, TypeError, AttributeError, ValueError, OverflowError) as exc:
            raise _located(self.path, key, exc) from None

    def _write_tagged(self, writer: Writer, obj: Body) -> None:
        present: list[tuple[int, bytes]] = []
        for tag, (key, _, write, default) in self.tagged.items():
            value = obj.get(key, default)
            if value != default:
                inner = Writer()
                write(inner, value)
                present.append((tag, inner.getvalue()))
        writer.write_uvarint(len(present))
        for tag, data in present:
            writer.write_uvarint(tag)
            writer.write_uvarint(len(data))
            writer.write_raw(data)


class StrictMessageError(ProtocolEncodeError):
    """A message misses a field it must carry, or carries a key its schema does not know (strict messages)."""


def may_be_omitted(field: Field, version: int, flexible: bool) -> bool:
    """Whether a body may leave ``field`` out at ``version``: the version does not carry it, it is tagged there
    (a tagged field is absent unless set), or its schema declares a default (as Kafka's message specs do for the
    fields whose omission means something, e.g. ``-1`` for an unknown leader epoch). Every other field's value
    must be given: its type's zero (error_code 0, an empty list) is an answer, never a stand-in for a forgotten
    or misspelt key."""
    return not field.present_in(version) or field.default is not MISSING or (flexible and field.tagged_in(version))


class _StrictShape:
    """What one struct at one version requires of a dict: its known keys (the fields of every version: a body
    built once for all versions may carry the ones this version leaves out), the keys it must hold, and the
    shapes of its nested structs."""

    __slots__ = ("path", "known", "required", "nested")

    def __init__(self, fields: list[Field], version: int, flexible: bool, path: str) -> None:
        self.path = path
        self.known = frozenset(field.name for field in fields)
        self.required = [field.name for field in fields if not may_be_omitted(field, version, flexible)]
        self.nested: list[tuple[str, bool, _StrictShape]] = []  # the struct-valued fields this version carries
        for field in fields:
            if not field.present_in(version):
                continue
            type_ = field.type
            if isinstance(type_, Array) and isinstance(type_.element, list):
                self.nested.append(
                    (field.name, True, _StrictShape(type_.element, version, flexible, "%s.%s[]" % (path, field.name)))
                )
            elif isinstance(type_, list):
                self.nested.append(
                    (field.name, False, _StrictShape(type_, version, flexible, "%s.%s" % (path, field.name)))
                )

    def problems(self, obj: Any, path: str, found: list[str]) -> None:
        if not isinstance(obj, dict):
            return
        for key in obj:
            if key not in self.known:
                found.append("%s: unknown key %r" % (path, key))
        for key in self.required:
            if key not in obj:
                found.append("%s: missing %r" % (path, key))
        for key, is_array, shape in self.nested:
            value = obj.get(key)
            if value is None:
                continue
            if is_array:
                for index, item in enumerate(value):
                    shape.problems(item, "%s.%s[%d]" % (path, key, index), found)
            else:
                shape.problems(value, "%s.%s" % (path, key), found)


class Schema:
    """One request or response body: its fields, valid versions and flexible versions.

    Bodies are dicts keyed by field name. Decoding fills fields a version lacks with their
    defaults; encoding takes the default for any missing key and ignores keys the version lacks.
    check_strictly() is the stricter reading a response gets under strict messages.
    """

    _codecs: dict[int, StructCodec]  # version -> its compiled codec

    def __init__(self, name: str, fields: list[Field], valid_versions: str, flexible_versions: str = "none") -> None:
        self.name = name
        self.fields = fields
        self.valid_versions = Versions(valid_versions)
        self.flexible_versions = Versions(flexible_versions)
        if self.valid_versions.high is None:
            raise ValueError("%s: valid versions need an upper bound" % name)
        self.min_version = self.valid_versions.low
        self.max_version: int = self.valid_versions.high
        self._codecs = {}
        self._readers: dict[int, Callable[[Reader], Body]] = {}  # version -> its codec's read_body
        self._strict_shapes: dict[int, _StrictShape] = {}

    def is_flexible(self, version: int) -> bool:
        return version in self.flexible_versions

    def flexible_min(self) -> int | None:
        """The first flexible version within the valid range, or None."""
        low = self.flexible_versions.low
        return low if low in self.valid_versions and low in self.flexible_versions else None

    def codec(self, version: int) -> StructCodec:
        codec = self._codecs.get(version)
        if codec is None:
            if version not in self.valid_versions:
                raise UnsupportedVersionError("%s does not support version %d" % (self.name, version))
            codec = StructCodec(self.fields, version, self.is_flexible(version), "%s v%d" % (self.name, version))
            self._codecs[version] = codec
            self._readers[version] = codec.read_body
        return codec

    def strict_problems(self, obj: Body, version: int) -> list[str]:
        """What strict messages object to in ``obj`` at ``version``: a list of "path: problem" lines, empty when
        it carries every field it must and no key the schema does not know."""
        shape = self._strict_shapes.get(version)
        if shape is None:
            self.codec(version)  # raises for a version outside the valid range
            shape = self._strict_shapes[version] = _StrictShape(
                self.fields, version, self.is_flexible(version), "%s v%d" % (self.name, version)
            )
        found: list[str] = []
        shape.problems(obj, shape.path, found)
        return found

    def check_strictly(self, obj: Body, version: int) -> None:
        """Raise StrictMessageError naming every field ``obj`` misses and every key it should not carry."""
        found = self.strict_problems(obj, version)
        if found:
            raise StrictMessageError("; ".join(found))

    def encode_strictly(self, obj: Body, version: int) -> bytes:
        """encode(), after check_strictly()."""
        self.check_strictly(obj, version)
        return self.encode(obj, version)

    def encode(self, obj: Body, version: int) -> bytes:
        writer = Writer()
        self.codec(version).encode(writer, obj)
        return writer.getvalue()

    def encode_into(self, writer: Writer, obj: Body, version: int) -> None:
        self.codec(version).encode(writer, obj)

    def decode(self, buf: ReadableBuffer, version: int) -> Body:
        """Decode a whole body; trailing bytes after the last field are ignored, as Kafka does."""
        read = self._readers.get(version) or self.codec(version).read_body
        return read(Reader(buf))

    def decode_from(self, reader: Reader, version: int) -> Body:
        read = self._readers.get(version) or self.codec(version).read_body
        return read(reader)

    def defaults(self, version: int) -> Body:
        """The dict a body with every field at its default decodes to."""
        return self.decode(self.encode({}, version), version)

    def __repr__(self) -> str:
        return "Schema(%r, %s)" % (self.name, self.valid_versions.text)
