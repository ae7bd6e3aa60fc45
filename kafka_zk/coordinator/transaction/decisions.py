"""What the transaction coordinator decides for each request, as Kafka 2.5's TransactionCoordinator does.

Each function looks at a TransactionMetadata (already found in the cache) and returns either an error to answer
(``Decision.error``) or a prepared transition to append to `__transaction_state` (``Decision.transit``). A
``Decision`` with neither means "answer NONE at once". Nothing here touches the reactor or the log.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

from kafka_zk.coordinator.transaction.state import (
    COMPLETE_ABORT,
    COMPLETE_COMMIT,
    EMPTY,
    NO_PRODUCER_EPOCH,
    ONGOING,
    PREPARE_ABORT,
    PREPARE_COMMIT,
    PREPARE_EPOCH_FENCE,
    IllegalTransition,
    TopicPartition,
    TransactionMetadata,
    TxnTransit,
    is_epoch_exhausted,
)
from kafka_zk.protocol.errors import Errors

# Errors from appending to `__transaction_state`, as the coordinator reports them (TransactionStateManager).
_APPEND_ERRORS = {
    Errors.UNKNOWN_TOPIC_OR_PARTITION: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.REQUEST_TIMED_OUT: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_LEADER_FOR_PARTITION: Errors.NOT_COORDINATOR,
    Errors.KAFKA_STORAGE_ERROR: Errors.NOT_COORDINATOR,
    Errors.MESSAGE_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
    Errors.RECORD_LIST_TOO_LARGE: Errors.UNKNOWN_SERVER_ERROR,
}

# WriteTxnMarkers answers per partition, as TransactionMarkerRequestCompletionHandler treats them.
MARKER_WRITTEN = "written"
MARKER_RETRY = "retry"
MARKER_ABANDON = "abandon"  # this coordinator was fenced: stop sending the transaction's markers
_MARKER_RETRIABLE = frozenset(
    {
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_LEADER_FOR_PARTITION,
        Errors.NOT_ENOUGH_REPLICAS,
        Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        Errors.REQUEST_TIMED_OUT,
        Errors.KAFKA_STORAGE_ERROR,
    }
)


@dataclass
class Decision:
    error: Optional[Errors] = None
    transit: Optional[TxnTransit] = None
    fence_first: bool = False  # InitProducerId: abort the ongoing transaction, then CONCURRENT_TRANSACTIONS
    epoch_fence: bool = False  # EndTxn: this abort carries a fencing epoch bump

    @property
    def ok(self) -> bool:
        return self.error is None


def append_error(error: Errors) -> Errors:
    """The coordinator error for a `__transaction_state` append that failed with ``error``."""
    return _APPEND_ERRORS.get(error, error)


def marker_outcome(error: Errors) -> str:
    if error == Errors.NONE:
        return MARKER_WRITTEN
    if error in (Errors.INVALID_PRODUCER_EPOCH, Errors.TRANSACTION_COORDINATOR_FENCED):
        return MARKER_ABANDON
    if error in _MARKER_RETRIABLE:
        return MARKER_RETRY
    raise IllegalTransition("unexpected WriteTxnMarkers error %s" % error)


def valid_timeout(timeout_ms: int, max_timeout_ms: int) -> bool:
    return 0 < timeout_ms <= max_timeout_ms


def needs_new_producer_id(metadata: TransactionMetadata | None, expected: tuple[int, int] | None) -> bool:
    """InitProducerId will hand out a fresh producer id: unknown transactional id or an exhausted epoch."""
    if metadata is None:
        return True
    return metadata.is_producer_epoch_exhausted() and (expected is None or expected[1] == metadata.producer_epoch)


def decide_init_producer_id(
    metadata: TransactionMetadata,
    timeout_ms: int,
    expected: tuple[int, int] | None,
    new_producer_id: int | None,
    now_ms: int,
) -> Decision:
    """``expected``: (producer_id, epoch) from InitProducerId v3 (KIP-360) or None; ``new_producer_id``: an id
    already allocated in case the epoch is exhausted."""
    if metadata.pending_transition_in_progress:
        return Decision(Errors.CONCURRENT_TRANSACTIONS)
    if expected is not None and not (
        metadata.producer_epoch == NO_PRODUCER_EPOCH
        or expected[0] == metadata.producer_id
        or (expected[0] == metadata.last_producer_id and is_epoch_exhausted(expected[1]))
    ):
        return Decision(Errors.INVALID_PRODUCER_EPOCH)
    state = metadata.state
    if state in (PREPARE_ABORT, PREPARE_COMMIT):
        return Decision(Errors.CONCURRENT_TRANSACTIONS)
    if state in (COMPLETE_ABORT, COMPLETE_COMMIT, EMPTY):
        if metadata.is_producer_epoch_exhausted() and (expected is None or expected[1] == metadata.producer_epoch):
            if new_producer_id is None:
                return Decision(Errors.CONCURRENT_TRANSACTIONS)  # the id was allocated for another state: retry
            return Decision(
                transit=metadata.prepare_producer_id_rotation(new_producer_id, timeout_ms, now_ms, expected is not None)
            )
        error, transit = metadata.prepare_increment_producer_epoch(
            timeout_ms, None if expected is None else expected[1], now_ms
        )
        return Decision(error, transit)
    if state is ONGOING:
        return Decision(transit=metadata.prepare_fence_producer_epoch(), fence_first=True)
    raise IllegalTransition("%s found in state %s" % (metadata.transactional_id, state))


def decide_add_partitions(
    metadata: TransactionMetadata,
    producer_id: int,
    producer_epoch: int,
    partitions: Iterable[TopicPartition],
    now_ms: int,
) -> Decision:
    if metadata.producer_id != producer_id:
        return Decision(Errors.INVALID_PRODUCER_ID_MAPPING)
    if metadata.producer_epoch != producer_epoch:
        return Decision(Errors.INVALID_PRODUCER_EPOCH)
    if metadata.pending_transition_in_progress or metadata.state in (PREPARE_COMMIT, PREPARE_ABORT):
        return Decision(Errors.CONCURRENT_TRANSACTIONS)
    if metadata.state is ONGOING and set(partitions) <= metadata.partitions:
        return Decision()
    return Decision(transit=metadata.prepare_add_partitions(partitions, now_ms))


def decide_end_txn(
    metadata: TransactionMetadata, producer_id: int, producer_epoch: int, commit: bool, from_client: bool, now_ms: int
) -> Decision:
    """Before appending PrepareCommit/PrepareAbort. An abort by the coordinator itself (fencing, timeout) comes
    with the fenced epoch and ``from_client`` False; it takes over a pending PrepareEpochFence."""
    if metadata.producer_id != producer_id:
        return Decision(Errors.INVALID_PRODUCER_ID_MAPPING)
    if (from_client and producer_epoch != metadata.producer_epoch) or producer_epoch < metadata.producer_epoch:
        return Decision(Errors.INVALID_PRODUCER_EPOCH)
    if metadata.pending_transition_in_progress and metadata.pending_state is not PREPARE_EPOCH_FENCE:
        return Decision(Errors.CONCURRENT_TRANSACTIONS)
    state = metadata.state
    if state is ONGOING:
        target = PREPARE_COMMIT if commit else PREPARE_ABORT
        fence = target is PREPARE_ABORT and metadata.pending_state is PREPARE_EPOCH_FENCE
        if fence:
            metadata.pending_state = None
            metadata.producer_epoch = producer_epoch
            metadata.last_producer_epoch = NO_PRODUCER_EPOCH
        elif metadata.pending_transition_in_progress:
            return Decision(Errors.CONCURRENT_TRANSACTIONS)  # a fence is being prepared for this transaction
        return Decision(transit=metadata.prepare_abort_or_commit(target, now_ms), epoch_fence=fence)
    if state is COMPLETE_COMMIT:
        return Decision() if commit else Decision(Errors.INVALID_TXN_STATE)
    if state is COMPLETE_ABORT:
        return Decision() if not commit else Decision(Errors.INVALID_TXN_STATE)
    if state is PREPARE_COMMIT:
        return Decision(Errors.CONCURRENT_TRANSACTIONS) if commit else Decision(Errors.INVALID_TXN_STATE)
    if state is PREPARE_ABORT:
        return Decision(Errors.CONCURRENT_TRANSACTIONS) if not commit else Decision(Errors.INVALID_TXN_STATE)
    if state is EMPTY:
        return Decision(Errors.INVALID_TXN_STATE)
    raise IllegalTransition("%s found in state %s" % (metadata.transactional_id, state))


def decide_complete(
    metadata: TransactionMetadata, producer_id: int, producer_epoch: int, commit: bool, now_ms: int
) -> Decision:
    """After PrepareCommit/PrepareAbort is in the log: the transition to CompleteCommit/CompleteAbort whose
    append follows the markers."""
    if metadata.producer_id != producer_id:
        return Decision(Errors.INVALID_PRODUCER_ID_MAPPING)
    if metadata.producer_epoch != producer_epoch:
        return Decision(Errors.INVALID_PRODUCER_EPOCH)
    if metadata.pending_transition_in_progress:
        return Decision(Errors.CONCURRENT_TRANSACTIONS)
    expected = PREPARE_COMMIT if commit else PREPARE_ABORT
    if metadata.state is not expected:
        return Decision(Errors.INVALID_TXN_STATE)
    return Decision(transit=metadata.prepare_complete(now_ms))


def timed_out(metadata: TransactionMetadata, now_ms: int) -> bool:
    """Ongoing past its timeout, with no transition in flight: the coordinator aborts it."""
    return (
        not metadata.pending_transition_in_progress
        and metadata.state is ONGOING
        and metadata.start_timestamp + metadata.txn_timeout_ms < now_ms
    )


def expired(metadata: TransactionMetadata, now_ms: int, expiration_ms: int) -> bool:
    """Idle (Empty or completed) for transactional.id.expiration.ms: its id is removed."""
    return (
        not metadata.pending_transition_in_progress
        and metadata.state in (EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT)
        and metadata.last_update_timestamp <= now_ms - expiration_ms
    )


def pending_completion(metadata: TransactionMetadata) -> bool | None:
    """A loaded transaction whose markers must still be written: True to commit, False to abort, None."""
    if metadata.state is PREPARE_COMMIT:
        return True
    if metadata.state is PREPARE_ABORT:
        return False
    return None
