"""Kafka's default partitioner: murmur2 of the key for keyed records, sticky partitions for null keys."""

import random

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK32 = 0xFFFFFFFF


def murmur2(data):
    """The 32-bit murmur2 hash Kafka's clients use for keys, as a signed int (like Java's int)."""
    length = len(data)
    h = (_SEED ^ length) & _MASK32
    whole = length & ~3
    for i in range(0, whole, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * _M) & _MASK32
        k ^= k >> 24
        k = (k * _M) & _MASK32
        h = ((h * _M) & _MASK32) ^ k
    tail = length & 3
    if tail:
        if tail == 3:
            h ^= data[whole + 2] << 16
        if tail >= 2:
            h ^= data[whole + 1] << 8
        h ^= data[whole]
        h = (h * _M) & _MASK32
    h ^= h >> 13
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return h - 0x100000000 if h & 0x80000000 else h


def to_positive(value):
    """Kafka's Utils.toPositive: clear the sign bit (not abs, which overflows for INT_MIN)."""
    return value & 0x7FFFFFFF


def partition_for_key(key, num_partitions):
    """The partition Kafka's default partitioner picks for a non-null key."""
    return to_positive(murmur2(key)) % num_partitions


class StickyPartitioner:
    """Partition choice for records: keyed records hash, null-key records stick to one random available
    partition per topic until the batch for it is completed (Kafka 2.4+'s sticky partitioning)."""

    def __init__(self, rng=None):
        self._rng = rng or random.Random()
        self._sticky = {}

    def partition(self, topic, key, partitions, available):
        """``partitions``: all partition ids of the topic; ``available``: those with a leader."""
        if key is not None:
            return partition_for_key(key, len(partitions))
        current = self._sticky.get(topic)
        if current is None or current not in partitions:
            current = self._pick(partitions, available, None)
            self._sticky[topic] = current
        return current

    def on_new_batch(self, topic, partitions, available, previous):
        """A batch of ``topic`` completed on partition ``previous``: move null-key records elsewhere."""
        if self._sticky.get(topic) == previous:
            self._sticky[topic] = self._pick(partitions, available, previous)

    def _pick(self, partitions, available, previous):
        choices = list(available) or list(partitions)
        if len(choices) > 1 and previous in choices:
            choices.remove(previous)
        return self._rng.choice(choices)
