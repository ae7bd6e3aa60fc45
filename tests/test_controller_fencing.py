"""The controller in memory: a fenced write that fails the epoch check makes it resign and send nothing."""

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock

from kafka_zk.controller.controller import KafkaController
from kafka_zk.controller.events import BrokerChange
from kafka_zk.controller.state_changes import FIRST_BATCH_WAIT_S
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.zk.session import ControllerMovedError
from kafka_zk.zk.znodes import BrokerInfo, EndPoint, LeaderIsrAndControllerEpoch, TopicAssignment
from tests.fake_zk import FakeZk


def controller_on(zk, reactor):
    """Broker 0's controller over a fake ZooKeeper, on a memory reactor, with the default config."""
    return KafkaController(0, KafkaConfig({"zookeeper.connect": "z"}), zk, reactor, "PLAINTEXT")


def broker(broker_id):
    return BrokerInfo(broker_id, [EndPoint("PLAINTEXT", "127.0.0.1", 9092 + broker_id, "PLAINTEXT")], None, 100)


def moved(*args):
    raise ControllerMovedError("/controller_epoch version 4 expected, found 5")


def test_controller_resigns_when_a_fenced_write_fails_the_epoch_check():
    topics = {"before": {0: [0]}}
    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": [broker(0), broker(1)],
            "get_topics": lambda: list(topics),
            "get_topic_assignments": lambda names: {name: topics[name] for name in names},
            "get_full_topic_assignments": lambda names: {name: TopicAssignment(topics[name]) for name in names},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": lambda tps: {("before", 0): LeaderIsrAndControllerEpoch(0, 0, [0], 2, 7)},
            "create_partition_states": moved,
        }
    )
    reactor = MemoryReactorClock()
    controller = controller_on(zk, reactor)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)  # no broker answers the first batch here: the controller goes on
    assert controller.active and controller.context.epoch == 3
    sent_before = sum(len(channel.queue) for channel in controller.channels.channels.values())
    assert sent_before > 0  # LeaderAndIsr/UpdateMetadata of the loaded state are queued

    topics["after"] = {0: [1], 1: [0]}
    zk.watches["/brokers/topics"](list(topics))
    assert "create_partition_states" in zk.calls
    assert not controller.active
    assert controller.channels is None
    assert controller.context.assignments == {}


def active_controller(reactor, **answers):
    """Broker 0's controller, elected over a fake ZooKeeper that holds no topics (unless ``answers`` say otherwise)."""
    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": [broker(0)],
            "get_topics": [],
            "get_topic_assignments": {},
            "get_full_topic_assignments": {},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {},
            "get_partition_states": {},
            **answers,
        }
    )
    controller = controller_on(zk, reactor)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert controller.active
    return controller


def test_shutdown_waits_for_the_event_in_progress_then_resigns():
    reactor = MemoryReactorClock()
    controller = active_controller(reactor)
    brokers = defer.Deferred()
    controller.zk.client.answers["get_all_brokers"] = lambda: brokers  # the broker change's read waits
    controller.events.put(BrokerChange())
    stopped = controller.shutdown()
    reactor.advance(1)
    assert not stopped.called and controller.active
    brokers.callback([broker(0)])
    assert stopped.called and not controller.active


def test_shutdown_resigns_without_an_event_that_zookeeper_never_lets_finish(caplog):
    reactor = MemoryReactorClock()
    controller = active_controller(
        reactor,
        get_all_brokers=[broker(0), broker(1)],
        get_topics=["t"],
        get_full_topic_assignments={"t": TopicAssignment({0: [1, 0]})},
        get_partition_states=lambda tps: {("t", 0): LeaderIsrAndControllerEpoch(1, 0, [1, 0], 2, 1)},
        update_partition_states=lambda *args: defer.Deferred(),
    )  # no ZooKeeper write gets an answer
    controller.controlled_shutdown(1, -1)  # broker 1's leadership moves to broker 0: a write
    stopped = controller.shutdown()
    reactor.advance(17.9)
    assert not stopped.called and controller.active
    reactor.advance(0.1)  # zookeeper.session.timeout.ms: 18000 by default
    assert stopped.called and stopped.result is None
    assert not controller.active and controller.channels is None
    assert "the controller event ControlledShutdown has not finished after 18s" in caplog.text
