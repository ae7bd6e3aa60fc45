"""The broker's service tree in memory: its children stop in reverse, each once the one after it has stopped,
with the shutdown's phase timings; periodic tasks on an injected clock; ISR writes batched per reactor turn."""

import logging
from types import SimpleNamespace

from twisted.application import service
from twisted.internet import defer, task

from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.kafka_server import KafkaServer
from kafka_zk.server.replication.isr_change_propagation import IsrChangePropagation
from kafka_zk.server.services import Lifecycle, PeriodicTask
from tests.fake_zk import FakeZk


def _server(tmp_path, clock):
    return KafkaServer(
        KafkaConfig({"zookeeper.connect": "127.0.0.1:1", "broker.id": "0", "log.dirs": str(tmp_path)}), clock
    )


def test_children_stop_in_reverse_one_after_another_and_the_last_line_times_the_phases(tmp_path, caplog):
    clock = task.Clock()
    server = _server(tmp_path, clock)
    events = []
    replicas_stopped = defer.Deferred()

    def stop_replicas():
        events.append("stop replicas")
        return replicas_stopped

    service.Service.startService(server)
    for name, stop in [
        ("ZooKeeper session", lambda: events.append("stop zk")),
        ("logs", lambda: events.append("stop logs")),
        ("replicas", stop_replicas),
        ("log cleaner", lambda: events.append("stop cleaner")),
    ]:
        server.addService(Lifecycle(name, start=lambda name=name: events.append("start " + name), stop=stop))
    assert events == ["start ZooKeeper session", "start logs", "start replicas", "start log cleaner"]

    del events[:]
    with caplog.at_level(logging.INFO, logger="kafka_zk.server.kafka_server"):
        stopped = server.stopService()
        assert events == ["stop cleaner", "stop replicas"]  # the logs wait for the replicas to finish
        clock.advance(1.5)
        replicas_stopped.callback(None)
    assert events == ["stop cleaner", "stop replicas", "stop logs", "stop zk"]
    assert stopped.called and not server.running
    assert (
        "shut down completed in 1.50s (controller, listener and coordinators 0.00s, replicas 1.50s, logs 0.00s, "
        "ZooKeeper session 0.00s)"
    ) in caplog.text


def test_broker_state_is_kafkas_through_a_controlled_shutdown(tmp_path):
    server = _server(tmp_path, task.Clock())

    def state():
        return server.metrics.get("kafka.server", "KafkaServer", "BrokerState").read()

    assert state() == 0  # NotRunning
    service.Service.startService(server)
    seen = []
    for name in ("ZooKeeper session", "controlled shutdown", "periodic tasks"):
        server.addService(Lifecycle(name, stop=lambda name=name: seen.append((name, state()))))
    server.stopService()
    # PendingControlledShutdown until the controlled shutdown is done, then BrokerShuttingDown, then NotRunning
    assert seen == [("periodic tasks", 6), ("controlled shutdown", 6), ("ZooKeeper session", 7)]
    assert state() == 0


def test_a_periodic_task_first_runs_one_interval_after_its_start_and_not_after_its_stop():
    clock = task.Clock()
    calls = []
    periodic = PeriodicTask("counting", 500, lambda: calls.append(clock.seconds()), clock)
    periodic.startService()
    assert calls == []
    clock.advance(0.5)
    clock.advance(0.5)
    assert calls == [0.5, 1.0]
    periodic.stopService()
    clock.advance(5)
    assert calls == [0.5, 1.0] and not clock.getDelayedCalls()


def _partition(tp, isr_version=0):
    return SimpleNamespace(tp=tp, leader_id=1, leader_epoch=3, controller_epoch=2, zk_version=isr_version)


def test_isr_writes_of_one_reactor_turn_go_together_and_changed_partitions_are_announced_once():
    written, announced = [], []

    def update(states):
        written.append({tp: state.isr for tp, state in states.items()})
        return {tp: (tp != ("lost", 0), 7 if tp != ("lost", 0) else -1) for tp in states}

    zk = FakeZk(
        {
            "conditional_update_partition_states": update,
            "create_isr_change_notification": lambda tps: announced.append(list(tps)) or "isr_change_1",
        }
    )
    clock = task.Clock()
    changes = IsrChangePropagation(zk, clock, 1)
    results = {}
    for tp, isr in [(("t", 0), [1]), (("t", 0), [1, 2]), (("lost", 0), [1])]:
        changes.write_isr(_partition(tp), isr).addCallback(
            lambda version, tp=tp, isr=isr: results.setdefault((tp, tuple(isr)), version)
        )
    assert results == {(("t", 0), (1,)): None}  # replaced by the later write of the same turn
    clock.advance(0)
    assert written == [{("t", 0): [1, 2], ("lost", 0): [1]}]
    assert results == {(("t", 0), (1,)): None, (("t", 0), (1, 2)): 7, (("lost", 0), (1,)): None}

    changes.propagate()
    changes.propagate()
    assert announced == [[("t", 0)]]
