"""A new controller takes the replicas of brokers that died with (or before) the old one out of the ISR at once,
as Kafka's replica state machine startup does, instead of leaving it to the leaders' lag checks."""

import pytest

from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.raw_wire import produce
from tests.replication_support import NOT_ENOUGH_REPLICAS, fast_overrides, make_cluster  # noqa: F401

# Far longer than the test waits: an ISR that shrinks was shrunk by the controller, not by a lag check.
LAG_MS = 120000


def _batch(text):
    return encode_batch([(None, text)])


@pytest.mark.timeout(150)
@pytest.mark.parametrize("killed", [("controller",), ("controller", "follower"), ("controller", "leader")])
def test_new_controller_removes_dead_replicas_from_the_isr(make_cluster, killed):
    cluster = make_cluster(fast_overrides(replica_lag_time_max_ms=LAG_MS))
    controller_id = cluster.wait_controller()
    leader_id, follower_id = [b.broker_id for b in cluster.brokers if b.broker_id != controller_id]
    roles = {"controller": controller_id, "leader": leader_id, "follower": follower_id}
    topic = cluster.new_topic(
        "failover-isr", assignments={0: [leader_id, follower_id, controller_id]}, configs={"min.insync.replicas": "2"}
    )
    cluster.wait_full_isr(topic, [0], [leader_id, follower_id, controller_id])
    before = cluster.state(topic)
    assert before["leader"] == leader_id
    wait_for(
        lambda: produce(cluster.broker(leader_id).bootstrap, topic, 0, _batch(b"before"), acks=-1)[0] == 0,
        30,
        message="an acks=-1 write with the full ISR",
    )

    dead = {roles[role] for role in killed}
    for broker_id in dead:
        cluster.broker(broker_id).kill()
    survivors = sorted(set(roles.values()) - dead)
    new_controller = cluster.wait_controller(not_id=controller_id, timeout=40)
    assert new_controller in survivors

    new_leader = leader_id if leader_id in survivors else follower_id
    state = cluster.wait_state(
        topic,
        lambda s: sorted(s["isr"]) == survivors and s["leader"] == new_leader,
        15,
        message="ISR down to the live replicas %s" % survivors,
    )
    assert state["leader_epoch"] > before["leader_epoch"]
    assert state["controller_epoch"] > before["controller_epoch"]

    expected = 0 if len(survivors) >= 2 else NOT_ENOUGH_REPLICAS
    bootstrap = cluster.broker(new_leader).bootstrap
    # The leader answers once it has applied the controller's LeaderAndIsr: at once, not after a timeout.
    wait_for(
        lambda: produce(bootstrap, topic, 0, _batch(b"after"), acks=-1)[0] == expected,
        20,
        message="acks=-1 answered with error %d by broker %d" % (expected, new_leader),
    )
