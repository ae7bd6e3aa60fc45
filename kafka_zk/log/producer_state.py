"""Producer state per partition: epochs, recent batch sequences, duplicates, and ongoing transactions.

The first unstable offset (the first offset of a transaction not yet decided, or decided by a
marker not yet below the high watermark) bounds the last stable offset that read_committed
consumers may read up to.
"""

from collections import deque
from typing import NamedTuple

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
INT32_MAX = 0x7FFFFFFF
BATCHES_TO_RETAIN = 5


class BatchMetadata(NamedTuple):
    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int


class CompletedTxn(NamedTuple):
    """A transaction ended by a marker at last_offset; the log writes aborted ones to its .txnindex."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


class ProducerFencedError(Exception):
    """An older producer epoch than the one the broker knows (INVALID_PRODUCER_EPOCH)."""


class OutOfOrderSequenceError(Exception):
    """A sequence gap or a non-zero first sequence for a new epoch (OUT_OF_ORDER_SEQUENCE_NUMBER)."""


class InvalidTxnStateError(Exception):
    """A non-transactional batch from a producer with an ongoing transaction (INVALID_TXN_STATE)."""


class CoordinatorFencedError(Exception):
    """A marker from an older coordinator epoch than the last one seen (TRANSACTION_COORDINATOR_FENCED)."""


class ProducerStateEntry:
    __slots__ = (
        "producer_id",
        "producer_epoch",
        "batches",
        "last_timestamp",
        "coordinator_epoch",
        "current_txn_first_offset",
    )

    def __init__(self, producer_id: int, producer_epoch: int = NO_PRODUCER_EPOCH) -> None:
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.batches: deque[BatchMetadata] = deque(maxlen=BATCHES_TO_RETAIN)
        self.last_timestamp = -1
        self.coordinator_epoch = -1
        self.current_txn_first_offset: int | None = None

    def update_epoch(self, epoch: int) -> None:
        if epoch != self.producer_epoch:
            self.producer_epoch = epoch
            self.batches.clear()

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE

    def find_duplicate(self, epoch: int, first_seq: int, last_seq: int) -> BatchMetadata | None:
        if epoch != self.producer_epoch:
            return None
        for batch in self.batches:
            if batch.first_seq == first_seq and batch.last_seq == last_seq:
                return batch
        return None


def _in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT32_MAX)


class ProducerStateManager:
    """Tracks producers of one partition. check() before an append, record() after it succeeds.

    ``map_end_offset`` is the offset up to which the log's batches have been applied.
    """

    def __init__(self) -> None:
        self.producers: dict[int, ProducerStateEntry] = {}
        self.ongoing: dict[int, int] = {}  # first offset of an undecided transaction -> producer id
        # first offset of a decided transaction -> (producer id, marker offset)
        self.unreplicated: dict[int, tuple[int, int]] = {}
        self.map_end_offset = 0

    def find_duplicate(self, producer_id: int, epoch: int, first_seq: int, last_seq: int) -> BatchMetadata | None:
        """The BatchMetadata of an already-appended identical batch, or None."""
        entry = self.producers.get(producer_id)
        if entry is None:
            return None
        return entry.find_duplicate(epoch, first_seq, last_seq)

    def check(self, producer_id: int, epoch: int, first_seq: int, is_transactional: bool = False) -> None:
        """Validate a client batch's epoch, sequence and transaction state; raises one of the errors above."""
        entry = self.producers.get(producer_id)
        current_epoch = entry.producer_epoch if entry else NO_PRODUCER_EPOCH
        if entry is not None and epoch < current_epoch:
            raise ProducerFencedError(
                "Producer's epoch %d is older than the latest %d for producer %d" % (epoch, current_epoch, producer_id)
            )
        self._check_sequence(entry, producer_id, epoch, first_seq)
        if entry is not None and entry.current_txn_first_offset is not None and not is_transactional:
            raise InvalidTxnStateError("Expected transactional write from producer %d" % producer_id)

    @staticmethod
    def _check_sequence(entry: ProducerStateEntry | None, producer_id: int, epoch: int, first_seq: int) -> None:
        """As Kafka 2.5 (KIP-360): a producer the partition knows nothing of (its state expired) may go on at any
        sequence; a known one's new epoch starts at 0 and its batches follow one another."""
        current_epoch = entry.producer_epoch if entry else NO_PRODUCER_EPOCH
        if epoch != current_epoch:
            if first_seq != 0 and current_epoch != NO_PRODUCER_EPOCH:
                raise OutOfOrderSequenceError(
                    "Invalid sequence number for new epoch of producer %d: %d (must be 0)" % (producer_id, first_seq)
                )
            return
        # a producer the partition has no state for, sending epoch -1 (NO_PRODUCER_EPOCH): no sequence yet, as Kafka
        last_seq = entry.last_seq if entry is not None else NO_SEQUENCE
        if last_seq == NO_SEQUENCE and first_seq != 0:
            raise OutOfOrderSequenceError(
                "Out of order sequence number for producer %d: %d (expected 0)" % (producer_id, first_seq)
            )
        if last_seq != NO_SEQUENCE and not _in_sequence(last_seq, first_seq):
            raise OutOfOrderSequenceError(
                "Out of order sequence number for producer %d at offset: found %d, expected %d"
                % (producer_id, first_seq, (last_seq + 1) & INT32_MAX)
            )

    def check_epoch(self, producer_id: int, epoch: int) -> None:
        """A coordinator's transactional write (TxnOffsetCommit): only a fenced epoch is refused."""
        entry = self.producers.get(producer_id)
        if entry is not None and epoch < entry.producer_epoch:
            raise ProducerFencedError(
                "Producer's epoch %d is older than the latest %d for producer %d"
                % (epoch, entry.producer_epoch, producer_id)
            )

    def check_marker(self, producer_id: int, epoch: int, coordinator_epoch: int) -> None:
        """Validate a transaction marker from the coordinator (Kafka's checks for coordinator appends)."""
        entry = self.producers.get(producer_id)
        if entry is None:
            return
        if epoch < entry.producer_epoch:
            raise ProducerFencedError(
                "Producer's epoch %d is older than the latest %d for producer %d"
                % (epoch, entry.producer_epoch, producer_id)
            )
        if coordinator_epoch < entry.coordinator_epoch:
            raise CoordinatorFencedError(
                "Invalid coordinator epoch for producerId %d: %d (zombie), %d (current)"
                % (producer_id, coordinator_epoch, entry.coordinator_epoch)
            )

    def record(
        self,
        producer_id: int,
        epoch: int,
        first_seq: int,
        last_seq: int,
        first_offset: int,
        last_offset: int,
        timestamp: int,
        is_transactional: bool = False,
    ) -> None:
        """Remember an appended data batch (from a client, a leader, or while rebuilding from the log)."""
        if producer_id == NO_PRODUCER_ID:
            return
        entry = self.producers.get(producer_id)
        if entry is None:
            entry = self.producers[producer_id] = ProducerStateEntry(producer_id, epoch)
        else:
            entry.update_epoch(epoch)
        if first_seq != NO_SEQUENCE:
            entry.batches.append(BatchMetadata(first_seq, last_seq, first_offset, last_offset, timestamp))
        entry.last_timestamp = timestamp
        if is_transactional and entry.current_txn_first_offset is None:
            entry.current_txn_first_offset = first_offset
            self.ongoing[first_offset] = producer_id

    def record_marker(
        self, producer_id: int, epoch: int, is_commit: bool, coordinator_epoch: int, offset: int, timestamp: int
    ) -> tuple[CompletedTxn, int] | tuple[None, None]:
        """Apply a COMMIT/ABORT marker at ``offset``. Returns (CompletedTxn, last stable offset for the
        transaction index) for a transaction that had data here, else (None, None)."""
        entry = self.producers.get(producer_id)
        if entry is None:
            entry = self.producers[producer_id] = ProducerStateEntry(producer_id, epoch)
        result: tuple[CompletedTxn, int] | tuple[None, None] = (None, None)
        first = entry.current_txn_first_offset
        if first is not None:
            others = [start for start, pid in self.ongoing.items() if pid != producer_id]
            result = CompletedTxn(producer_id, first, offset, not is_commit), min(others) if others else offset + 1
            self.ongoing.pop(first, None)
            self.unreplicated[first] = (producer_id, offset)
        entry.update_epoch(epoch)
        entry.current_txn_first_offset = None
        entry.coordinator_epoch = coordinator_epoch
        entry.last_timestamp = timestamp
        return result

    def first_unstable_offset(self, high_watermark: int | None = None) -> int | None:
        """The first offset of an undecided transaction or of one whose marker is not yet below
        ``high_watermark``; None when there is none."""
        if not self.ongoing and not self.unreplicated:  # no transaction (most logs): nothing to walk
            return None
        if high_watermark is not None:
            for first, (_, last) in list(self.unreplicated.items()):
                if last < high_watermark:
                    del self.unreplicated[first]
        candidates = list(self.ongoing) + list(self.unreplicated)
        return min(candidates) if candidates else None

    def load_entry(self, entry: ProducerStateEntry) -> None:
        """Take one entry read from a snapshot."""
        self.producers[entry.producer_id] = entry
        if entry.current_txn_first_offset is not None:
            self.ongoing[entry.current_txn_first_offset] = entry.producer_id

    def remove_expired(self, now_ms: int, max_idle_ms: int) -> int:
        """Forget producers with no ongoing transaction whose last batch timestamp is ``max_idle_ms`` old
        (Kafka 2.5's removeExpiredProducers, with transactional.id.expiration.ms). Returns how many."""
        expired = [
            pid
            for pid, entry in self.producers.items()
            if entry.current_txn_first_offset is None and now_ms - entry.last_timestamp >= max_idle_ms
        ]
        for pid in expired:
            del self.producers[pid]
        return len(expired)

    def truncate_head(self, log_start_offset: int) -> None:
        """The log start moved: forget decided transactions wholly below it. Producers stay, also those
        with no batch left in the log (KIP-360): only expiration removes them."""
        for first, (_, last) in list(self.unreplicated.items()):
            if last < log_start_offset:
                del self.unreplicated[first]
        self.map_end_offset = max(self.map_end_offset, log_start_offset)

    def truncate(self, map_end_offset: int = 0) -> None:
        self.producers.clear()
        self.ongoing.clear()
        self.unreplicated.clear()
        self.map_end_offset = map_end_offset
