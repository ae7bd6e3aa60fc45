"""Producers outlive their batches on real brokers (KIP-360): after DeleteRecords moved the log start past an
idempotent or transactional producer's last batch, its next batch is accepted by the same leader, after the
leader restarts, and by a follower that became the leader."""

import time
import uuid

import pytest
from kazoo.client import KazooClient

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import create_topic, partition_leaders, produce_body, request
from tests.replication_support import fast_overrides

SEGMENT_BYTES = "200"  # about two batches a segment: DeleteRecords deletes whole segments too


cluster = module_cluster(
    overrides=fast_overrides(log_flush_start_offset_checkpoint_interval_ms=300, log_segment_delete_delay_ms=0)
)


def new_topic(cluster, replicas):
    """A one-partition topic on ``replicas`` (the first leads), once every live broker knows its leader."""
    topic = "producer-" + uuid.uuid4().hex[:8]
    live = [broker for broker in cluster.brokers if broker.is_running()]
    assert (
        create_topic(live[0].bootstrap, topic, assignments={0: replicas}, configs={"segment.bytes": SEGMENT_BYTES})
        == Errors.NONE
    )
    for broker in live:
        wait_for(
            lambda b=broker: partition_leaders(b.bootstrap, topic) == {0: replicas[0]},
            message="broker %d to know %s's leader" % (broker.broker_id, topic),
        )
    return topic


def init_producer_id(bootstrap):
    response = request(bootstrap, 22, 1, {"transactional_id": None, "transaction_timeout_ms": 60000})
    assert response["error_code"] == Errors.NONE
    return response["producer_id"], response["producer_epoch"]


def send(bootstrap, topic, producer, sequence, count=2, transactional=False):
    """Produce v8 acks=-1 of one batch of ``count`` records stamped now; returns (error_code, base_offset)."""
    producer_id, epoch = producer
    now_ms = int(time.time() * 1000)
    batch = encode_batch(
        [(b"k", b"v%d" % (sequence + i), (), now_ms) for i in range(count)],
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        is_transactional=transactional,
    )
    body = produce_body(topic, 0, batch, acks=-1)
    body["transactional_id"] = "app-1" if transactional else None
    result = request(bootstrap, 0, 8, body)["responses"][0]["partitions"][0]
    return result["error_code"], result["base_offset"]


def commit(bootstrap, topic, producer):
    """WriteTxnMarkers v0: COMMIT of the producer's transaction on partition 0; returns its error code."""
    response = request(
        bootstrap,
        27,
        0,
        {
            "markers": [
                {
                    "producer_id": producer[0],
                    "producer_epoch": producer[1],
                    "transaction_result": True,
                    "topics": [{"name": topic, "partition_indexes": [0]}],
                    "coordinator_epoch": 0,
                }
            ]
        },
    )
    return response["markers"][0]["topics"][0]["partitions"][0]["error_code"]


def delete_all_records(bootstrap, topic):
    """DeleteRecords up to the high watermark; returns (error_code, low watermark). The answer comes once
    every live replica has moved its log start offset there."""
    response = request(
        bootstrap,
        21,
        1,
        {"topics": [{"name": topic, "partitions": [{"partition_index": 0, "offset": -1}]}], "timeout_ms": 30000},
    )
    result = response["topics"][0]["partitions"][0]
    return result["error_code"], result["low_watermark"]


def wait_start_checkpointed(broker, topic, offset):
    checkpoint = broker.log_dir / "log-start-offset-checkpoint"
    wait_for(
        lambda: checkpoint.exists() and "%s 0 %d" % (topic, offset) in checkpoint.read_text().splitlines(),
        message="broker %d to checkpoint %s's log start offset %d" % (broker.broker_id, topic, offset),
    )


def wait_registration_gone(cluster, broker_id):
    zk = KazooClient(hosts=cluster.zk_connect)
    zk.start(10)
    try:
        wait_for(
            lambda: zk.exists("/brokers/ids/%d" % broker_id) is None,
            timeout=30,
            message="broker %d's registration to expire" % broker_id,
        )
    finally:
        zk.stop()
        zk.close()


def write_then_delete(topic, leader, transactional=False):
    """Three batches of a new producer (sequences 0-5), then DeleteRecords past them; returns the producer."""
    producer = init_producer_id(leader.bootstrap)
    end = 0
    for sequence in (0, 2, 4):
        assert send(leader.bootstrap, topic, producer, sequence, transactional=transactional) == (Errors.NONE, end)
        end += 2
        if transactional:
            assert commit(leader.bootstrap, topic, producer) == Errors.NONE
            end += 1
    assert delete_all_records(leader.bootstrap, topic) == (Errors.NONE, end)
    assert min(int(p.name[:-4]) for p in (leader.log_dir / ("%s-0" % topic)).glob("*.log")) > 0  # segments went
    return producer, end


def assert_continues(leader, topic, producer, end, transactional=False):
    """The leader still knows the producer's last sequence (5): a gap is refused, the next batch goes at the
    log end, and its retry is recognised as a duplicate."""
    assert (
        send(leader.bootstrap, topic, producer, 8, transactional=transactional)[0]
        == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    )
    assert send(leader.bootstrap, topic, producer, 6, transactional=transactional) == (Errors.NONE, end)
    assert send(leader.bootstrap, topic, producer, 6, transactional=transactional) == (Errors.NONE, end)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("restart", ["none", "clean", "kill"])
def test_next_batch_is_accepted_after_delete_records_moved_the_start_past_it(cluster, restart):
    leader = cluster.brokers[0]
    topic = new_topic(cluster, [leader.broker_id])
    producer, end = write_then_delete(topic, leader)
    if restart != "none":
        wait_start_checkpointed(leader, topic, end)
        if restart == "clean":
            leader.stop()
        else:
            leader.kill()
            wait_registration_gone(cluster, leader.broker_id)
        leader.start()
        wait_for(
            lambda: partition_leaders(leader.bootstrap, topic) == {0: leader.broker_id},
            message="the restarted broker to lead %s" % topic,
        )

    assert_continues(leader, topic, producer, end)


@pytest.mark.timeout(150)
def test_a_follower_that_becomes_leader_accepts_the_next_batch(cluster):
    replicas = [broker.broker_id for broker in cluster.brokers]
    topic = new_topic(cluster, replicas)
    old_leader = cluster.broker(replicas[0])
    producer, end = write_then_delete(topic, old_leader)
    old_leader.stop()  # a controlled shutdown hands the leadership to a follower in the ISR
    try:
        survivor = cluster.broker(replicas[1]).bootstrap

        def new_leader():
            current = partition_leaders(survivor, topic).get(0)
            return [current] if current not in (None, old_leader.broker_id) else None

        leader = cluster.broker(wait_for(new_leader, message="a new leader of %s" % topic)[0])
        wait_for(
            lambda: partition_leaders(leader.bootstrap, topic).get(0) == leader.broker_id,
            message="broker %d to know it leads" % leader.broker_id,
        )
        assert_continues(leader, topic, producer, end)
    finally:
        old_leader.start()


@pytest.mark.timeout(120)
def test_transactional_producer_continues_after_delete_records(cluster):
    leader = cluster.brokers[1]
    topic = new_topic(cluster, [leader.broker_id])
    producer, end = write_then_delete(topic, leader, transactional=True)
    assert_continues(leader, topic, producer, end, transactional=True)
    assert commit(leader.bootstrap, topic, producer) == Errors.NONE
