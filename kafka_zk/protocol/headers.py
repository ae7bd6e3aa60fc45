"""Request and response headers, and whole-message encode/decode built on the API registry.

Everything here works on one message *without* its int32 frame length: framing is the
transport's job.
"""

import struct
from typing import TYPE_CHECKING, NamedTuple

from kafka_zk.protocol import schema
from kafka_zk.protocol.api_keys import (
    API_SPECS,
    HEADER_VERSIONS,
    get_spec,
    request_header_version,
    response_header_version,
)
from kafka_zk.protocol.primitives import ProtocolDecodeError, Reader, Writer
from kafka_zk.protocol.schema import Body
from kafka_zk.record.buffers import ReadableBuffer

if TYPE_CHECKING:
    from collections.abc import Callable

    from kafka_zk.protocol.primitives import Chunk


class RequestHeader(NamedTuple):
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None


# A v1 request header up to its client id's bytes: api key, api version, correlation id, client id length.
_V1_START = struct.Struct(">hhih")
_CORRELATION_ID = struct.Struct(">i")


def _skip_tagged_fields(reader: Reader) -> None:
    for _ in range(reader.read_uvarint()):
        reader.read_uvarint()  # tag
        reader.skip(reader.read_uvarint())


def _read_request_header(reader: Reader) -> RequestHeader:
    api_key = reader.read_int16()
    api_version = reader.read_int16()
    correlation_id = reader.read_int32()
    versions = HEADER_VERSIONS.get((api_key, api_version))
    if versions is None:
        # Read the rest as a v1 header, best effort: the caller only needs the correlation id
        # to answer (ApiVersions) or to log before closing the connection.
        start = reader.pos
        try:
            client_id = reader.read_nullable_string()
        except ProtocolDecodeError:
            reader.pos = start
            client_id = None
        return RequestHeader(api_key, api_version, correlation_id, client_id)
    header_version = versions[0]
    client_id = reader.read_nullable_string() if header_version >= 1 else None
    if header_version >= 2:
        _skip_tagged_fields(reader)
    return RequestHeader(api_key, api_version, correlation_id, client_id)


def decode_request_header(buf: ReadableBuffer) -> tuple[RequestHeader, int]:
    """(RequestHeader, body_offset) for one request frame's payload.

    An unknown api key or unsupported version still yields the header (read as v1, client_id
    None if even that fails) so the server can answer or close; only a frame too short for the
    key, version and correlation id raises ProtocolDecodeError.
    """
    if len(buf) >= _V1_START.size:  # the v1 header of most requests, read at once
        api_key, api_version, correlation_id, size = _V1_START.unpack_from(buf)
        versions = HEADER_VERSIONS.get((api_key, api_version))
        if versions is not None and versions[0] == 1:
            end = _V1_START.size + size
            if size == -1:
                return RequestHeader(api_key, api_version, correlation_id, None), _V1_START.size
            if 0 <= size and end <= len(buf):
                try:
                    client_id = str(buf[_V1_START.size : end], "utf-8")
                except UnicodeDecodeError:
                    pass  # the reader below says what is wrong
                else:
                    return RequestHeader(api_key, api_version, correlation_id, client_id), end
    reader = Reader(buf)
    header = _read_request_header(reader)
    return header, reader.pos


def decode_request(buf: ReadableBuffer) -> tuple[RequestHeader, Body]:
    """(RequestHeader, body dict); UnsupportedVersionError for APIs or versions we do not serve."""
    reader = Reader(buf)
    header = _read_request_header(reader)
    spec = get_spec(header.api_key, header.api_version)
    return header, spec.request.decode_from(reader, header.api_version)


def encode_request(api_key: int, version: int, correlation_id: int, client_id: str | None, body: Body) -> bytes:
    """A request header plus body, as bytes without the frame length."""
    spec = get_spec(api_key, version)
    header_version = request_header_version(api_key, version)
    writer = Writer()
    writer.write_int16(api_key)
    writer.write_int16(version)
    writer.write_int32(correlation_id)
    if header_version >= 1:
        writer.write_nullable_string(client_id)
    if header_version >= 2:
        writer.write_uvarint(0)
    spec.request.encode_into(writer, body, version)
    return writer.getvalue()


def _response_writer(api_key: int, version: int, correlation_id: int, body: Body) -> Writer:
    versions = HEADER_VERSIONS.get((api_key, version))
    spec = get_spec(api_key, version) if versions is None else API_SPECS[api_key]  # get_spec raises
    if schema.strict_messages:
        spec.response.check_strictly(body, version)
    writer = Writer()
    writer.buf += _CORRELATION_ID.pack(correlation_id)
    if versions[1] >= 1:  # type: ignore[index]  # get_spec raised for an unserved version
        writer.buf.append(0)  # no tagged fields
    spec.response.codec(version).encode(writer, body)
    return writer


# A response frame's start: its size (filled in once known), the correlation id and, in header v1, no tagged fields.
_FRAME_START_V0 = struct.Struct(">ii").pack
_FRAME_START_V1 = struct.Struct(">iiB").pack
_FRAME_SIZE = struct.Struct(">i")


def encode_response_frame(api_key: int, version: int, correlation_id: int, body: Body) -> "bytes | list[Chunk]":
    """A whole response frame, its int32 size first, as bytes; or, when large records chunks are passed through
    uncopied, as encode_response_chunks gives it (without the size)."""
    plan = _RESPONSE_PLANS.get(api_key * 65536 + version) or _response_plan(api_key, version)
    if schema.strict_messages:
        plan[0].check_strictly(body, version)
    writer = _new_writer(Writer)  # Writer() without the call of its __init__, once per response
    writer._chunks = _NO_CHUNKS
    writer.buf = bytearray(_FRAME_START_V1(0, correlation_id, 0) if plan[1] else _FRAME_START_V0(0, correlation_id))
    plan[2](writer, body)
    if writer._chunks:
        chunks = writer.chunks()
        chunks[0] = chunks[0][4:]  # type: ignore[index]  # the first chunk is header bytes
        return chunks
    buf = writer.buf
    _FRAME_SIZE.pack_into(buf, 0, len(buf) - 4)
    return bytes(buf)


# api_key * 65536 + version (apart for every int16 version) -> (response schema, response header version, its
# codec's encode)
_RESPONSE_PLANS: dict[int, tuple[schema.Schema, int, "Callable[[Writer, Body], None]"]] = {}
_new_writer = Writer.__new__
_NO_CHUNKS: "list[Chunk] | None" = None  # a fresh Writer's: none held apart from its buf


def _response_plan(api_key: int, version: int) -> tuple[schema.Schema, int, "Callable[[Writer, Body], None]"]:
    spec = get_spec(api_key, version)  # raises for an unserved version
    plan = _RESPONSE_PLANS[api_key * 65536 + version] = (
        spec.response,
        HEADER_VERSIONS[(api_key, version)][1],
        spec.response.codec(version).write_body,
    )
    return plan


def encode_response(api_key: int, version: int, correlation_id: int, body: Body) -> bytes:
    """A response header plus body, as bytes without the frame length."""
    return _response_writer(api_key, version, correlation_id, body).getvalue()


def encode_response_chunks(api_key: int, version: int, correlation_id: int, body: Body) -> "list[Chunk]":
    """Like encode_response, as a list of bytes-like pieces: large records chunks are passed
    through uncopied. The frame length is the sum of the pieces' lengths."""
    return _response_writer(api_key, version, correlation_id, body).chunks()


def decode_response(api_key: int, version: int, buf: ReadableBuffer) -> tuple[int, Body]:
    """(correlation_id, body dict) of one response frame's payload, for our own client."""
    spec = get_spec(api_key, version)
    reader = Reader(buf)
    correlation_id = reader.read_int32()
    if response_header_version(api_key, version) >= 1:
        _skip_tagged_fields(reader)
    return correlation_id, spec.response.decode_from(reader, version)
