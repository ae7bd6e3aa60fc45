"""The sparse time index of a segment (`.timeindex`): 12-byte entries (int64 timestamp, int32 relative offset)."""

import struct
from typing import NamedTuple

from kafka_zk.log.index_file import CorruptIndexError, IndexFile, IndexFullError, InvalidOffsetError

_ENTRY = struct.Struct(">qi")
_TIMESTAMP = struct.Struct(">q")
_RELATIVE_OFFSET_AT_8 = struct.Struct(">8xi")
NO_TIMESTAMP = -1


class TimestampOffset(NamedTuple):
    timestamp: int
    offset: int


class TimeIndex(IndexFile):
    """Maps the largest timestamp seen so far to the offset of the record carrying it."""

    entry_size = _ENTRY.size

    def __init__(self, path: str, base_offset: int, max_index_size: int = 10 * 1024 * 1024) -> None:
        super().__init__(path, base_offset, max_index_size)
        self._last_entry = self._read_last_entry()

    def _read_last_entry(self) -> TimestampOffset:
        if self._entries == 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self.entry(self._entries - 1)

    @property
    def is_full(self) -> bool:
        # The last slot is kept for the entry written when the segment is rolled.
        return self._entries >= self._max_entries - 1

    @property
    def last_entry(self) -> TimestampOffset:
        return self._last_entry

    def entry(self, n: int) -> TimestampOffset:
        if n >= self._entries:
            raise IndexError("entry %d of an index holding %d" % (n, self._entries))
        timestamp, relative = self._unpack(_ENTRY, n)
        return TimestampOffset(timestamp, self.base_offset + relative)

    def _timestamp(self, n: int) -> int:
        return self._unpack(_TIMESTAMP, n)[0]

    def _relative_offset(self, n: int) -> int:
        return self._unpack(_RELATIVE_OFFSET_AT_8, n)[0]

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        """Append (timestamp, offset) if the timestamp is above the last entry's."""
        if not skip_full_check and self.is_full:
            raise IndexFullError("time index %s is full (%d entries)" % (self.path, self._entries))
        last = self._last_entry
        if self._entries > 0:
            if offset < last.offset:
                raise InvalidOffsetError("offset %d is below the time index's last offset %d" % (offset, last.offset))
            if timestamp < last.timestamp:
                raise InvalidOffsetError(
                    "timestamp %d is below the time index's last timestamp %d" % (timestamp, last.timestamp)
                )
        if self._entries == 0 or timestamp > last.timestamp:
            self._write(_ENTRY, timestamp, offset - self.base_offset)
            self._last_entry = TimestampOffset(timestamp, offset)

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The entry with the largest timestamp <= target, or (-1, base_offset) if there is none."""
        slot = self._largest_lower_bound_slot(target_timestamp, self._timestamp)
        if slot < 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
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
        self._last_entry = self._read_last_entry()

    def resize(self, new_size: int) -> bool:
        changed = super().resize(new_size)
        self._last_entry = self._read_last_entry()
        return changed

    def sanity_check(self) -> None:
        """Raise CorruptIndexError unless the length is whole entries and the last entry follows the first
        (a later timestamp, an offset not below it); the ends suffice to catch crash padding."""
        self._check_length()
        if self._entries == 0:
            return
        first, last = self.entry(0), self._last_entry
        if (
            first.offset < self.base_offset
            or last.offset < first.offset
            or (self._entries > 1 and last.timestamp <= first.timestamp)
        ):
            raise CorruptIndexError(
                "time index %s: last entry %s does not follow first entry %s" % (self.path, tuple(last), tuple(first))
            )
