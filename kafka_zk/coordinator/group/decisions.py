"""Kafka 2.5 group coordinator decisions as pure functions: which error (or which action) a request gets.

Each function looks at a GroupMetadata (or None when the group is unknown) and the request's fields and
returns a Decision; the reactor shell performs the action (add a member, start a rebalance, append to the
log) and answers. Nothing here mutates a group.
"""

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, TypeAlias

from kafka_zk.coordinator.group.offsets import TopicPartition
from kafka_zk.coordinator.group.state import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    UNKNOWN_MEMBER_ID,
    GroupMetadata,
)
from kafka_zk.protocol.errors import Errors

# APIs that accept an empty group id (backward compatibility: offsets of "" and describing/deleting it).
EMPTY_GROUP_ID_ALLOWED = frozenset({"OffsetCommit", "OffsetFetch", "DescribeGroups", "DeleteGroups"})


@dataclass(frozen=True)
class GroupConfig:
    """group.* and offset.metadata.max.bytes settings the decisions depend on (Kafka 2.5 defaults)."""

    min_session_timeout_ms: int = 6000
    max_session_timeout_ms: int = 1800000
    max_size: int = 2147483647
    initial_rebalance_delay_ms: int = 3000
    max_metadata_bytes: int = 4096


@dataclass(frozen=True)
class CoordinatorStatus:
    """What the coordinator knows about a group's offsets partition."""

    active: bool = True  # the coordinator has started and not shut down
    loading: bool = False  # the group's partition is being loaded
    owned: bool = True  # this broker leads the group's partition


@dataclass
class Decision:
    """An error to answer with, or (error NONE) an action for the shell to carry out."""

    error: Errors = Errors.NONE
    action: Optional[str] = None
    member_id: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error == Errors.NONE


def fail(error: Errors, member_id: str | None = None) -> Decision:
    return Decision(error=error, member_id=member_id)


def act(action: str, member_id: str | None = None) -> Decision:
    return Decision(action=action, member_id=member_id)


# Actions.
CREATE_GROUP = "create_group"  # JoinGroup: unknown group, unknown member: create it, then join
ADD_MEMBER = "add_member"  # add a new member and (maybe) rebalance
MEMBER_ID_REQUIRED = "member_id_required"  # park a pending member id, answer MEMBER_ID_REQUIRED
REPLACE_STATIC = "replace_static_member"  # a known group.instance.id rejoins without member id
REBALANCE = "update_member_and_rebalance"  # known member: update its protocols, maybe rebalance
CURRENT_GENERATION = "current_generation"  # answer the current generation without a rebalance
AWAIT_SYNC = "await_sync"  # park SyncGroup until the leader's assignment is stored
LEADER_SYNC = "leader_sync"  # leader's SyncGroup: store the assignment, go Stable
RETURN_ASSIGNMENT = "return_assignment"  # Stable: return the member's assignment
RESET_HEARTBEAT = "reset_heartbeat"
REMOVE_PENDING = "remove_pending_member"
REMOVE_MEMBER = "remove_member"
STORE_OFFSETS = "store_offsets"
DELETE_GROUP = "delete_group"


def valid_group_id(group_id: str | None, api: str) -> bool:
    if group_id is None:
        return False
    return api in EMPTY_GROUP_ID_ALLOWED or group_id != ""


def group_status_error(group_id: str | None, api: str, status: CoordinatorStatus) -> Errors | None:
    """Kafka's validateGroupStatus: INVALID_GROUP_ID, COORDINATOR_NOT_AVAILABLE, _LOAD_IN_PROGRESS, NOT_COORDINATOR."""
    if not valid_group_id(group_id, api):
        return Errors.INVALID_GROUP_ID
    if not status.active:
        return Errors.COORDINATOR_NOT_AVAILABLE
    if status.loading:
        return Errors.COORDINATOR_LOAD_IN_PROGRESS
    if not status.owned:
        return Errors.NOT_COORDINATOR
    return None


# JoinGroup.


def requires_known_member_id(api_version: int, group_instance_id: str | None) -> bool:
    """JoinGroup v4+ dynamic members must first obtain a member id (KIP-394)."""
    return api_version >= 4 and group_instance_id is None


def decide_join(
    group: GroupMetadata | None,
    status: CoordinatorStatus,
    config: GroupConfig,
    *,
    group_id: str,
    member_id: str,
    group_instance_id: str | None,
    session_timeout_ms: int,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
    api_version: int,
) -> Decision:
    """The whole JoinGroup decision for ``group`` (None when unknown). ``protocols``: [(name, metadata)]."""
    error = group_status_error(group_id, "JoinGroup", status)
    if error is not None:
        return fail(error, member_id)
    if not config.min_session_timeout_ms <= session_timeout_ms <= config.max_session_timeout_ms:
        return fail(Errors.INVALID_SESSION_TIMEOUT, member_id)
    unknown = member_id == UNKNOWN_MEMBER_ID
    if group is None:
        return act(CREATE_GROUP) if unknown else fail(Errors.UNKNOWN_MEMBER_ID, member_id)
    over = group.over_capacity(config.max_size) and group.has(member_id) and not group.get(member_id).awaiting_join
    if over or (unknown and group.size() >= config.max_size):
        return fail(Errors.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID)
    names = [name for name, _ in protocols]
    if unknown:
        return decide_unknown_member_join(group, group_instance_id, protocol_type, names, api_version)
    return decide_known_member_join(group, member_id, group_instance_id, protocol_type, protocols)


def decide_unknown_member_join(
    group: GroupMetadata,
    group_instance_id: str | None,
    protocol_type: str,
    protocol_names: Iterable[str],
    api_version: int,
) -> Decision:
    if group.is_in(DEAD):
        return fail(Errors.COORDINATOR_NOT_AVAILABLE, UNKNOWN_MEMBER_ID)
    if not group.supports_protocols(protocol_type, protocol_names):
        return fail(Errors.INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID)
    if group.has_static_member(group_instance_id):
        return act(REPLACE_STATIC)
    if requires_known_member_id(api_version, group_instance_id):
        return act(MEMBER_ID_REQUIRED)
    return act(ADD_MEMBER)


def decide_known_member_join(
    group: GroupMetadata,
    member_id: str,
    group_instance_id: str | None,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
) -> Decision:
    names = [name for name, _ in protocols]
    if group.is_in(DEAD):
        return fail(Errors.COORDINATOR_NOT_AVAILABLE, member_id)
    if not group.supports_protocols(protocol_type, names):
        return fail(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id)
    if group.is_pending(member_id):
        return act(ADD_MEMBER, member_id)
    if group.is_static_member_fenced(member_id, group_instance_id):
        return fail(Errors.FENCED_INSTANCE_ID, member_id)
    instance_unknown = group_instance_id is not None and not group.has_static_member(group_instance_id)
    if not group.has(member_id) or instance_unknown:
        return fail(Errors.UNKNOWN_MEMBER_ID, member_id)
    member = group.get(member_id)
    state = group.state
    if state is PREPARING_REBALANCE:
        return act(REBALANCE, member_id)
    if state is COMPLETING_REBALANCE:
        return act(CURRENT_GENERATION if member.matches(protocols) else REBALANCE, member_id)
    if state is STABLE:
        if group.is_leader(member_id) or not member.matches(protocols):
            return act(REBALANCE, member_id)
        return act(CURRENT_GENERATION, member_id)
    return fail(Errors.UNKNOWN_MEMBER_ID, member_id)  # Empty: let the member reset and rejoin


# SyncGroup.


def decide_sync(
    group: GroupMetadata | None,
    status: CoordinatorStatus,
    *,
    group_id: str,
    member_id: str,
    group_instance_id: str | None,
    generation_id: int,
    protocol_type: str | None = None,
    protocol_name: str | None = None,
) -> Decision:
    error = group_status_error(group_id, "SyncGroup", status)
    if error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
        return fail(Errors.REBALANCE_IN_PROGRESS)  # the rebalance state was lost: rejoin
    if error is not None:
        return fail(error)
    if group is None:
        return fail(Errors.UNKNOWN_MEMBER_ID)
    error = member_generation_error(group, member_id, group_instance_id, generation_id)
    if error is not None:
        return fail(error)
    if protocol_type is not None and group.protocol_type != protocol_type:
        return fail(Errors.INCONSISTENT_GROUP_PROTOCOL)
    if protocol_name is not None and group.protocol != protocol_name:
        return fail(Errors.INCONSISTENT_GROUP_PROTOCOL)
    if group.is_in(EMPTY):
        return fail(Errors.UNKNOWN_MEMBER_ID)
    if group.is_in(PREPARING_REBALANCE):
        return fail(Errors.REBALANCE_IN_PROGRESS)
    if group.is_in(COMPLETING_REBALANCE):
        return act(LEADER_SYNC if group.is_leader(member_id) else AWAIT_SYNC, member_id)
    return act(RETURN_ASSIGNMENT, member_id)


def member_generation_error(
    group: GroupMetadata, member_id: str, group_instance_id: str | None, generation_id: int
) -> Errors | None:
    """Dead group, fenced static member, unknown member, wrong generation (in Kafka's order)."""
    if group.is_in(DEAD):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if group.is_static_member_fenced(member_id, group_instance_id):
        return Errors.FENCED_INSTANCE_ID
    if not group.has(member_id):
        return Errors.UNKNOWN_MEMBER_ID
    if generation_id != group.generation_id:
        return Errors.ILLEGAL_GENERATION
    return None


# Heartbeat.


def decide_heartbeat(
    group: GroupMetadata | None,
    status: CoordinatorStatus,
    *,
    group_id: str,
    member_id: str,
    group_instance_id: str | None,
    generation_id: int,
) -> Decision:
    """NONE / REBALANCE_IN_PROGRESS with RESET_HEARTBEAT (Stable / PreparingRebalance), or an error (also
    REBALANCE_IN_PROGRESS in CompletingRebalance). A loading coordinator answers NONE."""
    error = group_status_error(group_id, "Heartbeat", status)
    if error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
        return Decision()
    if error is not None:
        return fail(error)
    if group is None:
        return fail(Errors.UNKNOWN_MEMBER_ID)
    error = member_generation_error(group, member_id, group_instance_id, generation_id)
    if error is not None:
        return fail(error)
    if group.is_in(EMPTY):
        return fail(Errors.UNKNOWN_MEMBER_ID)
    if group.is_in(COMPLETING_REBALANCE):
        return fail(Errors.REBALANCE_IN_PROGRESS)  # Kafka 2.5: no timer reset until the member syncs
    if group.is_in(PREPARING_REBALANCE):
        return Decision(Errors.REBALANCE_IN_PROGRESS, RESET_HEARTBEAT, member_id)
    return act(RESET_HEARTBEAT, member_id)


# LeaveGroup.


@dataclass
class LeaveDecision:
    """Top-level error, and per leaving member (member_id, instance_id) a Decision."""

    error: Errors = Errors.NONE
    members: list[Decision] = field(default_factory=list)


def decide_leave(
    group: GroupMetadata | None, status: CoordinatorStatus, *, group_id: str, leaving: Iterable[tuple[str, str | None]]
) -> LeaveDecision:
    """``leaving``: [(member_id, group_instance_id)]. Per member: REMOVE_PENDING / REMOVE_MEMBER (with the
    member id to remove; a static member may leave by instance id alone) or an error."""
    error = group_status_error(group_id, "LeaveGroup", status)
    if error is not None:
        return LeaveDecision(error)
    if group is None:
        return LeaveDecision(Errors.NONE, [fail(Errors.UNKNOWN_MEMBER_ID, m) for m, _ in leaving])
    if group.is_in(DEAD):
        return LeaveDecision(Errors.COORDINATOR_NOT_AVAILABLE)
    result = LeaveDecision()
    for member_id, instance_id in leaving:
        if member_id != UNKNOWN_MEMBER_ID and group.is_static_member_fenced(member_id, instance_id):
            result.members.append(fail(Errors.FENCED_INSTANCE_ID, member_id))
        elif group.is_pending(member_id):
            result.members.append(act(REMOVE_PENDING, member_id))
        elif not group.has(member_id) and not group.has_static_member(instance_id):
            result.members.append(fail(Errors.UNKNOWN_MEMBER_ID, member_id))
        else:
            target = (
                group.static_member_id(instance_id)  # type: ignore[arg-type]  # has_static_member: not None
                if group.has_static_member(instance_id)
                else member_id
            )
            result.members.append(act(REMOVE_MEMBER, target))
    return result


# OffsetCommit / OffsetFetch.


def decide_commit(
    group: GroupMetadata | None,
    status: CoordinatorStatus,
    *,
    group_id: str,
    member_id: str,
    group_instance_id: str | None,
    generation_id: int,
) -> Decision:
    """Group-level OffsetCommit decision: STORE_OFFSETS, CREATE_GROUP (simple commit to a new group), or an
    error applying to every partition."""
    error = group_status_error(group_id, "OffsetCommit", status)
    if error is not None:
        return fail(error)
    if group is None:
        return act(CREATE_GROUP) if generation_id < 0 else fail(Errors.ILLEGAL_GENERATION)
    return decide_commit_to_group(group, member_id, group_instance_id, generation_id)


def decide_commit_to_group(
    group: GroupMetadata, member_id: str, group_instance_id: str | None, generation_id: int
) -> Decision:
    if group.is_in(DEAD):
        return fail(Errors.COORDINATOR_NOT_AVAILABLE)
    if group.is_static_member_fenced(member_id, group_instance_id):
        return fail(Errors.FENCED_INSTANCE_ID)
    if generation_id < 0 and group.is_in(EMPTY):
        return act(STORE_OFFSETS)  # the group only uses Kafka to store offsets
    if not group.has(member_id):
        return fail(Errors.UNKNOWN_MEMBER_ID)
    if generation_id != group.generation_id:
        return fail(Errors.ILLEGAL_GENERATION)
    if group.is_in(COMPLETING_REBALANCE):
        return fail(Errors.REBALANCE_IN_PROGRESS)
    return Decision(Errors.NONE, STORE_OFFSETS, member_id)  # Stable or PreparingRebalance


def decide_txn_commit(
    group: GroupMetadata | None,
    status: CoordinatorStatus,
    *,
    group_id: str,
    member_id: str,
    group_instance_id: str | None,
    generation_id: int,
) -> Decision:
    """TxnOffsetCommit (Kafka 2.5 with KIP-447's fields): CREATE_GROUP or STORE_OFFSETS, else an error for every
    partition. A member id (when not empty) must be known, a generation (when >= 0) must be current."""
    error = group_status_error(group_id, "TxnOffsetCommit", status)
    if error is not None:
        return fail(error)
    if group is None:
        return act(CREATE_GROUP)
    return decide_txn_commit_to_group(group, member_id, group_instance_id, generation_id)


def decide_txn_commit_to_group(
    group: GroupMetadata, member_id: str, group_instance_id: str | None, generation_id: int
) -> Decision:
    if group.is_in(DEAD):
        return fail(Errors.COORDINATOR_NOT_AVAILABLE)
    if group.is_static_member_fenced(member_id, group_instance_id):
        return fail(Errors.FENCED_INSTANCE_ID)
    if member_id and not group.has(member_id):
        return fail(Errors.UNKNOWN_MEMBER_ID)
    if generation_id >= 0 and generation_id != group.generation_id:
        return fail(Errors.ILLEGAL_GENERATION)
    return act(STORE_OFFSETS)


def metadata_too_large(metadata: str | None, config: GroupConfig) -> bool:
    """OFFSET_METADATA_TOO_LARGE when the commit metadata is longer than offset.metadata.max.bytes.
    Kafka compares the string's length in UTF-16 code units."""
    if metadata is None:
        return False
    return len(metadata.encode("utf-16-le")) // 2 > config.max_metadata_bytes


def _coordinator_append_error(append_error: Errors, too_large: Errors) -> Errors:
    """A log append error as a coordinator's client sees it (Kafka's storeOffsets / storeGroup mappings)."""
    if append_error in (
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_ENOUGH_REPLICAS,
        Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    ):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if append_error in (Errors.NOT_LEADER_FOR_PARTITION, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if append_error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return too_large
    return append_error


def commit_append_error(append_error: Errors) -> Errors:
    """Map a log append error of an offset commit to the commit's error."""
    return _coordinator_append_error(append_error, Errors.INVALID_COMMIT_OFFSET_SIZE)


def group_append_error(append_error: Errors) -> Errors:
    """Map a log append error of group metadata to the JoinGroup/SyncGroup error. A write that timed out waiting
    for the offsets partition's followers asks the members to rejoin (Kafka's storeGroup): a Java client takes any
    SyncGroup error it does not know, REQUEST_TIMED_OUT among them, as fatal (a Connect worker stops on it)."""
    if append_error == Errors.REQUEST_TIMED_OUT:
        return Errors.REBALANCE_IN_PROGRESS
    return _coordinator_append_error(append_error, Errors.UNKNOWN_SERVER_ERROR)


def decide_fetch_offsets(status: CoordinatorStatus, *, group_id: str) -> Errors | None:
    """OffsetFetch answers offsets blindly whatever the group state; only the status can fail it."""
    return group_status_error(group_id, "OffsetFetch", status)


# DescribeGroups / ListGroups.

# A member as DescribeGroups shows it: (member_id, group_instance_id, client_id, client_host, metadata, assignment).
MemberSummary: TypeAlias = tuple[str, Optional[str], str, str, bytes, bytes]


@dataclass
class GroupSummary:
    state: str
    protocol_type: str
    protocol: str
    members: list[MemberSummary]


EMPTY_SUMMARY = GroupSummary("", "", "", [])
DEAD_SUMMARY = GroupSummary("Dead", "", "", [])


def describe_group(
    group: GroupMetadata | None, status: CoordinatorStatus, *, group_id: str
) -> tuple[Errors, GroupSummary]:
    """(error, GroupSummary): members carry metadata and assignment only while Stable."""
    error = group_status_error(group_id, "DescribeGroups", status)
    if error is not None:
        return error, EMPTY_SUMMARY
    if group is None:
        return Errors.NONE, DEAD_SUMMARY
    stable = group.is_in(STABLE)
    members = [
        (
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            m.metadata(group.protocol) if stable else b"",
            m.assignment if stable else b"",
        )
        for m in group.members.values()
    ]
    return Errors.NONE, GroupSummary(
        str(group.state),
        group.protocol_type or "",
        group.protocol if stable else "",  # type: ignore[arg-type]  # Stable: set
        members,
    )


def list_groups_error(active: bool, any_loading: bool) -> Errors:
    if not active:
        return Errors.COORDINATOR_NOT_AVAILABLE
    return Errors.COORDINATOR_LOAD_IN_PROGRESS if any_loading else Errors.NONE


# DeleteGroups / OffsetDelete.


def decide_delete_group(
    group: GroupMetadata | None, status: CoordinatorStatus, *, group_id: str, group_not_exists: bool = True
) -> Decision:
    """DELETE_GROUP for an Empty group; GROUP_ID_NOT_FOUND / NOT_COORDINATOR / NON_EMPTY_GROUP otherwise."""
    error = group_status_error(group_id, "DeleteGroups", status)
    if error is not None:
        return fail(error)
    if group is None or group.is_in(DEAD):
        return fail(Errors.GROUP_ID_NOT_FOUND if group_not_exists else Errors.NOT_COORDINATOR)
    if group.is_in(EMPTY):
        return act(DELETE_GROUP)
    return fail(Errors.NON_EMPTY_GROUP)


def decide_offset_delete(
    group: GroupMetadata | None,
    status: CoordinatorStatus,
    *,
    group_id: str,
    partitions: Collection[TopicPartition],
    group_not_exists: bool = True,
) -> tuple[Errors | None, dict[TopicPartition, Errors], list[TopicPartition]]:
    """(group error, {(topic, partition): error}, partitions eligible for deletion)."""
    error = group_status_error(group_id, "OffsetDelete", status)
    if error is not None:
        return error, {}, []
    if group is None or group.is_in(DEAD):
        return (Errors.GROUP_ID_NOT_FOUND if group_not_exists else Errors.NOT_COORDINATOR), {}, []
    if group.is_in(EMPTY):
        return Errors.NONE, {}, list(partitions)
    if group.protocol_type == "consumer":
        subscribed = [tp for tp in partitions if group.is_subscribed_to(tp[0])]
        eligible = [tp for tp in partitions if not group.is_subscribed_to(tp[0])]
        return Errors.NONE, {tp: Errors.GROUP_SUBSCRIBED_TO_TOPIC for tp in subscribed}, eligible
    return Errors.NON_EMPTY_GROUP, {}, []


class ConfigLookup(Protocol):
    """Broker settings by Kafka's config names (KafkaConfig, or a dict in tests)."""

    def __getitem__(self, name: str, /) -> Any: ...


def group_config_from(config: ConfigLookup) -> GroupConfig:
    """GroupConfig from broker settings (anything indexable by Kafka's config names)."""
    return GroupConfig(
        min_session_timeout_ms=config["group.min.session.timeout.ms"],
        max_session_timeout_ms=config["group.max.session.timeout.ms"],
        max_size=config["group.max.size"],
        initial_rebalance_delay_ms=config["group.initial.rebalance.delay.ms"],
        max_metadata_bytes=config["offset.metadata.max.bytes"],
    )
