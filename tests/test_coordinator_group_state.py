"""Group state machine, membership bookkeeping, protocol selection, generations and offsets (pure)."""

import struct

import pytest

from kafka_zk.coordinator.group.consumer_protocol import assigned_partitions, subscribed_topics
from kafka_zk.coordinator.group.offsets import CommittedOffset, GroupOffsets, fetch_offsets
from kafka_zk.coordinator.group.state import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    VALID_PREVIOUS_STATES,
    GroupMetadata,
    GroupState,
    IllegalTransition,
    MemberMetadata,
    expired_offsets,
)


def subscription(*topics):
    data = struct.pack(">hi", 0, len(topics))
    for t in topics:
        data += struct.pack(">h", len(t)) + t.encode()
    return data + struct.pack(">i", -1)


def member(mid, protocols=(("range", b"x"),), instance=None, ptype="consumer"):
    return MemberMetadata(mid, instance, "client", "/127.0.0.1", 60000, 10000, ptype, list(protocols))


def test_state_names_are_kafkas():
    assert [str(s) for s in GroupState] == ["Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"]


ALL = list(GroupState)


@pytest.mark.parametrize("source", ALL)
@pytest.mark.parametrize("target", ALL)
def test_every_transition_follows_the_table(source, target):
    group = GroupMetadata("g", source)
    if source in VALID_PREVIOUS_STATES[target]:
        group.transition_to(target, now_ms=5)
        assert group.state is target and group.state_timestamp_ms == 5
    else:
        with pytest.raises(IllegalTransition):
            group.transition_to(target)
        assert group.state is source


def test_table_matches_kafka():
    assert VALID_PREVIOUS_STATES[EMPTY] == {PREPARING_REBALANCE}
    assert VALID_PREVIOUS_STATES[COMPLETING_REBALANCE] == {PREPARING_REBALANCE}
    assert VALID_PREVIOUS_STATES[STABLE] == {COMPLETING_REBALANCE}
    assert VALID_PREVIOUS_STATES[PREPARING_REBALANCE] == {STABLE, COMPLETING_REBALANCE, EMPTY}
    assert VALID_PREVIOUS_STATES[DEAD] == set(GroupState)


def test_first_member_sets_protocol_type_and_leader_and_leader_moves_on_removal():
    group = GroupMetadata("g")
    group.add_member(member("a"))
    group.add_member(member("b"))
    assert group.protocol_type == "consumer" and group.leader_id == "a"
    group.remove_member("a")
    assert group.leader_id == "b"
    group.remove_member("b")
    assert group.leader_id is None and group.size() == 0


def test_protocol_selection_by_votes_among_protocols_all_support():
    group = GroupMetadata("g")
    group.add_member(member("a", [("roundrobin", b""), ("range", b"")]))
    group.add_member(member("b", [("range", b""), ("roundrobin", b"")]))
    group.add_member(member("c", [("range", b""), ("sticky", b"")]))
    assert group.candidate_protocols() == {"range"}
    assert group.select_protocol() == "range"
    group.remove_member("c")
    group.add_member(member("d", [("roundrobin", b""), ("range", b"")]))
    assert group.select_protocol() == "roundrobin"  # two votes against one


def test_supports_protocols_empty_group_takes_anything_non_empty():
    group = GroupMetadata("g")
    assert group.supports_protocols("consumer", ["range"])
    assert not group.supports_protocols("", ["range"])
    assert not group.supports_protocols("consumer", [])
    group.add_member(member("a", [("range", b"")]))
    group.transition_to(PREPARING_REBALANCE)
    assert group.supports_protocols("consumer", ["sticky", "range"])
    assert not group.supports_protocols("consumer", ["sticky"])
    assert not group.supports_protocols("connect", ["range"])


def test_generation_bumps_and_picks_protocol_or_goes_empty():
    group = GroupMetadata("g")
    group.add_member(member("a", [("range", subscription("t1", "t2"))]))
    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation(now_ms=1)
    assert (group.generation_id, group.protocol, group.state) == (1, "range", COMPLETING_REBALANCE)
    assert group.subscribed_topics == {"t1", "t2"} and group.is_subscribed_to("t1")
    group.transition_to(STABLE)
    group.transition_to(PREPARING_REBALANCE)
    group.remove_member("a")
    group.init_next_generation(now_ms=2)
    assert (group.generation_id, group.protocol, group.state) == (2, None, EMPTY)


def test_unparseable_subscription_leaves_topics_unknown():
    group = GroupMetadata("g")
    group.add_member(member("a", [("range", b"\x00")]))
    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation()
    assert group.subscribed_topics is None and not group.is_subscribed_to("t")


def test_static_membership_fencing_and_replacement():
    group = GroupMetadata("g")
    group.add_member(member("old", instance="i1"))
    assert group.has_static_member("i1") and not group.has_static_member(None)
    assert group.is_static_member_fenced("other", "i1")
    assert not group.is_static_member_fenced("old", "i1")
    assert not group.is_static_member_fenced("x", "unknown-instance")
    group.replace_static_member("old", "new", "i1")
    assert group.static_member_id("i1") == "new" and group.leader_id == "new" and not group.has("old")
    assert group.is_static_member_fenced("old", "i1")


def test_member_matches_compares_names_metadata_and_order():
    m = member("a", [("range", b"1"), ("rr", b"2")])
    assert m.matches([("range", b"1"), ("rr", b"2")])
    assert not m.matches([("rr", b"2"), ("range", b"1")])
    assert not m.matches([("range", b"9"), ("rr", b"2")])


def test_consumer_protocol_parsing():
    assert subscribed_topics(subscription("a", "b")) == {"a", "b"}
    assert subscribed_topics(b"\x00") is None
    assignment = struct.pack(">hih", 0, 1, 1) + b"t" + struct.pack(">iii", 2, 0, 3) + struct.pack(">i", -1)
    assert assigned_partitions(assignment) == {"t": [0, 3]}


def test_pending_commits_become_visible_only_after_append():
    offsets = GroupOffsets()
    tp = ("t", 0)
    offsets.prepare([tp])
    assert offsets.get(tp) is None and offsets.has_offsets()
    offsets.on_append(tp, CommittedOffset(5, log_offset=10), succeeded=True)
    assert offsets.get(tp).offset == 5 and not offsets.pending
    offsets.prepare([tp])
    offsets.on_append(tp, CommittedOffset(6, log_offset=11), succeeded=False)
    assert offsets.get(tp).offset == 5
    offsets.prepare([tp, tp])
    offsets.on_append(tp, CommittedOffset(8, log_offset=13), succeeded=True)
    offsets.on_append(tp, CommittedOffset(7, log_offset=12), succeeded=True)  # older append finishes last
    assert offsets.get(tp).offset == 8 and not offsets.pending


def test_expiration_rules_per_group_kind():
    day = 86400000
    simple = GroupMetadata("s")
    simple.offsets.load(("t", 0), CommittedOffset(1, commit_timestamp=0))
    simple.offsets.load(("t", 1), CommittedOffset(1, commit_timestamp=5 * day))
    simple.offsets.load(("t", 2), CommittedOffset(1, commit_timestamp=0, expire_timestamp=10 * day))
    assert sorted(expired_offsets(simple, 7 * day, 7 * day)) == [("t", 0)]
    assert sorted(expired_offsets(simple, 12 * day, 7 * day)) == [("t", 0), ("t", 1), ("t", 2)]

    emptied = GroupMetadata("e")
    emptied.protocol_type = "consumer"
    emptied.state_timestamp_ms = 3 * day  # became empty long after its commits
    emptied.offsets.load(("t", 0), CommittedOffset(1, commit_timestamp=0))
    assert expired_offsets(emptied, 9 * day, 7 * day) == []
    assert expired_offsets(emptied, 10 * day, 7 * day) == [("t", 0)]

    live = GroupMetadata("l")
    live.add_member(member("a", [("range", subscription("kept"))]))
    live.transition_to(PREPARING_REBALANCE)
    live.init_next_generation()
    live.transition_to(STABLE)
    live.offsets.load(("kept", 0), CommittedOffset(1, commit_timestamp=0))
    live.offsets.load(("gone", 0), CommittedOffset(1, commit_timestamp=0))
    assert expired_offsets(live, 8 * day, 7 * day) == [("gone", 0)]


def test_fetch_offsets_all_or_some_and_unknown():
    group = GroupMetadata("g")
    group.offsets.load(("t", 0), CommittedOffset(5, 3, "meta"))
    assert fetch_offsets(group, None) == {("t", 0): (5, 3, "meta")}
    assert fetch_offsets(group, [("t", 1)]) == {("t", 1): (-1, -1, "")}
    assert fetch_offsets(None, [("t", 0)]) == {("t", 0): (-1, -1, "")}
    assert fetch_offsets(None, None) == {}


def test_a_rejoined_member_replaces_a_leader_that_did_not_rejoin():
    group = GroupMetadata("g")
    group.add_member(member("a", instance="static-leader"))
    group.add_member(member("b"))
    assert not group.elect_joined_leader()
    group.get("b").awaiting_join = True
    assert group.elect_joined_leader() and group.leader_id == "b"
    group.get("a").awaiting_join = True
    assert group.elect_joined_leader() and group.leader_id == "b"
