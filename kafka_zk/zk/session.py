"""ZkSession: one kazoo session with batched async reads, fenced multis, watches and session events.

Every method is synchronous and thread-safe; the Twisted side calls them through `deferToThread`
(or from kazoo's own threads). Reads of many znodes are issued together with kazoo's async calls
and then collected, so a batch costs one round trip, not one per znode. Requests that fail with a
connection loss are re-issued until the session is back, like Kafka's retryRequestsUntilConnected,
for at most the session timeout (then kazoo's RetryFailedError).

Controller writes are fenced: a multi whose first op checks the version of /controller_epoch;
when that check fails the method raises ControllerMovedError.

Watches (`watch_children`, `watch_data`, `watch_exists`) are kazoo's ChildrenWatch/DataWatch
recipes: persistent until cancelled, re-armed after every event and after a session is
re-established, and handed the fresh value each time. The first call runs synchronously on the
registering thread, later ones on a kazoo thread: callbacks must only hand off (for example
`reactor.callFromThread`), never block.
"""

from __future__ import annotations

import logging
import random
import threading
from typing import Any, Callable, Hashable, Iterable, NamedTuple, Sequence, TypeVar

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import (
    BadVersionError,
    ConnectionClosedError,
    ConnectionLoss,
    KazooException,
    NodeExistsError,
    NoNodeError,
    OperationTimeoutError,
    RolledBackError,
    RuntimeInconsistency,
    SessionExpiredError,
)
from kazoo.protocol.states import ZnodeStat
from kazoo.recipe.watchers import ChildrenWatch, DataWatch

from kafka_zk.zk.acl_client import SecuredKazooClient
from kafka_zk.zk.acls import UNSECURED, ZkSecurity
from kafka_zk.zk.multi_read import MultiRead
from kafka_zk.zk.znodes import ControllerEpochZNode

log = logging.getLogger(__name__)

LOST, SUSPENDED, CONNECTED = KazooState.LOST, KazooState.SUSPENDED, KazooState.CONNECTED

TRANSIENT_ERRORS = (ConnectionLoss, OperationTimeoutError, SessionExpiredError)
# Ops per fenced multi and paths per multiRead: few round trips, far below ZooKeeper's 1 MB request limit.
MULTI_OPS = 200
MULTI_READ_PATHS = 500
# Reconnect at most a second after a server answers again; kazoo's default backoff grows to an hour.
PROMPT_RECONNECT = {"max_tries": -1, "delay": 0.05, "max_delay": 1.0}
_MULTI_ROLLBACK = (RolledBackError, RuntimeInconsistency)
_MAX_OPS_PER_MULTI = 500  # keeps a multi request well under ZooKeeper's 1 MiB jute.maxbuffer

K = TypeVar("K", bound=Hashable)


class ControllerMovedError(Exception):
    """The /controller_epoch version check of a fenced write failed: another controller took over."""


class CreateOp(NamedTuple):
    path: str
    data: bytes | None = None  # no data at all unless given, as Kafka's createRecursive
    ephemeral: bool = False
    sequential: bool = False


class SetDataOp(NamedTuple):
    path: str
    data: bytes
    version: int = -1


class DeleteOp(NamedTuple):
    path: str
    version: int = -1


class CheckOp(NamedTuple):
    path: str
    version: int


Op = CreateOp | SetDataOp | DeleteOp | CheckOp


def _add_op(transaction, op: Op) -> None:
    if isinstance(op, CreateOp):
        transaction.create(op.path, op.data, ephemeral=op.ephemeral, sequence=op.sequential)
    elif isinstance(op, SetDataOp):
        transaction.set_data(op.path, op.data, version=op.version)
    elif isinstance(op, DeleteOp):
        transaction.delete(op.path, version=op.version)
    else:
        transaction.check(op.path, op.version)


def _fenced_results(results: Sequence[Any]) -> list[Any]:
    """Results of the ops after the epoch check; raises ControllerMovedError if the check failed."""
    if isinstance(results[0], (BadVersionError, NoNodeError)):
        raise ControllerMovedError("controller epoch znode changed: this broker is no longer the controller")
    return list(results[1:])


def first_failure(results: Sequence[Any]) -> KazooException | None:
    """The exception of the op that made a multi fail (the others only report a rollback)."""
    for result in results:
        if isinstance(result, Exception) and not isinstance(result, _MULTI_ROLLBACK):
            return result
    return None


def _indexed_failure(results: Sequence[Any]) -> KazooException | None:
    """`first_failure` with its position among the ops recorded as `op_index`."""
    failure = first_failure(results)
    if failure is not None:
        failure.op_index = results.index(failure)
    return failure


def shuffled_once(connect: str, shuffle: Callable[[list], None] = random.shuffle) -> str:
    """The connect string with its hosts in a random order, chroot kept. Given to kazoo with randomize_hosts off, the
    order holds for the session's life, as in ZooKeeper's own client (StaticHostProvider): after losing a server
    kazoo tries the next one in the list, never the lost one again first. Kazoo's own randomizing reshuffles every
    pass, so a broker could spend a whole connect timeout on the server it just lost and let its session expire."""
    hosts, chroot = _split_chroot(connect)
    order = hosts.split(",")
    shuffle(order)
    return ",".join(order) + chroot


def _split_chroot(connect: str) -> tuple[str, str]:
    hosts, slash, chroot = connect.partition("/")
    return hosts, (slash + chroot).rstrip("/")


class Watch:
    """Handle of a registered watch; `cancel()` stops further callbacks."""

    def __init__(self, path: str):
        self.path = path
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ZkSession:
    """A kazoo session with batched reads, (fenced) multis and watch helpers; KafkaZkClient builds on it."""

    def __init__(
        self,
        connect: str,
        session_timeout_ms: int = 18000,
        connection_timeout_ms: int | None = None,
        security: ZkSecurity = UNSECURED,
    ):
        """`security`: how the session authenticates and which ACLs the znodes it creates get."""
        self.connect = connect
        self.security = security
        self._session_timeout_s = session_timeout_ms / 1000.0
        self._connection_timeout_s = (connection_timeout_ms or session_timeout_ms) / 1000.0
        retry = dict(PROMPT_RECONNECT, deadline=self._session_timeout_s)
        self._zk = SecuredKazooClient(
            shuffled_once(connect),
            security,
            timeout=self._session_timeout_s,
            randomize_hosts=False,
            connection_retry=PROMPT_RECONNECT,
            command_retry=retry,
        )
        self._multi_read_supported: bool | None = None  # learnt from the first multiRead

    # -- session -------------------------------------------------------------------------------

    @property
    def kazoo(self) -> KazooClient:
        """The underlying kazoo client, for what this class does not cover."""
        return self._zk

    @property
    def session_id(self) -> int | None:
        return self._zk.client_id[0] if self._zk.connected and self._zk.client_id else None

    def start(self, timeout: float | None = None) -> None:
        """Connect (creating the chroot of the connect string if missing, as Kafka does)."""
        timeout = self._connection_timeout_s if timeout is None else timeout
        hosts, chroot = _split_chroot(self.connect)
        if chroot:
            bootstrap = SecuredKazooClient(hosts, self.security, timeout=self._session_timeout_s)
            bootstrap.start(timeout)
            try:
                bootstrap.ensure_path(chroot)
            finally:
                bootstrap.stop()
                bootstrap.close()
        try:
            self._zk.start(timeout)
        except Exception:
            self._zk.stop()  # or kazoo keeps reconnecting in the background
            raise

    def close(self) -> None:
        """End the session (its ephemeral znodes go at once) and stop kazoo's threads."""
        self._zk.stop()
        self._zk.close()

    def add_session_listener(self, callback: Callable[[str], None]) -> Callable[[str], None]:
        """`callback(state)` with state LOST, SUSPENDED or CONNECTED, on kazoo's connection thread.

        After LOST, kazoo opens a new session by itself; the next CONNECTED is that new session
        (ephemeral znodes and the broker registration must be recreated). Returns the registered
        listener, to pass to `remove_session_listener`.
        """

        def listener(state: str) -> None:
            try:
                callback(state)
            except Exception:
                log.exception("session listener failed")

        self._zk.add_listener(listener)
        return listener

    def remove_session_listener(self, listener: Callable[[str], None]) -> None:
        self._zk.remove_listener(listener)

    # -- generic helpers -----------------------------------------------------------------------

    def _retry(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return self._zk.retry(func, *args, **kwargs)

    def _batch(self, keys: Iterable[K], issue: Callable[[K], Any]) -> dict[K, Any]:
        """Issue one async request per key, then collect: key -> result, or the KazooException it raised."""
        results: dict[K, Any] = {}
        pending = list(dict.fromkeys(keys))

        def attempt() -> None:
            issued = [(key, issue(key)) for key in pending]
            lost = []
            for key, async_result in issued:
                try:
                    results[key] = async_result.get()
                except ConnectionClosedError:
                    raise  # closed by us: retrying cannot help
                except TRANSIENT_ERRORS:
                    lost.append(key)
                except KazooException as exc:
                    results[key] = exc
            pending[:] = lost
            if lost:
                raise ConnectionLoss(f"{len(lost)} requests lost with the connection")

        if pending:
            self._retry(attempt)
        return results

    def get_data(self, path: str) -> tuple[bytes, ZnodeStat] | None:
        try:
            return self._retry(self._zk.get, path)
        except NoNodeError:
            return None

    def get_many(self, paths: Iterable[str]) -> dict[str, tuple[bytes, ZnodeStat] | None]:
        """Batched reads: path -> (data, stat), or None if the znode does not exist. Through multiRead
        requests of up to MULTI_READ_PATHS paths when the server has them (ZooKeeper 3.6+), else one
        pipelined getData per path."""
        paths = list(dict.fromkeys(paths))
        results = None
        if len(paths) > 1 and self._multi_read_supported is not False:
            results = self._multi_read(paths)
        if results is None:
            results = self._batch(paths, self._zk.get_async)
        out = {}
        for path, result in results.items():
            if isinstance(result, NoNodeError):
                out[path] = None
            elif isinstance(result, Exception):
                raise result
            else:
                out[path] = result
        return out

    def _multi_read(self, paths: list[str]) -> dict[str, Any] | None:
        """path -> (data, stat) or its KazooException; None if the server has no multiRead."""
        groups = [paths[start : start + MULTI_READ_PATHS] for start in range(0, len(paths), MULTI_READ_PATHS)]

        def issue(index: int):
            async_result = self._zk.handler.async_result()
            self._zk._call(MultiRead([self._zk.chroot + path for path in groups[index]]), async_result)
            return async_result

        try:
            answers = self._batch(range(len(groups)), issue)
        except KazooException:
            answers = None
        if answers is None or any(isinstance(answer, Exception) for answer in answers.values()):
            if self._multi_read_supported is None:
                log.info("ZooKeeper at %s has no multiRead: reading znodes one request each", self.connect)
                self._multi_read_supported = False
                return None
            failure = next(answer for answer in (answers or {}).values() if isinstance(answer, Exception))
            raise failure
        self._multi_read_supported = True
        return {path: result for index, group in enumerate(groups) for path, result in zip(group, answers[index])}

    def get_children(self, path: str) -> list[str]:
        """Children names, or [] if the znode does not exist."""
        try:
            return self._retry(self._zk.get_children, path)
        except NoNodeError:
            return []

    def exists(self, path: str) -> ZnodeStat | None:
        return self._retry(self._zk.exists, path)

    def multi(self, ops: Sequence[Op]) -> list[Any]:
        """One transaction; returns kazoo's per-op results or raises the failing op's exception
        (with `op_index`, counting from 0 over `ops`)."""

        def issue(_key: int):
            transaction = self._zk.transaction()
            for op in ops:
                _add_op(transaction, op)
            return transaction.commit_async()

        results = self._batch([0], issue)[0]
        if isinstance(results, Exception):
            raise results
        failure = _indexed_failure(results)
        if failure is not None:
            raise failure
        return results

    def fenced_multi(self, ops: Sequence[Op], epoch_zk_version: int) -> list[Any]:
        """`multi` preceded by check(/controller_epoch, epoch_zk_version); results exclude the check.

        Raises ControllerMovedError when the check fails, else the failing op's exception (with
        `op_index`, counting from 0 over `ops`).
        """
        results = self._multi_batch([0], lambda _key: ops, epoch_zk_version)[0]
        if isinstance(results, Exception):
            raise results
        return results

    def _multi_batch(
        self, keys: Iterable[K], ops_for: Callable[[K], Sequence[Op]], epoch_zk_version: int | None
    ) -> dict[K, list[Any] | KazooException]:
        """The ops of each key as if each key had its own multi (fenced by the controller epoch's version unless
        that is None): key -> op results (check excluded), or the exception of its failing op. Keys share multis
        of up to MULTI_OPS ops, pipelined; the keys of a multi rolled back by another key's failing op go again in
        the next round. Raises ControllerMovedError if the epoch check failed."""
        ops = {key: list(ops_for(key)) for key in dict.fromkeys(keys)}
        out: dict[K, list[Any] | KazooException] = {}
        pending = list(ops)
        while pending:
            groups: list[list[K]] = [[]]
            size = 0
            for key in pending:
                if groups[-1] and size + len(ops[key]) > MULTI_OPS:
                    groups.append([])
                    size = 0
                groups[-1].append(key)
                size += len(ops[key])

            def issue(index: int):
                transaction = self._zk.transaction()
                if epoch_zk_version is not None:
                    transaction.check(ControllerEpochZNode.PATH, epoch_zk_version)
                for key in groups[index]:  # noqa: B023 (issued within this iteration)
                    for op in ops[key]:
                        _add_op(transaction, op)
                return transaction.commit_async()

            pending = []
            for index, results in self._batch(range(len(groups)), issue).items():
                if isinstance(results, Exception):
                    out.update(dict.fromkeys(groups[index], results))
                    continue
                op_results = _fenced_results(results) if epoch_zk_version is not None else results
                failure = first_failure(op_results)
                position = 0
                for key in groups[index]:
                    own = op_results[position : position + len(ops[key])]
                    position += len(ops[key])
                    if failure is None:
                        out[key] = own
                    elif any(result is failure for result in own):
                        out[key] = _indexed_failure(own)
                    else:
                        pending.append(key)  # rolled back because of another key: try again
        return out

    def _ensure_paths(self, paths: Iterable[str]) -> None:
        """Create each path, and its missing parents, holding no data at all (null, not empty bytes), as Kafka's
        createRecursive does: Kafka parses any data it finds (an empty /latest_producer_id_block stops a Kafka
        broker's startup). Existing paths are left as they are."""
        orphans = []
        for path, result in self._batch(paths, lambda path: self._zk.create_async(path, None)).items():
            if isinstance(result, NoNodeError):
                orphans.append(path)
            elif isinstance(result, Exception) and not isinstance(result, NodeExistsError):
                raise result
        if orphans:
            self._ensure_paths(sorted({path.rsplit("/", 1)[0] for path in orphans}))
            self._ensure_paths(orphans)

    def _create_ignoring_existing(self, paths: Iterable[str]) -> dict[str, Any]:
        return {
            path: result
            for path, result in self._batch(paths, lambda p: self._zk.create_async(p, None)).items()
            if not isinstance(result, NodeExistsError)
        }

    def delete_recursive(self, path: str, epoch_zk_version: int | None = None) -> None:
        """Delete a subtree, children first; fenced (in chunks of multis) when epoch_zk_version is given."""
        order: list[str] = []

        def collect(node: str) -> None:
            for child in self.get_children(node):
                collect(f"{node}/{child}")
            order.append(node)

        if self.exists(path) is None:
            return
        collect(path)
        if epoch_zk_version is None:
            for node in order:
                try:
                    self._retry(self._zk.delete, node)
                except NoNodeError:
                    pass
            return
        for start in range(0, len(order), _MAX_OPS_PER_MULTI):
            chunk = order[start : start + _MAX_OPS_PER_MULTI]
            try:
                self.fenced_multi([DeleteOp(node) for node in chunk], epoch_zk_version)
            except NoNodeError:  # someone removed part of the tree: delete the rest node by node
                self._multi_batch(chunk, lambda node: [DeleteOp(node)], epoch_zk_version)

    # -- watches ---------------------------------------------------------------------------------

    @staticmethod
    def _guarded(watch: Watch, callback: Callable[..., None]) -> Callable[..., bool | None]:
        lock = threading.Lock()

        def run(*args: Any) -> bool | None:
            if watch.cancelled:
                return False  # tells the kazoo recipe to stop watching
            with lock:
                try:
                    callback(*args)
                except Exception:
                    log.exception("watch callback for %s failed", watch.path)
            return None

        return run

    def watch_children(self, path: str, callback: Callable[[list[str]], None]) -> Watch:
        """`callback(children)` now and after every change of the children of `path` (which must exist)."""
        if self.exists(path) is None:
            raise NoNodeError(f"cannot watch children of missing znode {path}")
        watch = Watch(path)
        ChildrenWatch(self._zk, path, self._guarded(watch, callback))
        return watch

    def watch_data(self, path: str, callback: Callable[[bytes | None, ZnodeStat | None], None]) -> Watch:
        """`callback(data, stat)` now and after every change; (None, None) while the znode is absent."""
        watch = Watch(path)
        guarded = self._guarded(watch, callback)
        # DataWatch passes (data, stat, event); the event is dropped, the fresh data is what counts.
        DataWatch(self._zk, path, lambda data, stat, event=None: guarded(data, stat))
        return watch

    def watch_exists(self, path: str, callback: Callable[[bool], None]) -> Watch:
        """`callback(exists)` now and after every creation, deletion or data change of `path`."""
        return self.watch_data(path, lambda data, stat: callback(stat is not None))
