"""Rack-aware replica assignment (KIP-36): Kafka's expected outputs, its distribution properties, the modes."""

import itertools
import random
from collections import Counter

import pytest

from kafka_zk.controller.assignment import (
    IncompleteRackInformationError,
    InvalidReplicationFactorError,
    RackAwareMode,
    assign_replicas,
    growth_start_index,
    rack_alternated,
    racks_under,
)

KIP_EXAMPLE = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
SIX_ON_THREE = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}


def check_distribution(
    assignment, racks, partitions, replication_factor, rack_aware=True, even_leaders=True, even_replicas=True
):
    """Kafka's RackAwareTest.checkReplicaDistribution, over our output."""
    assert len(assignment) == partitions
    for replicas in assignment.values():
        assert len(replicas) == replication_factor and len(set(replicas)) == replication_factor
    if rack_aware:
        assert all(len({racks[b] for b in replicas}) == replication_factor for replicas in assignment.values())
    if even_leaders:
        leaders = Counter(replicas[0] for replicas in assignment.values())
        assert [leaders[b] for b in racks] == [partitions // len(racks)] * len(racks)
    if even_replicas:
        counts = Counter(b for replicas in assignment.values() for b in replicas)
        assert [counts[b] for b in racks] == [partitions * replication_factor // len(racks)] * len(racks)


# -- Kafka's own expected outputs (AdminUtils' documentation and AdminRackAwareTest) ---------------------


def test_rack_alternated_list_takes_one_broker_of_each_rack_in_turn():
    assert rack_alternated(KIP_EXAMPLE) == [0, 3, 1, 5, 4, 2]
    assert rack_alternated({b: r for b, r in KIP_EXAMPLE.items() if b != 5}) == [0, 3, 1, 4, 2]
    assert rack_alternated({b: "rack%d" % (b // 3) for b in range(9)}) == [0, 3, 6, 1, 4, 7, 2, 5, 8]


def test_kafka_documented_rack_aware_assignment():
    assignment = assign_replicas(7, 3, KIP_EXAMPLE, start_index=0, start_partition=0)
    assert assignment == {
        0: [0, 3, 1],
        1: [3, 1, 5],
        2: [1, 5, 4],
        3: [5, 4, 2],
        4: [4, 2, 0],
        5: [2, 0, 3],
        6: [0, 4, 2],
    }  # partition 6 shifts its followers instead of repeating partition 0


def test_rack_unaware_assignment_is_unchanged():
    # Kafka's AdminTest: 5 brokers without racks, 10 partitions, RF 3, fixed start 0.
    expected = {
        0: [0, 1, 2],
        1: [1, 2, 3],
        2: [2, 3, 4],
        3: [3, 4, 0],
        4: [4, 0, 1],
        5: [0, 2, 3],
        6: [1, 3, 4],
        7: [2, 4, 0],
        8: [3, 0, 1],
        9: [4, 1, 2],
    }
    assert assign_replicas(10, 3, [0, 1, 2, 3, 4], start_index=0) == expected
    assert assign_replicas(10, 3, dict.fromkeys([4, 2, 0, 3, 1]), start_index=0) == expected


@pytest.mark.parametrize("start", [2, None])
def test_six_brokers_three_racks_even(start):
    for seed in range(20):
        assignment = assign_replicas(6, 3, SIX_ON_THREE, start_index=start, rng=random.Random(seed))
        check_distribution(assignment, SIX_ON_THREE, 6, 3)


def test_uneven_replicas_stay_rack_aware():
    check_distribution(
        assign_replicas(13, 3, SIX_ON_THREE, start_index=0, start_partition=0),
        SIX_ON_THREE,
        13,
        3,
        even_leaders=False,
        even_replicas=False,
    )


def test_uneven_racks_stay_rack_aware_with_even_leaders():
    racks = {0: "rack1", 1: "rack1", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}
    for seed in range(20):
        check_distribution(assign_replicas(12, 3, racks, rng=random.Random(seed)), racks, 12, 3, even_replicas=False)


@pytest.mark.parametrize("partitions", [6, 12])
def test_two_replicas_over_three_racks(partitions):
    for seed in range(20):
        check_distribution(
            assign_replicas(partitions, 2, SIX_ON_THREE, rng=random.Random(seed)), SIX_ON_THREE, partitions, 2
        )


def test_expansion_from_a_later_partition_and_higher_broker_ids():
    racks = {6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack3", 11: "rack1"}
    for seed in range(20):
        assignment = assign_replicas(12, 2, racks, start_partition=12, rng=random.Random(seed))
        assert sorted(assignment) == list(range(12, 24))
        check_distribution(assignment, racks, 12, 2)


def test_three_brokers_three_racks_two_replicas():
    racks = {0: "rack1", 1: "rack2", 4: "rack3"}
    for seed in range(20):
        check_distribution(assign_replicas(3, 2, racks, rng=random.Random(seed)), racks, 3, 2)


def test_large_number_of_partitions():
    racks = {
        0: "rack1",
        1: "rack2",
        2: "rack2",
        3: "rack3",
        4: "rack3",
        5: "rack1",
        6: "rack1",
        7: "rack2",
        8: "rack2",
        9: "rack3",
        10: "rack1",
        11: "rack3",
    }
    for seed in range(10):
        check_distribution(assign_replicas(96, 3, racks, rng=random.Random(seed)), racks, 96, 3)


def test_more_replicas_than_racks_cover_every_rack():
    racks = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"}
    for seed in range(20):
        assignment = assign_replicas(6, 5, racks, rng=random.Random(seed))
        assert all(len(set(replicas)) == 5 for replicas in assignment.values())
        assert all(len({racks[b] for b in replicas}) == 3 for replicas in assignment.values())


def test_fewer_replicas_than_racks_use_distinct_racks():
    racks = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"}
    for seed in range(20):
        assignment = assign_replicas(6, 2, racks, rng=random.Random(seed))
        assert all(len({racks[b] for b in replicas}) == 2 for replicas in assignment.values())


def test_single_rack_spreads_leaders_like_the_unaware_assignment():
    racks = dict.fromkeys(range(6), "rack1")
    for seed in range(10):
        assignment = assign_replicas(6, 3, racks, rng=random.Random(seed))
        assert all(len(set(replicas)) == 3 for replicas in assignment.values())
        assert Counter(replicas[0] for replicas in assignment.values()) == Counter(range(6))
        assert assignment == assign_replicas(6, 3, range(6), rng=random.Random(seed))


def test_a_broker_already_holding_a_replica_is_skipped():
    racks = {0: "a", 1: "b", 2: "c", 3: "a", 4: "a"}
    assignment = assign_replicas(6, 4, racks, start_index=2)
    assert all(len(set(replicas)) == 4 for replicas in assignment.values())
    assert all({racks[b] for b in replicas} == {"a", "b", "c"} for replicas in assignment.values())


# -- properties over many shapes ----------------------------------------------------------------------


def _rack_layouts():
    """(racks) for 1..9 brokers over 1..4 racks: round-robin, blocks, and a lopsided one."""
    for brokers, rack_count in itertools.product(range(1, 10), range(1, 5)):
        if rack_count > brokers:
            continue
        yield {b: "r%d" % (b % rack_count) for b in range(brokers)}
        yield {b * 3 + 1: "r%d" % (b * rack_count // brokers) for b in range(brokers)}
        yield {b: "r0" if b < brokers - rack_count + 1 else "r%d" % (b - brokers + rack_count) for b in range(brokers)}


def test_properties_hold_for_many_brokers_racks_partitions_and_factors():
    checked = 0
    for racks in _rack_layouts():
        rack_count = len(set(racks.values()))
        for factor in range(1, len(racks) + 1):
            for partitions, start_partition in ((1, 0), (7, 0), (len(racks) * 3, 0), (5, 11)):
                for start in range(len(racks)):
                    assignment = assign_replicas(
                        partitions, factor, racks, start_index=start, start_partition=start_partition
                    )
                    assert sorted(assignment) == list(range(start_partition, start_partition + partitions))
                    for replicas in assignment.values():
                        assert len(replicas) == factor and len(set(replicas)) == factor
                        assert set(replicas) <= set(racks)
                        # one replica per rack until every rack holds one
                        assert len({racks[b] for b in replicas}) == min(factor, rack_count)
                    # leaders go round-robin over all brokers: no broker leads more than one more than another
                    leaders = Counter(replicas[0] for replicas in assignment.values())
                    counts = [leaders[b] for b in racks]
                    assert max(counts) - min(counts) <= 1
                    checked += 1
    assert checked > 2000


class Draws:
    """An rng answering randrange with the given values, remembering the bounds it was asked for."""

    def __init__(self, *values):
        self.values = list(values)
        self.bounds = []

    def randrange(self, bound):
        self.bounds.append(bound)
        return self.values.pop(0)


def test_random_start_and_shift_come_from_the_rng():
    draws = Draws(4, 1)
    assignment = assign_replicas(6, 3, KIP_EXAMPLE, rng=draws)
    assert draws.bounds == [6, 6]  # a start and a shift, both over the brokers, as Kafka draws them
    assert [replicas[0] for replicas in assignment.values()] == [4, 2, 0, 3, 1, 5]
    assert assign_replicas(6, 3, KIP_EXAMPLE, rng=Draws(4, 4)) == assign_replicas(6, 3, KIP_EXAMPLE, start_index=4)


# -- racks missing and the modes ----------------------------------------------------------------------

PARTIAL = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack1", 4: None, 5: "rack3"}  # Kafka's AdminZkClientTest


def test_assignment_refuses_brokers_of_which_only_some_have_racks():
    with pytest.raises(IncompleteRackInformationError) as refused:
        assign_replicas(3, 2, PARTIAL)
    assert str(refused.value) == "Not all brokers have rack information for replica rack aware assignment."
    with pytest.raises(InvalidReplicationFactorError):  # the replication factor is checked first, as in Kafka
        assign_replicas(3, 7, PARTIAL)


def test_modes_over_partial_racks():
    with pytest.raises(IncompleteRackInformationError) as refused:
        racks_under(RackAwareMode.ENFORCED, PARTIAL)
    assert str(refused.value) == (
        "Not all brokers have rack information. Add --disable-rack-aware in command line "
        "to make replica assignment without rack information."
    )
    assert racks_under(RackAwareMode.SAFE, PARTIAL) == dict.fromkeys(range(6))
    assert racks_under(RackAwareMode.DISABLED, PARTIAL) == dict.fromkeys(range(6))
    unaware = assign_replicas(12, 3, racks_under(RackAwareMode.SAFE, PARTIAL), start_index=1)
    assert unaware == assign_replicas(12, 3, range(6), start_index=1)


def test_modes_over_complete_and_missing_racks():
    for mode in (RackAwareMode.ENFORCED, RackAwareMode.SAFE):
        assert racks_under(mode, SIX_ON_THREE) == SIX_ON_THREE
        assert racks_under(mode, dict.fromkeys(range(3))) == dict.fromkeys(range(3))
    assert racks_under(RackAwareMode.DISABLED, SIX_ON_THREE) == dict.fromkeys(range(6))
    # disabling racks changes the assignment: brokers 0 and 5 share rack1 and do meet in a partition
    unaware = assign_replicas(6, 3, racks_under(RackAwareMode.DISABLED, SIX_ON_THREE), start_index=0)
    assert any(len({SIX_ON_THREE[b] for b in replicas}) < 3 for replicas in unaware.values())


def test_growth_starts_at_partition_zeros_first_replica_among_the_sorted_ids():
    assert growth_start_index([3, 1, 2], 2) == 1
    assert growth_start_index([0, 2, 4], 3) == 2  # that broker is gone: the next id up
    assert growth_start_index([0, 2, 4], 9) == 0  # nothing at or after it
    assert growth_start_index([5, 6, 7], 5) == 0
