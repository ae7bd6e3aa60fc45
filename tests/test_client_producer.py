"""Producer against in-process fake brokers: partitioning, batching, compression, retries, idempotence."""

import pytest

from kafka_zk.client.errors import KafkaResponseError
from kafka_zk.client.partitioner import partition_for_key
from kafka_zk.client.producer import Producer, parse_acks
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import decode_batch
from tests.client_fake_broker import FakeCluster
from tests.cluster_support import wait_for


@pytest.fixture
def fake():
    cluster = FakeCluster(broker_count=2)
    cluster.create_topic("t", 4, leader=[0, 1, 0, 1])
    yield cluster
    cluster.stop()


def _producer(fake, **options):
    options.setdefault("sleep", lambda seconds: None)
    return Producer(fake.bootstrap, **options)


def _produce_requests(fake):
    return [(node, body) for node, key, _, body in fake.requests if key == 0]


def test_keyed_records_land_on_the_murmur2_partition_with_headers(fake):
    with _producer(fake) as producer:
        futures = [
            producer.send("t", b"v%d" % i, key=b"key-%d" % i, headers=[("h", b"x"), ("n", None)], timestamp_ms=1000 + i)
            for i in range(20)
        ]
    for i, future in enumerate(futures):
        metadata = future.get()
        assert metadata.partition == partition_for_key(b"key-%d" % i, 4)
        record = fake.records("t", metadata.partition)[metadata.offset]
        assert (record.key, record.value, record.timestamp) == (b"key-%d" % i, b"v%d" % i, 1000 + i)
        assert record.headers == [("h", b"x"), ("n", None)]


@pytest.mark.parametrize("codec, code", [("gzip", 1), ("snappy", 2), ("lz4", 3), ("zstd", 4)])
def test_compressed_batches(fake, codec, code):
    with _producer(fake, compression=codec, linger_ms=60000) as producer:
        for i in range(50):
            producer.send("t", b"value-%d" % i, partition=2)
    [batch] = fake.logs[("t", 2)]
    header, records = decode_batch(batch)
    assert header.compression == code
    assert [r.value for r in records] == [b"value-%d" % i for i in range(50)]


def test_linger_holds_records_until_time_passes(fake):
    now = [100.0]
    producer = _producer(fake, linger_ms=500, clock=lambda: now[0])
    try:
        producer.send("t", b"a", partition=0)
        producer.send("t", b"b", partition=0)
        assert not _produce_requests(fake)
        now[0] += 0.5
        producer.send("t", b"c", partition=0)
        [(_, body)] = _produce_requests(fake)
        assert [r.value for r in fake.records("t", 0)] == [b"a", b"b", b"c"]
    finally:
        producer.close()


def test_null_keys_stick_to_a_partition_per_batch(fake):
    # 40-byte values: five records fill a 400-byte batch, and the sixth moves to another partition.
    with _producer(fake, batch_size=400, linger_ms=60000) as producer:
        futures = [producer.send("t", b"x" * 40) for _ in range(40)]
    partitions = [f.get().partition for f in futures]
    runs = [partitions[i : i + 5] for i in range(0, 40, 5)]
    assert all(len(set(run)) == 1 for run in runs)
    assert all(a[0] != b[0] for a, b in zip(runs, runs[1:]))
    assert [len(fake.logs[("t", p)]) for p in range(4)] == [partitions[::5].count(p) for p in range(4)]


def test_acks_zero_sends_without_waiting(fake):
    with _producer(fake, acks=0) as producer:
        future = producer.send("t", b"fire", partition=1)
    assert future.get().offset == -1
    wait_for(lambda: fake.logs[("t", 1)], timeout=5, message="the fire-and-forget batch")
    assert [r.value for r in fake.records("t", 1)] == [b"fire"]


def test_not_leader_refreshes_metadata_and_retries_on_the_new_leader(fake):
    producer = _producer(fake)
    assert producer.cluster.leader_for("t", 0) == 0
    fake.topics["t"][0] = 1  # the leader moves; the producer's cache still says broker 0
    try:
        assert producer.send("t", b"moved", partition=0).get().offset == 0
    finally:
        producer.close()
    assert [node for node, _ in _produce_requests(fake)] == [0, 1]
    assert [r.value for r in fake.records("t", 0)] == [b"moved"]


def test_non_retriable_error_raises_with_the_error_name(fake):
    fake.fail_next[(0, "t", 3)] = [Errors.MESSAGE_TOO_LARGE]
    producer = _producer(fake, linger_ms=60000)
    future = producer.send("t", b"big", partition=3)
    with pytest.raises(KafkaResponseError, match="MESSAGE_TOO_LARGE"):
        producer.flush()
    assert future.exception.error == Errors.MESSAGE_TOO_LARGE
    producer.close()


def test_retries_are_bounded(fake):
    fake.fail_next[(0, "t", 1)] = [Errors.NOT_ENOUGH_REPLICAS] * 10
    producer = _producer(fake, retries=2)
    with pytest.raises(KafkaResponseError, match="NOT_ENOUGH_REPLICAS"):
        producer.send("t", b"x", partition=1)
    producer.close()
    assert len(_produce_requests(fake)) == 3


def test_idempotent_producer_numbers_batches_per_partition(fake):
    fake.fail_next[(0, "t", 0)] = [Errors.NOT_LEADER_FOR_PARTITION]
    with _producer(fake, acks="all", enable_idempotence=True) as producer:
        for i in range(3):
            producer.send("t", b"a%d" % i, partition=0)
        producer.send("t", b"b", partition=1)
    headers = [decode_batch(b)[0] for b in fake.logs[("t", 0)]]
    assert [(h.producer_id, h.producer_epoch, h.base_sequence) for h in headers] == [(7, 0, 0), (7, 0, 1), (7, 0, 2)]
    assert decode_batch(fake.logs[("t", 1)][0])[0].base_sequence == 0
    retried = [body["topics"][0]["partitions"][0]["records"] for _, body in _produce_requests(fake)][:2]
    assert bytes(retried[0]) == bytes(retried[1])  # the retry resends the same batch, same sequence


def test_duplicate_sequence_counts_as_success(fake):
    fake.seen_sequences.add((7, ("t", 2), 0))
    with _producer(fake, acks=-1, enable_idempotence=True) as producer:
        assert producer.send("t", b"again", partition=2).get().partition == 2
    assert fake.logs[("t", 2)] == []


def test_config_validation():
    assert parse_acks("all") == -1 and parse_acks("1") == 1 and parse_acks(0) == 0
    with pytest.raises(ValueError):
        parse_acks("2")
    with pytest.raises(ValueError, match="acks to all"):
        Producer("127.0.0.1:1", acks=1, enable_idempotence=True)


def test_auto_created_topic(fake):
    with _producer(fake) as producer:
        assert producer.send("fresh", b"v").get().topic == "fresh"
    assert "fresh" in fake.topics
