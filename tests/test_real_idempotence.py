"""Idempotent producer state on a real broker: duplicates, gaps, fencing, and rebuild after restarts."""

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import create_led_topic, partition_leaders, produce, read_all, request

single = module_cluster(1, overrides={"zookeeper.session.timeout.ms": "6000"})


def batch(producer_id, epoch, sequence, count, tag):
    return encode_batch(
        [(b"k", b"%s-%d" % (tag, sequence + i)) for i in range(count)],
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
    )


def init_producer_id(bootstrap):
    response = request(bootstrap, 22, 1, {"transactional_id": None, "transaction_timeout_ms": 60000})
    assert response["error_code"] == Errors.NONE
    return response["producer_id"], response["producer_epoch"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("restart", ["clean", "kill"])
def test_duplicates_get_their_original_offsets_across_restarts(single, restart):
    broker = single.brokers[0]
    bootstrap = broker.bootstrap
    topic = "idem-" + restart
    create_led_topic(bootstrap, topic)
    producer_id, epoch = init_producer_id(bootstrap)
    second_id, _ = init_producer_id(bootstrap)
    assert second_id != producer_id

    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 0, 3, b"a")) == (Errors.NONE, 0)
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 0, 3, b"a")) == (Errors.NONE, 0)
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 5, 1, b"a"))[0] == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 3, 2, b"a")) == (Errors.NONE, 3)

    if restart == "clean":
        broker.stop()
    else:
        broker.kill()
    broker.start()
    wait_for(lambda: partition_leaders(bootstrap, topic), message="leader after restart")

    # The state was rebuilt from the log: the same batches are still recognised.
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 3, 2, b"a")) == (Errors.NONE, 3)
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 0, 3, b"a")) == (Errors.NONE, 0)
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch, 5, 1, b"a")) == (Errors.NONE, 5)
    assert produce(bootstrap, topic, 0, batch(producer_id, epoch - 1, 6, 1, b"a"))[0] == Errors.INVALID_PRODUCER_EPOCH
    values = [record.value for record in read_all(bootstrap, topic, 0)]
    assert values == [b"a-%d" % i for i in range(6)]
    # As Kafka 2.5 (KIP-360): a producer the partition has no state for (expired) goes on at any sequence.
    assert produce(bootstrap, topic, 0, batch(producer_id + 1000, 0, 4, 1, b"x")) == (Errors.NONE, 6)
    assert (
        produce(bootstrap, topic, 0, batch(producer_id + 1000, 0, 6, 1, b"x"))[0] == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    )
