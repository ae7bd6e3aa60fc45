"""Consumer against in-process fake brokers: assignment, seeks, ListOffsets, out-of-range resets."""

import pytest

from kafka_zk.client.consumer import Consumer, NoOffsetForPartitionError
from kafka_zk.client.errors import KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import LOG_APPEND_TIME, encode_batch
from tests.client_fake_broker import FakeCluster


@pytest.fixture
def fake():
    cluster = FakeCluster(broker_count=2)
    cluster.create_topic("t", 2, leader=[0, 1])
    cluster.logs[("t", 0)] = [
        encode_batch([(b"k0", b"v0", [("h", b"1")], 1000), (None, b"v1", [], 1001)], base_offset=0),
        encode_batch([(None, b"v2", [], 1002)], base_offset=2, timestamp_type=LOG_APPEND_TIME, log_append_time_ms=5000),
    ]
    cluster.logs[("t", 1)] = [encode_batch([(None, b"w0", [], 2000)], base_offset=0)]
    yield cluster
    cluster.stop()


def _consumer(fake, **options):
    options.setdefault("sleep", lambda seconds: None)
    return Consumer(fake.bootstrap, **options)


def _drain(consumer, polls=5):
    records = []
    for _ in range(polls):
        records.extend(consumer.poll(50))
    return records


def test_reads_every_assigned_partition_from_the_beginning(fake):
    with _consumer(fake) as consumer:
        consumer.assign([("t", 0), ("t", 1)])
        consumer.seek_to_beginning()
        records = sorted(_drain(consumer), key=lambda r: (r.partition, r.offset))
    assert [(r.partition, r.offset, r.key, r.value) for r in records] == [
        (0, 0, b"k0", b"v0"),
        (0, 1, None, b"v1"),
        (0, 2, None, b"v2"),
        (1, 0, None, b"w0"),
    ]
    first, _, appended, _ = records
    assert (first.topic, first.timestamp, first.timestamp_type, first.headers) == (
        "t",
        1000,
        "CreateTime",
        [("h", b"1")],
    )
    assert (appended.timestamp, appended.timestamp_type) == (5000, "LogAppendTime")


def test_seek_skips_records_before_the_position_inside_a_batch(fake):
    with _consumer(fake) as consumer:
        consumer.assign([("t", 0)])
        consumer.seek(("t", 0), 1)
        assert [r.offset for r in _drain(consumer)] == [1, 2]
        assert consumer.position(("t", 0)) == 3


def test_latest_reset_and_list_offsets(fake):
    with _consumer(fake) as consumer:
        consumer.assign([("t", 0), ("t", 1)])
        assert consumer.beginning_offsets([("t", 0)]) == {("t", 0): 0}
        assert consumer.end_offsets([("t", 0), ("t", 1)]) == {("t", 0): 3, ("t", 1): 1}
        assert consumer.position(("t", 0)) == 3  # auto_offset_reset defaults to latest
        assert consumer.poll(20) == []
        fake.logs[("t", 0)].append(encode_batch([(None, b"new", [], 3000)], base_offset=3))
        assert [r.value for r in _drain(consumer)] == [b"new"]


def test_out_of_range_resets_by_policy(fake):
    with _consumer(fake, auto_offset_reset="earliest") as consumer:
        consumer.assign([("t", 1)])
        consumer.seek(("t", 1), 99)
        assert [r.value for r in _drain(consumer)] == [b"w0"]
    with _consumer(fake, auto_offset_reset="none") as consumer:
        consumer.assign([("t", 1)])
        consumer.seek(("t", 1), 99)
        with pytest.raises(KafkaResponseError) as failure:
            consumer.poll(50)
        assert failure.value.error == Errors.OFFSET_OUT_OF_RANGE
    with _consumer(fake, auto_offset_reset="none") as consumer:
        consumer.assign([("t", 1)])
        with pytest.raises(NoOffsetForPartitionError):
            consumer.poll(50)


def test_follows_a_moved_leader(fake):
    with _consumer(fake) as consumer:
        consumer.assign([("t", 1)])
        consumer.seek(("t", 1), 0)
        consumer.cluster.metadata(["t"])
        fake.topics["t"][1] = 0  # broker 1 answers NOT_LEADER from now on
        assert [r.value for r in _drain(consumer)] == [b"w0"]
    fetch_nodes = [node for node, key, _, _ in fake.requests if key == 1]
    assert fetch_nodes[0] == 1 and fetch_nodes[-1] == 0


def test_poll_returns_empty_after_its_timeout(fake):
    now = [0.0]

    def clock():
        now[0] += 0.01
        return now[0]

    with _consumer(fake, clock=clock) as consumer:
        consumer.assign([("t", 1)])
        consumer.seek(("t", 1), 1)
        assert consumer.poll(100) == []


def test_invalid_reset_policy():
    with pytest.raises(ValueError, match="auto.offset.reset"):
        Consumer("127.0.0.1:1", auto_offset_reset="smallest")
