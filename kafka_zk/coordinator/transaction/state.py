"""The transaction state machine of one transactional id (Kafka 2.5's TransactionMetadata and its states)."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import FrozenSet, TypeAlias

from kafka_zk.coordinator.transaction.records import TxnLogValue
from kafka_zk.protocol.errors import Errors

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
MAX_EPOCH = 32767

TopicPartition: TypeAlias = tuple[str, int]


class TxnState:
    """A state with Kafka's id (written to the log) and the states it may be entered from."""

    def __init__(self, name: str, state_id: int) -> None:
        self.name = name
        self.id = state_id
        self.valid_previous: frozenset[TxnState] = frozenset()

    def __repr__(self) -> str:
        return self.name


EMPTY = TxnState("Empty", 0)
ONGOING = TxnState("Ongoing", 1)
PREPARE_COMMIT = TxnState("PrepareCommit", 2)
PREPARE_ABORT = TxnState("PrepareAbort", 3)
COMPLETE_COMMIT = TxnState("CompleteCommit", 4)
COMPLETE_ABORT = TxnState("CompleteAbort", 5)
DEAD = TxnState("Dead", 6)
PREPARE_EPOCH_FENCE = TxnState("PrepareEpochFence", 7)

EMPTY.valid_previous = frozenset({EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT})
ONGOING.valid_previous = frozenset({ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT})
PREPARE_COMMIT.valid_previous = frozenset({ONGOING})
PREPARE_ABORT.valid_previous = frozenset({ONGOING, PREPARE_EPOCH_FENCE})
COMPLETE_COMMIT.valid_previous = frozenset({PREPARE_COMMIT})
COMPLETE_ABORT.valid_previous = frozenset({PREPARE_ABORT})
DEAD.valid_previous = frozenset({EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT})
PREPARE_EPOCH_FENCE.valid_previous = frozenset({ONGOING})

STATES = {
    s.id: s
    for s in (EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT, COMPLETE_ABORT, DEAD, PREPARE_EPOCH_FENCE)
}


class IllegalTransition(RuntimeError):
    """A transition the state machine forbids: a bug, never a client error."""


def is_epoch_exhausted(epoch: int) -> bool:
    return epoch >= MAX_EPOCH - 1


@dataclass(frozen=True)
class TxnTransit:
    """The metadata a transition will have once its log append succeeds."""

    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    state: TxnState
    partitions: FrozenSet[TopicPartition] = field(default_factory=frozenset)
    start_timestamp: int = -1
    last_update_timestamp: int = -1

    def log_value(self) -> TxnLogValue:
        return TxnLogValue(
            self.producer_id,
            self.producer_epoch,
            self.txn_timeout_ms,
            self.state.id,
            frozenset(self.partitions),
            self.last_update_timestamp,
            self.start_timestamp,
        )


class TransactionMetadata:
    """What the coordinator knows of one transactional id; ``pending_state`` is set while a transition's
    log append is in flight."""

    def __init__(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        txn_timeout_ms: int,
        state: TxnState = EMPTY,
        partitions: Iterable[TopicPartition] = (),
        start_timestamp: int = -1,
        last_update_timestamp: int = -1,
        last_producer_id: int = NO_PRODUCER_ID,
        last_producer_epoch: int = NO_PRODUCER_EPOCH,
    ) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.last_producer_id = last_producer_id
        self.producer_epoch = producer_epoch
        self.last_producer_epoch = last_producer_epoch
        self.txn_timeout_ms = txn_timeout_ms
        self.state = state
        self.partitions = set(partitions)
        self.start_timestamp = start_timestamp
        self.last_update_timestamp = last_update_timestamp
        self.pending_state: TxnState | None = None
        self.has_failed_epoch_fence = False

    @classmethod
    def from_log(cls, transactional_id: str, value: TxnLogValue) -> "TransactionMetadata":
        state = STATES.get(value.state_id)
        if state is None:
            raise ValueError("unknown transaction state id %d" % value.state_id)
        return cls(
            transactional_id,
            value.producer_id,
            value.producer_epoch,
            value.txn_timeout_ms,
            state,
            value.partitions if state is not EMPTY else (),
            value.start_timestamp,
            value.last_update_timestamp,
        )

    def __repr__(self) -> str:
        return "TransactionMetadata(%s, pid=%d, epoch=%d, state=%s, pending=%s, partitions=%d)" % (
            self.transactional_id,
            self.producer_id,
            self.producer_epoch,
            self.state,
            self.pending_state,
            len(self.partitions),
        )

    @property
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    def is_producer_epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    # -- preparing transitions (nothing changes until complete_transition) ---------------------------

    def _prepare(
        self,
        state: TxnState,
        producer_id: int,
        epoch: int,
        last_epoch: int,
        timeout_ms: int,
        partitions: Iterable[TopicPartition],
        start_ts: int,
        update_ts: int,
        last_producer_id: int | None = None,
    ) -> TxnTransit:
        if self.pending_state is not None:
            raise IllegalTransition(
                "%s: transition to %s while %s is pending" % (self.transactional_id, state, self.pending_state)
            )
        if self.state not in state.valid_previous:
            raise IllegalTransition("%s: %s cannot move to %s" % (self.transactional_id, self.state, state))
        self.pending_state = state
        return TxnTransit(
            producer_id,
            self.last_producer_id if last_producer_id is None else last_producer_id,
            epoch,
            last_epoch,
            timeout_ms,
            state,
            frozenset(partitions),
            start_ts,
            update_ts,
        )

    def prepare_increment_producer_epoch(
        self, timeout_ms: int, expected_epoch: int | None, now_ms: int
    ) -> tuple[None, TxnTransit] | tuple[Errors, None]:
        """(error or None, transit): a fresh InitProducerId (``expected_epoch`` None) or KIP-360's bump."""
        bumped = self.producer_epoch + 1
        if expected_epoch is None:
            epoch, last = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_epoch == self.producer_epoch:
            epoch, last = bumped, self.producer_epoch
        elif expected_epoch == self.last_producer_epoch:
            epoch, last = self.producer_epoch, self.last_producer_epoch  # a retry of a bump that succeeded
        else:
            return Errors.INVALID_PRODUCER_EPOCH, None
        return None, self._prepare(EMPTY, self.producer_id, epoch, last, timeout_ms, (), -1, now_ms)

    def prepare_producer_id_rotation(
        self, new_producer_id: int, timeout_ms: int, now_ms: int, record_last_epoch: bool
    ) -> TxnTransit:
        return self._prepare(
            EMPTY,
            new_producer_id,
            0,
            self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
            timeout_ms,
            (),
            -1,
            now_ms,
            last_producer_id=self.producer_id,
        )

    def prepare_fence_producer_epoch(self) -> TxnTransit:
        """Bump the epoch to fence the current producer before aborting its transaction (never returned to a
        client); a fence whose write failed is not bumped again."""
        if self.producer_epoch >= MAX_EPOCH:
            raise IllegalTransition("%s: no epoch left to fence" % self.transactional_id)
        epoch = self.producer_epoch if self.has_failed_epoch_fence else self.producer_epoch + 1
        return self._prepare(
            PREPARE_EPOCH_FENCE,
            self.producer_id,
            epoch,
            NO_PRODUCER_EPOCH,
            self.txn_timeout_ms,
            self.partitions,
            self.start_timestamp,
            self.last_update_timestamp,
        )

    def prepare_add_partitions(self, partitions: Iterable[TopicPartition], now_ms: int) -> TxnTransit:
        start = now_ms if self.state in (EMPTY, COMPLETE_ABORT, COMPLETE_COMMIT) else self.start_timestamp
        return self._prepare(
            ONGOING,
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            self.partitions | set(partitions),
            start,
            now_ms,
        )

    def prepare_abort_or_commit(self, state: TxnState, now_ms: int) -> TxnTransit:
        return self._prepare(
            state,
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            self.partitions,
            self.start_timestamp,
            now_ms,
        )

    def prepare_complete(self, now_ms: int) -> TxnTransit:
        state = COMPLETE_COMMIT if self.state is PREPARE_COMMIT else COMPLETE_ABORT
        self.has_failed_epoch_fence = False
        return self._prepare(
            state,
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            (),
            self.start_timestamp,
            now_ms,
        )

    def prepare_dead(self) -> TxnTransit:
        return self._prepare(
            DEAD,
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            (),
            self.start_timestamp,
            self.last_update_timestamp,
        )

    # -- completing them ---------------------------------------------------------------------------

    def complete_transition(self, transit: TxnTransit) -> None:
        """The transit's append succeeded: adopt it."""
        if self.pending_state is not transit.state:
            raise IllegalTransition(
                "%s: completing %s while %s is pending" % (self.transactional_id, transit.state, self.pending_state)
            )
        self.producer_id = transit.producer_id
        self.last_producer_id = transit.last_producer_id
        self.producer_epoch = transit.producer_epoch
        self.last_producer_epoch = transit.last_producer_epoch
        self.txn_timeout_ms = transit.txn_timeout_ms
        self.partitions = set(transit.partitions)
        self.start_timestamp = transit.start_timestamp
        self.last_update_timestamp = transit.last_update_timestamp
        self.state = transit.state
        self.pending_state = None

    def abandon_transition(self) -> None:
        self.pending_state = None
