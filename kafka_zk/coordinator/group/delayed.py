"""The group coordinator's delayed operations: a rebalance's join (and the first rebalance's initial delay) and a
member's heartbeat deadline; they call back into the coordinator when they complete or expire."""

from typing import Protocol

from kafka_zk.common.purgatory import DelayedOperation, DelayedOperationPurgatory
from kafka_zk.coordinator.group.state import DEAD, GroupMetadata


class RebalanceCallbacks(Protocol):
    """What the delayed operations call back into: the group coordinator."""

    def on_complete_join(self, group: GroupMetadata) -> object: ...

    def on_expire_heartbeat(self, group: GroupMetadata, member_id: str, is_pending: bool) -> object: ...


class DelayedJoin(DelayedOperation):
    """Completes when every member has rejoined, or after the rebalance timeout."""

    def __init__(self, coordinator: RebalanceCallbacks, group: GroupMetadata, delay_ms: int) -> None:
        super().__init__(delay_ms)
        self.coordinator = coordinator
        self.group = group

    def try_complete(self) -> bool:
        if self.group.all_members_joined():
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self.coordinator.on_complete_join(self.group)


class InitialDelayedJoin(DelayedJoin):
    """The first rebalance of an empty group waits group.initial.rebalance.delay.ms, extended while new
    members keep arriving, up to the rebalance timeout."""

    def __init__(
        self,
        coordinator: RebalanceCallbacks,
        purgatory: DelayedOperationPurgatory,
        group: GroupMetadata,
        configured_delay_ms: int,
        delay_ms: int,
        remaining_ms: int,
    ) -> None:
        super().__init__(coordinator, group, delay_ms)
        self.purgatory = purgatory
        self.configured_delay_ms = configured_delay_ms
        self.remaining_ms = remaining_ms

    def try_complete(self) -> bool:
        return False

    def on_complete(self) -> None:
        group = self.group
        if group.new_member_added and self.remaining_ms != 0:
            group.new_member_added = False
            delay = min(self.configured_delay_ms, self.remaining_ms)
            remaining = max(self.remaining_ms - self.delay_ms, 0)
            self.purgatory.try_complete_else_watch(
                InitialDelayedJoin(self.coordinator, self.purgatory, group, self.configured_delay_ms, delay, remaining),
                [("group", group.group_id)],
            )
        else:
            self.coordinator.on_complete_join(group)


class DelayedHeartbeat(DelayedOperation):
    """Expires a member (or a pending member id) that has not heartbeated within its timeout."""

    def __init__(
        self, coordinator: RebalanceCallbacks, group: GroupMetadata, member_id: str, is_pending: bool, delay_ms: int
    ) -> None:
        super().__init__(delay_ms)
        self.coordinator = coordinator
        self.group = group
        self.member_id = member_id
        self.is_pending = is_pending

    def try_complete(self) -> bool:
        group = self.group
        if group.is_in(DEAD):
            return self.force_complete()
        if self.is_pending:
            return self.force_complete() if group.has(self.member_id) else False
        member = group.members.get(self.member_id)
        if member is None or member.heartbeat_satisfied or member.is_leaving:
            return self.force_complete()
        return False

    def on_expiration(self) -> None:
        self.coordinator.on_expire_heartbeat(self.group, self.member_id, self.is_pending)

    def on_complete(self) -> None:
        pass
