"""How each primitive type, and an array, is read from a Reader and written to a Writer at one version: the
functions a struct's fields are compiled from."""

from collections.abc import Callable
from typing import Any, TypeAlias

from kafka_zk.protocol.primitives import ProtocolDecodeError, ProtocolEncodeError, Reader, Writer, int32_array_struct

# How one type is read from a Reader and written to a Writer at one version.
ReadFunction: TypeAlias = Callable[[Reader], Any]
WriteFunction: TypeAlias = Callable[[Writer, Any], None]

# Readers and writers per primitive type: (plain, nullable, compact, compact nullable).
STRING_READERS = (
    Reader.read_string,
    Reader.read_nullable_string,
    Reader.read_compact_string,
    Reader.read_compact_nullable_string,
)
STRING_WRITERS = (
    Writer.write_string,
    Writer.write_nullable_string,
    Writer.write_compact_string,
    Writer.write_compact_nullable_string,
)
BYTES_READERS = (
    Reader.read_bytes,
    Reader.read_nullable_bytes,
    Reader.read_compact_bytes,
    Reader.read_compact_nullable_bytes,
)
BYTES_WRITERS = (
    Writer.write_bytes,
    Writer.write_nullable_bytes,
    Writer.write_compact_bytes,
    Writer.write_compact_nullable_bytes,
)
FIXED = {
    "int8": (Reader.read_int8, Writer.write_int8),
    "int16": (Reader.read_int16, Writer.write_int16),
    "int32": (Reader.read_int32, Writer.write_int32),
    "int64": (Reader.read_int64, Writer.write_int64),
    "uint16": (Reader.read_uint16, Writer.write_uint16),
    "uint32": (Reader.read_uint32, Writer.write_uint32),
    "float64": (Reader.read_float64, Writer.write_float64),
    "bool": (Reader.read_bool, Writer.write_bool),
}


def records_codec(nullable: bool, flexible: bool) -> tuple[ReadFunction, WriteFunction]:
    read = Reader.read_compact_records if flexible else Reader.read_records

    def read_records(reader: Reader) -> memoryview | None:
        value = read(reader)
        if value is None and not nullable:
            raise ProtocolDecodeError("null records where a value is required")
        return value

    def write_records(writer: Writer, value: Any) -> None:
        writer.write_records(value, nullable, flexible)

    return read_records, write_records


def write_null_array(writer: Writer, nullable: bool, flexible: bool) -> None:
    """An array's null, where the version allows one."""
    if not nullable:
        raise ProtocolEncodeError("array is not nullable here")
    writer.write_array_length(None, flexible)


def int32_array_codec(nullable: bool, flexible: bool) -> tuple[ReadFunction, WriteFunction]:
    def read_array(reader: Reader) -> list[int] | None:
        count = reader.array_length(nullable, flexible)
        return None if count is None else reader.read_int32_array_items(count)

    def write_array(writer: Writer, value: list[int] | None) -> None:
        if value is None:
            write_null_array(writer, nullable, flexible)
            return
        count = len(value)
        writer.write_array_length(count, flexible)
        if count:
            writer.buf += int32_array_struct(count).pack(*value)

    return read_array, write_array


def array_codec(
    read_item: ReadFunction, write_item: WriteFunction, nullable: bool, flexible: bool
) -> tuple[ReadFunction, WriteFunction]:
    def read_array(reader: Reader) -> list[Any] | None:
        count = reader.array_length(nullable, flexible)
        if count is None:
            return None
        return [read_item(reader) for _ in range(count)]

    def write_array(writer: Writer, value: list[Any] | None) -> None:
        if value is None:
            write_null_array(writer, nullable, flexible)
            return
        writer.write_array_length(len(value), flexible)
        for item in value:
            write_item(writer, item)

    return read_array, write_array


# struct format codes of the fixed-width types, for reading runs of them with one unpack ("?" is any non-zero
# byte as True, as read_bool)
FIXED_CODES = {
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint16": "H",
    "uint32": "I",
    "float64": "d",
    "bool": "?",
}


# Free-text messages for people: one that echoes a huge input (e.g. a 32767-character topic name in "The topic
# '...' does not exist.") is shortened to what an int16-length string holds rather than making the response
# impossible to encode.
HUMAN_MESSAGE_FIELDS = frozenset(("error_message",))
MAX_STRING_BYTES = 0x7FFF


def clipped(write: WriteFunction) -> WriteFunction:
    def write_clipped(writer: Writer, value: Any) -> None:
        if value is not None and len(value) > MAX_STRING_BYTES // 4:
            data = value.encode("utf-8")
            if len(data) > MAX_STRING_BYTES:
                value = data[: MAX_STRING_BYTES - 3].decode("utf-8", "ignore") + "..."
        write(writer, value)

    return write_clipped
