"""Checkpoint files of a log dir and a partition dir, and meta.properties: text formats, atomic writes."""

import ctypes
import ctypes.util
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypedDict

CHECKPOINT_VERSION = 0
RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint"
REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"
CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint"
LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
META_PROPERTIES = "meta.properties"
META_PROPERTIES_VERSION = 0


class MalformedCheckpointError(ValueError):
    """A checkpoint or meta.properties file that cannot be parsed."""


class MetaProperties(TypedDict):
    """What read_meta_properties finds in meta.properties."""

    broker_id: int
    cluster_id: str | None


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via ``path.tmp``: flush, fsync, rename, fsync the directory."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(os.path.dirname(os.path.abspath(path)))


def _load_syncfs() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        syncfs: Callable[[int], int] = libc.syncfs
        return syncfs
    except (OSError, AttributeError):
        return None


_syncfs = _load_syncfs()


def can_sync_filesystems() -> bool:
    return _syncfs is not None


def sync_filesystems_of(directories: Iterable[str]) -> bool:
    """Make everything written to the filesystems holding ``directories`` durable: one syncfs each.
    False when syncfs is not available here."""
    if _syncfs is None:
        return False
    by_device: dict[int, str] = {}
    for directory in directories:
        try:
            by_device.setdefault(os.stat(directory).st_dev, directory)
        except FileNotFoundError:
            pass
    for directory in by_device.values():
        try:
            fd = os.open(directory, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            if _syncfs(fd) != 0:
                error = ctypes.get_errno()
                raise OSError(error, os.strerror(error), directory)
        finally:
            os.close(fd)
    return True


# A filesystem sync also writes back whatever else is dirty (log segments under load), so it only replaces
# per-file fsyncs (about 1 ms each here) for batches this large.
BATCH_SYNC_MIN_FILES = 64


def write_all_atomically(files: Sequence[tuple[str, str]]) -> None:
    """Write every (path, text) of ``files`` as write_atomically does; a batch of BATCH_SYNC_MIN_FILES or
    more gets two filesystem syncs (one for the new files' data, one for the renames) instead of two fsyncs
    per file: becoming leader of thousands of partitions rewrites thousands of small checkpoints. A file
    whose directory is gone (a deleted log) is skipped."""
    if len(files) < BATCH_SYNC_MIN_FILES or _syncfs is None:
        for path, text in files:
            try:
                write_atomically(path, text)
            except FileNotFoundError:
                pass
        return
    written: list[tuple[str, str]] = []
    for path, text in files:
        tmp = path + ".tmp"
        try:  # plain descriptors: this runs on a pool thread beside the reactor, and file objects cost GIL time
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except FileNotFoundError:
            continue
        try:
            data = text.encode("utf-8")
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        written.append((tmp, path))
    directories = {os.path.dirname(os.path.abspath(path)) for _, path in written}
    sync_filesystems_of(directories)
    for tmp, path in written:
        try:
            os.replace(tmp, path)
        except FileNotFoundError:
            pass
    sync_filesystems_of(directories)


class _CheckpointFile:
    """``0``, the entry count, then one entry per line; an absent or empty file holds no entries."""

    fields = 0

    def __init__(self, path: str) -> None:
        self.path = path

    @staticmethod
    def _text(lines: Sequence[str]) -> str:
        return "%d\n%d\n" % (CHECKPOINT_VERSION, len(lines)) + "".join(line + "\n" for line in lines)

    def _write_lines(self, lines: Sequence[str]) -> None:
        write_atomically(self.path, self._text(lines))

    def _read_rows(self) -> list[list[str]]:
        try:
            with open(self.path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        if not lines:
            return []
        if len(lines) < 2:
            raise MalformedCheckpointError("checkpoint file %s has no entry count" % self.path)
        try:
            version = int(lines[0].strip())
            expected = int(lines[1].strip())
        except ValueError:
            raise MalformedCheckpointError("malformed header in checkpoint file %s" % self.path) from None
        if version != CHECKPOINT_VERSION:
            raise MalformedCheckpointError("unrecognised version %d in checkpoint file %s" % (version, self.path))
        rows = [line.split() for line in lines[2:] if line.strip()]
        for row in rows:
            if len(row) != self.fields:
                raise MalformedCheckpointError("malformed line %r in checkpoint file %s" % (" ".join(row), self.path))
        if len(rows) != expected:
            raise MalformedCheckpointError(
                "expected %d entries in checkpoint file %s but found %d" % (expected, self.path, len(rows))
            )
        return rows


class OffsetCheckpointFile(_CheckpointFile):
    """Lines ``<topic> <partition> <offset>``: recovery points, high watermarks, log start and cleaner offsets."""

    fields = 3

    def write(self, offsets: Mapping[tuple[str, int], int]) -> None:
        """Replace the file with ``offsets``: a mapping (topic, partition) -> offset."""
        self._write_lines(
            ["%s %d %d" % (topic, partition, offset) for (topic, partition), offset in sorted(offsets.items())]
        )

    def read(self) -> dict[tuple[str, int], int]:
        result = {}
        for topic, partition, offset in self._read_rows():
            try:
                result[(topic, int(partition))] = int(offset)
            except ValueError:
                raise MalformedCheckpointError(
                    "malformed line %r in checkpoint file %s" % (" ".join((topic, partition, offset)), self.path)
                ) from None
        return result


class LeaderEpochCheckpointFile(_CheckpointFile):
    """Lines ``<epoch> <start offset>`` in epoch order, per partition dir."""

    fields = 2

    def text(self, entries: Iterable[tuple[int, int]]) -> str:
        return self._text(["%d %d" % (epoch, start_offset) for epoch, start_offset in entries])

    def write(self, entries: Iterable[tuple[int, int]]) -> None:
        write_atomically(self.path, self.text(entries))

    def read(self) -> list[tuple[int, int]]:
        try:
            return [(int(epoch), int(start)) for epoch, start in self._read_rows()]
        except ValueError:
            raise MalformedCheckpointError("malformed entry in checkpoint file %s" % self.path) from None


# English names regardless of locale, as java.util.Date.toString prints them.
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_PROPERTY_ESCAPES = {
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\f": "\\f",
    "=": "\\=",
    ":": "\\:",
    "#": "\\#",
    "!": "\\!",
}
_PROPERTY_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f"}


def _escape_property(text: str) -> str:
    return "".join(_PROPERTY_ESCAPES.get(ch, ch) for ch in text)


def _unescape_property(text: str) -> str:
    out = []
    chars = iter(text)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            out.append(_PROPERTY_UNESCAPES.get(nxt, nxt))
        else:
            out.append(ch)
    return "".join(out)


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java properties text (``key=value`` or ``key:value``, ``#``/``!`` comments)."""
    props = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        split_at = len(line)
        escaped = False
        for i, ch in enumerate(line):
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch in "=:":
                split_at = i
                break
        props[_unescape_property(line[:split_at].strip())] = _unescape_property(line[split_at + 1 :].strip())
    return props


def format_properties(props: Mapping[str, str], now_ms: int) -> str:
    """Java properties text with the empty comment and timestamp comment lines Properties.store writes."""
    t = time.gmtime(now_ms // 1000)
    stamp = "%s %s %02d %02d:%02d:%02d UTC %d" % (
        _DAYS[t.tm_wday],
        _MONTHS[t.tm_mon - 1],
        t.tm_mday,
        t.tm_hour,
        t.tm_min,
        t.tm_sec,
        t.tm_year,
    )
    lines = ["#", "#" + stamp]
    lines += ["%s=%s" % (_escape_property(key), _escape_property(value)) for key, value in props.items()]
    return "\n".join(lines) + "\n"


def read_meta_properties(path: str) -> MetaProperties | None:
    """Return {"broker_id": int, "cluster_id": str or None} from meta.properties, or None if absent."""
    try:
        with open(path, encoding="utf-8") as f:
            props = parse_properties(f.read())
    except FileNotFoundError:
        return None
    try:
        version = int(props["version"])
        broker_id = int(props["broker.id"])
    except (KeyError, ValueError):
        raise MalformedCheckpointError("meta.properties %s needs integer version and broker.id" % path) from None
    if version != META_PROPERTIES_VERSION:
        raise MalformedCheckpointError("unrecognised version %d in %s" % (version, path))
    return {"broker_id": broker_id, "cluster_id": props.get("cluster.id")}


def write_meta_properties(path: str, broker_id: int, cluster_id: str | None, now_ms: int) -> None:
    props = {"version": str(META_PROPERTIES_VERSION), "broker.id": str(broker_id)}
    if cluster_id is not None:
        props["cluster.id"] = cluster_id
    write_atomically(path, format_properties(props, now_ms))
