"""The `.txnindex` of one segment: the aborted transactions whose abort marker lies in that segment.

Kafka's format: 34-byte entries of version int16 (0), producerId int64, firstOffset int64,
lastOffset int64 (the marker's offset) and lastStableOffset int64 (the LSO when the marker was written).
The file is created only when the first entry is appended.
"""

import os
import struct
from typing import NamedTuple

from kafka_zk.record.buffers import ReadableBuffer

TXN_INDEX_SUFFIX = ".txnindex"
CURRENT_VERSION = 0
_ENTRY = struct.Struct(">hqqqq")
ENTRY_SIZE = _ENTRY.size  # 34


class AbortedTxn(NamedTuple):
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = CURRENT_VERSION

    def encode(self) -> bytes:
        return _ENTRY.pack(self.version, self.producer_id, self.first_offset, self.last_offset, self.last_stable_offset)

    @classmethod
    def decode(cls, data: ReadableBuffer, pos: int = 0) -> "AbortedTxn":
        version, producer_id, first, last, lso = _ENTRY.unpack_from(data, pos)
        return cls(producer_id, first, last, lso, version)


class CorruptTxnIndexError(Exception):
    """An entry with a version this broker does not know."""


def decode_entries(data: ReadableBuffer) -> list[AbortedTxn]:
    """Every whole entry in ``data`` (a trailing partial entry is ignored)."""
    return [AbortedTxn.decode(data, pos) for pos in range(0, len(data) - len(data) % ENTRY_SIZE, ENTRY_SIZE)]


class TransactionIndex:
    """Appends and searches the aborted-transaction entries of one segment; ``path`` follows renames.

    The entries are read from the file once and then kept in memory (fetches search them often).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._cache: list[AbortedTxn] | None = None

    def _read_all(self) -> list[AbortedTxn]:
        if self._cache is None:
            self._cache = self._read_file()
        return self._cache

    def _read_file(self) -> list[AbortedTxn]:
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return []
        entries = decode_entries(data)
        for entry in entries:
            if entry.version > CURRENT_VERSION:
                raise CorruptTxnIndexError(
                    "unexpected aborted transaction version %d in %s" % (entry.version, self.path)
                )
        return entries

    def entries(self) -> list[AbortedTxn]:
        return list(self._read_all())

    def append(self, aborted: AbortedTxn) -> None:
        entries = self._read_all()
        with open(self.path, "ab") as f:
            f.write(aborted.encode())
        entries.append(aborted)

    def collect_aborted(self, fetch_offset: int, upper_bound_offset: int) -> tuple[list[tuple[int, int]], bool]:
        """([(producer_id, first_offset)] overlapping [fetch_offset, upper_bound_offset), complete) where
        complete says no later segment can hold more (an entry's LSO reached the upper bound)."""
        found: list[tuple[int, int]] = []
        for entry in self._read_all():
            if entry.last_offset >= fetch_offset and entry.first_offset < upper_bound_offset:
                found.append((entry.producer_id, entry.first_offset))
            if entry.last_stable_offset >= upper_bound_offset:
                return found, True
        return found, False

    def truncate_to(self, offset: int) -> None:
        """Drop the entries whose marker is at or after ``offset``."""
        if not os.path.exists(self.path):
            self._cache = []
            return
        kept = [entry for entry in self._read_all() if entry.last_offset < offset]
        with open(self.path, "r+b") as f:
            f.truncate(0)
            f.write(b"".join(entry.encode() for entry in kept))
        self._cache = kept

    def reset(self) -> None:
        """Empty the index (before it is rebuilt by recovery)."""
        if os.path.exists(self.path):
            os.remove(self.path)
        self._cache = []

    def flush(self) -> None:
        if os.path.exists(self.path):
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def rename_to(self, new_path: str) -> None:
        if os.path.exists(self.path):
            os.rename(self.path, new_path)
        self.path = new_path

    def delete(self) -> None:
        self._cache = []
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass
