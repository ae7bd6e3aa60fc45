"""Produce's validation answers on a real broker, as Kafka 2.5.1 gives them: v8's record_errors (KIP-467) naming every
failing record, INVALID_RECORD for a batch refused whole and CORRUPT_MESSAGE for a corrupt one, a compressed batch
with old clients' inner offsets rebuilt rather than refused, and librdkafka failing a bad record's batch-mates."""

import time
import uuid

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_zk.protocol.errors import Errors
from kafka_zk.record import records as records_module
from kafka_zk.record.compression import GZIP, NONE, compress
from kafka_zk.record.records import encode_batch
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import latest_offset, produce_body, read_all, request

REJECTED = "One or more records have been rejected"
NO_KEY = "Compacted topic cannot accept message without key in topic partition %s-0."


single = module_cluster(1)


@pytest.fixture(scope="module")
def broker(single):
    return single.brokers[0]


def new_topic(broker, prefix, **configs):
    topic = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1, config=configs)])[topic].result(30)
    wait_for(lambda: latest_offset(broker.bootstrap, topic, 0) == 0, message="the new partition's leader")
    return topic


def produce(broker, topic, batch, version=8):
    """The partition's answer as a dict with the fields its version has."""
    body = produce_body(topic, 0, batch)
    body["transactional_id"] = None
    return request(broker.bootstrap, 0, version, body)["responses"][0]["partitions"][0]


def record_errors(answer):
    return [(error["batch_index"], error["batch_index_error_message"]) for error in answer["record_errors"]]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("codec", [NONE, GZIP])
def test_v8_names_every_record_without_a_key_and_older_versions_only_the_code(broker, codec):
    topic = new_topic(broker, "compacted", **{"cleanup.policy": "compact"})
    now = int(time.time() * 1000)
    batch = encode_batch(
        [(b"k0", b"v", (), now), (None, b"v", (), now), (b"k2", b"v", (), now), (None, b"v", (), now)],
        compression=codec,
    )
    answer = produce(broker, topic, batch)
    assert (answer["error_code"], answer["base_offset"], answer["log_start_offset"], answer["error_message"]) == (
        Errors.INVALID_RECORD,
        -1,
        0,
        REJECTED,
    )
    assert record_errors(answer) == [(1, NO_KEY % topic), (3, NO_KEY % topic)]
    older = produce(broker, topic, batch, version=7)
    assert (older["error_code"], older["log_start_offset"]) == (Errors.INVALID_RECORD, 0)
    assert (older["record_errors"], older["error_message"]) == ([], None)  # v7 has neither field: defaults
    assert latest_offset(broker.bootstrap, topic, 0) == 0  # the batch's keyed records were refused with it


@pytest.mark.timeout(60)
@pytest.mark.parametrize("codec", [NONE, GZIP])
def test_any_timestamp_error_makes_the_batch_invalid_timestamp(broker, codec):
    topic = new_topic(broker, "timed", **{"cleanup.policy": "compact", "message.timestamp.difference.max.ms": "60000"})
    now = int(time.time() * 1000)
    batch = encode_batch(
        [(None, b"v", (), now), (b"k", b"v", (), now - 3_600_000), (b"k", b"v", (), now)], compression=codec
    )
    answer = produce(broker, topic, batch)
    assert (answer["error_code"], answer["error_message"]) == (
        Errors.INVALID_TIMESTAMP,
        REJECTED + " due to invalid timestamp",
    )
    (first, no_key), (second, out_of_range) = record_errors(answer)
    assert (first, no_key, second) == (0, NO_KEY % topic, 1)
    assert out_of_range.startswith(
        "Timestamp %d of message with offset 1 is out of range. The timestamp should be within [" % (now - 3_600_000)
    )
    appended_at = encode_batch(
        [(b"key", b"value"), (b"k", None)], compression=codec, timestamp_type=1, log_append_time_ms=now
    )
    answer = produce(broker, topic, appended_at)
    assert answer["error_code"] == Errors.INVALID_TIMESTAMP
    assert record_errors(answer) == [
        (
            0,
            "Invalid timestamp type in message DefaultRecord(offset=0, timestamp=%d, key=3 bytes, value=5 bytes). "
            "Producer should not set timestamp type to LogAppendTime." % now,
        ),
        (
            1,
            "Invalid timestamp type in message DefaultRecord(offset=1, timestamp=%d, key=1 bytes, value=0 bytes). "
            "Producer should not set timestamp type to LogAppendTime." % now,
        ),
    ]


def batch_with_offset_deltas(deltas, now):
    """A gzip v2 batch whose records carry ``deltas`` (not 0, 1, 2, ...) and a header consistent with their count."""
    section = bytearray()
    for index, delta in enumerate(deltas):
        records_module._encode_record(section, delta, 0, b"k%d" % index, b"v%d" % index, ())
    batch = bytearray(records_module.BATCH_HEADER_SIZE) + compress(GZIP, bytes(section))
    records_module.HEADER_STRUCT.pack_into(
        batch,
        0,
        0,
        len(batch) - records_module.LOG_OVERHEAD,
        -1,
        2,
        0,
        GZIP,
        len(deltas) - 1,
        now,
        now,
        -1,
        -1,
        -1,
        len(deltas),
    )
    records_module._CRC.pack_into(batch, records_module.CRC_POS, records_module.compute_crc(batch, 0, len(batch)))
    return bytes(batch)


@pytest.mark.timeout(60)
def test_batches_refused_whole_corrupt_ones_and_old_clients_inner_offsets(broker):
    topic = new_topic(broker, "plain")
    good = encode_batch([(b"a", b"v")])
    corrupt = bytearray(good)
    corrupt[-1] ^= 0xFF
    assert produce(broker, topic, bytes(corrupt))["error_code"] == Errors.CORRUPT_MESSAGE
    for refused in (
        good + good,
        encode_batch([(b"a", b"v")], producer_id=5, producer_epoch=0, base_sequence=-1),
        encode_batch([(b"\x00\x00\x00\x00", b"\x00" * 6)], is_control=True),
    ):
        answer = produce(broker, topic, refused)
        assert (answer["error_code"], answer["log_start_offset"], answer["record_errors"]) == (
            Errors.INVALID_RECORD,
            0,
            [],
        )
    now = int(time.time() * 1000)
    answer = produce(broker, topic, batch_with_offset_deltas([0, 0, 2], now))
    assert (answer["error_code"], answer["base_offset"]) == (Errors.NONE, 0)
    assert [(record.offset, record.key) for record in read_all(broker.bootstrap, topic, 0)] == [
        (0, b"k0"),
        (1, b"k1"),
        (2, b"k2"),
    ]


@pytest.mark.timeout(60)
def test_librdkafka_fails_the_keyless_records_and_tells_their_batch_mates_why(broker):
    """librdkafka reads v8's record_errors: the records named fail with INVALID_RECORD, the others of their batch
    with its local 'invalid record in the same batch' error, and a retry of those alone succeeds."""
    topic = new_topic(broker, "librdkafka", **{"cleanup.policy": "compact"})
    outcomes = {}

    def delivered(error, message):
        outcomes[message.value()] = error.code() if error is not None else KafkaError.NO_ERROR

    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 500, "acks": "all", "retries": 0})
    for index, key in enumerate([b"k0", None, b"k2", None]):
        producer.produce(topic, value=b"v%d" % index, key=key, partition=0, on_delivery=delivered)
    assert producer.flush(30) == 0
    assert outcomes == {
        b"v0": KafkaError._INVALID_DIFFERENT_RECORD,
        b"v1": KafkaError.INVALID_RECORD,
        b"v2": KafkaError._INVALID_DIFFERENT_RECORD,
        b"v3": KafkaError.INVALID_RECORD,
    }
    for value, key in ((b"v0", b"k0"), (b"v2", b"k2")):
        producer.produce(topic, value=value, key=key, partition=0, on_delivery=delivered)
    assert producer.flush(30) == 0
    assert outcomes[b"v0"] == outcomes[b"v2"] == KafkaError.NO_ERROR
    assert [record.key for record in read_all(broker.bootstrap, topic, 0)] == [b"k0", b"k2"]
