"""When the controller checks the leaders' balance, as Kafka 2.5's does: 5 s after it takes over, then
leader.imbalance.check.interval.seconds after each check, and never after it resigns."""

from twisted.internet.testing import MemoryReactorClock

from kafka_zk.controller.leader_elections import FIRST_REBALANCE_CHECK_SECONDS
from kafka_zk.controller.state_changes import FIRST_BATCH_WAIT_S
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch, TopicAssignment
from tests.fake_zk import FakeZk
from tests.test_controller_fencing import broker, controller_on

INTERVAL_S = 300  # leader.imbalance.check.interval.seconds' default


def imbalanced_cluster():
    """Broker 1 prefers t-0 and t-1 but leads neither, and is in both ISRs: the next check moves them back."""
    assignment = {"t": {0: [1, 0], 1: [1, 2]}}
    states = {
        ("t", 0): LeaderIsrAndControllerEpoch(0, 3, [0, 1], 2, 4),
        ("t", 1): LeaderIsrAndControllerEpoch(2, 3, [2, 1], 2, 4),
    }
    elected = []

    def update_partition_states(changed, controller_epoch, version):
        elected.extend((tp, state.leader) for tp, state in sorted(changed.items()))
        states.update(changed)
        return changed

    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": [broker(0), broker(1), broker(2)],
            "get_topics": list(assignment),
            "get_topic_assignments": lambda names: {name: assignment[name] for name in names},
            "get_full_topic_assignments": lambda names: {name: TopicAssignment(assignment[name]) for name in names},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": lambda tps: {tp: states[tp] for tp in tps if tp in states},
            "update_partition_states": update_partition_states,
            "get_isr_change_notifications": [],
            "get_topic_deletions": [],
            "get_preferred_replica_election": None,
        }
    )
    return zk, states, elected


def become_controller():
    zk, states, elected = imbalanced_cluster()
    reactor = MemoryReactorClock()
    controller = controller_on(zk, reactor)
    controller.requests.send = lambda batch: None
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)
    assert controller.active
    return controller, reactor, states, elected


def test_the_first_check_comes_five_seconds_after_taking_over():
    controller, reactor, states, elected = become_controller()
    reactor.advance(FIRST_REBALANCE_CHECK_SECONDS - FIRST_BATCH_WAIT_S - 0.1)
    assert elected == []
    reactor.advance(0.2)
    assert elected == [(("t", 0), 1), (("t", 1), 1)]
    assert states[("t", 0)].leader == states[("t", 1)].leader == 1


def test_later_checks_follow_the_interval_after_each_check():
    controller, reactor, states, elected = become_controller()
    reactor.advance(FIRST_REBALANCE_CHECK_SECONDS)
    assert len(elected) == 2
    states[("t", 0)] = LeaderIsrAndControllerEpoch(0, 5, [0, 1], 2, 6)  # leadership moved off 1 again
    controller.context.leadership[("t", 0)] = states[("t", 0)]
    reactor.advance(INTERVAL_S - 1)
    assert len(elected) == 2
    reactor.advance(1)
    assert elected[2:] == [(("t", 0), 1)]


def test_a_resigned_controller_checks_no_more():
    controller, reactor, states, elected = become_controller()
    controller._resign()
    reactor.advance(FIRST_REBALANCE_CHECK_SECONDS + INTERVAL_S)
    assert elected == []
