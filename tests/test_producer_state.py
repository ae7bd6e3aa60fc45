import pytest

from kafka_zk.log.producer_state import OutOfOrderSequenceError, ProducerFencedError, ProducerStateManager


def test_in_sequence_duplicates_and_gaps():
    state = ProducerStateManager()
    state.check(7, 0, 0)
    state.record(7, 0, 0, 4, 100, 104, 1)
    assert state.find_duplicate(7, 0, 0, 4).first_offset == 100
    with pytest.raises(OutOfOrderSequenceError):
        state.check(7, 0, 6)
    state.check(7, 0, 5)
    state.record(7, 0, 5, 5, 105, 105, 2)
    with pytest.raises(ProducerFencedError):
        state.check(7, -2, 6)


def test_new_epoch_must_start_at_zero_and_an_unknown_producer_may_start_anywhere():
    """Kafka 2.5 (KIP-360) accepts any first sequence from a producer it has no state for (its state expired)."""
    state = ProducerStateManager()
    state.check(9, 0, 3)
    state.record(9, 0, 0, 0, 0, 0, 1)
    with pytest.raises(OutOfOrderSequenceError):
        state.check(9, 1, 3)
    state.check(9, 1, 0)


def test_an_unknown_producer_at_epoch_minus_one_starts_at_sequence_zero():
    """Epoch -1 is the epoch of a producer the partition knows nothing of: as Kafka, its first batch must start at
    sequence 0 (this used to fail with an AttributeError on the missing state)."""
    state = ProducerStateManager()
    state.check(5, -1, 0)
    with pytest.raises(OutOfOrderSequenceError):
        state.check(5, -1, 3)


def test_only_five_batches_are_remembered_for_duplicates():
    state = ProducerStateManager()
    for index in range(6):
        state.record(1, 0, index, index, index, index, index)
    assert state.find_duplicate(1, 0, 0, 0) is None
    assert state.find_duplicate(1, 0, 5, 5).first_offset == 5


def test_sequence_wraps_at_int32_max():
    state = ProducerStateManager()
    state.record(1, 0, 0x7FFFFFFF - 1, 0x7FFFFFFF, 0, 1, 0)
    state.check(1, 0, 0)
