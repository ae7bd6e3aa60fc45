"""unclean.leader.election.enable turned on as a dynamic cluster default: an offline partition gets a leader."""

import pytest

from kafka_zk.protocol.errors import Errors
from tests.cluster_support import wait_for
from tests.raw_wire import create_topic, metadata
from tests.test_real_tools import tool


def leader_of(bootstrap, topic):
    for entry in metadata(bootstrap, [topic])["topics"]:
        for partition in entry["partitions"]:
            return partition["leader_id"], partition["isr_nodes"]
    return None


@pytest.mark.timeout(240)
def test_enabling_unclean_election_dynamically_elects_an_out_of_sync_replica(cluster):
    observer = cluster.broker(2).bootstrap
    assert create_topic(observer, "fragile", assignments={0: [0, 1]}) == Errors.NONE
    wait_for(lambda: leader_of(observer, "fragile") == (0, [0, 1]), timeout=60, message="leader 0 with ISR [0, 1]")
    cluster.broker(1).stop()
    wait_for(lambda: leader_of(observer, "fragile") == (0, [0]), timeout=60, message="ISR to shrink to [0]")
    cluster.broker(0).stop()
    wait_for(lambda: leader_of(observer, "fragile")[0] == -1, timeout=60, message="the partition to go offline")
    cluster.broker(1).start(timeout=90)
    wait_for(
        lambda: 1 in [b["node_id"] for b in metadata(observer, [])["brokers"]], timeout=60, message="broker 1 back"
    )
    assert leader_of(observer, "fragile")[0] == -1  # broker 1 is not in the ISR: no clean leader

    enabled = tool(
        "kafka-configs.sh",
        "--bootstrap-server",
        observer,
        "--entity-type",
        "brokers",
        "--entity-default",
        "--alter",
        "--add-config",
        "unclean.leader.election.enable=true",
    )
    assert enabled.returncode == 0, enabled.stderr
    wait_for(lambda: leader_of(observer, "fragile") == (1, [1]), timeout=60, message="broker 1 elected uncleanly")
    cluster.broker(0).start(timeout=90)
