"""A (re)started broker hears of the cluster before it is told its partitions, as Kafka's controller orders it: an
UpdateMetadata naming every live broker to the others, one with every live broker and every partition to the new
broker (its first: a starting broker serves clients once it has one), and only then its LeaderAndIsr. A Kafka broker
refuses to follow a leader its metadata cache does not know is alive."""

from dataclasses import replace

from twisted.internet.testing import MemoryReactorClock

from kafka_zk.controller.state_changes import FIRST_BATCH_WAIT_S
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch, TopicAssignment
from tests.fake_zk import FakeZk
from tests.test_controller_fencing import broker, controller_on

LEADER_AND_ISR, UPDATE_METADATA = 4, 6


def test_a_bounced_broker_gets_the_live_brokers_and_every_partition_before_its_leader_and_isr():
    assignment = {"t": {0: [1, 2], 1: [2, 1]}, "u": {0: [0, 1]}}
    states = {
        ("t", 0): LeaderIsrAndControllerEpoch(1, 3, [1, 2], 2, 4),
        ("t", 1): LeaderIsrAndControllerEpoch(2, 3, [2, 1], 2, 4),
        ("u", 0): LeaderIsrAndControllerEpoch(0, 1, [0, 1], 2, 4),
    }
    live = [broker(0), broker(1), broker(2)]
    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": lambda: list(live),
            "get_topics": list(assignment),
            "get_topic_assignments": lambda names: {name: assignment[name] for name in names},
            "get_full_topic_assignments": lambda names: {name: TopicAssignment(assignment[name]) for name in names},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": lambda tps: {tp: states[tp] for tp in tps if tp in states},
            "update_partition_states": lambda changed, controller_epoch, version: changed,
            "get_isr_change_notifications": [],
            "get_topic_deletions": [],
            "get_preferred_replica_election": None,
        }
    )
    reactor = MemoryReactorClock()
    controller = controller_on(zk, reactor)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert controller.active

    sent = []
    controller.requests.send = lambda batch: sent.extend(batch.requests())
    live[2] = replace(live[2], epoch=live[2].epoch + 10)  # broker 2 restarted: a new registration
    zk.watches["/brokers/ids"]([0, 1, 2])
    reactor.advance(FIRST_BATCH_WAIT_S)

    to_bounced = [(api[0], body) for broker_id, api, body in sent if broker_id == 2]
    kinds = [api_key for api_key, _ in to_bounced]
    assert kinds[:2] == [UPDATE_METADATA, LEADER_AND_ISR], kinds
    first, leader_and_isr = (body for _, body in to_bounced[:2])
    assert sorted(b["id"] for b in first["live_brokers"]) == [0, 1, 2]
    told = {
        (topic["topic_name"], p["partition_index"])
        for topic in first["topic_states"]
        for p in topic["partition_states"]
    }
    assert told == {("t", 0), ("t", 1), ("u", 0)}
    led = {
        (topic["topic_name"], p["partition_index"])
        for topic in leader_and_isr["topic_states"]
        for p in topic["partition_states"]
    }
    assert led == {("t", 0), ("t", 1)}
    told_of_the_bounce = {b for b, api, body in sent if api[0] == UPDATE_METADATA and body["topic_states"] == []}
    assert told_of_the_bounce == {0, 1}


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
