"""Preferred leaders come back: by ElectLeaders, by the /admin/preferred_replica_election znode, and by the
controller's automatic rebalance."""

import json

import pytest

from kafka_zk.protocol.errors import Errors
from tests.cluster_support import wait_for
from tests.raw_wire import create_topic, request
from tests.replication_support import fast_overrides, make_cluster  # noqa: F401  (fixture)


def leaders(cluster, topic, count):
    return [cluster.state(topic, partition)["leader"] for partition in range(count)]


def bounce_preferred_leader(cluster, topic):
    """Restart broker 1, the preferred leader of partition 0, so that another broker leads it."""
    broker = cluster.cluster.broker(1)
    broker.stop()
    cluster.wait_state(topic, lambda state: state["leader"] != 1, message="leader moved off 1")
    broker.start()
    cluster.wait_state(topic, lambda state: 1 in state["isr"], message="1 back in the ISR")
    assert cluster.state(topic, 0)["leader"] != 1


@pytest.mark.timeout(120)
def test_elect_leaders_and_the_admin_znode_restore_the_preferred_leader(make_cluster):
    cluster = make_cluster(fast_overrides(auto_leader_rebalance_enable="false"))
    bootstrap = cluster.cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, "pref", assignments={0: [1, 2, 0]}) == Errors.NONE
    cluster.wait_state("pref", lambda state: len(state["isr"]) == 3)

    bounce_preferred_leader(cluster, "pref")
    controller = cluster.cluster.broker(cluster.wait_controller())
    body = {"election_type": 0, "topic_partitions": [{"topic": "pref", "partition_id": [0, 7]}], "timeout_ms": 30000}
    response = request(controller.bootstrap, 43, 1, body)
    results = {r["partition_id"]: r["error_code"] for r in response["replica_election_results"][0]["partition_result"]}
    assert results == {0: Errors.NONE, 7: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert cluster.state("pref", 0)["leader"] == 1
    again = request(controller.bootstrap, 43, 1, body)["replica_election_results"][0]["partition_result"][0]
    assert again["error_code"] == Errors.ELECTION_NOT_NEEDED

    bounce_preferred_leader(cluster, "pref")
    cluster.zk.create(
        "/admin/preferred_replica_election",
        json.dumps({"version": 1, "partitions": [{"topic": "pref", "partition": 0}]}).encode(),
    )
    cluster.wait_state("pref", lambda state: state["leader"] == 1, message="preferred leader from the znode")
    wait_for(lambda: not cluster.zk.exists("/admin/preferred_replica_election"), message="znode removed")


@pytest.mark.timeout(120)
def test_automatic_rebalance_moves_leadership_back(make_cluster):
    cluster = make_cluster(fast_overrides(leader_imbalance_check_interval_seconds="1"))
    bootstrap = cluster.cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, "auto", assignments={0: [1, 2, 0]}) == Errors.NONE
    cluster.wait_state("auto", lambda state: len(state["isr"]) == 3)
    broker = cluster.cluster.broker(1)
    broker.stop()
    cluster.wait_state("auto", lambda state: state["leader"] != 1, message="leader moved off 1")
    broker.start()
    cluster.wait_state("auto", lambda state: state["leader"] == 1, timeout=30, message="rebalanced back to 1")
