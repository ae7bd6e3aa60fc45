"""Idempotent-producer state per partition: epochs, recent batch sequences, duplicate detection."""

from collections import deque, namedtuple

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
INT32_MAX = 0x7FFFFFFF
BATCHES_TO_RETAIN = 5

BatchMetadata = namedtuple("BatchMetadata", "first_seq last_seq first_offset last_offset timestamp")


class ProducerFencedError(Exception):
    """An older producer epoch than the one the broker knows (INVALID_PRODUCER_EPOCH)."""


class OutOfOrderSequenceError(Exception):
    """A sequence gap or a non-zero first sequence for a new epoch (OUT_OF_ORDER_SEQUENCE_NUMBER)."""


class UnknownProducerIdError(Exception):
    """No state for this producer and a first sequence other than 0 (UNKNOWN_PRODUCER_ID)."""


class ProducerStateEntry:
    __slots__ = ("producer_id", "producer_epoch", "batches", "last_timestamp")

    def __init__(self, producer_id, producer_epoch=NO_PRODUCER_EPOCH):
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.batches = deque(maxlen=BATCHES_TO_RETAIN)
        self.last_timestamp = -1

    @property
    def last_seq(self):
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE

    def find_duplicate(self, epoch, first_seq, last_seq):
        if epoch != self.producer_epoch:
            return None
        for batch in self.batches:
            if batch.first_seq == first_seq and batch.last_seq == last_seq:
                return batch
        return None


def _in_sequence(last_seq, next_seq):
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT32_MAX)


class ProducerStateManager:
    """Tracks producers of one partition. check() before an append, record() after it succeeds."""

    def __init__(self):
        self.producers = {}

    def find_duplicate(self, producer_id, epoch, first_seq, last_seq):
        """The BatchMetadata of an already-appended identical batch, or None."""
        entry = self.producers.get(producer_id)
        if entry is None:
            return None
        return entry.find_duplicate(epoch, first_seq, last_seq)

    def check(self, producer_id, epoch, first_seq):
        """Validate a client batch's epoch and sequence; raises one of the errors above."""
        entry = self.producers.get(producer_id)
        current_epoch = entry.producer_epoch if entry else NO_PRODUCER_EPOCH
        if entry is not None and epoch < current_epoch:
            raise ProducerFencedError("Producer's epoch %d is older than the latest %d for producer %d"
                                      % (epoch, current_epoch, producer_id))
        if epoch != current_epoch:
            if first_seq != 0:
                if current_epoch != NO_PRODUCER_EPOCH:
                    raise OutOfOrderSequenceError(
                        "Invalid sequence number for new epoch of producer %d: %d (must be 0)"
                        % (producer_id, first_seq))
                raise UnknownProducerIdError(
                    "Found no record of producerId=%d on the broker; first sequence %d is not 0"
                    % (producer_id, first_seq))
            return
        last_seq = entry.last_seq
        if last_seq == NO_SEQUENCE and first_seq != 0:
            raise OutOfOrderSequenceError("Out of order sequence number for producer %d: %d (expected 0)"
                                          % (producer_id, first_seq))
        if last_seq != NO_SEQUENCE and not _in_sequence(last_seq, first_seq):
            raise OutOfOrderSequenceError(
                "Out of order sequence number for producer %d at offset: found %d, expected %d"
                % (producer_id, first_seq, (last_seq + 1) & INT32_MAX))

    def record(self, producer_id, epoch, first_seq, last_seq, first_offset, last_offset, timestamp):
        """Remember an appended batch (from a client or while rebuilding from the log)."""
        if producer_id == NO_PRODUCER_ID:
            return
        entry = self.producers.get(producer_id)
        if entry is None:
            entry = self.producers[producer_id] = ProducerStateEntry(producer_id, epoch)
        elif epoch != entry.producer_epoch:
            entry.producer_epoch = epoch
            entry.batches.clear()
        if first_seq != NO_SEQUENCE:
            entry.batches.append(BatchMetadata(first_seq, last_seq, first_offset, last_offset, timestamp))
        entry.last_timestamp = timestamp

    def record_header(self, header):
        """Rebuild step: apply one batch header already in the log."""
        if header.producer_id != NO_PRODUCER_ID:
            self.record(header.producer_id, header.producer_epoch, header.base_sequence,
                        header.last_sequence, header.base_offset, header.last_offset, header.max_timestamp)

    def truncate(self):
        self.producers.clear()
