"""GroupCoordinator: the reactor shell that runs group membership on top of the pure decisions.

Decisions (which error, which action) come from kafka_zk.coordinator.group.decisions; this module carries
them out: parks JoinGroup/SyncGroup answers, runs the delayed joins and heartbeats of
kafka_zk.coordinator.group.delayed in purgatories on the injected clock, and asks the GroupMetadataManager
to persist group metadata and offsets.
"""

import logging
import uuid

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.purgatory import DelayedOperationPurgatory
from kafka_zk.coordinator.group import decisions as d
from kafka_zk.coordinator.group.delayed import DelayedHeartbeat, DelayedJoin, InitialDelayedJoin
from kafka_zk.coordinator.group.offsets import CommittedOffset, fetch_offsets
from kafka_zk.coordinator.group.state import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    UNKNOWN_MEMBER_ID,
    GroupMetadata,
    MemberMetadata,
)
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)

NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000


def join_result(member_id, error, generation_id=-1, protocol_type=None, protocol_name=None, leader="", members=()):
    return {
        "error_code": error,
        "generation_id": generation_id,
        "protocol_type": protocol_type,
        "protocol_name": protocol_name,
        "leader": leader or "",
        "member_id": member_id,
        "members": list(members),
    }


def sync_result(error, protocol_type=None, protocol_name=None, assignment=b""):
    return {
        "error_code": error,
        "protocol_type": protocol_type,
        "protocol_name": protocol_name,
        "assignment": assignment,
    }


class GroupCoordinator:
    def __init__(self, broker_id, group_config, manager, clock, new_member_id=None, metrics=None):
        self.broker_id = broker_id
        self.config = group_config
        self.manager = manager
        self.clock = clock
        self.join_purgatory = DelayedOperationPurgatory("Rebalance", clock, metrics)
        self.heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", clock, metrics)
        self.new_member_id = new_member_id or (lambda prefix: "%s-%s" % (prefix, uuid.uuid4()))
        manager.on_group_loaded = self.on_group_loaded
        manager.on_group_unloaded = self.on_group_unloaded

    def shutdown(self):
        self.manager.shutdown()
        self.join_purgatory.shutdown()
        self.heartbeat_purgatory.shutdown()

    # -- JoinGroup ---------------------------------------------------------------------------------

    def handle_join_group(
        self,
        group_id,
        member_id,
        group_instance_id,
        api_version,
        client_id,
        client_host,
        rebalance_timeout_ms,
        session_timeout_ms,
        protocol_type,
        protocols,
    ):
        """Deferred of a JoinGroup response body (without throttle_time_ms)."""
        done = defer.Deferred()
        group = self.manager.get_group(group_id)
        decision = d.decide_join(
            group,
            self.manager.status(group_id),
            self.config,
            group_id=group_id,
            member_id=member_id,
            group_instance_id=group_instance_id,
            session_timeout_ms=session_timeout_ms,
            protocol_type=protocol_type,
            protocols=protocols,
            api_version=api_version,
        )
        if not decision.ok:
            if decision.error == Errors.GROUP_MAX_SIZE_REACHED and group is not None:
                group.remove_member(member_id)
                if group_instance_id is not None and group.static_member_id(group_instance_id) is not None:
                    group.static_members.pop(group_instance_id, None)
            done.callback(
                join_result(decision.member_id if decision.member_id is not None else member_id, decision.error)
            )
            return done
        if decision.action == d.CREATE_GROUP:
            group = self.manager.add_group(GroupMetadata(group_id, EMPTY, milliseconds(self.clock)))
            decision = d.decide_unknown_member_join(
                group, group_instance_id, protocol_type, [n for n, _ in protocols], api_version
            )
            if not decision.ok:
                done.callback(join_result(UNKNOWN_MEMBER_ID, decision.error))
                return done
        respond = done.callback
        action = decision.action
        if action == d.MEMBER_ID_REQUIRED:
            new_id = self.new_member_id(client_id)
            group.pending_members.add(new_id)
            self._schedule_pending_expiration(group, new_id, session_timeout_ms)
            respond(join_result(new_id, Errors.MEMBER_ID_REQUIRED))
        elif action == d.ADD_MEMBER:
            new_id = member_id if member_id else self.new_member_id(group_instance_id or client_id)
            self._add_member_and_rebalance(
                group,
                new_id,
                group_instance_id,
                client_id,
                client_host,
                rebalance_timeout_ms,
                session_timeout_ms,
                protocol_type,
                protocols,
                respond,
            )
        elif action == d.REPLACE_STATIC:
            new_id = self.new_member_id(group_instance_id)
            self._update_static_member_and_rebalance(group, new_id, group_instance_id, protocols, respond)
        elif action == d.REBALANCE:
            member = group.get(member_id)
            self._update_member(group, member, protocols, respond)
            self._maybe_prepare_rebalance(group, "updating metadata of member %s" % member_id)
        elif action == d.CURRENT_GENERATION:
            respond(self._generation_result(group, member_id, with_members=group.is_leader(member_id)))
        if group.is_in(PREPARING_REBALANCE):
            self.join_purgatory.check_and_complete(("group", group.group_id))
        return done

    def _generation_result(self, group, member_id, with_members, leader=None):
        members = []
        if with_members:
            members = [
                {"member_id": mid, "group_instance_id": iid, "metadata": meta}
                for mid, iid, meta in group.current_member_metadata()
            ]
        return join_result(
            member_id,
            Errors.NONE,
            group.generation_id,
            group.protocol_type,
            group.protocol,
            group.leader_id if leader is None else leader,
            members,
        )

    def _update_member(self, group, member, protocols, respond):
        member.protocols = list(protocols)
        self._set_join_waiter(member, respond)

    def _set_join_waiter(self, member, respond):
        member.awaiting_join = respond

    def _add_member_and_rebalance(
        self,
        group,
        member_id,
        group_instance_id,
        client_id,
        client_host,
        rebalance_timeout_ms,
        session_timeout_ms,
        protocol_type,
        protocols,
        respond,
    ):
        if rebalance_timeout_ms is None or rebalance_timeout_ms < 0:
            rebalance_timeout_ms = session_timeout_ms
        member = MemberMetadata(
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout_ms,
            session_timeout_ms,
            protocol_type,
            protocols,
        )
        member.is_new = True
        if group.is_in(PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True
        group.add_member(member)
        self._set_join_waiter(member, respond)
        self._schedule_next_expiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
        self._maybe_prepare_rebalance(
            group, "adding new member %s with group instance id %s" % (member_id, group_instance_id)
        )

    def _update_static_member_and_rebalance(self, group, new_member_id, group_instance_id, protocols, respond):
        old_member_id = group.static_member_id(group_instance_id)
        old_leader = group.leader_id
        old_member = group.get(old_member_id)
        old_waiter, old_sync, old_protocols = old_member.awaiting_join, old_member.awaiting_sync, old_member.protocols
        member = group.replace_static_member(old_member_id, new_member_id, group_instance_id)
        # The replaced incarnation's parked JoinGroup or SyncGroup learns at once that it was fenced.
        member.awaiting_join = member.awaiting_sync = None
        if callable(old_waiter):
            old_waiter(join_result(old_member_id, Errors.FENCED_INSTANCE_ID))
        if callable(old_sync):
            old_sync(sync_result(Errors.FENCED_INSTANCE_ID))
        self._schedule_heartbeat(group, member)
        member.protocols = list(protocols)
        if group.is_in(STABLE):
            if group.select_protocol() != group.protocol:
                self._set_join_waiter(member, respond)
                self._maybe_prepare_rebalance(group, "updating metadata of static member %s" % group_instance_id)
                return
            # A restarted static member gets its old assignment back without a rebalance of the others.
            assignment = {m.member_id: m.assignment for m in group.members.values()}
            stored = self.manager.store_group(group, assignment)

            def after_store(error):
                if error != Errors.NONE:
                    member.protocols = old_protocols
                    group.replace_static_member(new_member_id, old_member_id, group_instance_id)
                    self._schedule_heartbeat(group, group.get(old_member_id))
                    respond(
                        join_result(
                            UNKNOWN_MEMBER_ID,
                            error,
                            group.generation_id,
                            group.protocol_type,
                            group.protocol,
                            old_leader,
                        )
                    )
                else:
                    respond(self._generation_result(group, new_member_id, with_members=False, leader=old_leader))

            stored.addCallback(after_store)
        elif group.is_in(COMPLETING_REBALANCE):
            self._set_join_waiter(member, respond)
            self._prepare_rebalance(group, "static member %s rejoining during CompletingRebalance" % group_instance_id)
        else:  # PreparingRebalance: the new id answers when the rebalance completes
            self._set_join_waiter(member, respond)

    def _maybe_prepare_rebalance(self, group, reason):
        if group.can_move_to(PREPARING_REBALANCE):
            self._prepare_rebalance(group, reason)

    def _prepare_rebalance(self, group, reason):
        if group.is_in(COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment_error(group, Errors.REBALANCE_IN_PROGRESS)
        initial = self.config.initial_rebalance_delay_ms
        if group.is_in(EMPTY):
            operation = InitialDelayedJoin(
                self, self.join_purgatory, group, initial, initial, max(group.rebalance_timeout_ms() - initial, 0)
            )
        else:
            operation = DelayedJoin(self, group, group.rebalance_timeout_ms())
        log.info(
            "Preparing to rebalance group %s in state %s with old generation %d (__consumer_offsets-%d) (reason: %s)",
            group.group_id,
            group.state,
            group.generation_id,
            self.manager.partition_for(group.group_id),
            reason,
        )
        group.transition_to(PREPARING_REBALANCE, milliseconds(self.clock))
        self.join_purgatory.try_complete_else_watch(operation, [("group", group.group_id)])

    def on_complete_join(self, group):
        not_rejoined = [m for m in group.not_yet_rejoined() if not m.is_static]
        if not_rejoined:
            log.info(
                "Group %s removes dynamic members who haven't joined: %s",
                group.group_id,
                ", ".join(m.member_id for m in not_rejoined),
            )
        for member in not_rejoined:
            member.is_leaving = True
            self.heartbeat_purgatory.check_and_complete(("member", group.group_id, member.member_id))
            group.remove_member(member.member_id)
        if group.is_in(DEAD):
            return
        if not group.elect_joined_leader() and group.members:
            # Only static members that have not rejoined remain: wait another rebalance timeout.
            self.join_purgatory.try_complete_else_watch(
                DelayedJoin(self, group, group.rebalance_timeout_ms()), [("group", group.group_id)]
            )
            return
        group.init_next_generation(milliseconds(self.clock))
        if group.is_in(EMPTY):
            log.info("Group %s with generation %d is now empty", group.group_id, group.generation_id)
            self.manager.store_group(group, {})
            return
        log.info("Stabilized group %s generation %d", group.group_id, group.generation_id)
        for member in list(group.members.values()):
            waiter, member.awaiting_join = member.awaiting_join, None
            if callable(waiter):
                waiter(self._generation_result(group, member.member_id, with_members=group.is_leader(member.member_id)))
            self._schedule_heartbeat(group, member)
            member.is_new = False

    # -- SyncGroup ---------------------------------------------------------------------------------

    def handle_sync_group(
        self, group_id, generation_id, member_id, group_instance_id, assignments, protocol_type=None, protocol_name=None
    ):
        """Deferred of {error_code, protocol_type, protocol_name, assignment}."""
        done = defer.Deferred()
        group = self.manager.get_group(group_id)
        decision = d.decide_sync(
            group,
            self.manager.status(group_id),
            group_id=group_id,
            member_id=member_id,
            group_instance_id=group_instance_id,
            generation_id=generation_id,
            protocol_type=protocol_type,
            protocol_name=protocol_name,
        )
        if not decision.ok:
            done.callback(sync_result(decision.error))
            return done
        member = group.get(member_id)
        if decision.action == d.RETURN_ASSIGNMENT:
            done.callback(sync_result(Errors.NONE, group.protocol_type, group.protocol, member.assignment))
            self._schedule_heartbeat(group, member)
            return done
        member.awaiting_sync = done.callback
        if decision.action == d.LEADER_SYNC:
            assignment = {mid: assignments.get(mid, b"") for mid in group.members}
            generation = group.generation_id

            def after_store(error):
                if group.is_in(COMPLETING_REBALANCE) and group.generation_id == generation:
                    if error != Errors.NONE:
                        self._reset_and_propagate_assignment_error(group, error)
                        self._maybe_prepare_rebalance(
                            group, "error when storing group assignment during SyncGroup (member: %s)" % member_id
                        )
                    else:
                        for m in group.members.values():
                            m.assignment = assignment.get(m.member_id, b"")
                        self._propagate_assignment(group, Errors.NONE)
                        group.transition_to(STABLE, milliseconds(self.clock))

            self.manager.store_group(group, assignment).addCallback(after_store)
        return done

    def _reset_and_propagate_assignment_error(self, group, error):
        for member in group.members.values():
            member.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group, error):
        ok = error == Errors.NONE
        for member in list(group.members.values()):
            waiter, member.awaiting_sync = member.awaiting_sync, None
            if callable(waiter):
                waiter(
                    sync_result(
                        error, group.protocol_type if ok else None, group.protocol if ok else None, member.assignment
                    )
                )
                self._schedule_heartbeat(group, member)

    # -- Heartbeat and LeaveGroup ----------------------------------------------------------------

    def handle_heartbeat(self, group_id, member_id, group_instance_id, generation_id):
        group = self.manager.get_group(group_id)
        decision = d.decide_heartbeat(
            group,
            self.manager.status(group_id),
            group_id=group_id,
            member_id=member_id,
            group_instance_id=group_instance_id,
            generation_id=generation_id,
        )
        if decision.action == d.RESET_HEARTBEAT:
            self._schedule_heartbeat(group, group.get(member_id))
        return decision.error

    def handle_leave_group(self, group_id, leaving):
        """``leaving``: [(member_id, group_instance_id)] -> (top error, [(member_id, instance_id, error)])."""
        group = self.manager.get_group(group_id)
        decision = d.decide_leave(group, self.manager.status(group_id), group_id=group_id, leaving=leaving)
        results = []
        for (member_id, instance_id), outcome in zip(leaving, decision.members):
            if outcome.action == d.REMOVE_PENDING:
                group.pending_members.discard(outcome.member_id)
                self.heartbeat_purgatory.check_and_complete(("member", group_id, outcome.member_id))
                if group.is_in(PREPARING_REBALANCE):
                    self.join_purgatory.check_and_complete(("group", group_id))
            elif outcome.action == d.REMOVE_MEMBER and group.has(outcome.member_id):
                member = group.get(outcome.member_id)
                member.is_leaving = True
                self.heartbeat_purgatory.check_and_complete(("member", group_id, member.member_id))
                log.info("Member %s in group %s has left", member.member_id, group_id)
                self._remove_member_and_update_group(group, member)
            results.append((member_id, instance_id, outcome.error))
        return decision.error, results

    def _remove_member_and_update_group(self, group, member):
        waiter, member.awaiting_join = member.awaiting_join, None
        if callable(waiter):
            waiter(join_result(UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID))
        group.remove_member(member.member_id)
        if group.is_in(STABLE) or group.is_in(COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance(group, "removing member %s" % member.member_id)
        elif group.is_in(PREPARING_REBALANCE):
            self.join_purgatory.check_and_complete(("group", group.group_id))

    # -- heartbeats --------------------------------------------------------------------------------

    def _schedule_heartbeat(self, group, member):
        self._schedule_next_expiration(group, member, member.session_timeout_ms)

    def _schedule_next_expiration(self, group, member, timeout_ms):
        key = ("member", group.group_id, member.member_id)
        member.heartbeat_satisfied = True
        self.heartbeat_purgatory.check_and_complete(key)
        member.heartbeat_satisfied = False
        self.heartbeat_purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, member.member_id, False, timeout_ms), [key]
        )

    def _schedule_pending_expiration(self, group, member_id, timeout_ms):
        self.heartbeat_purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, member_id, True, timeout_ms), [("member", group.group_id, member_id)]
        )

    def on_expire_heartbeat(self, group, member_id, is_pending):
        if group.is_in(DEAD):
            return
        if is_pending:
            group.pending_members.discard(member_id)
            if group.is_in(PREPARING_REBALANCE):
                self.join_purgatory.check_and_complete(("group", group.group_id))
            return
        member = group.members.get(member_id)
        if member is not None and not member.heartbeat_satisfied:
            log.info("Member %s in group %s has failed, removing it from the group", member_id, group.group_id)
            self._remove_member_and_update_group(group, member)

    # -- offsets -----------------------------------------------------------------------------------

    def handle_commit_offsets(self, group_id, member_id, group_instance_id, generation_id, offsets):
        """``offsets``: {tp: (offset, leader_epoch, metadata, commit_timestamp or None, expire_timestamp or
        None)} -> Deferred of {tp: error}."""
        group = self.manager.get_group(group_id)
        decision = d.decide_commit(
            group,
            self.manager.status(group_id),
            group_id=group_id,
            member_id=member_id,
            group_instance_id=group_instance_id,
            generation_id=generation_id,
        )
        if not decision.ok:
            return defer.succeed({tp: decision.error for tp in offsets})
        if decision.action == d.CREATE_GROUP:
            group = self.manager.add_group(GroupMetadata(group_id, EMPTY, milliseconds(self.clock)))
            decision = d.decide_commit_to_group(group, member_id, group_instance_id, generation_id)
            if not decision.ok:
                return defer.succeed({tp: decision.error for tp in offsets})
        if decision.member_id is not None and group.has(decision.member_id):
            self._schedule_heartbeat(group, group.get(decision.member_id))
        now = milliseconds(self.clock)
        errors, commits = {}, {}
        for tp, (offset, leader_epoch, metadata, commit_timestamp, expire_timestamp) in offsets.items():
            metadata = "" if metadata is None else metadata
            if d.metadata_too_large(metadata, self.config):
                errors[tp] = Errors.OFFSET_METADATA_TOO_LARGE
            else:
                commits[tp] = CommittedOffset(
                    offset,
                    leader_epoch,
                    metadata,
                    now if commit_timestamp is None else commit_timestamp,
                    expire_timestamp,
                )
        if not commits:
            return defer.succeed(errors)

        def merge(stored):
            stored.update(errors)
            return stored

        return self.manager.store_offsets(group, commits).addCallback(merge)

    def handle_txn_commit_offsets(
        self, group_id, producer_id, producer_epoch, member_id, group_instance_id, generation_id, offsets
    ):
        """TxnOffsetCommit: ``offsets`` {tp: (offset, leader_epoch, metadata)} -> Deferred of {tp: error}."""
        group = self.manager.get_group(group_id)
        decision = d.decide_txn_commit(
            group,
            self.manager.status(group_id),
            group_id=group_id,
            member_id=member_id,
            group_instance_id=group_instance_id,
            generation_id=generation_id,
        )
        if not decision.ok:
            return defer.succeed({tp: decision.error for tp in offsets})
        if decision.action == d.CREATE_GROUP:
            group = self.manager.add_group(GroupMetadata(group_id, EMPTY, milliseconds(self.clock)))
            decision = d.decide_txn_commit_to_group(group, member_id, group_instance_id, generation_id)
            if not decision.ok:
                return defer.succeed({tp: decision.error for tp in offsets})
        now = milliseconds(self.clock)
        errors, commits = {}, {}
        for tp, (offset, leader_epoch, metadata) in offsets.items():
            metadata = "" if metadata is None else metadata
            if d.metadata_too_large(metadata, self.config):
                errors[tp] = Errors.OFFSET_METADATA_TOO_LARGE
            else:
                commits[tp] = CommittedOffset(offset, leader_epoch, metadata, now, None)
        if not commits:
            return defer.succeed(errors)

        def merge(stored):
            stored.update(errors)
            return stored

        return self.manager.store_txn_offsets(group, producer_id, producer_epoch, commits).addCallback(merge)

    def handle_txn_completion(self, producer_id, offsets_partitions, is_commit):
        self.manager.handle_txn_completion(producer_id, offsets_partitions, is_commit)

    def handle_fetch_offsets(self, group_id, partitions):
        """(error, {tp: (offset, leader_epoch, metadata)}); ``partitions`` None means all committed."""
        error = d.decide_fetch_offsets(self.manager.status(group_id), group_id=group_id)
        if error is not None:
            return error, {}
        return Errors.NONE, fetch_offsets(self.manager.get_group(group_id), partitions)

    # -- admin -------------------------------------------------------------------------------------

    def handle_describe_group(self, group_id):
        group = self.manager.get_group(group_id)
        return d.describe_group(group, self.manager.status(group_id), group_id=group_id)

    def handle_list_groups(self):
        error = d.list_groups_error(self.manager.active, self.manager.is_loading())
        if error == Errors.COORDINATOR_NOT_AVAILABLE:
            return error, []
        return error, [(g.group_id, g.protocol_type or "") for g in self.manager.current_groups()]

    def handle_delete_groups(self, group_ids):
        """{group_id: error}; Empty groups go Dead and their offsets and metadata get tombstones."""
        errors, eligible = {}, []
        for group_id in group_ids:
            group = self.manager.get_group(group_id)
            decision = d.decide_delete_group(
                group,
                self.manager.status(group_id),
                group_id=group_id,
                group_not_exists=self.manager.group_not_exists(group_id),
            )
            if decision.ok:
                group.transition_to(DEAD, milliseconds(self.clock))
                eligible.append(group)
            else:
                errors[group_id] = decision.error
        if eligible:
            self.manager.cleanup_groups(eligible, lambda g: g.offsets.remove_all())
            for group in eligible:
                errors[group.group_id] = Errors.NONE
        return errors

    def handle_delete_offsets(self, group_id, partitions):
        """(group error, {tp: error})."""
        group = self.manager.get_group(group_id)
        error, partition_errors, eligible = d.decide_offset_delete(
            group,
            self.manager.status(group_id),
            group_id=group_id,
            partitions=partitions,
            group_not_exists=self.manager.group_not_exists(group_id),
        )
        if error != Errors.NONE:
            return error, {}
        if eligible:
            self.manager.cleanup_groups([group], lambda g: g.offsets.remove(eligible))
            for tp in eligible:
                partition_errors[tp] = Errors.NONE
        return Errors.NONE, partition_errors

    def handle_deleted_partitions(self, partitions):
        removed = self.manager.cleanup_groups(self.manager.current_groups(), lambda g: g.offsets.remove(partitions))
        if removed:
            log.info("Removed %d offsets associated with deleted partitions", removed)

    # -- loading and unloading ---------------------------------------------------------------------

    def on_election(self, partition_id):
        self.manager.schedule_load(partition_id)

    def on_resignation(self, partition_id):
        self.manager.unload(partition_id)

    def on_group_loaded(self, group):
        if group.over_capacity(self.config.max_size):
            self._prepare_rebalance(group, "loading an oversized group")
        for member in list(group.members.values()):
            self._schedule_heartbeat(group, member)

    def on_group_unloaded(self, group):
        previous = group.state
        group.transition_to(DEAD, milliseconds(self.clock))
        if previous is PREPARING_REBALANCE:
            for member in list(group.members.values()):
                waiter, member.awaiting_join = member.awaiting_join, None
                if callable(waiter):
                    waiter(join_result(member.member_id, Errors.NOT_COORDINATOR))
            self.join_purgatory.check_and_complete(("group", group.group_id))
        elif previous in (STABLE, COMPLETING_REBALANCE):
            for member in list(group.members.values()):
                waiter, member.awaiting_sync = member.awaiting_sync, None
                if callable(waiter):
                    waiter(sync_result(Errors.NOT_COORDINATOR))
                self.heartbeat_purgatory.check_and_complete(("member", group.group_id, member.member_id))
