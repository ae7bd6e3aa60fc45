"""Kafka 2.5 error codes of every group API, decided without a reactor."""

import struct

import pytest

from kafka_zk.coordinator.group import decisions as d
from kafka_zk.coordinator.group.decisions import CoordinatorStatus, GroupConfig
from kafka_zk.coordinator.group.state import (
    COMPLETING_REBALANCE,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    GroupMetadata,
    MemberMetadata,
)
from kafka_zk.protocol.errors import Errors

OK = CoordinatorStatus()
CONFIG = GroupConfig()
RANGE = [("range", b"r")]


def subscription(*topics):
    data = struct.pack(">hi", 0, len(topics))
    for t in topics:
        data += struct.pack(">h", len(t)) + t.encode()
    return data + struct.pack(">i", -1)


def group_in(state, members=("a", "b"), instance=None, protocols=RANGE):
    """A group that went through a real rebalance to ``state`` with the given members (first is leader)."""
    group = GroupMetadata("g")
    for i, mid in enumerate(members):
        group.add_member(
            MemberMetadata(mid, instance if i == 0 else None, "c", "/h", 60000, 10000, "consumer", protocols)
        )
    if state is EMPTY:
        return group
    group.transition_to(PREPARING_REBALANCE)
    if state is PREPARING_REBALANCE:
        return group
    group.init_next_generation()
    if state is STABLE:
        group.transition_to(STABLE)
    return group


def join(
    group,
    member_id="",
    instance=None,
    session=10000,
    ptype="consumer",
    protocols=RANGE,
    version=5,
    status=OK,
    config=CONFIG,
    group_id="g",
):
    return d.decide_join(
        group,
        status,
        config,
        group_id=group_id,
        member_id=member_id,
        group_instance_id=instance,
        session_timeout_ms=session,
        protocol_type=ptype,
        protocols=protocols,
        api_version=version,
    )


# Status checks shared by every API.


@pytest.mark.parametrize("api", ["JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetDelete"])
def test_empty_group_id_is_invalid_for_membership_apis(api):
    assert d.group_status_error("", api, OK) == Errors.INVALID_GROUP_ID


@pytest.mark.parametrize("api", ["OffsetCommit", "OffsetFetch", "DescribeGroups", "DeleteGroups"])
def test_empty_group_id_is_allowed_for_offset_and_admin_apis(api):
    assert d.group_status_error("", api, OK) is None
    assert d.group_status_error(None, api, OK) == Errors.INVALID_GROUP_ID


def test_status_errors_in_kafka_order():
    assert (
        d.group_status_error("g", "JoinGroup", CoordinatorStatus(active=False, loading=True))
        == Errors.COORDINATOR_NOT_AVAILABLE
    )
    assert (
        d.group_status_error("g", "JoinGroup", CoordinatorStatus(loading=True, owned=False))
        == Errors.COORDINATOR_LOAD_IN_PROGRESS
    )
    assert d.group_status_error("g", "JoinGroup", CoordinatorStatus(owned=False)) == Errors.NOT_COORDINATOR


# JoinGroup.


def test_join_invalid_group_id_and_session_timeouts():
    assert join(None, group_id="").error == Errors.INVALID_GROUP_ID
    assert join(None, session=5999).error == Errors.INVALID_SESSION_TIMEOUT
    assert join(None, session=1800001).error == Errors.INVALID_SESSION_TIMEOUT
    assert join(None, session=6000).action == d.CREATE_GROUP
    assert join(None, session=1800000).action == d.CREATE_GROUP
    assert join(None, status=CoordinatorStatus(owned=False)).error == Errors.NOT_COORDINATOR
    assert join(None, status=CoordinatorStatus(loading=True)).error == Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_join_unknown_group_with_member_id_is_unknown_member():
    assert join(None, member_id="ghost").error == Errors.UNKNOWN_MEMBER_ID


def test_join_v4_dynamic_member_needs_member_id_but_v3_and_static_do_not():
    group = group_in(EMPTY, members=())
    assert join(group, version=4).action == d.MEMBER_ID_REQUIRED
    assert join(group, version=7).action == d.MEMBER_ID_REQUIRED
    assert join(group, version=3).action == d.ADD_MEMBER
    assert join(group, version=5, instance="i").action == d.ADD_MEMBER


def test_join_pending_member_is_added():
    group = group_in(EMPTY, members=())
    group.pending_members.add("c-1")
    assert join(group, member_id="c-1").action == d.ADD_MEMBER


def test_join_protocol_type_or_protocols_mismatch_is_inconsistent():
    group = group_in(STABLE)
    assert join(group, ptype="connect").error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert join(group, protocols=[("sticky", b"")]).error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert join(group, member_id="a", ptype="connect").error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert join(group_in(EMPTY, members=()), ptype="").error == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_unknown_member_id_and_unknown_instance():
    group = group_in(STABLE)
    assert join(group, member_id="ghost").error == Errors.UNKNOWN_MEMBER_ID
    assert join(group, member_id="b", instance="never-seen").error == Errors.UNKNOWN_MEMBER_ID


def test_join_static_member_rejoin_and_fencing():
    group = group_in(STABLE, instance="i1")
    assert join(group, instance="i1").action == d.REPLACE_STATIC
    assert join(group, member_id="b", instance="i1").error == Errors.FENCED_INSTANCE_ID
    assert join(group, member_id="a", instance="i1").action == d.REBALANCE  # the leader rejoining


def test_join_known_member_per_state():
    assert join(group_in(PREPARING_REBALANCE), member_id="b").action == d.REBALANCE
    completing = group_in(COMPLETING_REBALANCE)
    assert join(completing, member_id="b").action == d.CURRENT_GENERATION
    assert join(completing, member_id="b", protocols=[("range", b"changed")]).action == d.REBALANCE
    stable = group_in(STABLE)
    assert join(stable, member_id="a").action == d.REBALANCE  # leader forces a rebalance
    assert join(stable, member_id="b").action == d.CURRENT_GENERATION
    assert join(stable, member_id="b", protocols=[("range", b"changed")]).action == d.REBALANCE


def test_join_group_max_size():
    config = GroupConfig(max_size=2)
    group = group_in(STABLE)
    decision = join(group, config=config)
    assert decision.error == Errors.GROUP_MAX_SIZE_REACHED and decision.member_id == ""
    assert join(group, member_id="b", config=config).ok
    over = group_in(PREPARING_REBALANCE, members=("a", "b", "c"))
    over.get("a").awaiting_join = True
    assert join(over, member_id="a", config=config).ok  # already awaiting: kept
    assert join(over, member_id="b", config=config).error == Errors.GROUP_MAX_SIZE_REACHED


# SyncGroup.


def sync(group, member_id="a", generation=1, instance=None, status=OK, group_id="g", **kw):
    return d.decide_sync(
        group,
        status,
        group_id=group_id,
        member_id=member_id,
        group_instance_id=instance,
        generation_id=generation,
        **kw,
    )


def test_sync_errors():
    stable = group_in(STABLE, instance="i1")
    assert sync(None).error == Errors.UNKNOWN_MEMBER_ID
    assert sync(stable, group_id="").error == Errors.INVALID_GROUP_ID
    assert sync(stable, status=CoordinatorStatus(loading=True)).error == Errors.REBALANCE_IN_PROGRESS
    assert sync(stable, member_id="ghost").error == Errors.UNKNOWN_MEMBER_ID
    assert sync(stable, member_id="b", instance="i1").error == Errors.FENCED_INSTANCE_ID
    assert sync(stable, generation=0).error == Errors.ILLEGAL_GENERATION
    assert sync(stable, protocol_type="connect").error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert sync(stable, protocol_name="sticky").error == Errors.INCONSISTENT_GROUP_PROTOCOL
    preparing = group_in(PREPARING_REBALANCE)
    assert sync(preparing, generation=0).error == Errors.REBALANCE_IN_PROGRESS


def test_sync_actions():
    completing = group_in(COMPLETING_REBALANCE)
    assert sync(completing, member_id="a").action == d.LEADER_SYNC
    assert sync(completing, member_id="b").action == d.AWAIT_SYNC
    assert (
        sync(group_in(STABLE), member_id="b", protocol_type="consumer", protocol_name="range").action
        == d.RETURN_ASSIGNMENT
    )


# Heartbeat.


def heartbeat(group, member_id="a", generation=1, instance=None, status=OK, group_id="g"):
    return d.decide_heartbeat(
        group, status, group_id=group_id, member_id=member_id, group_instance_id=instance, generation_id=generation
    )


def test_heartbeat():
    stable = group_in(STABLE, instance="i1")
    assert heartbeat(stable).action == d.RESET_HEARTBEAT and heartbeat(stable).ok
    assert heartbeat(stable, status=CoordinatorStatus(loading=True)).ok  # answered blindly
    assert heartbeat(stable, group_id="").error == Errors.INVALID_GROUP_ID
    assert heartbeat(None).error == Errors.UNKNOWN_MEMBER_ID
    assert heartbeat(stable, member_id="ghost").error == Errors.UNKNOWN_MEMBER_ID
    assert heartbeat(stable, member_id="b", instance="i1").error == Errors.FENCED_INSTANCE_ID
    assert heartbeat(stable, generation=7).error == Errors.ILLEGAL_GENERATION
    completing = heartbeat(group_in(COMPLETING_REBALANCE))
    assert completing.error == Errors.REBALANCE_IN_PROGRESS and completing.action is None
    preparing = heartbeat(group_in(PREPARING_REBALANCE), generation=0)
    assert preparing.error == Errors.REBALANCE_IN_PROGRESS and preparing.action == d.RESET_HEARTBEAT
    assert heartbeat(group_in(EMPTY), generation=0).error == Errors.UNKNOWN_MEMBER_ID
    dead = group_in(STABLE)
    dead.transition_to(d.DEAD)
    assert heartbeat(dead).error == Errors.COORDINATOR_NOT_AVAILABLE


# LeaveGroup.


def test_leave_group_batch():
    group = group_in(STABLE, instance="i1")
    group.pending_members.add("p")
    result = d.decide_leave(
        group, OK, group_id="g", leaving=[("b", None), ("p", None), ("ghost", None), ("", "i1"), ("zzz", "i1")]
    )
    assert result.error == Errors.NONE
    assert [(m.error, m.action, m.member_id) for m in result.members] == [
        (Errors.NONE, d.REMOVE_MEMBER, "b"),
        (Errors.NONE, d.REMOVE_PENDING, "p"),
        (Errors.UNKNOWN_MEMBER_ID, None, "ghost"),
        (Errors.NONE, d.REMOVE_MEMBER, "a"),
        (Errors.FENCED_INSTANCE_ID, None, "zzz"),
    ]
    unknown = d.decide_leave(None, OK, group_id="g", leaving=[("x", None)])
    assert unknown.error == Errors.NONE and unknown.members[0].error == Errors.UNKNOWN_MEMBER_ID
    assert d.decide_leave(group, OK, group_id="", leaving=[("b", None)]).error == Errors.INVALID_GROUP_ID
    assert (
        d.decide_leave(group, CoordinatorStatus(owned=False), group_id="g", leaving=[]).error == Errors.NOT_COORDINATOR
    )


# OffsetCommit / OffsetFetch.


def commit(group, member_id="a", generation=1, instance=None, status=OK, group_id="g"):
    return d.decide_commit(
        group, status, group_id=group_id, member_id=member_id, group_instance_id=instance, generation_id=generation
    )


def test_commit_simple_and_generation_checks():
    assert commit(None, member_id="", generation=-1).action == d.CREATE_GROUP
    assert commit(None, member_id="", generation=-1, group_id="").action == d.CREATE_GROUP
    assert commit(None, generation=3).error == Errors.ILLEGAL_GENERATION
    assert commit(group_in(EMPTY, members=()), member_id="", generation=-1).action == d.STORE_OFFSETS
    stable = group_in(STABLE, instance="i1")
    assert commit(stable, member_id="", generation=-1).error == Errors.UNKNOWN_MEMBER_ID
    assert commit(stable).action == d.STORE_OFFSETS
    assert commit(stable, member_id="ghost").error == Errors.UNKNOWN_MEMBER_ID
    assert commit(stable, generation=0).error == Errors.ILLEGAL_GENERATION
    assert commit(stable, member_id="b", instance="i1").error == Errors.FENCED_INSTANCE_ID
    assert commit(group_in(COMPLETING_REBALANCE)).error == Errors.REBALANCE_IN_PROGRESS
    assert commit(group_in(PREPARING_REBALANCE), generation=0).action == d.STORE_OFFSETS
    assert commit(stable, status=CoordinatorStatus(loading=True)).error == Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_offset_metadata_size_limit_counts_utf16_units():
    assert not d.metadata_too_large("x" * 4096, CONFIG)
    assert d.metadata_too_large("x" * 4097, CONFIG)
    assert not d.metadata_too_large("\u00e9" * 4096, CONFIG)  # 2 UTF-8 bytes but one Java char
    assert not d.metadata_too_large(None, CONFIG)


def test_append_error_mapping():
    assert d.commit_append_error(Errors.NOT_ENOUGH_REPLICAS) == Errors.COORDINATOR_NOT_AVAILABLE
    assert d.commit_append_error(Errors.NOT_LEADER_FOR_PARTITION) == Errors.NOT_COORDINATOR
    assert d.commit_append_error(Errors.RECORD_LIST_TOO_LARGE) == Errors.INVALID_COMMIT_OFFSET_SIZE
    assert d.commit_append_error(Errors.CORRUPT_MESSAGE) == Errors.CORRUPT_MESSAGE
    assert d.group_append_error(Errors.MESSAGE_TOO_LARGE) == Errors.UNKNOWN_SERVER_ERROR


def test_a_timed_out_group_write_asks_for_a_rebalance_and_a_timed_out_commit_says_so():
    # Kafka 2.5.1's storeGroup answers REBALANCE_IN_PROGRESS when its acks=all append times out; storeOffsets passes
    # REQUEST_TIMED_OUT on, which the Java consumer retries.
    assert d.group_append_error(Errors.REQUEST_TIMED_OUT) == Errors.REBALANCE_IN_PROGRESS
    assert d.commit_append_error(Errors.REQUEST_TIMED_OUT) == Errors.REQUEST_TIMED_OUT


def test_fetch_offsets_status():
    assert d.decide_fetch_offsets(OK, group_id="") is None
    assert d.decide_fetch_offsets(CoordinatorStatus(loading=True), group_id="g") == Errors.COORDINATOR_LOAD_IN_PROGRESS


# DescribeGroups / ListGroups.


def test_describe_groups():
    error, summary = d.describe_group(None, OK, group_id="g")
    assert error == Errors.NONE and summary.state == "Dead" and summary.members == []
    error, summary = d.describe_group(None, CoordinatorStatus(owned=False), group_id="g")
    assert error == Errors.NOT_COORDINATOR and summary.state == ""
    stable = group_in(STABLE)
    stable.get("a").assignment = b"A"
    error, summary = d.describe_group(stable, OK, group_id="g")
    assert (summary.state, summary.protocol_type, summary.protocol) == ("Stable", "consumer", "range")
    assert summary.members[0] == ("a", None, "c", "/h", b"r", b"A")
    _, summary = d.describe_group(group_in(PREPARING_REBALANCE), OK, group_id="g")
    assert summary.state == "PreparingRebalance" and summary.protocol == ""
    assert summary.members[0][4:] == (b"", b"")


def test_list_groups_error():
    assert d.list_groups_error(False, False) == Errors.COORDINATOR_NOT_AVAILABLE
    assert d.list_groups_error(True, True) == Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert d.list_groups_error(True, False) == Errors.NONE


# DeleteGroups / OffsetDelete.


def test_delete_groups():
    assert d.decide_delete_group(group_in(EMPTY, members=()), OK, group_id="g").action == d.DELETE_GROUP
    assert d.decide_delete_group(group_in(STABLE), OK, group_id="g").error == Errors.NON_EMPTY_GROUP
    assert d.decide_delete_group(None, OK, group_id="g").error == Errors.GROUP_ID_NOT_FOUND
    assert d.decide_delete_group(None, OK, group_id="g", group_not_exists=False).error == Errors.NOT_COORDINATOR
    assert (
        d.decide_delete_group(None, CoordinatorStatus(active=False), group_id="g").error
        == Errors.COORDINATOR_NOT_AVAILABLE
    )


def test_offset_delete():
    parts = [("sub", 0), ("other", 1)]
    assert d.decide_offset_delete(None, OK, group_id="g", partitions=parts)[0] == Errors.GROUP_ID_NOT_FOUND
    assert d.decide_offset_delete(group_in(EMPTY, members=()), OK, group_id="g", partitions=parts) == (
        Errors.NONE,
        {},
        parts,
    )
    live = group_in(STABLE, protocols=[("range", subscription("sub"))])
    error, errors, eligible = d.decide_offset_delete(live, OK, group_id="g", partitions=parts)
    assert error == Errors.NONE and errors == {("sub", 0): Errors.GROUP_SUBSCRIBED_TO_TOPIC}
    assert eligible == [("other", 1)]
    connect = GroupMetadata("g")
    connect.add_member(MemberMetadata("w", None, "c", "/h", 60000, 10000, "connect", [("default", b"")]))
    connect.transition_to(PREPARING_REBALANCE)
    assert d.decide_offset_delete(connect, OK, group_id="g", partitions=parts)[0] == Errors.NON_EMPTY_GROUP
    assert d.decide_offset_delete(None, OK, group_id="", partitions=parts)[0] == Errors.INVALID_GROUP_ID


def test_group_config_from_broker_defaults():
    from kafka_zk.server.config.kafka_config import KafkaConfig

    assert d.group_config_from(KafkaConfig({"zookeeper.connect": "localhost:2181"})) == GroupConfig()
    tuned = KafkaConfig(
        {
            "zookeeper.connect": "z:2181",
            "group.max.size": "3",
            "offset.metadata.max.bytes": "10",
            "group.min.session.timeout.ms": "1000",
        }
    )
    assert d.group_config_from(tuned) == GroupConfig(min_session_timeout_ms=1000, max_size=3, max_metadata_bytes=10)
