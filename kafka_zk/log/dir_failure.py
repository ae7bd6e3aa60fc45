"""LogDirFailureChannel: every path that reads or writes a log dir reports its I/O errors here; a dir goes
offline once, and its listeners hear of it (Kafka's LogDirFailureChannel, KIP-112)."""

import logging
import os
import threading
from collections.abc import Callable
from typing import Protocol

from kafka_zk.protocol.errors import Errors, KafkaError

logger = logging.getLogger(__name__)


class LogLocation(Protocol):
    """What a failure report needs of a log: its partition dir, topic and partition."""

    @property
    def dir(self) -> str: ...

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...


class KafkaStorageError(KafkaError):
    """An operation on a replica whose log dir is offline (Kafka's KafkaStorageException)."""

    def __init__(self, message: str) -> None:
        super().__init__(Errors.KAFKA_STORAGE_ERROR, message)


class LogDirFailureChannel:
    """Offline log dirs, thread-safe: reports come from the reactor and from pool and cleaner threads.

    A listener is called once per dir that goes offline, on the reporting thread (a reactor shell hands the
    event to its reactor); dirs already offline when it subscribes are replayed to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._offline: dict[str, str] = {}  # log dir -> the message of the error that took it offline
        self.any_offline = False  # read on every append: check_log is called only once a dir went offline
        self._listeners: list[Callable[[str], object]] = []

    @property
    def offline_dirs(self) -> list[str]:
        return list(self._offline)

    def is_offline(self, log_dir: str) -> bool:
        return log_dir in self._offline

    def is_log_offline(self, log: LogLocation) -> bool:
        """Whether ``log`` (a Log, by its partition dir) sits in an offline dir; cheap while none is."""
        return bool(self._offline) and os.path.dirname(log.dir) in self._offline

    def add_listener(self, listener: Callable[[str], object]) -> None:
        with self._lock:
            self._listeners.append(listener)
            offline = list(self._offline)
        for log_dir in offline:
            listener(log_dir)

    def report(self, log_dir: str, message: str, error: BaseException | None = None) -> "KafkaStorageError":
        """Take ``log_dir`` offline (once) for ``error``. Returns the KafkaStorageError to raise or answer."""
        with self._lock:
            first = log_dir not in self._offline
            if first:
                self._offline[log_dir] = message
                self.any_offline = True
            listeners = list(self._listeners) if first else []
        if first:
            logger.error("%s: %s; log dir %s is offline", message, error, log_dir)
        for listener in listeners:
            listener(log_dir)
        return KafkaStorageError("%s: log dir %s is offline" % (message, log_dir))

    def report_log(self, log: LogLocation, action: str, error: BaseException | None = None) -> "KafkaStorageError":
        """``report`` for the dir holding ``log``, when ``action`` (e.g. "appending records to") failed."""
        return self.report(os.path.dirname(log.dir), _message(action, log), error)

    def check_log(self, log: LogLocation, action: str) -> None:
        """Raise KafkaStorageError when ``log`` sits in an offline dir (before ``action`` touches its files)."""
        if self._offline and os.path.dirname(log.dir) in self._offline:
            raise KafkaStorageError("%s: log dir %s is offline" % (_message(action, log), os.path.dirname(log.dir)))


def _message(action: str, log: LogLocation) -> str:
    return "Error while %s %s-%d" % (action, log.topic, log.partition)
