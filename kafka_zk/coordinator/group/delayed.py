"""The group coordinator's delayed operations: a rebalance's join (and the first rebalance's initial delay) and a
member's heartbeat deadline; they call back into the coordinator when they complete or expire."""

from kafka_zk.common.purgatory import DelayedOperation
from kafka_zk.coordinator.group.state import DEAD


class DelayedJoin(DelayedOperation):
    """Completes when every member has rejoined, or after the rebalance timeout."""

    def __init__(self, coordinator, group, delay_ms):
        super().__init__(delay_ms)
        self.coordinator = coordinator
        self.group = group

    def try_complete(self):
        if self.group.all_members_joined():
            return self.force_complete()
        return False

    def on_complete(self):
        self.coordinator.on_complete_join(self.group)


class InitialDelayedJoin(DelayedJoin):
    """The first rebalance of an empty group waits group.initial.rebalance.delay.ms, extended while new
    members keep arriving, up to the rebalance timeout."""

    def __init__(self, coordinator, purgatory, group, configured_delay_ms, delay_ms, remaining_ms):
        super().__init__(coordinator, group, delay_ms)
        self.purgatory = purgatory
        self.configured_delay_ms = configured_delay_ms
        self.remaining_ms = remaining_ms

    def try_complete(self):
        return False

    def on_complete(self):
        group = self.group
        if group.new_member_added and self.remaining_ms != 0:
            group.new_member_added = False
            delay = min(self.configured_delay_ms, self.remaining_ms)
            remaining = max(self.remaining_ms - self.delay_ms, 0)
            self.purgatory.try_complete_else_watch(
                InitialDelayedJoin(self.coordinator, self.purgatory, group, self.configured_delay_ms, delay,
                                   remaining), [("group", group.group_id)])
        else:
            self.coordinator.on_complete_join(group)


class DelayedHeartbeat(DelayedOperation):
    """Expires a member (or a pending member id) that has not heartbeated within its timeout."""

    def __init__(self, coordinator, group, member_id, is_pending, delay_ms):
        super().__init__(delay_ms)
        self.coordinator = coordinator
        self.group = group
        self.member_id = member_id
        self.is_pending = is_pending

    def try_complete(self):
        group = self.group
        if group.is_in(DEAD):
            return self.force_complete()
        if self.is_pending:
            return self.force_complete() if group.has(self.member_id) else False
        member = group.members.get(self.member_id)
        if member is None or member.heartbeat_satisfied or member.is_leaving:
            return self.force_complete()
        return False

    def on_expiration(self):
        self.coordinator.on_expire_heartbeat(self.group, self.member_id, self.is_pending)

    def on_complete(self):
        pass
