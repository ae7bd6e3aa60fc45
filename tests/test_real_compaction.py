"""Log compaction on a real broker with confluent-kafka: last value per key, tombstones, kill -9 while cleaning."""

import re
import time
import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourceType

from kafka_zk.log.checkpoints import CLEANER_OFFSET_CHECKPOINT, OffsetCheckpointFile
from tests.cluster_support import log_bytes, module_cluster, wait_for

SEGMENT_MS = 1500
KEYS = 1000


single = module_cluster(
    1,
    overrides={
        "log.cleaner.backoff.ms": "100",
        "log.segment.delete.delay.ms": "0",
        # A throttled cleaner (1 MB/s) makes its passes long enough for a kill to land in one.
        "log.cleaner.io.max.bytes.per.second": "1000000",
        "zookeeper.session.timeout.ms": "6000",
    },
)


@pytest.fixture(scope="module")
def broker(single):
    return single.brokers[0]


def create_compacted_topic(broker, prefix, **configs):
    topic = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    settings = {
        "cleanup.policy": "compact",
        "segment.bytes": "65536",
        "segment.ms": str(SEGMENT_MS),
        "min.cleanable.dirty.ratio": "0.01",
    }
    settings.update(configs)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1, config=settings)])[topic].result(30)
    return topic


def set_topic_config(broker, topic, name, value):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    resource = ConfigResource(
        ResourceType.TOPIC,
        topic,
        incremental_configs=[ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)],
    )
    admin.incremental_alter_configs([resource])[resource].result(30)


def produce(broker, topic, items, **settings):
    """Write (key, value) pairs with an idempotent, gzip-compressing producer; returns [(offset, key, value)]."""
    producer = Producer(
        dict(
            {
                "bootstrap.servers": broker.bootstrap,
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 5,
                "compression.type": "gzip",
                "batch.size": 16384,
            },
            **settings,
        )
    )
    written = []
    errors = []

    def delivered(error, message):
        if error is not None:
            errors.append(error)
        else:
            written.append((message.offset(), message.key(), message.value()))

    for key, value in items:
        while True:
            try:
                producer.produce(topic, value=value, key=key, on_delivery=delivered)
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not errors, errors[:3]
    return sorted(written)


def roll_active_segment(broker, topic, key=b"sentinel"):
    """Wait out segment.ms, then append one record: the segment rolls and the rest becomes cleanable."""
    time.sleep(SEGMENT_MS / 1000.0 + 0.2)
    return produce(broker, topic, [(key, b"x")])[0][0]


def consume_all(broker, topic, end_offset):
    """Every record below end_offset as {offset: (key, value)}, read with confluent-kafka."""
    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": "compaction-check",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    records = {}
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(1.0)
            if message is None:
                continue
            if message.error():
                if message.error().code() == KafkaError._PARTITION_EOF:
                    if message.offset() >= end_offset:
                        return records
                    continue
                raise KafkaException(message.error())
            if message.offset() < end_offset:
                records[message.offset()] = (message.key(), message.value())
            else:
                return records
    finally:
        consumer.close()
    raise AssertionError("did not reach offset %d of %s" % (end_offset, topic))


def latest(written):
    result = {}
    for offset, key, value in written:
        result[key] = (offset, value)
    return result


def cleaner_checkpoint(broker, topic):
    return OffsetCheckpointFile(str(broker.log_dir / CLEANER_OFFSET_CHECKPOINT)).read().get((topic, 0), -1)


def wait_cleaned_to(broker, topic, offset, timeout=120):
    wait_for(
        lambda: cleaner_checkpoint(broker, topic) >= offset,
        timeout,
        0.1,
        message="the cleaner to reach offset %d of %s (at %d)" % (offset, topic, cleaner_checkpoint(broker, topic)),
    )


@pytest.mark.timeout(300)
def test_100k_updates_over_1000_keys_leave_the_last_value_of_each_key(broker):
    # Cleaning is held back (min.compaction.lag.ms) while writing, so the size before is the whole log.
    topic = create_compacted_topic(broker, "compact", **{"min.compaction.lag.ms": "3600000"})
    updates = [(b"key-%04d" % (n % KEYS), b"value-%06d" % n) for n in range(100_000)]
    written = produce(broker, topic, updates)
    assert len(written) == 100_000
    sentinel = roll_active_segment(broker, topic)
    size_before = log_bytes(broker, topic)
    set_topic_config(broker, topic, "min.compaction.lag.ms", "0")
    started = time.monotonic()
    wait_cleaned_to(broker, topic, sentinel)
    elapsed = time.monotonic() - started
    size_after = log_bytes(broker, topic)
    records = consume_all(broker, topic, sentinel)
    expected = latest(written)
    assert len(records) == KEYS
    assert {key: (offset, value) for offset, (key, value) in records.items()} == expected
    print(
        "\ncompaction of 100,000 updates over 1,000 keys: log %d -> %d bytes in %.1f s"
        % (size_before, size_after, elapsed)
    )
    assert size_after < size_before / 20
    # The pass in log-cleaner.log (Kafka's kafka.log.LogCleaner file), not in server.log
    cleaner_log = wait_for(
        lambda: (lambda text: "Log cleaner thread 0 cleaned log %s-0" % topic in text and text)(
            broker.log_path("log-cleaner.log").read_text()
        ),
        10,
        message="the pass's stats in log-cleaner.log",
    )
    assert re.search(
        r"^\[[-\d :,]+\] INFO Beginning cleaning of log %s-0 .* \(kafka_zk\.server\.log_cleaner_service\)$" % topic,
        cleaner_log,
        re.MULTILINE,
    )
    assert "Beginning cleaning of log" not in broker.log_file.read_text()


@pytest.mark.timeout(300)
def test_keyless_records_are_rejected_by_a_compacted_topic(broker):
    topic = create_compacted_topic(broker, "keyless")
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": 1, "retries": 0})
    outcome = []
    producer.produce(topic, value=b"no key", on_delivery=lambda error, message: outcome.append(error))
    producer.flush(30)
    assert outcome and outcome[0] is not None
    assert outcome[0].code() == KafkaError.INVALID_RECORD


@pytest.mark.timeout(300)
def test_tombstones_survive_delete_retention_then_disappear(broker):
    retention_ms = 4000
    topic = create_compacted_topic(
        broker, "tombstones", **{"delete.retention.ms": str(retention_ms), "segment.bytes": "16384"}
    )
    small = {"batch.size": 4096, "compression.type": "none"}  # batches well below segment.bytes
    written = produce(broker, topic, [(b"key-%04d" % (n % KEYS), b"value-%06d" % n) for n in range(5000)], **small)
    deleted_keys = [b"key-%04d" % n for n in range(100)]
    tombstoned_at = time.monotonic()
    written += produce(broker, topic, [(key, None) for key in deleted_keys], **small)
    sentinel = roll_active_segment(broker, topic, b"sentinel-0")
    written.append((sentinel, b"sentinel-0", b"x"))
    wait_cleaned_to(broker, topic, sentinel)
    records = consume_all(broker, topic, sentinel)
    by_key = {key: (offset, value) for offset, (key, value) in records.items()}
    assert by_key == {key: ov for key, ov in latest(written).items() if ov[0] < sentinel}  # tombstones too
    assert all(by_key[key][1] is None for key in deleted_keys)
    # More updates and passes: once delete.retention.ms has passed since the tombstones' segments
    # were cleaned, a pass drops them (Kafka 2.5's delete horizon), and nothing else.
    rounds = 0
    while True:
        rounds += 1
        assert rounds <= 8, "tombstones still present after %d more passes" % rounds
        time.sleep(retention_ms / 1000.0 / 2)
        written += produce(broker, topic, [(b"key-%04d" % n, b"round-%d" % rounds) for n in range(500, KEYS)], **small)
        end = roll_active_segment(broker, topic, b"sentinel-%d" % rounds)
        written.append((end, b"sentinel-%d" % rounds, b"x"))
        wait_cleaned_to(broker, topic, end)
        records = consume_all(broker, topic, end)
        by_key = {key: (offset, value) for offset, (key, value) in records.items()}
        present = [key for key in deleted_keys if key in by_key]
        if not present:
            break
        assert all(by_key[key][1] is None for key in present)
    assert time.monotonic() - tombstoned_at >= retention_ms / 1000.0
    expected = {key: ov for key, ov in latest(written).items() if ov[1] is not None and ov[0] < end}
    assert by_key == expected


@pytest.mark.timeout(300)
def test_kill9_while_cleaning_loses_nothing(broker):
    topic = create_compacted_topic(broker, "kill", **{"min.compaction.lag.ms": "3600000"})
    written = produce(broker, topic, [(b"key-%04d" % (n % KEYS), b"value-%06d" % n) for n in range(60_000)])
    sentinel = roll_active_segment(broker, topic)
    partition_dir = broker.log_dir / (topic + "-0")
    set_topic_config(broker, topic, "min.compaction.lag.ms", "0")
    wait_for(lambda: any(partition_dir.glob("*.cleaned")), 60, 0.002, message="a pass writing .cleaned files")
    broker.kill()
    leftovers = sorted(p.name for p in partition_dir.iterdir() if p.suffix in (".cleaned", ".swap"))
    assert leftovers, "the kill came after the pass"
    broker.start(timeout=90)
    wait_cleaned_to(broker, topic, sentinel)
    records = consume_all(broker, topic, sentinel)
    assert {key: (offset, value) for offset, (key, value) in records.items()} == latest(written)
    assert not any(p.suffix in (".cleaned", ".swap") for p in partition_dir.iterdir())


@pytest.mark.timeout(300)
def test_deleting_a_topic_while_it_is_cleaned_aborts_the_pass(broker):
    topic = create_compacted_topic(broker, "deleted", **{"min.compaction.lag.ms": "3600000"})
    produce(broker, topic, [(b"key-%04d" % (n % KEYS), b"value-%06d" % n) for n in range(40_000)])
    roll_active_segment(broker, topic)
    partition_dir = broker.log_dir / (topic + "-0")
    set_topic_config(broker, topic, "min.compaction.lag.ms", "0")
    wait_for(lambda: any(partition_dir.glob("*.cleaned")), 60, 0.002, message="a pass writing .cleaned files")
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.delete_topics([topic])[topic].result(30)
    wait_for(lambda: not any(broker.log_dir.glob(topic + "-0*")), 60, message="the partition dir to go")
    log_text = broker.log_path("log-cleaner.log").read_text()  # the cleaner's lines, as in Kafka's log4j file
    assert "Unexpected error cleaning %s-0" % topic not in log_text
    assert "Error finishing the cleaning of %s-0" % topic not in log_text
    # The broker keeps cleaning other topics.
    other = create_compacted_topic(broker, "after-delete")
    written = produce(broker, other, [(b"k%d" % (n % 10), b"v%d" % n) for n in range(1000)])
    sentinel = roll_active_segment(broker, other)
    wait_cleaned_to(broker, other, sentinel)
    records = consume_all(broker, other, sentinel)
    assert {key: (offset, value) for offset, (key, value) in records.items()} == latest(written)
