"""Group state machine (states and valid transitions as data), member and group metadata, and which offsets expire."""

from collections.abc import Collection, Iterable
from enum import Enum

from kafka_zk.coordinator.group.consumer_protocol import subscribed_topics
from kafka_zk.coordinator.group.offsets import GroupOffsets, TopicPartition


class GroupState(Enum):
    """The five group states; ``str`` gives the name DescribeGroups reports."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


EMPTY = GroupState.EMPTY
PREPARING_REBALANCE = GroupState.PREPARING_REBALANCE
COMPLETING_REBALANCE = GroupState.COMPLETING_REBALANCE
STABLE = GroupState.STABLE
DEAD = GroupState.DEAD

# For every target state, the states a group may move to it from (Kafka's validPreviousStates).
VALID_PREVIOUS_STATES = {
    EMPTY: frozenset({PREPARING_REBALANCE}),
    PREPARING_REBALANCE: frozenset({STABLE, COMPLETING_REBALANCE, EMPTY}),
    COMPLETING_REBALANCE: frozenset({PREPARING_REBALANCE}),
    STABLE: frozenset({COMPLETING_REBALANCE}),
    DEAD: frozenset({STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD}),
}

CONSUMER_PROTOCOL_TYPE = "consumer"
NO_GENERATION = -1
UNKNOWN_MEMBER_ID = ""


class IllegalTransition(RuntimeError):
    """A state change the table above does not allow (a coordinator bug, never client input)."""


class MemberMetadata:
    """One member: ids, timeouts, its (protocol name, metadata) list in preference order, assignment."""

    def __init__(
        self,
        member_id: str,
        group_instance_id: str | None,
        client_id: str,
        client_host: str,
        rebalance_timeout_ms: int,
        session_timeout_ms: int,
        protocol_type: str,
        protocols: Iterable[tuple[str, bytes]],
    ) -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type
        self.protocols = list(protocols)
        self.assignment: bytes = b""
        self.awaiting_join = False  # a JoinGroup of this member is parked until the rebalance completes
        self.awaiting_sync = False  # a SyncGroup of this member is parked until the leader's assignment
        self.is_new = False
        self.is_leaving = False
        self.heartbeat_satisfied = False

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.protocols]

    def metadata(self, protocol: str | None) -> bytes:
        for name, data in self.protocols:
            if name == protocol:
                return data
        raise KeyError(protocol)

    def matches(self, protocols: Iterable[tuple[str, bytes]]) -> bool:
        """True when ``protocols`` equals this member's list (names, metadata and order)."""
        return [(n, bytes(d)) for n, d in protocols] == [(n, bytes(d)) for n, d in self.protocols]

    def vote(self, candidates: Collection[str]) -> str:
        """The first of this member's protocols that is among ``candidates``."""
        for name in self.protocol_names():
            if name in candidates:
                return name
        raise ValueError("member %s supports none of %s" % (self.member_id, sorted(candidates)))


class GroupMetadata:
    """A group's state, generation, protocol, leader and members, with Kafka's bookkeeping rules."""

    def __init__(self, group_id: str, state: GroupState = EMPTY, now_ms: int | None = None) -> None:
        self.group_id = group_id
        self.state = state
        self.state_timestamp_ms = now_ms
        self.protocol_type: str | None = None
        self.protocol: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, MemberMetadata] = {}
        self.pending_members: set[str] = set()
        self.static_members: dict[str, str] = {}  # group.instance.id -> member id
        self.new_member_added = False
        self.subscribed_topics: set[str] | None = None  # set of topics, or None when unknown
        self.offsets = GroupOffsets()

    # Membership.

    def size(self) -> int:
        return len(self.members)

    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> MemberMetadata:
        return self.members[member_id]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def is_pending(self, member_id: str) -> bool:
        return member_id in self.pending_members

    def has_static_member(self, instance_id: str | None) -> bool:
        return instance_id is not None and instance_id in self.static_members

    def static_member_id(self, instance_id: str) -> str | None:
        return self.static_members.get(instance_id)

    def is_static_member_fenced(self, member_id: str, instance_id: str | None) -> bool:
        """A known instance id now belongs to a different member id."""
        return self.has_static_member(instance_id) and self.static_members[instance_id] != member_id  # type: ignore[index]  # known, so not None

    def add_member(self, member: MemberMetadata) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        self.members[member.member_id] = member
        if member.group_instance_id is not None:  # is_static
            self.static_members[member.group_instance_id] = member.member_id
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.pending_members.discard(member.member_id)

    def remove_member(self, member_id: str) -> MemberMetadata | None:
        member = self.members.pop(member_id, None)
        if member is not None and member.group_instance_id is not None:  # is_static
            if self.static_members.get(member.group_instance_id) == member_id:
                del self.static_members[member.group_instance_id]
        self.pending_members.discard(member_id)
        if self.leader_id == member_id:
            self.leader_id = next(iter(self.members), None)
        return member

    def replace_static_member(self, old_member_id: str, new_member_id: str, instance_id: str) -> MemberMetadata:
        """Hand an instance id's membership over to a new member id (static member restart)."""
        member = self.members.pop(old_member_id)
        member.member_id = new_member_id
        self.members[new_member_id] = member
        if self.leader_id == old_member_id:
            self.leader_id = new_member_id
        self.static_members[instance_id] = new_member_id
        return member

    def not_yet_rejoined(self) -> list[MemberMetadata]:
        return [m for m in self.members.values() if not m.awaiting_join]

    def all_members_joined(self) -> bool:
        return all(m.awaiting_join for m in self.members.values()) and not self.pending_members

    def elect_joined_leader(self) -> bool:
        """Keep the leader if it rejoined, else make the first rejoined member leader; False if none rejoined."""
        if self.leader_id is not None and self.leader_id in self.members and self.members[self.leader_id].awaiting_join:
            return True
        for member in self.members.values():
            if member.awaiting_join:
                self.leader_id = member.member_id
                return True
        return False

    def over_capacity(self, max_size: int) -> bool:
        return len(self.members) > max_size

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    # State.

    def can_move_to(self, target: GroupState) -> bool:
        return self.state in VALID_PREVIOUS_STATES[target]

    def transition_to(self, target: GroupState, now_ms: int | None = None) -> None:
        if not self.can_move_to(target):
            raise IllegalTransition("group %s cannot move from %s to %s" % (self.group_id, self.state, target))
        self.state = target
        self.state_timestamp_ms = now_ms

    def is_in(self, state: GroupState) -> bool:
        return self.state is state

    def is_dead(self) -> bool:
        return self.state is DEAD

    # Protocols.

    def candidate_protocols(self) -> set[str]:
        """Protocol names every member supports."""
        sets = [set(m.protocol_names()) for m in self.members.values()]
        return set.intersection(*sets) if sets else set()

    def supports_protocols(self, protocol_type: str | None, protocol_names: Iterable[str]) -> bool:
        """Kafka's supportsProtocols: an empty group takes any non-empty type and list; otherwise the
        type must match and one of the offered protocols must be supported by every member."""
        names = set(protocol_names)
        if self.state is EMPTY:
            return bool(protocol_type) and bool(names)
        return self.protocol_type == protocol_type and bool(names & self.candidate_protocols())

    def select_protocol(self) -> str:
        """The candidate protocol with most member votes (each member votes for its first candidate).
        Ties go to the protocol first voted for in member join order."""
        candidates = self.candidate_protocols()
        if not candidates:
            raise ValueError("no protocol is supported by every member of %s" % self.group_id)
        votes: dict[str, int] = {}
        for member in self.members.values():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        return max(votes, key=lambda name: votes[name])

    def init_next_generation(self, now_ms: int | None = None) -> None:
        """Bump the generation; pick a protocol and move to CompletingRebalance, or to Empty without members."""
        self.generation_id += 1
        if self.members:
            self.protocol = self.select_protocol()
            self.transition_to(COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol = None
            self.transition_to(EMPTY, now_ms)
        self.subscribed_topics = self.compute_subscribed_topics()
        self.new_member_added = False

    def compute_subscribed_topics(self) -> set[str] | None:
        """Topics the members subscribe to, when this is a consumer group with parseable subscriptions."""
        if self.protocol_type != CONSUMER_PROTOCOL_TYPE or self.protocol is None:
            return None if self.members else set()
        topics: set[str] = set()
        for member in self.members.values():
            parsed = subscribed_topics(member.metadata(self.protocol))
            if parsed is None:
                return None
            topics |= parsed
        return topics

    def is_subscribed_to(self, topic: str) -> bool:
        return self.subscribed_topics is not None and topic in self.subscribed_topics

    def current_member_metadata(self) -> list[tuple[str, str | None, bytes]]:
        """(member id, group instance id, metadata for the chosen protocol) for the leader's JoinGroup answer."""
        return [(m.member_id, m.group_instance_id, m.metadata(self.protocol)) for m in self.members.values()]


def expired_offsets(group: GroupMetadata, now_ms: int, retention_ms: int) -> list[TopicPartition]:
    """Kafka 2.5's expiration rule (KIP-211) for ``group`` (a GroupMetadata with ``offsets``):
    an Empty group's offsets expire ``retention_ms`` after it became empty (or after the commit when that
    time is unknown); a live consumer group's offsets of topics it no longer subscribes to expire after the
    commit time; a group with no protocol type (simple commits only) expires by commit time."""
    offsets = group.offsets
    if group.protocol_type is not None and group.is_in(EMPTY):
        became_empty = group.state_timestamp_ms
        return offsets.expired(
            now_ms, retention_ms, lambda c: c.commit_timestamp if became_empty is None else became_empty
        )
    if group.protocol_type == CONSUMER_PROTOCOL_TYPE and group.subscribed_topics is not None:
        return offsets.expired(
            now_ms, retention_ms, lambda c: c.commit_timestamp, keep_topics=frozenset(group.subscribed_topics)
        )
    if group.protocol_type is None:
        return offsets.expired(now_ms, retention_ms, lambda c: c.commit_timestamp)
    return []
