"""Partition and replica state machines: the tables of valid previous states, and checked transitions."""

from collections.abc import Iterable

from kafka_zk.common import state_change_log as scl
from kafka_zk.controller.context import ControllerContext, TopicPartition

NON_EXISTENT_PARTITION = "NonExistentPartition"
NEW_PARTITION = "NewPartition"
ONLINE_PARTITION = "OnlinePartition"
OFFLINE_PARTITION = "OfflinePartition"

PARTITION_VALID_PREVIOUS = {
    NEW_PARTITION: {NON_EXISTENT_PARTITION},
    ONLINE_PARTITION: {NEW_PARTITION, ONLINE_PARTITION, OFFLINE_PARTITION},
    OFFLINE_PARTITION: {NEW_PARTITION, ONLINE_PARTITION, OFFLINE_PARTITION},
    NON_EXISTENT_PARTITION: {OFFLINE_PARTITION},
}

NEW_REPLICA = "NewReplica"
ONLINE_REPLICA = "OnlineReplica"
OFFLINE_REPLICA = "OfflineReplica"
REPLICA_DELETION_STARTED = "ReplicaDeletionStarted"
REPLICA_DELETION_SUCCESSFUL = "ReplicaDeletionSuccessful"
REPLICA_DELETION_INELIGIBLE = "ReplicaDeletionIneligible"
NON_EXISTENT_REPLICA = "NonExistentReplica"

REPLICA_VALID_PREVIOUS = {
    NEW_REPLICA: {NON_EXISTENT_REPLICA},
    ONLINE_REPLICA: {NEW_REPLICA, ONLINE_REPLICA, OFFLINE_REPLICA, REPLICA_DELETION_INELIGIBLE},
    OFFLINE_REPLICA: {NEW_REPLICA, ONLINE_REPLICA, OFFLINE_REPLICA, REPLICA_DELETION_INELIGIBLE},
    REPLICA_DELETION_STARTED: {OFFLINE_REPLICA},
    REPLICA_DELETION_SUCCESSFUL: {REPLICA_DELETION_STARTED},
    REPLICA_DELETION_INELIGIBLE: {OFFLINE_REPLICA, REPLICA_DELETION_STARTED},
    NON_EXISTENT_REPLICA: {REPLICA_DELETION_SUCCESSFUL},
}


class IllegalStateTransition(Exception):
    pass


def partition_state(context: ControllerContext, tp: TopicPartition) -> str:
    return context.partition_states.get(tp, NON_EXISTENT_PARTITION)


def replica_state(context: ControllerContext, tp: TopicPartition, broker: int) -> str:
    return context.replica_states.get((tp[0], tp[1], broker), NON_EXISTENT_REPLICA)


def valid_partition_transitions(
    context: ControllerContext, partitions: Iterable[TopicPartition], target: str
) -> tuple[list[TopicPartition], list[TopicPartition]]:
    """Split partitions into (valid, invalid) for a move to target."""
    allowed = PARTITION_VALID_PREVIOUS[target]
    valid: list[TopicPartition] = []
    invalid: list[TopicPartition] = []
    for tp in partitions:
        (valid if partition_state(context, tp) in allowed else invalid).append(tp)
    return valid, invalid


def valid_replica_transitions(
    context: ControllerContext, replicas: Iterable[tuple[TopicPartition, int]], target: str
) -> tuple[list[tuple[TopicPartition, int]], list[tuple[TopicPartition, int]]]:
    """replicas: iterable of (tp, broker). Returns (valid, invalid)."""
    allowed = REPLICA_VALID_PREVIOUS[target]
    valid: list[tuple[TopicPartition, int]] = []
    invalid: list[tuple[TopicPartition, int]] = []
    for tp, broker in replicas:
        (valid if replica_state(context, tp, broker) in allowed else invalid).append((tp, broker))
    return valid, invalid


def set_partition_state(context: ControllerContext, tp: TopicPartition, target: str) -> None:
    current = partition_state(context, tp)
    if current not in PARTITION_VALID_PREVIOUS[target]:
        raise IllegalStateTransition("Partition %s-%d cannot move from %s to %s" % (tp[0], tp[1], current, target))
    if target == NON_EXISTENT_PARTITION:
        context.partition_states.pop(tp, None)
    else:
        context.partition_states[tp] = target
    if scl.tracing():
        _trace_partition_change(context, tp, current, target)


def set_replica_state(context: ControllerContext, tp: TopicPartition, broker: int, target: str) -> None:
    current = replica_state(context, tp, broker)
    if current not in REPLICA_VALID_PREVIOUS[target]:
        raise IllegalStateTransition(
            "Replica %d of %s-%d cannot move from %s to %s" % (broker, tp[0], tp[1], current, target)
        )
    key = (tp[0], tp[1], broker)
    if target == NON_EXISTENT_REPLICA:
        context.replica_states.pop(key, None)
    else:
        context.replica_states[key] = target
    if scl.tracing():
        scl.trace(
            scl.controller_prefix(context.controller_id, context.epoch),
            "Changed state of replica %d for partition %s-%d from %s to %s",
            broker,
            tp[0],
            tp[1],
            current,
            target,
        )


def _trace_partition_change(context: ControllerContext, tp: TopicPartition, current: str, target: str) -> None:
    """Kafka's PartitionStateMachine lines: a new partition names its replicas, an online one its leadership."""
    prefix = scl.controller_prefix(context.controller_id, context.epoch)
    leadership = context.leadership.get(tp)
    if target == NEW_PARTITION:
        scl.trace(
            prefix,
            "Changed partition %s-%d state from %s to %s with assigned replicas %s",
            tp[0],
            tp[1],
            current,
            target,
            ",".join(str(r) for r in context.assignments.get(tp, ())),
        )
    elif target == ONLINE_PARTITION and leadership is not None:
        scl.trace(
            prefix,
            "Changed partition %s-%d from %s to %s with state %s",
            tp[0],
            tp[1],
            current,
            target,
            scl.leader_and_isr_text(leadership.leader, leadership.leader_epoch, leadership.isr, leadership.zk_version),
        )
    else:
        scl.trace(prefix, "Changed partition %s-%d state from %s to %s", tp[0], tp[1], current, target)


def initialize_states(context: ControllerContext) -> None:
    """A new controller's states from the leadership it read: replicas on live brokers are online, partitions
    without a state znode new, partitions whose leader is alive online, the others offline."""
    live = context.live_broker_ids
    for tp, replicas in context.assignments.items():
        for replica in replicas:
            context.replica_states[(tp[0], tp[1], replica)] = ONLINE_REPLICA if replica in live else OFFLINE_REPLICA
        leadership = context.leadership.get(tp)
        if leadership is None:
            context.partition_states[tp] = NEW_PARTITION
        elif leadership.leader in live:
            context.partition_states[tp] = ONLINE_PARTITION
        else:
            context.partition_states[tp] = OFFLINE_PARTITION
    if scl.tracing():  # Kafka's replica state machine startup moves each replica to the state it starts in
        prefix = scl.controller_prefix(context.controller_id, context.epoch)
        for (topic, partition, replica), state in context.replica_states.items():
            scl.trace(
                prefix,
                "Changed state of replica %d for partition %s-%d from %s to %s",
                replica,
                topic,
                partition,
                state,
                state,
            )
