"""Committed offsets of one group: the cache, pending (not yet appended) commits and expiration rules."""

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, TypeAlias

from kafka_zk.coordinator.group.records import NO_LEADER_EPOCH

if TYPE_CHECKING:
    from kafka_zk.coordinator.group.state import GroupMetadata

TopicPartition: TypeAlias = tuple[str, int]
# What OffsetFetch answers for a partition: (offset, leader epoch, metadata).
FetchedOffset: TypeAlias = tuple[int, int, str]

INVALID_OFFSET = -1


@dataclass
class CommittedOffset:
    """An offset commit as cached, with the `__consumer_offsets` offset of the record that carries it."""

    offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str = ""
    commit_timestamp: int = 0
    expire_timestamp: Optional[int] = None
    log_offset: Optional[int] = None  # None until the record's append is known


class GroupOffsets:
    """Offsets a group has committed; commits are pending while their append is in flight."""

    def __init__(self) -> None:
        self.committed: dict[TopicPartition, CommittedOffset] = {}
        self.pending: dict[TopicPartition, int] = {}  # count of in-flight commits
        # producer id -> {(topic, partition): CommittedOffset} awaiting the txn marker
        self.pending_txn: dict[int, dict[TopicPartition, CommittedOffset]] = {}

    def has_offsets(self) -> bool:
        return bool(self.committed) or bool(self.pending) or bool(self.pending_txn)

    def has_pending_txn(self, tp: TopicPartition) -> bool:
        return any(tp in offsets for offsets in self.pending_txn.values())

    # -- transactional commits (TxnOffsetCommit): visible only once the COMMIT marker is written -------

    def prepare_txn(self, producer_id: int, commits: Mapping[TopicPartition, CommittedOffset]) -> None:
        """``commits``: {tp: CommittedOffset} whose append is about to start."""
        self.pending_txn.setdefault(producer_id, {}).update(commits)

    def on_txn_append(self, producer_id: int, tp: TopicPartition, commit: CommittedOffset, succeeded: bool) -> None:
        """The transactional append finished; a failed one is forgotten (Kafka's failPendingTxnOffsetCommit)."""
        pending = self.pending_txn.get(producer_id)
        if pending is None or pending.get(tp) is not commit:
            return
        if not succeeded:
            del pending[tp]
            if not pending:
                del self.pending_txn[producer_id]

    def complete_txn(self, producer_id: int, is_commit: bool) -> None:
        """The producer's COMMIT/ABORT marker is in the offsets partition: a commit makes its offsets visible
        unless a newer one (by log offset) is already there."""
        pending = self.pending_txn.pop(producer_id, {})
        if not is_commit:
            return
        for tp, commit in pending.items():
            if commit.log_offset is None:
                continue  # its append never finished
            current = self.committed.get(tp)
            if current is None or current.log_offset is None or current.log_offset < commit.log_offset:
                self.committed[tp] = commit

    def get(self, tp: TopicPartition) -> CommittedOffset | None:
        return self.committed.get(tp)

    def prepare(self, tps: Iterable[TopicPartition]) -> None:
        for tp in tps:
            self.pending[tp] = self.pending.get(tp, 0) + 1

    def _release(self, tp: TopicPartition) -> None:
        left = self.pending.get(tp, 0) - 1
        if left > 0:
            self.pending[tp] = left
        else:
            self.pending.pop(tp, None)

    def on_append(self, tp: TopicPartition, commit: CommittedOffset, succeeded: bool) -> None:
        """The append of a commit finished: cache it when it succeeded and is not older than the cached one."""
        self._release(tp)
        if not succeeded:
            return
        current = self.committed.get(tp)
        if (
            current is None
            or current.log_offset is None
            or commit.log_offset is None
            or commit.log_offset >= current.log_offset
        ):
            self.committed[tp] = commit

    def load(self, tp: TopicPartition, commit: CommittedOffset) -> None:
        """A commit read back from the log while loading the partition (later records win)."""
        self.committed[tp] = commit

    def remove(self, tps: Iterable[TopicPartition]) -> dict[TopicPartition, CommittedOffset]:
        """Drop the given partitions' offsets; returns {tp: CommittedOffset} of those removed."""
        removed = {}
        for tp in tps:
            self.pending.pop(tp, None)
            for offsets in self.pending_txn.values():
                offsets.pop(tp, None)
            if tp in self.committed:
                removed[tp] = self.committed.pop(tp)
        return removed

    def remove_all(self) -> dict[TopicPartition, CommittedOffset]:
        return self.remove(list(self.committed) + list(self.pending))

    def expired(
        self,
        now_ms: int,
        retention_ms: int,
        base_timestamp: Callable[[CommittedOffset], int],
        keep_topics: Collection[str] = frozenset(),
    ) -> list[TopicPartition]:
        """Partitions whose commit has expired: an explicit expire time passed, or ``retention_ms`` since
        ``base_timestamp(commit)``. Pending partitions and topics in ``keep_topics`` never expire."""
        result = []
        for tp, commit in self.committed.items():
            if tp[0] in keep_topics or tp in self.pending:
                continue
            if commit.expire_timestamp is not None:
                if now_ms >= commit.expire_timestamp:
                    result.append(tp)
            elif now_ms - base_timestamp(commit) >= retention_ms:
                result.append(tp)
        return result


def fetch_offsets(
    group: "GroupMetadata | None", partitions: Iterable[TopicPartition] | None
) -> dict[TopicPartition, FetchedOffset]:
    """OffsetFetch answers: {tp: (offset, leader_epoch, metadata)}; ``partitions`` None means all committed.
    Unknown groups and partitions answer offset -1 with empty metadata."""
    if group is None or group.is_dead():
        return {tp: (INVALID_OFFSET, NO_LEADER_EPOCH, "") for tp in (partitions or [])}
    if partitions is None:
        partitions = list(group.offsets.committed)
    result: dict[TopicPartition, FetchedOffset] = {}
    for tp in partitions:
        commit = group.offsets.get(tp)
        result[tp] = (
            (INVALID_OFFSET, NO_LEADER_EPOCH, "")
            if commit is None
            else (commit.offset, commit.leader_epoch, commit.metadata)
        )
    return result
