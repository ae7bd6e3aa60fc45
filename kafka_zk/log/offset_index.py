"""The sparse offset index of a segment (`.index`): 8-byte entries (int32 relative offset, int32 position)."""

import struct
from typing import NamedTuple

from kafka_zk.log.index_file import CorruptIndexError, IndexFile, IndexFullError, InvalidOffsetError

_ENTRY = struct.Struct(">ii")
_RELATIVE_OFFSET = struct.Struct(">i")
INT32_MAX = 0x7FFFFFFF


class OffsetPosition(NamedTuple):
    offset: int
    position: int


class OffsetIndex(IndexFile):
    """Maps absolute offsets to byte positions in the segment's log file."""

    entry_size = _ENTRY.size

    def __init__(self, path: str, base_offset: int, max_index_size: int = 10 * 1024 * 1024) -> None:
        super().__init__(path, base_offset, max_index_size)
        self._last_offset = self._read_last_offset()

    def _read_last_offset(self) -> int:
        if self._entries == 0:
            return self.base_offset
        return self.base_offset + self._unpack(_RELATIVE_OFFSET, self._entries - 1)[0]

    @property
    def last_offset(self) -> int:
        return self._last_offset

    def entry(self, n: int) -> OffsetPosition:
        if n >= self._entries:
            raise IndexError("entry %d of an index holding %d" % (n, self._entries))
        relative, position = self._unpack(_ENTRY, n)
        return OffsetPosition(self.base_offset + relative, position)

    def _relative_offset(self, n: int) -> int:
        return self._unpack(_RELATIVE_OFFSET, n)[0]

    def append(self, offset: int, position: int) -> None:
        if self.is_full:
            raise IndexFullError("offset index %s is full (%d entries)" % (self.path, self._entries))
        if self._entries > 0 and offset <= self._last_offset:
            raise InvalidOffsetError("offset %d is not above the index's last offset %d" % (offset, self._last_offset))
        relative = offset - self.base_offset
        if not 0 <= relative <= INT32_MAX:
            raise InvalidOffsetError("offset %d does not fit relative to base %d" % (offset, self.base_offset))
        self._write(_ENTRY, relative, position)
        self._last_offset = offset

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The entry with the largest offset <= target, or (base_offset, 0) if there is none."""
        slot = self._largest_lower_bound_slot(target_offset - self.base_offset, self._relative_offset)
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return self.entry(slot)

    def truncate_to(self, offset: int) -> None:
        """Remove every entry with an offset >= ``offset``."""
        relative = offset - self.base_offset
        slot = self._largest_lower_bound_slot(relative, self._relative_offset)
        if slot < 0:
            keep = 0
        elif self._relative_offset(slot) == relative:
            keep = slot
        else:
            keep = slot + 1
        self._truncate_to_entries(keep)
        self._last_offset = self._read_last_offset()

    def resize(self, new_size: int) -> bool:
        changed = super().resize(new_size)
        self._last_offset = self._read_last_offset()
        return changed

    def sanity_check(self) -> None:
        """Raise CorruptIndexError unless the length is whole entries and the last offset is above the first.

        Checking the ends is enough to catch a file left preallocated by a crash (zero padding)
        and keeps loading fast; segments past the recovery point are rebuilt anyway.
        """
        self._check_length()
        if self._entries == 0:
            return
        first = self._relative_offset(0)
        last = self._relative_offset(self._entries - 1)
        if first < 0 or (self._entries > 1 and last <= first):
            raise CorruptIndexError(
                "offset index %s has last offset %d not above first %d"
                % (self.path, self.base_offset + last, self.base_offset + first)
            )
