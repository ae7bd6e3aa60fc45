"""The preallocated file of fixed-size entries shared by the offset and time indexes, held in memory."""

import os
import struct
from collections.abc import Callable


class CorruptIndexError(Exception):
    """An index file whose size or entries cannot be right; the segment is rebuilt from its log."""


class IndexFullError(Exception):
    """An append to an index that has no room left (the segment should have been rolled)."""


class InvalidOffsetError(ValueError):
    """An index append that would break the ordering of entries."""


def round_down(size: int, entry_size: int) -> int:
    return size - size % entry_size


def _read_written_part(path: str) -> bytearray:
    """The file's bytes up to its first hole: a preallocated index left by a crash is mostly a sparse
    run of zeros (10 MB by default) that need not be read into memory."""
    with open(path, "rb") as existing:
        written: int | None
        try:
            written = os.lseek(existing.fileno(), 0, os.SEEK_HOLE)
        except (AttributeError, OSError):  # no hole support: read it all
            written = None
        existing.seek(0)
        return bytearray(existing.read() if written is None else existing.read(written))


class IndexFile:
    """Entries of ``entry_size`` bytes, sorted by key, in a file preallocated to ``max_index_size``.

    A new file is created at full size (sparse, as Kafka preallocates); an existing one is read at its
    current length and holds ``length // entry_size`` entries (files are trimmed to their entries when a
    segment is rolled or closed). ``resize`` re-expands a file for appends.

    The entries live in memory and no descriptor stays open: appends are written back to the file on
    ``flush``, ``resize`` and ``close``. (A memory map would cost a duplicated descriptor per index; an
    entry lost to a crash is rebuilt by recovery, which redoes the index of every segment past the
    recovery point, and the recovery point only moves after a flush.)
    """

    entry_size = 0  # set by subclasses

    def __init__(self, path: str, base_offset: int, max_index_size: int) -> None:
        self.path = path
        self.base_offset = base_offset
        self.max_index_size = max_index_size
        if os.path.exists(path):
            self._buf = _read_written_part(path)
            self._set_length(os.path.getsize(path))
            self._entries = self._max_entries
        else:
            length = round_down(max_index_size, self.entry_size)
            with open(path, "wb") as created:
                created.truncate(length)
            self._buf = bytearray()
            self._set_length(length)
            self._entries = 0
        self._unwritten_from: int | None = None  # first entry slot changed in memory but not yet in the file

    def _set_length(self, length: int) -> None:
        self._length = length
        self._max_entries = length // self.entry_size

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def max_entries(self) -> int:
        return self._max_entries

    @property
    def length(self) -> int:
        return self._length

    @property
    def size_in_bytes(self) -> int:
        return self._entries * self.entry_size

    @property
    def is_full(self) -> bool:
        return self._entries >= self._max_entries

    def _unpack(self, struct_: struct.Struct, n: int) -> tuple[int, ...]:
        try:
            return struct_.unpack_from(self._buf, n * self.entry_size)
        except struct.error:  # a slot in the never-written (zero) tail of a preallocated file
            return struct_.unpack(bytes(struct_.size))

    def _write(self, struct_: struct.Struct, *values: int) -> None:
        """Append one entry, growing the file if it is exactly full (the time index's reserved slot)."""
        if self._entries >= self._max_entries:
            self.resize((self._entries + 1) * self.entry_size)
        end = (self._entries + 1) * self.entry_size
        if len(self._buf) < end:
            self._buf.extend(bytes(end - len(self._buf)))
        struct_.pack_into(self._buf, self._entries * self.entry_size, *values)
        if self._unwritten_from is None:
            self._unwritten_from = self._entries
        self._entries += 1

    def _largest_lower_bound_slot(self, target: int, key_of: Callable[[int], int]) -> int:
        """Index of the last entry whose key <= target, or -1 if none (keys are increasing)."""
        lo, hi = 0, self._entries - 1
        if hi < 0 or key_of(0) > target:
            return -1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if key_of(mid) <= target:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _truncate_to_entries(self, n: int) -> None:
        self._entries = min(n, self._entries)
        del self._buf[self._entries * self.entry_size :]
        if self._unwritten_from is not None and self._unwritten_from >= self._entries:
            self._unwritten_from = None

    def _write_back(self, sync: bool = False) -> None:
        """Write the entries appended since the last write-back to the file (and fsync when asked)."""
        start = self._unwritten_from
        if start is None and not sync:
            return
        fd = os.open(self.path, os.O_WRONLY)
        try:
            if start is not None:
                os.pwrite(
                    fd, self._buf[start * self.entry_size : self._entries * self.entry_size], start * self.entry_size
                )
                self._unwritten_from = None
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def resize(self, new_size: int) -> bool:
        """Set the file length (rounded down to whole entries); returns False if it was already so."""
        new_length = round_down(new_size, self.entry_size)
        if new_length == self._length:
            return False
        self._write_back()
        os.truncate(self.path, new_length)
        self._set_length(new_length)
        self._truncate_to_entries(min(self._entries, self._max_entries))
        return True

    def trim_to_valid_size(self) -> None:
        self.resize(self.size_in_bytes)

    def reset(self) -> None:
        """Drop every entry and re-expand to the maximum size (before a rebuild)."""
        self._truncate_to_entries(0)
        self.resize(self.max_index_size)

    def flush(self, sync: bool = True) -> None:
        self._write_back(sync)

    def close(self) -> None:
        self.trim_to_valid_size()
        self._write_back()

    def delete(self) -> None:
        self._unwritten_from = None
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass

    def rename_to(self, new_path: str) -> None:
        os.rename(self.path, new_path)
        self.path = new_path

    def _check_length(self) -> None:
        if self._length % self.entry_size != 0:
            raise CorruptIndexError(
                "index file %s has length %d, not a multiple of %d" % (self.path, self._length, self.entry_size)
            )
