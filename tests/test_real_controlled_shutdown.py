"""Controlled shutdown: a broker stopped with SIGTERM hands its leaderships over before it leaves."""

import pytest

from kafka_zk.protocol.errors import Errors
from tests.raw_wire import create_topic, request
from tests.replication_support import fast_overrides, make_cluster  # noqa: F401  (fixture)


@pytest.mark.timeout(120)
def test_sigterm_moves_leaders_before_the_broker_leaves(make_cluster):
    cluster = make_cluster(fast_overrides())
    bootstrap = cluster.cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, "moving", assignments={p: [p % 3, (p + 1) % 3, (p + 2) % 3]
                                                          for p in range(6)}) == Errors.NONE
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
    for partition in range(6):  # leaders moved before the process exited
        state = cluster.state("moving", partition)
        assert state["leader"] != 1
        if partition in led:
            assert state["leader_epoch"] > before[partition]["leader_epoch"]
        cluster.wait_state("moving", lambda state: 1 not in state["isr"], partition=partition)

    # A ControlledShutdown for a broker that is not alive is refused.
    controller = cluster.cluster.broker(cluster.controller_id())
    response = request(controller.bootstrap, 7, 3, {"broker_id": 1, "broker_epoch": -1})
    assert response["error_code"] == Errors.BROKER_NOT_AVAILABLE
    other = next(b for b in cluster.cluster.brokers if b.broker_id not in (1, controller.broker_id))
    assert request(other.bootstrap, 7, 3, {"broker_id": 1, "broker_epoch": -1})["error_code"] == \
        Errors.NOT_CONTROLLER
