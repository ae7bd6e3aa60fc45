"""The memory-mapped, preallocated file of fixed-size entries shared by the offset and time indexes."""

import mmap
import os


class CorruptIndexError(Exception):
    """An index file whose size or entries cannot be right; the segment is rebuilt from its log."""


class IndexFullError(Exception):
    """An append to an index that has no room left (the segment should have been rolled)."""


class InvalidOffsetError(ValueError):
    """An index append that would break the ordering of entries."""


def round_down(size, entry_size):
    return size - size % entry_size


class IndexFile:
    """Entries of ``entry_size`` bytes, sorted by key, in a file preallocated to ``max_index_size``.

    A new file is created at full size; an existing one is mapped at its current length and
    holds ``length // entry_size`` entries (files are trimmed to their entries when a segment is
    rolled or closed). ``resize`` re-expands a file for appends.
    """

    entry_size = 0  # set by subclasses

    def __init__(self, path, base_offset, max_index_size):
        self.path = path
        self.base_offset = base_offset
        self.max_index_size = max_index_size
        self._mm = None
        newly_created = not os.path.exists(path)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if newly_created:
                os.ftruncate(fd, round_down(max_index_size, self.entry_size))
            self._map(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        self._entries = 0 if newly_created else self._max_entries

    def _map(self, fd, length):
        self._length = length
        self._max_entries = length // self.entry_size
        self._mm = mmap.mmap(fd, length) if length > 0 else None

    @property
    def entries(self):
        return self._entries

    @property
    def max_entries(self):
        return self._max_entries

    @property
    def length(self):
        return self._length

    @property
    def size_in_bytes(self):
        return self._entries * self.entry_size

    @property
    def is_full(self):
        return self._entries >= self._max_entries

    def _unpack(self, struct_, n):
        return struct_.unpack_from(self._mm, n * self.entry_size)

    def _write(self, struct_, *values):
        """Append one entry, growing the file if it is exactly full (the time index's reserved slot)."""
        if self._entries >= self._max_entries:
            self.resize((self._entries + 1) * self.entry_size)
        struct_.pack_into(self._mm, self._entries * self.entry_size, *values)
        self._entries += 1

    def _largest_lower_bound_slot(self, target, key_of):
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

    def _truncate_to_entries(self, n):
        self._entries = min(n, self._entries)

    def resize(self, new_size):
        """Set the file length (rounded down to whole entries); returns False if it was already so."""
        new_length = round_down(new_size, self.entry_size)
        if new_length == self._length:
            return False
        self._unmap()
        fd = os.open(self.path, os.O_RDWR)
        try:
            os.ftruncate(fd, new_length)
            self._map(fd, new_length)
        finally:
            os.close(fd)
        self._entries = min(self._entries, self._max_entries)
        return True

    def trim_to_valid_size(self):
        self.resize(self.size_in_bytes)

    def reset(self):
        """Drop every entry and re-expand to the maximum size (before a rebuild)."""
        self._truncate_to_entries(0)
        self.resize(self.max_index_size)

    def flush(self):
        if self._mm is not None:
            self._mm.flush()

    def _unmap(self):
        if self._mm is not None:
            self._mm.flush()
            self._mm.close()
            self._mm = None

    def close(self):
        self.trim_to_valid_size()
        self._unmap()

    def delete(self):
        self._unmap()
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass

    def rename_to(self, new_path):
        os.rename(self.path, new_path)
        self.path = new_path

    def _check_length(self):
        if self._length % self.entry_size != 0:
            raise CorruptIndexError("index file %s has length %d, not a multiple of %d"
                                    % (self.path, self._length, self.entry_size))
