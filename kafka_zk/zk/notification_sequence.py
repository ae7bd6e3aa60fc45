"""Which change notifications (persistent sequential znodes) a follower processes next and which it purges: pure."""

from __future__ import annotations

import logging
from typing import Iterable, NamedTuple

log = logging.getLogger(__name__)

CHANGE_EXPIRATION_MS = 15 * 60 * 1000  # Kafka's ZkNodeChangeNotificationListener changeExpirationMs


class Notification(NamedTuple):
    """One sequential notification znode: its name (prefix + 10-digit sequence), data and creation time."""

    name: str
    data: bytes
    ctime_ms: int


class NotificationPass(NamedTuple):
    """What one pass does: process ``fresh`` (in sequence order), then delete the znodes named in ``expired``."""

    fresh: list[Notification]
    expired: list[str]


def sequence_number(name: str, prefix: str) -> int | None:
    """The change number of a notification named ``<prefix><sequence>``; None for a name of another shape."""
    if not name.startswith(prefix):
        return None
    try:
        return int(name[len(prefix) :])
    except ValueError:
        return None


class NotificationSequence:
    """The follower's place in one notification path: the last change number it processed (-1: none yet)."""

    def __init__(self, prefix: str, expiration_ms: int = CHANGE_EXPIRATION_MS):
        self.prefix = prefix
        self.expiration_ms = expiration_ms
        self.last_processed = -1

    def next_pass(self, notifications: Iterable[Notification], now_ms: int) -> NotificationPass:
        """The notifications numbered above the last processed, in sequence order, and the names of those created
        more than ``expiration_ms`` before ``now_ms`` (read when the pass began). The fresh ones count as processed
        from here on, whatever their processing answers, as in Kafka."""
        notifications = list(notifications)
        numbered = []
        for notification in notifications:
            number = sequence_number(notification.name, self.prefix)
            if number is None:
                log.warning("ignoring a notification named %s (expected %s<sequence>)", notification.name, self.prefix)
            elif number > self.last_processed:
                numbered.append((number, notification))
        numbered.sort(key=lambda pair: pair[0])
        if numbered:
            self.last_processed = numbered[-1][0]
        expired = sorted(n.name for n in notifications if now_ms - n.ctime_ms > self.expiration_ms)
        return NotificationPass([notification for _, notification in numbered], expired)
