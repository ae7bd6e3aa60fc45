import random

import pytest

from kafka_zk.controller import election
from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.assignment import (
    InvalidPartitionsError,
    InvalidReplicationFactorError,
    assign_replicas,
    parse_replica_assignment,
)
from kafka_zk.controller.context import ControllerContext, LeaderIsr, LiveBroker
from kafka_zk.controller.leadership import elect, initial_leadership, remove_replica_from_isr


def test_assignment_spreads_leaders_and_followers_like_kafka():
    # Kafka's documented example: 5 brokers, 10 partitions, RF 3, start index 0.
    assignment = assign_replicas(10, 3, [0, 1, 2, 3, 4], start_index=0)
    assert assignment[0] == [0, 1, 2]
    assert assignment[1] == [1, 2, 3]
    assert assignment[4] == [4, 0, 1]
    assert assignment[5] == [0, 2, 3]
    assert assignment[9] == [4, 1, 2]
    leaders = [replicas[0] for replicas in assignment.values()]
    assert sorted(leaders) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_assignment_random_start_is_balanced_and_valid():
    assignment = assign_replicas(6, 1, [3, 1, 2], rng=random.Random(7))
    assert sorted(assignment) == list(range(6))
    assert sorted(r[0] for r in assignment.values()) == [1, 1, 2, 2, 3, 3]


def test_assignment_errors():
    with pytest.raises(InvalidReplicationFactorError, match="larger than available brokers: 2"):
        assign_replicas(1, 3, [0, 1])
    with pytest.raises(InvalidPartitionsError):
        assign_replicas(0, 1, [0])
    assert parse_replica_assignment("1:2,2:1") == {0: [1, 2], 1: [2, 1]}
    with pytest.raises(InvalidPartitionsError):
        parse_replica_assignment("1:1")
    with pytest.raises(InvalidReplicationFactorError):
        parse_replica_assignment("1:2,3")


def test_elections():
    live = {1, 2, 3}
    assert election.offline_partition_leader([1, 2, 3], [2, 3], live, False) == (2, [2, 3])
    assert election.offline_partition_leader([4, 1], [4], live, False).leader is None
    assert election.offline_partition_leader([4, 1], [4], live, True) == (1, [1])
    assert election.preferred_replica_leader([3, 1], [1, 3], live) == (3, [1, 3])
    assert election.preferred_replica_leader([4, 1], [1, 4], live).leader is None
    assert election.controlled_shutdown_leader([1, 2], [1, 2], live, {1}) == (2, [2])
    assert election.reassign_partition_leader([3, 2], [2, 3], live).leader == 3


def _context(live=(1, 2, 3)):
    context = ControllerContext()
    context.epoch = 4
    for broker in live:
        context.live_brokers[broker] = LiveBroker(broker, 100 + broker, None)
    return context


def test_initial_and_offline_leadership():
    context = _context(live=(2, 3))
    context.assignments = {("t", 0): [1, 2, 3], ("t", 1): [1]}
    decided, failed = initial_leadership(context, [("t", 0), ("t", 1)])
    assert decided[("t", 0)] == LeaderIsr(2, 0, [2, 3], 4, -1)
    assert failed == [("t", 1)]
    context.leadership[("t", 0)] = LeaderIsr(1, 5, [1, 2], 3, 7)
    decided, failed = elect(context, [("t", 0)], "offline")
    assert decided[("t", 0)] == LeaderIsr(2, 6, [2], 4, 7)


def test_remove_replica_from_isr_keeps_last_member():
    current = LeaderIsr(1, 2, [1], 1, 5)
    assert remove_replica_from_isr(current, 1, 3) == LeaderIsr(-1, 3, [1], 3, 5)
    current = LeaderIsr(1, 2, [1, 2], 1, 5)
    assert remove_replica_from_isr(current, 2, 3) == LeaderIsr(1, 3, [1], 3, 5)
    assert remove_replica_from_isr(current, 9, 3) is None


def test_state_machine_tables_reject_invalid_transitions():
    context = _context()
    tp = ("t", 0)
    with pytest.raises(sm.IllegalStateTransition):
        sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
    sm.set_partition_state(context, tp, sm.NEW_PARTITION)
    sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
    sm.set_partition_state(context, tp, sm.OFFLINE_PARTITION)
    sm.set_partition_state(context, tp, sm.NON_EXISTENT_PARTITION)
    assert sm.partition_state(context, tp) == sm.NON_EXISTENT_PARTITION
    with pytest.raises(sm.IllegalStateTransition):
        sm.set_replica_state(context, tp, 1, sm.REPLICA_DELETION_STARTED)
    sm.set_replica_state(context, tp, 1, sm.NEW_REPLICA)
    sm.set_replica_state(context, tp, 1, sm.OFFLINE_REPLICA)
    sm.set_replica_state(context, tp, 1, sm.REPLICA_DELETION_STARTED)
    valid, invalid = sm.valid_replica_transitions(context, [(tp, 1), (tp, 2)], sm.REPLICA_DELETION_SUCCESSFUL)
    assert valid == [(tp, 1)] and invalid == [(tp, 2)]


def test_imbalance_picks_partitions_whose_preferred_leader_is_back_in_sync():
    from kafka_zk.controller.leader_elections import imbalanced_partitions

    context = _context(live=(1, 2, 3))
    for index in range(4):
        tp = ("t", index)
        context.assignments[tp] = [1, 2, 3] if index < 2 else [2, 3, 1]
    context.leadership[("t", 0)] = LeaderIsr(2, 1, [1, 2, 3], 4, 0)  # preferred 1 is in the ISR
    context.leadership[("t", 1)] = LeaderIsr(2, 1, [2, 3], 4, 0)  # preferred 1 is not
    context.leadership[("t", 2)] = LeaderIsr(2, 0, [1, 2, 3], 4, 0)
    context.leadership[("t", 3)] = LeaderIsr(2, 0, [1, 2, 3], 4, 0)
    assert imbalanced_partitions(context, 0.1) == [("t", 0)]
    assert imbalanced_partitions(context, 1.0) == []
