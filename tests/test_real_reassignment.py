"""Partition reassignment: replicas move through the admin znode and the AlterPartitionReassignments API."""

import json

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.raw_wire import create_topic, produce, read_all, request
from tests.replication_support import fast_overrides, make_cluster  # noqa: F401  (fixture)


def topic_znode(cluster, topic):
    return json.loads(cluster.zk.get("/brokers/topics/" + topic)[0])


def moved(cluster, topic, target):
    znode = topic_znode(cluster, topic)
    state = cluster.state(topic)
    return (
        znode["partitions"]["0"] == target
        and znode["adding_replicas"] == {}
        and znode["removing_replicas"] == {}
        and sorted(state["isr"]) == sorted(target)
        and state["leader"] in target
    )


@pytest.mark.timeout(150)
def test_replicas_move_and_keep_every_record(make_cluster):
    cluster = make_cluster(fast_overrides())
    brokers = cluster.cluster
    assert create_topic(brokers.brokers[0].bootstrap, "mover", assignments={0: [0, 1]}) == Errors.NONE
    cluster.wait_state("mover", lambda state: sorted(state["isr"]) == [0, 1])
    leader = brokers.broker(cluster.state("mover")["leader"])
    # The state znode can name the leader before it has applied its LeaderAndIsr.
    wait_for(
        lambda: produce(leader.bootstrap, "mover", 0, encode_batch([(None, b"r0")]))[0] == Errors.NONE,
        message="the leader to accept",
    )
    for index in range(1, 20):
        assert produce(leader.bootstrap, "mover", 0, encode_batch([(None, b"r%d" % index)]))[0] == Errors.NONE

    # 1. Through the znode, as kafka-reassign-partitions --zookeeper writes it.
    cluster.zk.create(
        "/admin/reassign_partitions",
        json.dumps({"version": 1, "partitions": [{"topic": "mover", "partition": 0, "replicas": [2, 1]}]}).encode(),
    )
    wait_for(lambda: moved(cluster, "mover", [2, 1]), 60, message="the move to [2, 1]")
    wait_for(lambda: not cluster.zk.exists("/admin/reassign_partitions"), message="the znode to go")
    wait_for(lambda: not list(brokers.broker(0).log_dir.glob("mover-0")), message="broker 0's replica to go")
    leader = brokers.broker(cluster.state("mover")["leader"])
    assert [record.value for record in read_all(leader.bootstrap, "mover", 0)] == [b"r%d" % i for i in range(20)]

    # 2. Through the API, which the controller answers.
    controller = brokers.broker(cluster.controller_id())
    response = request(
        controller.bootstrap,
        45,
        0,
        {
            "timeout_ms": 30000,
            "topics": [
                {
                    "name": "mover",
                    "partitions": [
                        {"partition_index": 0, "replicas": [0, 2]},
                        {"partition_index": 5, "replicas": [0, 2]},
                    ],
                }
            ],
        },
    )
    codes = {p["partition_index"]: p["error_code"] for p in response["responses"][0]["partitions"]}
    assert codes == {0: Errors.NONE, 5: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    wait_for(lambda: moved(cluster, "mover", [0, 2]), 60, message="the move to [0, 2]")
    leader = brokers.broker(cluster.state("mover")["leader"])
    assert len(read_all(leader.bootstrap, "mover", 0)) == 20
    listing = request(controller.bootstrap, 46, 0, {"timeout_ms": 30000, "topics": None})
    assert listing["error_code"] == Errors.NONE and listing["topics"] == []
    cancel = request(
        controller.bootstrap,
        45,
        0,
        {"timeout_ms": 30000, "topics": [{"name": "mover", "partitions": [{"partition_index": 0, "replicas": None}]}]},
    )
    assert cancel["responses"][0]["partitions"][0]["error_code"] == Errors.NO_REASSIGNMENT_IN_PROGRESS
