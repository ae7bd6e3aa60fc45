"""What the log cleaner does with transactional data, as Kafka 2.5's CleanedTransactionMetadata.

Batches of aborted transactions (known from the `.txnindex` entries) are left out of the offset map
and removed from cleaned segments. An abort marker stays, with its index entry copied into the
cleaned segment, while the pass still saw data of its transaction; a commit marker stays while the
pass saw data of its transaction; once no data is left a marker may go after delete.retention.ms.
"""

from collections import deque
from collections.abc import Iterable

from kafka_zk.log.producer_state_loader import end_txn_marker
from kafka_zk.log.transaction_index import AbortedTxn
from kafka_zk.record.batch_header import BatchHeader, InvalidRecordError


def overlapping(aborted: Iterable[AbortedTxn], start: int, end: int) -> list[AbortedTxn]:
    """The AbortedTxn entries with a marker at or after ``start`` and data before ``end``, by first offset."""
    return sorted(
        (entry for entry in aborted if entry.last_offset >= start and entry.first_offset < end),
        key=lambda entry: entry.first_offset,
    )


class TransactionTracker:
    """Walks the batches of one cleaning step in offset order; ``cleaned_index`` collects the entries the
    cleaned segment's .txnindex keeps."""

    def __init__(self, aborted: Iterable[AbortedTxn]) -> None:
        self._pending = deque(sorted(aborted, key=lambda entry: entry.first_offset))
        self._ongoing_aborted: dict[int, _OngoingAbort] = {}  # producer id -> [AbortedTxn, saw data]
        self._ongoing_committed: set[int] = set()
        self.cleaned_index: list[AbortedTxn] = []

    def _consume_up_to(self, offset: int) -> None:
        while self._pending and self._pending[0].first_offset <= offset:
            entry = self._pending.popleft()
            self._ongoing_aborted.setdefault(entry.producer_id, _OngoingAbort(entry))

    def is_aborted(self, header: BatchHeader) -> bool:
        """A data batch: True when it belongs to an aborted transaction (to be removed)."""
        self._consume_up_to(header.last_offset)
        if not header.is_transactional:
            return False
        ongoing = self._ongoing_aborted.get(header.producer_id)
        if ongoing is not None:
            ongoing.saw_data = True
            return True
        self._ongoing_committed.add(header.producer_id)
        return False

    def can_discard_marker(self, header: BatchHeader, raw: bytes) -> bool:
        """A control batch: True when no data of its transaction was seen (it may go once past the
        delete horizon); an aborted transaction's index entry is kept with a retained marker."""
        self._consume_up_to(header.last_offset)
        if header.record_count == 0:
            return True  # an empty control batch: its transaction was cleaned away already
        try:
            marker = end_txn_marker(raw)
        except InvalidRecordError:
            marker = None
        if marker is None:
            return False  # a control record that is no transaction marker stays
        is_commit = marker[0]
        if is_commit:
            if header.producer_id in self._ongoing_committed:
                self._ongoing_committed.discard(header.producer_id)
                return False
            return True
        ongoing = self._ongoing_aborted.pop(header.producer_id, None)
        if ongoing is not None and ongoing.saw_data:
            self.cleaned_index.append(ongoing.entry)
            return False
        return True


class _OngoingAbort:
    """An aborted transaction the walk is inside of, and whether it saw data of it."""

    __slots__ = ("entry", "saw_data")

    def __init__(self, entry: AbortedTxn) -> None:
        self.entry = entry
        self.saw_data = False
