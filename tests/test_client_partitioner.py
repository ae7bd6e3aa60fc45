"""Kafka's default partitioner: murmur2 against kafka-python's implementation and Java's known values."""

import random

import pytest
from kafka.partitioner.default import murmur2 as oracle_murmur2

from kafka_zk.client.partitioner import StickyPartitioner, murmur2, partition_for_key, to_positive


def test_murmur2_matches_kafka_python_on_random_inputs():
    rng = random.Random(1234)
    for length in range(0, 70):
        for _ in range(30):
            data = bytes(rng.randrange(256) for _ in range(length))
            # kafka-python returns the hash as unsigned 32 bits; ours is Java's signed int.
            assert murmur2(data) & 0xFFFFFFFF == oracle_murmur2(data) & 0xFFFFFFFF


@pytest.mark.parametrize(
    "text, expected",
    [
        ("21", -973932308),
        ("foobar", -790332482),
        ("a-little-bit-long-string", -985981536),
        ("a-little-bit-longer-string", -1486304829),
        ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        ("abc", 479470107),
    ],
)
def test_murmur2_java_values(text, expected):
    assert murmur2(text.encode()) == expected


def test_partition_for_key_uses_sign_bit_clear_not_abs():
    assert to_positive(-1) == 0x7FFFFFFF
    assert to_positive(-2147483648) == 0
    key = b"21"
    assert partition_for_key(key, 7) == (-973932308 & 0x7FFFFFFF) % 7
    assert partition_for_key(key, 7) == (oracle_murmur2(key) & 0x7FFFFFFF) % 7


def test_sticky_partitioner_keeps_null_keys_on_one_partition_until_a_batch_completes():
    partitioner = StickyPartitioner(random.Random(5))
    partitions = [0, 1, 2, 3]
    first = partitioner.partition("t", None, partitions, partitions)
    assert all(partitioner.partition("t", None, partitions, partitions) == first for _ in range(20))
    partitioner.on_new_batch("t", partitions, partitions, first)
    second = partitioner.partition("t", None, partitions, partitions)
    assert second != first
    # Keyed records ignore the sticky choice.
    assert partitioner.partition("t", b"21", partitions, partitions) == partition_for_key(b"21", 4)


def test_sticky_partitioner_prefers_partitions_with_a_leader():
    partitioner = StickyPartitioner(random.Random(0))
    for _ in range(10):
        partitioner.on_new_batch("t", [0, 1, 2], [2], partitioner.partition("t", None, [0, 1, 2], [2]))
        assert partitioner.partition("t", None, [0, 1, 2], [2]) == 2
