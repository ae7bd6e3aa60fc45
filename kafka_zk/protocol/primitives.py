"""Wire primitives of the Kafka protocol: a bounds-checked Reader and an appending Writer."""

import struct
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, NoReturn, Protocol, TypeAlias, overload

from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.varint import read_uvarint, read_varint, read_varlong, write_uvarint, write_varint

if TYPE_CHECKING:
    from typing_extensions import TypeIs

_INT8 = struct.Struct(">b")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_UINT16 = struct.Struct(">H")
_UINT32 = struct.Struct(">I")
_FLOAT64 = struct.Struct(">d")
_INT8_FROM = _INT8.unpack_from
_INT16_FROM = _INT16.unpack_from
_INT32_FROM = _INT32.unpack_from
_INT64_FROM = _INT64.unpack_from

# Payloads at least this large are handed to the Writer's output as separate chunks
# instead of being copied into its header buffer.
CHUNK_THRESHOLD = 1024
# A file region (records left in a segment file, for the connection to send with sendfile: anything with
# ``position``, ``fileno()`` and ``read_bytes()``) smaller than this is read and copied like bytes instead: below
# it one read costs less than the system calls of sending the region on its own.
FILE_REGION_COPY_BELOW = 65536
BYTES_LIKE = (bytes, bytearray, memoryview)


class FileRegion(Protocol):
    """Records left in a segment file (the log's FileSlice), for the connection to send with sendfile."""

    @property
    def position(self) -> int: ...

    def fileno(self) -> int: ...

    def read_bytes(self) -> bytes: ...

    def __len__(self) -> int: ...


# A payload chunk: bytes-like, or a file region.
Chunk: TypeAlias = bytes | bytearray | memoryview | FileRegion


class ProtocolDecodeError(ValueError):
    """The bytes on the wire do not form a valid message (truncated, bad length, bad text)."""


class ProtocolEncodeError(ValueError):
    """A value handed to the encoder cannot be written (wrong type, None where not nullable)."""


def _payload_size(chunk: Chunk) -> int:
    return chunk.nbytes if isinstance(chunk, memoryview) else len(chunk)


def is_file_region(chunk: Chunk) -> "TypeIs[FileRegion]":
    """Whether a payload chunk is a file region rather than bytes-like."""
    return not isinstance(chunk, BYTES_LIKE)


def region_bytes(region: FileRegion) -> bytes:
    """A file region's bytes, all of them: ValueError if the file no longer holds them (truncated or closed)."""
    data = region.read_bytes()
    if len(data) != len(region):
        raise ValueError("%r holds %d bytes, not %d" % (region, len(data), len(region)))
    return data


def chunk_bytes(chunk: Chunk) -> bytes | bytearray | memoryview:
    """A payload chunk as bytes-like: a file region read (see region_bytes), anything else as it is."""
    return region_bytes(chunk) if is_file_region(chunk) else chunk


@lru_cache(maxsize=64)
def int32_array_struct(count: int) -> struct.Struct:
    return struct.Struct(">%di" % count)


class Reader:
    """Reads protocol primitives from a byte buffer, advancing ``pos``.

    Every length read from the wire is checked against the bytes that remain before anything
    is allocated; any shortfall raises ProtocolDecodeError.
    """

    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf: ReadableBuffer, pos: int = 0) -> None:
        self.buf = buf if isinstance(buf, memoryview) else memoryview(buf)
        if self.buf.format != "B" or self.buf.ndim != 1:
            self.buf = self.buf.cast("B")
        self.pos = pos
        self.end = len(self.buf)

    def remaining(self) -> int:
        return self.end - self.pos

    def _truncated(self, size: int) -> NoReturn:
        raise ProtocolDecodeError("need %d bytes at offset %d, only %d remain" % (size, self.pos, self.end - self.pos))

    def _take(self, size: int) -> int:
        pos = self.pos
        if size < 0 or pos + size > self.end:
            self._truncated(size)
        self.pos = pos + size
        return pos

    def skip(self, size: int) -> None:
        self._take(size)

    # Fixed-width numbers.

    # The hot readers check bounds inline rather than through _take.

    def read_int8(self) -> int:
        pos = self.pos
        if pos + 1 > self.end:
            self._truncated(1)
        self.pos = pos + 1
        return _INT8_FROM(self.buf, pos)[0]

    def read_int16(self) -> int:
        pos = self.pos
        if pos + 2 > self.end:
            self._truncated(2)
        self.pos = pos + 2
        return _INT16_FROM(self.buf, pos)[0]

    def read_int32(self) -> int:
        pos = self.pos
        if pos + 4 > self.end:
            self._truncated(4)
        self.pos = pos + 4
        return _INT32_FROM(self.buf, pos)[0]

    def read_int64(self) -> int:
        pos = self.pos
        if pos + 8 > self.end:
            self._truncated(8)
        self.pos = pos + 8
        return _INT64_FROM(self.buf, pos)[0]

    def read_uint16(self) -> int:
        return _UINT16.unpack_from(self.buf, self._take(2))[0]

    def read_uint32(self) -> int:
        return _UINT32.unpack_from(self.buf, self._take(4))[0]

    def read_float64(self) -> float:
        return _FLOAT64.unpack_from(self.buf, self._take(8))[0]

    def read_bool(self) -> bool:
        return self.buf[self._take(1)] != 0

    def read_int32_array_items(self, count: int) -> list[int]:
        """``count`` big-endian int32s as a list (the caller has read the count)."""
        pos = self._take(4 * count)
        return list(int32_array_struct(count).unpack_from(self.buf, pos))

    # Variable-length integers.

    def read_uvarint(self) -> int:
        buf = self.buf
        pos = self.pos
        if pos < self.end and buf[pos] < 0x80:
            self.pos = pos + 1
            return buf[pos]
        try:
            value, self.pos = read_uvarint(buf, pos, 5)
        except ValueError as exc:
            raise ProtocolDecodeError(str(exc)) from None
        if value > 0xFFFFFFFF:
            raise ProtocolDecodeError("unsigned varint out of range")
        return value

    def read_varint(self) -> int:
        try:
            value, self.pos = read_varint(self.buf, self.pos)
        except ValueError as exc:
            raise ProtocolDecodeError(str(exc)) from None
        return value

    def read_varlong(self) -> int:
        try:
            value, self.pos = read_varlong(self.buf, self.pos)
        except ValueError as exc:
            raise ProtocolDecodeError(str(exc)) from None
        return value

    # Lengths: a negative or oversized length is an error before anything is allocated.

    @overload
    def _length16(self, nullable: Literal[False]) -> int: ...

    @overload
    def _length16(self, nullable: bool) -> int | None: ...

    def _length16(self, nullable: bool) -> int | None:
        pos = self.pos
        if pos + 2 > self.end:
            self._truncated(2)
        self.pos = pos + 2
        size = _INT16_FROM(self.buf, pos)[0]
        if size < 0:
            if size == -1 and nullable:
                return None
            raise ProtocolDecodeError("invalid length %d" % size)
        if size > self.end - self.pos:
            raise ProtocolDecodeError("length %d exceeds the %d bytes remaining" % (size, self.end - self.pos))
        return size

    @overload
    def _length32(self, nullable: Literal[False]) -> int: ...

    @overload
    def _length32(self, nullable: bool) -> int | None: ...

    def _length32(self, nullable: bool) -> int | None:
        pos = self.pos
        if pos + 4 > self.end:
            self._truncated(4)
        self.pos = pos + 4
        size = _INT32_FROM(self.buf, pos)[0]
        if size < 0:
            if size == -1 and nullable:
                return None
            raise ProtocolDecodeError("invalid length %d" % size)
        if size > self.end - self.pos:
            raise ProtocolDecodeError("length %d exceeds the %d bytes remaining" % (size, self.end - self.pos))
        return size

    @overload
    def _compact_length(self, nullable: Literal[False]) -> int: ...

    @overload
    def _compact_length(self, nullable: bool) -> int | None: ...

    def _compact_length(self, nullable: bool) -> int | None:
        size = self.read_uvarint() - 1
        if size < 0:
            if nullable:
                return None
            raise ProtocolDecodeError("null where a value is required")
        if size > self.end - self.pos:
            raise ProtocolDecodeError("length %d exceeds the %d bytes remaining" % (size, self.end - self.pos))
        return size

    def array_length(self, nullable: bool, compact: bool) -> int | None:
        """The element count of an array (None for a null array); never more than the bytes left."""
        return self._compact_length(nullable) if compact else self._length32(nullable)

    # Text.

    @overload
    def _text(self, size: int) -> str: ...

    @overload
    def _text(self, size: int | None) -> str | None: ...

    def _text(self, size: int | None) -> str | None:
        if size is None:
            return None
        pos = self.pos
        self.pos = pos + size
        try:
            return str(self.buf[pos : pos + size], "utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolDecodeError("invalid UTF-8 in string: %s" % exc) from None

    def read_string(self) -> str:
        return self._text(self._length16(False))

    def read_nullable_string(self) -> str | None:
        return self._text(self._length16(True))

    def read_compact_string(self) -> str:
        return self._text(self._compact_length(False))

    def read_compact_nullable_string(self) -> str | None:
        return self._text(self._compact_length(True))

    # Bytes (copied out as ``bytes``) and records (zero-copy memoryview).

    @overload
    def _bytes(self, size: int) -> bytes: ...

    @overload
    def _bytes(self, size: int | None) -> bytes | None: ...

    def _bytes(self, size: int | None) -> bytes | None:
        if size is None:
            return None
        pos = self.pos
        self.pos = pos + size
        return bytes(self.buf[pos : pos + size])

    def _view(self, size: int | None) -> memoryview | None:
        if size is None:
            return None
        pos = self.pos
        self.pos = pos + size
        return self.buf[pos : pos + size]

    def read_bytes(self) -> bytes:
        return self._bytes(self._length32(False))

    def read_nullable_bytes(self) -> bytes | None:
        return self._bytes(self._length32(True))

    def read_compact_bytes(self) -> bytes:
        return self._bytes(self._compact_length(False))

    def read_compact_nullable_bytes(self) -> bytes | None:
        return self._bytes(self._compact_length(True))

    def read_records(self) -> memoryview | None:
        return self._view(self._length32(True))

    def read_compact_records(self) -> memoryview | None:
        return self._view(self._compact_length(True))


class Writer:
    """Appends protocol primitives to a bytearray.

    Large payloads (records) are kept as separate chunks rather than copied, so a response can be
    sent with ``chunks()`` without ever joining, or flattened once with ``getvalue()``. Records may be a
    file region (see FILE_REGION_COPY_BELOW): a large one stays a chunk of its own, for the connection to
    send from the file; ``getvalue()`` reads it.
    """

    __slots__ = ("buf", "_chunks")

    def __init__(self) -> None:
        self.buf = bytearray()
        self._chunks: list[Chunk] | None = None

    def size(self) -> int:
        done = sum(_payload_size(c) for c in self._chunks) if self._chunks else 0
        return done + len(self.buf)

    def getvalue(self) -> bytes:
        """Everything written, as one ``bytes`` (payload chunks are copied exactly once)."""
        if not self._chunks:
            return bytes(self.buf)
        return b"".join([chunk_bytes(chunk) for chunk in self.chunks()])

    def chunks(self) -> list[Chunk]:
        """Everything written, as a list of pieces in order (payload chunks as given: bytes-like, or large
        file regions)."""
        pieces = list(self._chunks) if self._chunks else []
        if self.buf:
            pieces.append(bytes(self.buf))
        return pieces

    def write_raw(self, data: ReadableBuffer) -> None:
        self.buf += data

    def write_chunk(self, data: Chunk) -> None:
        """Append ``data`` by reference when it is large, by copy when it is small."""
        if is_file_region(data) and len(data) < FILE_REGION_COPY_BELOW:
            data = region_bytes(data)
        if _payload_size(data) < CHUNK_THRESHOLD:
            self.buf += data  # type: ignore[arg-type]  # a small chunk is bytes-like: regions are read above
            return
        if self._chunks is None:
            self._chunks = []
        if self.buf:
            self._chunks.append(bytes(self.buf))
            self.buf = bytearray()
        self._chunks.append(data)

    # Fixed-width numbers.

    def write_int8(self, value: int) -> None:
        self.buf += _INT8.pack(value)

    def write_int16(self, value: int) -> None:
        self.buf += _INT16.pack(value)

    def write_int32(self, value: int) -> None:
        self.buf += _INT32.pack(value)

    def write_int64(self, value: int) -> None:
        self.buf += _INT64.pack(value)

    def write_uint16(self, value: int) -> None:
        self.buf += _UINT16.pack(value)

    def write_uint32(self, value: int) -> None:
        self.buf += _UINT32.pack(value)

    def write_float64(self, value: float) -> None:
        self.buf += _FLOAT64.pack(value)

    def write_bool(self, value: bool | None) -> None:
        if value is None:
            raise ProtocolEncodeError("bool value is None")
        self.buf.append(1 if value else 0)

    # Variable-length integers.

    def write_uvarint(self, value: int) -> None:
        if value < 0:
            raise ProtocolEncodeError("unsigned varint cannot be negative: %d" % value)
        write_uvarint(self.buf, value)

    def write_varint(self, value: int) -> None:
        write_varint(self.buf, value)

    write_varlong = write_varint

    # Lengths and length-prefixed values.

    def write_array_length(self, count: int | None, compact: bool) -> None:
        """Length prefix of an array; ``count`` None writes a null array."""
        if compact:
            write_uvarint(self.buf, 0 if count is None else count + 1)
        else:
            self.buf += _INT32.pack(-1 if count is None else count)

    def write_string(self, value: str | None) -> None:
        if value is None:
            raise ProtocolEncodeError("string is not nullable here")
        data = value.encode("utf-8")
        self.buf += _INT16.pack(len(data))
        self.buf += data

    def write_nullable_string(self, value: str | None) -> None:
        if value is None:
            self.buf += b"\xff\xff"
        else:
            self.write_string(value)

    def write_compact_string(self, value: str | None) -> None:
        if value is None:
            raise ProtocolEncodeError("string is not nullable here")
        data = value.encode("utf-8")
        write_uvarint(self.buf, len(data) + 1)
        self.buf += data

    def write_compact_nullable_string(self, value: str | None) -> None:
        if value is None:
            self.buf.append(0)
        else:
            self.write_compact_string(value)

    def write_bytes(self, value: bytes | bytearray | memoryview | None) -> None:
        if value is None:
            raise ProtocolEncodeError("bytes are not nullable here")
        self.buf += _INT32.pack(_payload_size(value))
        self.buf += value

    def write_nullable_bytes(self, value: bytes | bytearray | memoryview | None) -> None:
        if value is None:
            self.buf += b"\xff\xff\xff\xff"
        else:
            self.write_bytes(value)

    def write_compact_bytes(self, value: bytes | bytearray | memoryview | None) -> None:
        if value is None:
            raise ProtocolEncodeError("bytes are not nullable here")
        write_uvarint(self.buf, _payload_size(value) + 1)
        self.buf += value

    def write_compact_nullable_bytes(self, value: bytes | bytearray | memoryview | None) -> None:
        if value is None:
            self.buf.append(0)
        else:
            self.write_compact_bytes(value)

    def _records_chunks(self, value: Chunk | list[Chunk] | tuple[Chunk, ...]) -> tuple[Sequence[Chunk], int]:
        if isinstance(value, (list, tuple)):
            return value, sum(_payload_size(c) for c in value)
        return (value,), _payload_size(value)

    def write_records(
        self, value: Chunk | list[Chunk] | tuple[Chunk, ...] | None, nullable: bool = True, compact: bool = False
    ) -> None:
        """Records: bytes-like or a file region, or a list/tuple of such chunks, sent back to back."""
        if value is None:
            if not nullable:
                raise ProtocolEncodeError("records are not nullable here")
            if compact:
                self.buf.append(0)
            else:
                self.buf += b"\xff\xff\xff\xff"
            return
        if isinstance(value, (list, tuple)):
            chunks, total = self._records_chunks(value)
        else:  # one chunk, the common case: _records_chunks's answer without its call
            chunks, total = (value,), value.nbytes if value.__class__ is memoryview else len(value)
        if compact:
            write_uvarint(self.buf, total + 1)
        else:
            self.buf += _INT32.pack(total)
        for chunk in chunks:
            self.write_chunk(chunk)
