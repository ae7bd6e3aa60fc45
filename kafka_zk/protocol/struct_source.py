"""The Python source generated for one struct's reader and writer at one version, and its compilation: what a
StructCodec runs for each struct it decodes and encodes."""

import contextlib
import hashlib
import struct
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from kafka_zk.protocol import generated_codecs
from kafka_zk.protocol.primitives import CHUNK_THRESHOLD, ProtocolEncodeError, Reader, Writer
from kafka_zk.protocol.type_codecs import BYTES_WRITERS, FIXED, HUMAN_MESSAGE_FIELDS, STRING_WRITERS

if TYPE_CHECKING:
    from kafka_zk.protocol.schema import Body, StructCodec

_UNSET = object()
# a generated source's digest -> the factory of its function (the module is untyped: it is generated)
FACTORIES: dict[str, Callable[[dict[str, Any]], Any]] = generated_codecs.FACTORIES


def _spans(codes: list[str | None], joinable: Callable[[str | None], bool]) -> list[tuple[int, int]]:
    """[(start, end)] covering ``codes`` in order: each stretch of joinable struct codes as one span, every other
    field alone."""
    spans: list[tuple[int, int]]
    spans, index = [], 0
    while index < len(codes):
        end = index + 1
        if joinable(codes[index]):
            while end < len(codes) and joinable(codes[end]):
                end += 1
        spans.append((index, end))
        index = end
    return spans


class _Source:
    """Python source being generated, with the objects its names refer to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.env: dict[str, Any] = {}
        self._count = 0

    def name(self, prefix: str, value: Any = _UNSET) -> str:
        name = "%s%d" % (prefix, self._count)
        self._count += 1
        if value is not _UNSET:
            self.env[name] = value
        return name

    def compile(self, function: str, kind: str, path: str) -> Any:
        """The function ``function`` of this source: made by its factory in the generated module when that module
        holds this very text (the compiled twins compile it), else by exec'ing the text, as any other codec is."""
        text = "\n".join(self.lines)
        if _recording is not None:
            _recording.append((kind, path, text, sorted(self.env)))
        factory = FACTORIES.get(text_digest(text))
        if factory is not None:
            return factory(self.env)
        exec(compile(text, "<%s of %s>" % (kind, path), "exec"), self.env)
        return self.env[function]


def text_digest(text: str) -> str:
    """What a generated codec's source is known by in kafka_zk/protocol/generated_codecs.py."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# Within recording_sources(): (kind, path, text, the names its environment binds) of each source compiled.
_recording: list[tuple[str, str, str, list[str]]] | None = None


@contextlib.contextmanager
def recording_sources() -> Iterator[list[tuple[str, str, str, list[str]]]]:
    """The sources of the codecs compiled within the block, as (kind, path, text, the names its environment
    binds), in order."""
    global _recording
    recorded: list[tuple[str, str, str, list[str]]] = []
    _recording = recorded
    try:
        yield recorded
    finally:
        _recording = None


def _emit_reader(source: _Source, codec: "StructCodec", target: str, indent: int) -> None:
    """Lines setting ``target`` to the dict of one struct of ``codec``, with the position kept in the local
    ``pos`` (and ``buf``, ``end``: the reader's): each run of fixed-width fields taken by a single bounds check and
    unpack (a struct decoded per partition of a 10,000-partition LeaderAndIsr no longer costs a call per number),
    together with the length or count of a field read in place right after the run,
    the strings, bytes, records and array counts of non-flexible versions read in place when they are well formed
    (anything else, e.g. a bad length, goes to the field's own reader, which raises as it always did), arrays of
    non-flexible structs read in place, the fields the version lacks at their defaults."""
    pad = " " * indent
    lines = source.lines
    readers = codec.readers
    values: list[str] = []
    spans = _spans([reader[2] for reader in readers], lambda code: code is not None)
    prefix_read = None  # the name of a length or count read by the unpack of the fixed-width run before it
    for number, (start, end) in enumerate(spans):
        key, read, code, inline, kind, nullable = readers[start]
        if code is None and inline is None and kind is None:
            values.append(source.name("v"))
            lines += [
                pad + "reader.pos = pos",
                pad + "%s = %s(reader)" % (values[-1], source.name("read_", read)),
                pad + "pos = reader.pos",
            ]
        elif code is None and inline is None:
            # a length-prefixed value: -2 stands for a length field the buffer cannot hold
            value = source.name("v")
            values.append(value)
            length = _INT16_FROM if kind == "string" else _INT32_FROM
            width = 2 if kind == "string" else 4
            if prefix_read is None:
                size = source.name("size")
                lines.append(
                    pad + "%s = %s(buf, pos)[0] if pos + %d <= end else -2" % (size, source.name("len_", length), width)
                )
            else:
                size, prefix_read = prefix_read, None
            take = {
                "string": "str(buf[pos + %d : pos + %d + %s], 'utf-8')",
                "bytes": "bytes(buf[pos + %d : pos + %d + %s])",
                "records": "buf[pos + %d : pos + %d + %s]",
            }[kind] % (width, width, size)  # type: ignore[index]  # code and inline None: kind is set
            lines.append(pad + "if 0 <= %s <= end - pos - %d:" % (size, width))
            if kind == "string":
                lines += [
                    pad + "    try:",
                    pad + "        %s = %s" % (value, take),
                    pad + "    except UnicodeDecodeError:",
                    pad + "        reader.pos = pos",
                    pad + "        %s(reader)" % source.name("read_", read),  # raises ProtocolDecodeError
                    pad + "        raise",
                ]
            else:
                lines.append(pad + "    %s = %s" % (value, take))
            lines.append(pad + "    pos += %d + %s" % (width, size))
            if nullable:
                lines += [pad + "elif %s == -1:" % size, pad + "    %s = None" % value, pad + "    pos += %d" % width]
            lines += [
                pad + "else:",
                pad + "    reader.pos = pos",
                pad + "    %s = %s(reader)" % (value, source.name("read_", read)),
                pad + "    pos = reader.pos",
            ]
        elif code is None:
            nested = inline[1]  # type: ignore[index]  # code None and inline not None
            value = source.name("v")
            values.append(value)
            if prefix_read is None:
                count = source.name("count")
                lines.append(
                    pad + "%s = %s(buf, pos)[0] if pos + 4 <= end else -2" % (count, source.name("len_", _INT32_FROM))
                )
            else:
                count, prefix_read = prefix_read, None
            item = source.name("item")
            lines += [
                pad + "if 0 <= %s <= end - pos - 4:" % count,
                pad + "    pos += 4",
                pad + "    %s = []" % value,
                pad + "    for _ in range(%s):" % count,
            ]
            _emit_reader(source, nested, item, indent + 8)
            lines += [
                pad + "        %s.append(%s)" % (value, item),
                pad + "else:",  # a null array, or the error of a bad count
                pad + "    reader.pos = pos",
                pad + "    reader.array_length(%r, False)" % nullable,
                pad + "    pos = reader.pos",
                pad + "    %s = None" % value,
            ]
        else:
            codes = "".join(reader[2] for reader in readers[start:end])  # type: ignore[misc]
            run = struct.Struct(">" + codes)
            names = [source.name("v") for _ in range(start, end)]
            values += names
            following = readers[spans[number + 1][0]] if number + 1 < len(spans) else None
            if following is not None and following[2] is None and (following[3] is not None or following[4]):
                # the length or count of the field read in place next (a string's int16, else int32): one unpack
                # takes it with the run when the buffer holds both (else it is -2, which that field's reader
                # reports as it would have)
                prefix = "h" if following[3] is None and following[4] == "string" else "i"
                prefix_read = source.name("prefix")
                both = source.name("unpack_", struct.Struct(">" + codes + prefix).unpack_from)
                lines += [
                    pad + "if pos + %d <= end:" % struct.calcsize(">" + codes + prefix),
                    pad + "    %s, %s, = %s(buf, pos)" % (", ".join(names), prefix_read, both),
                    pad + "else:",
                    pad + "    if pos + %d > end:" % run.size,
                    pad + "        reader.pos = pos",
                    pad + "        reader._truncated(%d)" % run.size,
                    pad + "    %s, = %s(buf, pos)" % (", ".join(names), source.name("unpack_", run.unpack_from)),
                    pad + "    %s = -2" % prefix_read,
                    pad + "pos += %d" % run.size,
                ]
                continue
            lines += [
                pad + "if pos + %d > end:" % run.size,
                pad + "    reader.pos = pos",
                pad + "    reader._truncated(%d)" % run.size,
                pad + "%s, = %s(buf, pos)" % (", ".join(names), source.name("unpack_", run.unpack_from)),
                pad + "pos += %d" % run.size,
            ]
    entries = ["%r: %s" % (reader[0], value) for reader, value in zip(readers, values)]
    for key, default in codec.absent:
        name = source.name("default_", default)
        entries.append(
            "%r: %s"
            % (
                key,
                "list(%s)" % name
                if isinstance(default, list)
                else "dict(%s)" % name
                if isinstance(default, dict)
                else name,
            )
        )
    lines.append(pad + "%s = {%s}" % (target, ", ".join(entries)))


def _emit_writer(source: _Source, codec: "StructCodec", obj: str, indent: int) -> None:
    """Lines writing the fields of one struct of ``codec`` from the dict ``obj`` to the local ``buf`` (the
    writer's; fetched again after any writer that may start a new one, as records do): each run of fixed-width
    numbers packed at once (bools keep their own writer, which refuses None), strings of non-flexible versions
    and null strings written in place (anything else goes to the field's own writer), arrays of non-flexible
    structs written in place, small bytes records of non-flexible versions copied in place. Values are read with
    ``obj[key]``, which costs less than ``obj.get(key, default)``; a missing key falls back to its default."""
    pad = " " * indent
    lines = source.lines
    writers = codec.writers
    for start, end in _spans([writer[3] for writer in writers], lambda code: code not in (None, "?")):
        key, write, default, code, inline, kind, nullable = writers[start]
        if end == start + 1 and code in (None, "?"):
            default_name = source.name("default_", default)
            item = source.name("v")
            lines += [
                pad + "try:",
                pad + "    %s = %s[%r]" % (item, obj, key),
                pad + "except KeyError:",
                pad + "    %s = %s" % (item, default_name),
            ]
            if inline is None and kind == "string":
                data = source.name("data")
                branch = "if"
                if nullable:
                    lines += [pad + "if %s is None:" % item, pad + "    buf += b'\\xff\\xff'"]
                    branch = "elif"
                if key not in HUMAN_MESSAGE_FIELDS:  # those are clipped by their writer when long
                    lines += [
                        pad + "%s %s.__class__ is str:" % (branch, item),
                        pad + "    %s = %s.encode('utf-8')" % (data, item),
                        *_length_lines(source, pad + "    ", 2, data),
                        pad + "    buf += %s" % data,
                    ]
                    branch = "elif"
                call = "%s(writer, %s)" % (source.name("write_", write), item)
                lines += [pad + "else:", pad + "    " + call] if branch == "elif" else [pad + call]
                continue
            if inline is None and kind == "records":
                # small bytes, copied into the buffer as Writer.write_records does; anything else goes to it
                lines += [
                    pad + "if %s.__class__ is bytes and len(%s) < %d:" % (item, item, CHUNK_THRESHOLD),
                    *_length_lines(source, pad + "    ", 4, item),
                    pad + "    buf += %s" % item,
                    pad + "else:",
                    pad + "    %s(writer, %s)" % (source.name("write_", write), item),
                    pad + "    buf = writer.buf",
                ]
                continue
            if inline is None:
                lines.append(pad + "%s(writer, %s)" % (source.name("write_", write), item))
                if write not in _SAME_BUFFER_WRITERS:  # records may start a new buffer, and so may a struct of them
                    lines.append(pad + "buf = writer.buf")
                continue
            nested = source.name("item")
            lines += [
                pad + "if %s is None:" % item,
                pad + "    %s(writer, None)" % source.name("write_", write),  # a null array, or the error
                pad + "else:",
                *_length_lines(source, pad + "    ", 4, item),
                pad + "    for %s in %s:" % (nested, item),
            ]
            _emit_writer(source, inline[1], nested, indent + 8)
            continue
        pack = source.name("pack_", struct.Struct(">" + "".join(w[3] for w in writers[start:end])).pack)  # type: ignore[misc]
        defaults = [source.name("default_", writers[k][2]) for k in range(start, end)]
        lines += [
            pad + "try:",
            pad + "    buf += %s(%s)" % (pack, ", ".join("%s[%r]" % (obj, writers[k][0]) for k in range(start, end))),
            pad + "except KeyError:",
            pad
            + "    buf += %s(%s)"
            % (
                pack,
                ", ".join(
                    "%s.get(%r, %s)" % (obj, writers[k][0], default) for k, default in zip(range(start, end), defaults)
                ),
            ),
        ]


IN_PLACE_KINDS = ("string", "bytes", "records")
_SAME_BUFFER_WRITERS = frozenset(STRING_WRITERS + BYTES_WRITERS + tuple(write for _, write in FIXED.values()))
_INT16_PACK = struct.Struct(">h").pack
_INT32_PACK = struct.Struct(">i").pack
# the int16 and int32 encodings of 0-255, the lengths and counts most strings, records and arrays have: a tuple's
# item costs a fraction of a pack() call
_SMALL_LENGTHS = 256
_SMALL_INT16 = tuple(_INT16_PACK(n) for n in range(_SMALL_LENGTHS))
_SMALL_INT32 = tuple(_INT32_PACK(n) for n in range(_SMALL_LENGTHS))


def _length_lines(source: _Source, pad: str, width: int, value: str) -> list[str]:
    """Lines appending the int16 (``width`` 2) or int32 length of ``value`` to ``buf``: a small one from its
    table, any other packed (a length an int16 cannot hold raises as pack() always did)."""
    size = source.name("n")
    small = source.name("small_", _SMALL_INT16 if width == 2 else _SMALL_INT32)
    pack = source.name("pack_", _INT16_PACK if width == 2 else _INT32_PACK)
    return [
        pad + "%s = len(%s)" % (size, value),
        pad + "buf += %s[%s] if %s < %d else %s(%s)" % (small, size, size, _SMALL_LENGTHS, pack, size),
    ]


_INT16_FROM = struct.Struct(">h").unpack_from
_INT32_FROM = struct.Struct(">i").unpack_from


def compile_struct_reader(codec: "StructCodec") -> Callable[[Reader], "Body"]:
    source = _Source()
    source.lines += ["def read_fields(reader):", "    buf = reader.buf", "    end = reader.end", "    pos = reader.pos"]
    _emit_reader(source, codec, "result", 4)
    source.lines += ["    reader.pos = pos", "    return result"]
    return source.compile("read_fields", "reader", codec.path)


def compile_struct_writer(codec: "StructCodec") -> Callable[[Writer, "Body"], None]:
    """The writer of the struct's fields; for a non-flexible struct (nothing tagged to add), the whole of
    encode(), its failures located as encode() locates them."""
    source = _Source()
    source.lines.append("def write_fields(writer, obj):")
    if codec.flexible:
        source.lines.append("    buf = writer.buf")
        _emit_writer(source, codec, "obj", 4)
    else:
        source.lines += ["    try:", "        buf = writer.buf"]
        _emit_writer(source, codec, "obj", 8)
        source.lines += [
            "    except %s as exc:" % source.name("errors_", _ENCODE_ERRORS),
            "        if not getattr(exc, 'located', False):",
            "            %s(obj)" % source.name("locate_", codec._locate_error),
            "        raise",
        ]
    return source.compile("write_fields", "writer", codec.path)


# What a compiled writer's failure may be, located to the field at fault before it goes further.
_ENCODE_ERRORS = (ProtocolEncodeError, struct.error, TypeError, AttributeError, ValueError, OverflowError)
