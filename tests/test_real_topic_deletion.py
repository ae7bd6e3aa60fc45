"""Topic deletion end to end: DeleteTopics and kafka-topics --delete remove metadata, logs and znodes."""

import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import start_cluster, wait_for
from tests.raw_wire import create_topic, latest_offset, metadata, partition_leaders, produce
from tests.replication_support import fast_overrides

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def deletion_cluster(tmp_path_factory, zookeeper_server):
    cluster = start_cluster(tmp_path_factory.mktemp("deletion"), zookeeper_server, overrides=fast_overrides())
    zk = KazooClient(hosts=cluster.zk_connect)
    zk.start(10)
    yield cluster, zk
    zk.stop()
    zk.close()
    cluster.stop()


def topic_listed(bootstrap, topic):
    return any(entry["name"] == topic and entry["error_code"] == 0 for entry in metadata(bootstrap, None)["topics"])


def log_dirs(cluster, topic):
    return [path for broker in cluster.brokers for path in broker.log_dir.glob(topic + "-*")]


def znodes_gone(zk, topic):
    return not any(
        zk.exists(path)
        for path in ("/brokers/topics/" + topic, "/config/topics/" + topic, "/admin/delete_topics/" + topic)
    )


@pytest.mark.timeout(90)
def test_delete_topics_removes_metadata_logs_and_znodes(deletion_cluster):
    cluster, zk = deletion_cluster
    bootstrap = cluster.brokers[0].bootstrap
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic("doomed", 3, 2, config={"retention.ms": "100000"})])["doomed"].result(30)
    leaders = wait_for(
        lambda: len(partition_leaders(bootstrap, "doomed")) == 3 and partition_leaders(bootstrap, "doomed"),
        message="leaders",
    )
    for partition, leader in leaders.items():  # a leader may apply its LeaderAndIsr after others learn of it
        wait_for(
            lambda: (
                produce(cluster.broker(leader).bootstrap, "doomed", partition, encode_batch([(None, b"x")]))[0]
                == Errors.NONE
            ),
            message="leader to accept",
        )
    wait_for(lambda: len(log_dirs(cluster, "doomed")) == 6, message="6 replicas on disk")

    admin.delete_topics(["doomed"], operation_timeout=30)["doomed"].result(40)
    assert not topic_listed(bootstrap, "doomed")
    wait_for(lambda: znodes_gone(zk, "doomed"), message="znodes to go")
    wait_for(lambda: not log_dirs(cluster, "doomed"), message="replica logs to go")

    # The name is free again: a new topic starts empty.
    assert create_topic(bootstrap, "doomed", partitions=1) == Errors.NONE
    leader = wait_for(lambda: partition_leaders(bootstrap, "doomed"), message="recreated leader")[0]
    assert latest_offset(cluster.broker(leader).bootstrap, "doomed", 0) == 0


@pytest.mark.timeout(120)
def test_deletion_waits_for_a_dead_replica_and_finishes_when_it_returns(deletion_cluster):
    cluster, zk = deletion_cluster
    bootstrap = cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, "pending", assignments={0: [1, 2], 1: [2, 1]}) == Errors.NONE
    wait_for(lambda: len(partition_leaders(bootstrap, "pending")) == 2, message="leaders")
    wait_for(lambda: len(log_dirs(cluster, "pending")) == 4, message="4 replicas on disk")
    down = cluster.brokers[2]
    down.stop()
    wait_for(lambda: not zk.exists("/brokers/ids/2"), message="broker 2 to leave")
    deleted = subprocess.run(
        [
            str(ROOT / "scripts" / "kafka-topics.sh"),
            "--zookeeper",
            cluster.zk_connect,
            "--delete",
            "--topic",
            "pending",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert deleted.stdout.splitlines()[0] == "Topic pending is marked for deletion."
    wait_for(lambda: not topic_listed(bootstrap, "pending"), message="metadata to drop the topic")
    wait_for(lambda: not list(cluster.brokers[1].log_dir.glob("pending-*")), message="broker 1's replicas to go")
    assert zk.exists("/brokers/topics/pending")  # broker 2 still holds replicas: the deletion waits
    assert list(down.log_dir.glob("pending-*"))
    down.start()
    wait_for(lambda: znodes_gone(zk, "pending"), message="deletion to complete")
    wait_for(lambda: not list(down.log_dir.glob("pending-*")), message="broker 2's replicas to go")
