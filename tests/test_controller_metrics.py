"""The controller's metrics in memory: Kafka 2.5's KafkaController counts, ControllerStats timers, the event queue's
and the channels' metrics, on a controller over a fake ZooKeeper and a memory reactor."""

import time

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock

from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.context import ControllerContext, LeaderIsr, LiveBroker
from kafka_zk.controller.controller import KafkaController
from kafka_zk.controller.controller_metrics import COUNT_NAMES, ControllerStats, controller_counts
from kafka_zk.controller.event_manager import ControllerEventManager
from kafka_zk.controller.events import (
    BrokerChange,
    ControllerEvent,
    ControllerRequest,
    ControllerState,
    IsrChangeNotification,
    TopicChange,
)
from kafka_zk.controller.state_changes import FIRST_BATCH_WAIT_S
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.metrics.prometheus import render
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch, TopicAssignment
from tests.fake_zk import FakeZk
from tests.test_controller_fencing import broker


def _gauges(registry):
    """{(type, name, tags): value} of every gauge and collector sample the registry collects now."""
    return {(name.type, name.name, name.tags): value for name, kind, value in registry.samples() if kind == "gauge"}


def _counts(registry):
    gauges = _gauges(registry)
    return {name: gauges[("KafkaController", name, ())] for name in COUNT_NAMES}


def _context():
    context = ControllerContext()
    for broker_id in (1, 2, 3):
        context.live_brokers[broker_id] = LiveBroker(broker_id, 100, None)
    return context


def test_counts_mean_what_kafkas_do():
    context = _context()
    # "a": led by its preferred replica; one partition offline.
    context.assignments.update({("a", 0): [1, 2], ("a", 1): [2, 1], ("a", 2): [3, 1]})
    context.leadership.update(
        {
            ("a", 0): LeaderIsr(1, 0, [1, 2], 1, 0),
            ("a", 1): LeaderIsr(1, 0, [1, 2], 1, 0),
            ("a", 2): LeaderIsr(-1, 1, [3], 1, 0),
        }
    )
    context.partition_states.update(
        {("a", 0): sm.ONLINE_PARTITION, ("a", 1): sm.ONLINE_PARTITION, ("a", 2): sm.OFFLINE_PARTITION}
    )
    # "moving": preferred replica 3 is being added; it counts as imbalanced only once in the ISR.
    context.assignments.update({("moving", 0): [3, 1], ("moving", 1): [3, 1]})
    context.leadership.update({("moving", 0): LeaderIsr(1, 0, [1], 1, 0), ("moving", 1): LeaderIsr(1, 0, [1, 3], 1, 0)})
    # "doomed": being deleted; its offline partition and its leaders count for nothing but the deletion.
    context.assignments.update({("doomed", 0): [1, 2], ("doomed", 1): [2, 3]})
    context.leadership.update({("doomed", 0): LeaderIsr(2, 0, [1, 2], 1, 0), ("doomed", 1): LeaderIsr(3, 0, [3], 1, 0)})
    context.partition_states.update({("doomed", 0): sm.OFFLINE_PARTITION})
    context.topics_to_delete.add("doomed")
    context.replica_states.update(
        {
            ("doomed", 0, 1): sm.REPLICA_DELETION_SUCCESSFUL,
            ("doomed", 0, 2): sm.REPLICA_DELETION_INELIGIBLE,
            ("doomed", 1, 2): sm.REPLICA_DELETION_STARTED,
            ("doomed", 1, 3): sm.REPLICA_DELETION_SUCCESSFUL,
        }
    )
    # "fresh": assigned but without a state znode yet.
    context.assignments[("fresh", 0)] = [2]

    counts = controller_counts(context, {("moving", 0): [3], ("moving", 1): [3]})

    assert counts == {
        "OfflinePartitionsCount": 1,  # a-2 (doomed-0 is being deleted)
        "PreferredReplicaImbalanceCount": 3,  # a-1, a-2 (no leader), moving-1 (its new preferred is in the ISR)
        "GlobalTopicCount": 4,
        "GlobalPartitionCount": 7,  # the partitions with a state znode
        "TopicsToDeleteCount": 1,
        "ReplicasToDeleteCount": 2,  # doomed-0 on 2 and doomed-1 on 2
        "TopicsIneligibleToDeleteCount": 1,
        "ReplicasIneligibleToDeleteCount": 1,
    }


def test_counts_of_ten_thousand_partitions_take_one_cheap_pass():
    context = _context()
    for partition in range(10000):
        tp = ("big", partition)
        context.assignments[tp] = [1 + partition % 3, 1 + (partition + 1) % 3]
        context.leadership[tp] = LeaderIsr(1 + (partition + 1) % 3, 0, context.assignments[tp], 1, 0)
        context.partition_states[tp] = sm.ONLINE_PARTITION
    started = time.perf_counter()
    counts = controller_counts(context)
    elapsed = time.perf_counter() - started
    assert counts["PreferredReplicaImbalanceCount"] == 10000 and counts["GlobalPartitionCount"] == 10000
    assert elapsed < 0.2, elapsed


def test_every_state_has_kafkas_value_and_timer_name():
    assert [
        state.value
        for state in (
            ControllerState.Idle,
            ControllerState.BrokerChange,
            ControllerState.IsrChange,
            ControllerState.ListPartitionReassignment,
        )
    ] == [0, 2, 9, 15]
    assert [state.value for state in ControllerState] == list(range(17))
    assert ControllerState.BrokerChange.rate_and_time_metric_name == "LeaderElectionRateAndTimeMs"
    assert ControllerState.AlterPartitionReassignment.rate_and_time_metric_name == "PartitionReassignmentRateAndTimeMs"
    assert ControllerState.TopicChange.rate_and_time_metric_name == "TopicChangeRateAndTimeMs"
    assert ControllerState.Idle.rate_and_time_metric_name is None
    registry = MetricsRegistry()
    ControllerStats(registry)
    names = {name.name for name, _, _ in registry.samples() if name.type == "ControllerStats"}
    assert {
        "LeaderElectionRateAndTimeMs",
        "UncleanLeaderElectionsPerSec",
        "TopicChangeRateAndTimeMs",
        "IsrChangeRateAndTimeMs",
        "ControllerChangeRateAndTimeMs",
        "AutoLeaderBalanceRateAndTimeMs",
        "ManualLeaderBalanceRateAndTimeMs",
        "ControlledShutdownRateAndTimeMs",
        "ListPartitionReassignmentRateAndTimeMs",
    } <= names


def _event_types(base=ControllerEvent):
    for kind in base.__subclasses__():
        if kind is not ControllerRequest:
            yield kind
        yield from _event_types(kind)


def test_every_event_has_a_kafka_state_and_a_handler():
    kinds = set(_event_types())
    assert len(kinds) > 15
    assert all(isinstance(kind.state, ControllerState) and kind.state is not ControllerState.Idle for kind in kinds)
    controller = _controller(_zk({}, {}, []), MemoryReactorClock(), MetricsRegistry())
    assert set(controller.event_handlers) == kinds


def test_event_queue_times_each_event_and_shows_its_state():
    reactor = MemoryReactorClock()
    registry = MetricsRegistry(clock=reactor.seconds)
    stats = ControllerStats(registry)
    blocker = defer.Deferred()
    events = ControllerEventManager(
        lambda event: blocker if isinstance(event, BrokerChange) else None, reactor, registry, stats.timer_for
    )
    events.put(BrokerChange())
    events.put(TopicChange())
    events.put(IsrChangeNotification())
    gauges = _gauges(registry)
    assert gauges[("ControllerEventManager", "EventQueueSize", ())] == 2
    assert events.current == BrokerChange() and events.state is ControllerState.BrokerChange
    reactor.advance(0.25)
    blocker.callback(None)
    assert _gauges(registry)[("ControllerEventManager", "EventQueueSize", ())] == 0 and events.current is None
    assert events.state is ControllerState.Idle
    leader_election = registry.get("kafka.controller", "ControllerStats", "LeaderElectionRateAndTimeMs")
    assert leader_election.count == 1 and leader_election.max == 250.0
    assert registry.get("kafka.controller", "ControllerStats", "TopicChangeRateAndTimeMs").count == 1
    queue_time = registry.get("kafka.controller", "ControllerEventManager", "EventQueueTimeMs")
    assert queue_time.count == 3 and queue_time.max == 250.0 and queue_time.min == 0.0


def _zk(topics, states, brokers, elected=True):
    return FakeZk(
        {
            "try_elect_controller": (elected, 3, 4),
            "get_controller_id": lambda: 0 if elected else 1,
            "get_all_brokers": lambda: list(brokers),
            "get_topics": lambda: list(topics),
            "get_topic_assignments": lambda names: {name: topics[name] for name in names},
            "get_full_topic_assignments": lambda names: {name: TopicAssignment(topics[name]) for name in names},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": lambda tps: {tp: states[tp] for tp in tps if tp in states},
            "create_partition_states": lambda new, epoch, version: {
                tp: LeaderIsrAndControllerEpoch(s.leader, s.leader_epoch, s.isr, epoch, 0) for tp, s in new.items()
            },
            "update_partition_states": lambda changed, epoch, version: {
                tp: LeaderIsrAndControllerEpoch(s.leader, s.leader_epoch, s.isr, epoch, s.zk_version + 1)
                for tp, s in changed.items()
            },
            "get_isr_change_notifications": [],
            "get_topic_deletions": [],
            "get_preferred_replica_election": None,
            "get_log_dir_event_notifications": [],
        }
    )


def _controller(zk, reactor, registry, unclean=False):
    config = KafkaConfig({"zookeeper.connect": "z", "unclean.leader.election.enable": str(unclean).lower()})
    return KafkaController(0, config, zk, reactor, "PLAINTEXT", metrics=registry)


def test_the_active_controller_reports_the_counts_and_the_others_zero():
    topics = {"t": {0: [1, 0], 1: [0, 1]}, "lonely": {0: [2]}}
    states = {
        ("t", 0): LeaderIsrAndControllerEpoch(0, 0, [0, 1], 2, 1),
        ("t", 1): LeaderIsrAndControllerEpoch(0, 0, [0, 1], 2, 1),
        ("lonely", 0): LeaderIsrAndControllerEpoch(2, 0, [2], 2, 1),
    }
    for elected in (True, False):
        reactor = MemoryReactorClock()
        registry = MetricsRegistry(clock=reactor.seconds)
        controller = _controller(_zk(topics, states, [broker(0), broker(1)], elected), reactor, registry)
        controller.startup()
        reactor.advance(FIRST_BATCH_WAIT_S)
        gauges = _gauges(registry)
        assert gauges[("KafkaController", "ActiveControllerCount", ())] == int(elected)
        assert gauges[("KafkaController", "ControllerState", ())] == 0
        assert registry.get("kafka.controller", "ControllerStats", "ControllerChangeRateAndTimeMs").count == 1
        if elected:
            # broker 2 is not registered: lonely-0 is offline; t-0 is led by 0, not by its preferred replica 1
            assert _counts(registry) == {
                "OfflinePartitionsCount": 1,
                "PreferredReplicaImbalanceCount": 2,
                "GlobalTopicCount": 2,
                "GlobalPartitionCount": 3,
                "TopicsToDeleteCount": 0,
                "ReplicasToDeleteCount": 0,
                "TopicsIneligibleToDeleteCount": 0,
                "ReplicasIneligibleToDeleteCount": 0,
            }
            assert {tags for (type_, name, tags) in gauges if name == "QueueSize"} == {
                (("broker-id", "0"),),
                (("broker-id", "1"),),
            }
            assert (
                gauges[("ControllerChannelManager", "TotalQueueSize", ())]
                == sum(value for (type_, name, _), value in gauges.items() if name == "QueueSize")
                > 0
            )
        else:
            assert _counts(registry) == dict.fromkeys(COUNT_NAMES, 0)
            assert gauges[("ControllerChannelManager", "TotalQueueSize", ())] == 0
            assert not [name for (_, name, _) in gauges if name == "QueueSize"]


def test_a_broker_change_is_timed_and_an_unclean_election_counted():
    topics = {"t": {0: [1, 2]}}
    states = {("t", 0): LeaderIsrAndControllerEpoch(1, 3, [1], 2, 1)}  # only 1 is in sync
    brokers = [broker(0), broker(1), broker(2)]
    reactor = MemoryReactorClock()
    registry = MetricsRegistry(clock=reactor.seconds)
    zk = _zk(topics, states, brokers)
    controller = _controller(zk, reactor, registry, unclean=True)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert _counts(registry)["OfflinePartitionsCount"] == 0
    queue_times = registry.get(
        "kafka.controller", "ControllerChannelManager", "RequestRateAndQueueTimeMs", {"broker-id": 1}
    )
    assert queue_times.count > 0

    brokers.pop(1)  # broker 1 dies: 2, out of sync, is elected uncleanly
    zk.watches["/brokers/ids"]([0, 2])
    assert _gauges(registry)[("KafkaController", "ControllerState", ())] == ControllerState.BrokerChange.value
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert controller.context.leadership[("t", 0)].leader == 2
    assert registry.get("kafka.controller", "ControllerStats", "UncleanLeaderElectionsPerSec").count == 1
    timer = registry.get("kafka.controller", "ControllerStats", "LeaderElectionRateAndTimeMs")
    assert timer.count == 1 and timer.max >= FIRST_BATCH_WAIT_S * 1000  # it waited for the new leader's answer
    assert registry.get("kafka.controller", "ControllerChannelManager", "QueueSize", {"broker-id": 1}) is None
    assert _counts(registry)["PreferredReplicaImbalanceCount"] == 1

    exposition = render(registry.samples(), process=False).decode()
    for line in (
        "kafka_controller_kafkacontroller_activecontrollercount 1.0",
        "kafka_controller_controllerstats_uncleanleaderelections_total 1.0",
        "kafka_controller_controllerstats_leaderelectionrateandtimems_count 1.0",
        "kafka_controller_kafkacontroller_preferredreplicaimbalancecount 1.0",
        "kafka_controller_controllereventmanager_eventqueuesize 0.0",
        'kafka_controller_controllerchannelmanager_queuesize{broker_id="2"}',
    ):
        assert line in exposition, line

    controller.shutdown()
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert _gauges(registry)[("KafkaController", "ActiveControllerCount", ())] == 0
    assert _counts(registry) == dict.fromkeys(COUNT_NAMES, 0)
    assert not [name for (_, name, _) in _gauges(registry) if name == "QueueSize"]


def test_a_controller_with_metrics_disabled_works_and_collects_nothing():
    topics = {"t": {0: [1, 2]}}
    states = {("t", 0): LeaderIsrAndControllerEpoch(1, 3, [1, 2], 2, 1)}
    brokers = [broker(0), broker(1), broker(2)]
    reactor = MemoryReactorClock()
    registry = MetricsRegistry(clock=reactor.seconds, enabled=False)
    zk = _zk(topics, states, brokers)
    controller = _controller(zk, reactor, registry)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    brokers.pop(1)
    zk.watches["/brokers/ids"]([0, 2])
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert controller.active and controller.context.leadership[("t", 0)].leader == 2
    assert registry.samples() == []
