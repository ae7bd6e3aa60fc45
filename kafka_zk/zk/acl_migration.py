"""Resetting the ACLs of Kafka's znodes to the ones a session's ZkSecurity gives them, as Kafka 2.5's
ZkSecurityMigrator does: the (chroot's) root alone, then each secure root path with everything below it.

The walk goes one tree level at a time, each level's setACL and getChildren requests pipelined (retried on a
connection loss); a znode deleted meanwhile is only reported.
"""

from __future__ import annotations

from typing import Callable, Iterable

from kazoo.exceptions import NoNodeError, SessionExpiredError

from kafka_zk.zk.acl_client import kazoo_acls
from kafka_zk.zk.acls import SECURE_ROOT_PATHS
from kafka_zk.zk.session import ZkSession

CONTROLLER_PATH = "/controller"


class AclMigrationError(Exception):
    """A request of the walk failed in a way Kafka's tool stops at (session expired, unexpected error code)."""

    def __init__(self, message: str, cause: Exception):
        super().__init__(message)
        self.cause = cause


def _child(parent: str, name: str) -> str:
    return "/" + name if parent == "/" else "%s/%s" % (parent, name)


def _raise_unexpected(result: Exception) -> None:
    if isinstance(result, SessionExpiredError):
        raise AclMigrationError("ZooKeeper session expired while changing ACLs", result)
    raise AclMigrationError("Unexpected return code: %d" % getattr(result, "code", -1), result)


def reset_acls_recursively(
    session: ZkSession, roots: Iterable[str], warn: Callable[[str], None], recursive: bool = True
) -> int:
    """Give each root (and, when recursive, every znode below it) its default ACLs; returns the znodes updated."""
    kazoo = session.kazoo
    level = list(dict.fromkeys(roots))
    updated = 0
    while level:
        acls = session._batch(
            level, lambda path: kazoo.set_acls_async(path, kazoo_acls(session.security.acls_for(path)))
        )
        children = session._batch(level, kazoo.get_children_async) if recursive else {}
        next_level = []
        for path in level:
            result = acls[path]
            if isinstance(result, NoNodeError):
                warn("Znode is gone, it could be have been legitimately deleted: %s" % path)
            elif isinstance(result, Exception):
                _raise_unexpected(result)
            else:
                updated += 1
            if not recursive:
                continue
            names = children[path]
            if isinstance(names, NoNodeError):
                if not isinstance(result, NoNodeError):
                    warn("Node is gone, it could be have been legitimately deleted: %s" % path)
            elif isinstance(names, Exception):
                _raise_unexpected(names)
            else:
                next_level.extend(_child(path, name) for name in names)
        level = next_level
    return updated


def migrate_acls(session: ZkSession, warn: Callable[[str], None]) -> int:
    """ZkSecurityMigrator.run: "/" alone, then every secure root path (created when missing, except /controller,
    which is skipped when absent) recursively. Returns the number of znodes whose ACLs were set."""
    updated = reset_acls_recursively(session, ["/"], warn, recursive=False)
    roots = []
    for path in SECURE_ROOT_PATHS:
        if path == CONTROLLER_PATH and session.exists(path) is None:
            continue
        session._ensure_paths([path])
        roots.append(path)
    return updated + reset_acls_recursively(session, roots, warn)
