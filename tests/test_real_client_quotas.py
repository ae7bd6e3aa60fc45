"""Client byte-rate quotas on a real broker: confluent-kafka producers and consumers are throttled to the quota."""

import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.cluster_support import module_cluster
from tests.raw_wire import create_led_topic
from tests.test_real_tools import tool

QUOTA = 100_000  # bytes per second
PAYLOAD = b"q" * 1000


# One broker; short quota windows (Kafka's defaults are 11 x 1 s) keep the initial burst allowance small.
broker = module_cluster(1, overrides={"quota.window.num": "2", "quota.window.size.seconds": "1"})


def set_quota(cluster, client_id, name, value):
    result = tool(
        "kafka-configs.sh",
        "--zookeeper",
        cluster.zk_connect,
        "--entity-type",
        "clients",
        "--entity-name",
        client_id,
        "--alter",
        "--add-config",
        "%s=%d" % (name, value),
    )
    assert result.returncode == 0, result.stderr


def produce_rate(bootstrap, topic, client_id, warmup=1.5, measure=4.0):
    """Bytes per second acknowledged during `measure` seconds after `warmup`, and the throttle events seen."""
    throttles = []
    acked = []
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "client.id": client_id,
            "linger.ms": 5,
            "queue.buffering.max.messages": 500,
            "throttle_cb": lambda event: throttles.append(event.throttle_time),
        }
    )
    start = time.monotonic()
    end = start + warmup + measure
    while time.monotonic() < end:
        try:
            producer.produce(topic, PAYLOAD, on_delivery=lambda err, msg: acked.append((time.monotonic(), err)))
        except BufferError:
            pass
        producer.poll(0.001)
    producer.flush(30)
    window = [stamp for stamp, err in acked if err is None and start + warmup <= stamp < end]
    return len(window) * len(PAYLOAD) / measure, throttles


@pytest.mark.timeout(180)
def test_produce_and_fetch_byte_rate_quotas(broker):
    bootstrap = broker.brokers[0].bootstrap
    create_led_topic(bootstrap, "metered")
    set_quota(broker, "slow-producer", "producer_byte_rate", QUOTA)
    set_quota(broker, "slow-consumer", "consumer_byte_rate", QUOTA)
    time.sleep(0.5)  # the notification reaches the broker's config listener

    free_rate, free_throttles = produce_rate(bootstrap, "metered", "free-producer", warmup=0.5, measure=2.0)
    slow_rate, slow_throttles = produce_rate(bootstrap, "metered", "slow-producer")
    print("unthrottled %.0f B/s, throttled %.0f B/s (quota %d)" % (free_rate, slow_rate, QUOTA))
    assert free_rate > 3 * QUOTA and not free_throttles
    assert slow_throttles and max(slow_throttles) > 0
    assert 0.5 * QUOTA < slow_rate < 1.5 * QUOTA

    consumed = []
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "client.id": "slow-consumer",
            "group.id": "metered-readers",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "message.max.bytes": 30000,
            "fetch.max.bytes": 50000,
            "max.partition.fetch.bytes": 20000,
        }
    )
    consumer.assign([TopicPartition("metered", 0, 0)])
    start = time.monotonic()
    try:
        while time.monotonic() < start + 5.5:
            message = consumer.poll(0.1)
            if message is not None and message.error() is None:
                consumed.append((time.monotonic(), len(message.value())))
    finally:
        consumer.close()
    measured = sum(size for stamp, size in consumed if stamp >= start + 1.5) / 4.0
    print(
        "consumer throttled to %.0f B/s (quota %d)" % (measured, QUOTA),
        len(consumed),
        consumed and consumed[0][0] - start,
    )
    assert 0.5 * QUOTA < measured < 1.5 * QUOTA
