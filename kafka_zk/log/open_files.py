"""The process's budget of open segment `.log` descriptors: past it, the least recently used are let go.

Kafka keeps every segment's `.log` open, so a broker holds a descriptor per segment. Here a segment
opens its file when it is used and the budget, three quarters of the soft RLIMIT_NOFILE by default,
makes the segment that has gone longest unused let go of it (a CLOCK second-chance ring, so a use costs
one attribute write). Letting go only drops the segment's reference: whoever still holds the
`SegmentFile` (a fetch's file slice, a reader on another thread) keeps the descriptor open until done,
because a descriptor is closed only when the last holder of its `SegmentFile` lets go.
"""

import os
import resource
import threading
import weakref
from collections import OrderedDict
from typing import Protocol


class FileHolder(Protocol):
    """What the budget asks of an owner (a segment): whether it was used since the hand last passed, and to let
    go of its file."""

    recently_used: bool

    def let_go_of_file(self) -> None: ...


class SegmentFile:
    """An open `.log` descriptor: closed by close() or when the last reference to it goes."""

    __slots__ = ("name", "_fd")

    def __init__(self, path: str, create: bool = False) -> None:
        self._fd = -1
        self._fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
        self.name = path

    def fileno(self) -> int:
        if self._fd < 0:
            raise ValueError("I/O operation on closed file %s" % self.name)
        return self._fd

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    __del__ = close


def default_capacity() -> int | None:
    """Three quarters of the soft descriptor limit: the rest is left to sockets and everything else."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return None
    return max(16, soft * 3 // 4)


class OpenFileBudget:
    """At most ``capacity`` owners (segments) hold an open file; None means no bound.

    An owner calls ``opened(owner)`` under ``lock`` after opening, ``closed(owner)`` when it closes
    for good, and sets ``owner.recently_used`` on every use; the budget calls ``owner.let_go_of_file()``
    (under ``lock``) on the owner it picks.
    """

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = capacity
        self.lock = threading.RLock()
        # id(owner) -> weakref, in the order the clock hand visits them
        self._holders: OrderedDict[int, weakref.ref[FileHolder]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._holders)

    def opened(self, owner: FileHolder) -> None:
        key = id(owner)

        def gone(
            ref: weakref.ref[FileHolder],
            key: int = key,
            holders: OrderedDict[int, weakref.ref[FileHolder]] = self._holders,
        ) -> None:
            if holders.get(key) is ref:
                holders.pop(key, None)

        self._holders[key] = weakref.ref(owner, gone)
        self._shed()

    def closed(self, owner: FileHolder) -> None:
        with self.lock:
            self._holders.pop(id(owner), None)

    def _shed(self) -> None:
        holders = self._holders
        visits = 2 * len(holders)
        while self.capacity is not None and len(holders) > self.capacity and visits > 0:
            visits -= 1
            key, ref = holders.popitem(last=False)
            owner = ref()
            if owner is None:
                continue
            if owner.recently_used:
                owner.recently_used = False
                holders[key] = ref
            else:
                owner.let_go_of_file()


SEGMENT_FILES = OpenFileBudget(default_capacity())
