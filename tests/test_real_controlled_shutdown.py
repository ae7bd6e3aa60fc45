"""Controlled shutdown: a broker stopped with SIGTERM hands its leaderships over before it leaves, and an acks=all
producer writing meanwhile sees no error (the broker being the controller or not)."""

import re
import threading

import pytest
from confluent_kafka import Producer

from kafka_zk.protocol.errors import Errors
from tests.cluster_support import wait_for
from tests.raw_wire import create_topic, read_all, request
from tests.replication_support import fast_overrides, make_cluster  # noqa: F401  (fixture)


@pytest.mark.timeout(120)
def test_sigterm_moves_leaders_before_the_broker_leaves(make_cluster):
    cluster = make_cluster(fast_overrides())
    bootstrap = cluster.cluster.brokers[0].bootstrap
    assert (
        create_topic(bootstrap, "moving", assignments={p: [p % 3, (p + 1) % 3, (p + 2) % 3] for p in range(6)})
        == Errors.NONE
    )
    for partition in range(6):
        cluster.wait_state("moving", lambda state: len(state["isr"]) == 3, partition=partition)
    before = {p: cluster.state("moving", p) for p in range(6)}
    victim = cluster.cluster.broker(1)
    led = [p for p, state in before.items() if state["leader"] == 1]
    assert led
    offset = victim.log_file.stat().st_size
    victim.stop()
    log = victim.log_file.read_text()[offset:]
    assert "controlled shutdown succeeded" in log
    # The last line says where the shutdown's time went.
    assert re.search(
        r"shut down completed in [0-9.]+s \(controlled shutdown [0-9.]+s, .*logs [0-9.]+s, "
        r"ZooKeeper session [0-9.]+s\)",
        log,
    )
    for partition in range(6):  # leaders moved before the process exited
        state = cluster.state("moving", partition)
        assert state["leader"] != 1
        if partition in led:
            assert state["leader_epoch"] > before[partition]["leader_epoch"]
        cluster.wait_state("moving", lambda state: 1 not in state["isr"], partition=partition)

    # A ControlledShutdown for a broker that is not alive is refused.
    controller = cluster.cluster.broker(cluster.wait_controller())  # the victim may have been the controller
    response = request(controller.bootstrap, 7, 3, {"broker_id": 1, "broker_epoch": -1})
    assert response["error_code"] == Errors.BROKER_NOT_AVAILABLE
    other = next(b for b in cluster.cluster.brokers if b.broker_id not in (1, controller.broker_id))
    # a broker not the controller answers as Kafka 2.5's does: its ControllerMovedException, STALE_CONTROLLER_EPOCH
    answer = request(other.bootstrap, 7, 3, {"broker_id": 1, "broker_epoch": -1})
    assert answer["error_code"] == Errors.STALE_CONTROLLER_EPOCH


@pytest.mark.timeout(180)
@pytest.mark.parametrize("victim_role", ["the controller", "not the controller"])
def test_an_acks_all_producer_sees_no_error_while_a_leader_shuts_down(make_cluster, victim_role):
    """SIGTERM of a broker leading partitions (the controller itself, or another broker) while an acks=all,
    idempotent producer writes to an RF 3, min.insync.replicas 2 topic: every record is acknowledged, none
    fails (librdkafka retries NOT_LEADER_FOR_PARTITION and the like), and each is in the log exactly once."""
    cluster = make_cluster(fast_overrides())
    bootstrap = cluster.cluster.bootstrap_servers
    assert (
        create_topic(
            cluster.cluster.brokers[0].bootstrap,
            "steady",
            assignments={p: [p % 3, (p + 1) % 3, (p + 2) % 3] for p in range(6)},
            configs={"min.insync.replicas": "2"},
        )
        == Errors.NONE
    )
    for partition in range(6):
        cluster.wait_state("steady", lambda state: len(state["isr"]) == 3, partition=partition)
    controller = cluster.controller_id()
    victim = cluster.cluster.broker(controller if victim_role == "the controller" else (controller + 1) % 3)
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 5,
            "message.timeout.ms": 60000,
        }
    )
    failures, acknowledged = [], []

    def delivered(error, message):
        if error is not None:
            failures.append(error)
        else:
            acknowledged.append(message.value())

    state = {"stop": False, "sent": 0}

    def produce():
        while not state["stop"]:
            producer.produce("steady", value=b"%d" % state["sent"], partition=state["sent"] % 6, on_delivery=delivered)
            state["sent"] += 1
            producer.poll(0.002)

    writer = threading.Thread(target=produce, daemon=True)
    writer.start()
    try:
        wait_for(lambda: len(acknowledged) >= 500, 60, message="records acknowledged before the shutdown")
        victim.stop()
        at_stop = len(acknowledged)
        wait_for(
            lambda: len(acknowledged) >= at_stop + 500 or failures,
            60,
            message="records acknowledged after the shutdown",
        )
    finally:
        state["stop"] = True
        writer.join(30)
    assert producer.flush(90) == 0
    assert failures == []
    assert len(acknowledged) == state["sent"]
    if victim_role == "the controller":
        assert cluster.wait_controller(not_id=victim.broker_id) != victim.broker_id
    stored = []
    for partition in range(6):
        stored += [
            bytes(record.value) for record in read_all(bootstrap_of_leader(cluster, partition), "steady", partition)
        ]
    assert sorted(stored) == sorted(acknowledged)  # each acknowledged record once, nothing else


def bootstrap_of_leader(cluster, partition):
    leader = cluster.wait_state("steady", lambda state: state["leader"] >= 0, partition=partition)["leader"]
    return cluster.cluster.broker(leader).bootstrap
