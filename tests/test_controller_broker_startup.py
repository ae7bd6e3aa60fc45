"""A broker that starts hears of the cluster before it hears of its replicas: UpdateMetadata (every partition, every
live broker) is queued to it ahead of its LeaderAndIsr, as Kafka's onBrokerStartup sends them. A Kafka 2.5 broker
refuses to follow a leader its metadata cache does not list ("cannot become follower since the new leader is
unavailable") and never fetches until the next LeaderAndIsr."""

from twisted.internet.testing import MemoryReactorClock

from kafka_zk.controller.state_changes import FIRST_BATCH_WAIT_S
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch, TopicAssignment
from tests.fake_zk import FakeZk
from tests.test_controller_fencing import broker, controller_on

LEADER_AND_ISR, UPDATE_METADATA = 4, 6


def test_a_started_broker_gets_update_metadata_before_its_leader_and_isr():
    assignment = {0: [0, 1, 2], 1: [1, 2, 0]}
    states = {
        ("t", 0): LeaderIsrAndControllerEpoch(0, 3, [0, 1], 2, 4),
        ("t", 1): LeaderIsrAndControllerEpoch(1, 3, [1, 0], 2, 4),
    }
    live = [broker(0), broker(1)]
    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": lambda: list(live),
            "get_topics": ["t"],
            "get_topic_assignments": lambda names: {"t": assignment},
            "get_full_topic_assignments": lambda names: {"t": TopicAssignment(assignment)},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": lambda tps: {tp: states[tp] for tp in tps if tp in states},
            "get_isr_change_notifications": [],
            "get_topic_deletions": [],
            "get_preferred_replica_election": None,
            "get_log_dir_event_notifications": [],
        }
    )
    reactor = MemoryReactorClock()
    controller = controller_on(zk, reactor)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert controller.active
    queued_before = len(controller.channels.channels[1].queue)

    live.append(broker(2))
    zk.watches["/brokers/ids"]([0, 1, 2])
    reactor.advance(FIRST_BATCH_WAIT_S)

    to_new = [(api_key, body) for api_key, _, body, _ in controller.channels.channels[2].queue]
    assert [api_key for api_key, _ in to_new][:2] == [UPDATE_METADATA, LEADER_AND_ISR]
    first = to_new[0][1]
    assert sorted(b["id"] for b in first["live_brokers"]) == [0, 1, 2]
    assert sorted(
        (topic["topic_name"], state["partition_index"])
        for topic in first["topic_states"]
        for state in topic["partition_states"]
    ) == [("t", 0), ("t", 1)]
    # The broker already running learns of broker 2 before any LeaderAndIsr of this change.
    to_old = [(api_key, body) for api_key, _, body, _ in list(controller.channels.channels[1].queue)[queued_before:]]
    assert to_old[0][0] == UPDATE_METADATA
    assert sorted(b["id"] for b in to_old[0][1]["live_brokers"]) == [0, 1, 2]


def test_a_new_controller_sends_the_live_brokers_before_any_leader_and_isr():
    assignment = {0: [1, 0]}
    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": [broker(0), broker(1)],
            "get_topics": ["t"],
            "get_topic_assignments": lambda names: {"t": assignment},
            "get_full_topic_assignments": lambda names: {"t": TopicAssignment(assignment)},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": lambda tps: {("t", 0): LeaderIsrAndControllerEpoch(1, 3, [1, 0], 2, 4)},
            "get_isr_change_notifications": [],
            "get_topic_deletions": [],
            "get_preferred_replica_election": None,
            "get_log_dir_event_notifications": [],
        }
    )
    reactor = MemoryReactorClock()
    controller = controller_on(zk, reactor)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    queued = [(api_key, body) for api_key, _, body, _ in controller.channels.channels[1].queue]
    assert [api_key for api_key, _ in queued][:2] == [UPDATE_METADATA, LEADER_AND_ISR]
    assert sorted(b["id"] for b in queued[0][1]["live_brokers"]) == [0, 1]
    assert queued[0][1]["topic_states"] == []
