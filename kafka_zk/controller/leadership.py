"""Pure leadership decisions: initial leaders for new partitions, elections, and ISR shrink on failure."""

from collections.abc import Callable, Iterable

from kafka_zk.controller import election
from kafka_zk.controller.context import ControllerContext, LeaderIsr, TopicPartition

NO_LEADER = -1


def initial_leadership(
    context: ControllerContext, partitions: Iterable[TopicPartition]
) -> tuple[dict[TopicPartition, LeaderIsr], list[TopicPartition]]:
    """For NewPartition -> OnlinePartition: {tp: LeaderIsr} with zk_version -1 (to create), and the
    partitions that have no live replica (they stay NewPartition)."""
    live = context.live_broker_ids
    decided: dict[TopicPartition, LeaderIsr] = {}
    failed: list[TopicPartition] = []
    for tp in partitions:
        live_here = context.live_for(tp, live)
        live_replicas = [replica for replica in context.assignments[tp] if replica in live_here]
        if not live_replicas:
            failed.append(tp)
            continue
        decided[tp] = LeaderIsr(live_replicas[0], 0, live_replicas, context.epoch, -1)
    return decided, failed


def elect(
    context: ControllerContext,
    partitions: Iterable[TopicPartition],
    strategy: str,
    unclean_enabled: Callable[[str], bool] = lambda topic: False,
) -> tuple[dict[TopicPartition, LeaderIsr], list[TopicPartition]]:
    """Elect new leaders for partitions that have a LeaderIsr. Returns ({tp: new LeaderIsr}, failed).

    strategy: "offline", "preferred", "controlled_shutdown" or "reassign".
    The new LeaderIsr keeps the old zk_version: the write is conditioned on it.
    """
    live = context.live_broker_ids
    decided: dict[TopicPartition, LeaderIsr] = {}
    failed: list[TopicPartition] = []
    for tp in partitions:
        current = context.leadership.get(tp)
        if current is None:
            failed.append(tp)
            continue
        assignment = context.assignments[tp]
        live_here = context.live_for(tp, live)
        if strategy == "offline":
            result = election.offline_partition_leader(assignment, current.isr, live_here, unclean_enabled(tp[0]))
        elif strategy == "preferred":
            result = election.preferred_replica_leader(assignment, current.isr, live_here)
        elif strategy == "controlled_shutdown":
            result = election.controlled_shutdown_leader(
                assignment,
                current.isr,
                context.live_for(tp, context.live_or_shutting_down_broker_ids),
                context.shutting_down,
            )
        elif strategy == "reassign":
            result = election.reassign_partition_leader(assignment, current.isr, live_here)
        else:
            raise ValueError("unknown election strategy %s" % strategy)
        if result.leader is None:
            failed.append(tp)
            continue
        decided[tp] = LeaderIsr(
            result.leader, current.leader_epoch + 1, list(result.isr), context.epoch, current.zk_version
        )
    return decided, failed


def remove_replica_from_isr(current: LeaderIsr, broker: int, controller_epoch: int) -> LeaderIsr | None:
    """The LeaderIsr after a replica goes offline, or None if nothing changes.

    A leader that leaves makes the partition leaderless (-1); the last ISR member is kept so that a
    clean election can still find it when it returns.
    """
    if broker not in current.isr and current.leader != broker:
        return None
    leader = NO_LEADER if current.leader == broker else current.leader
    isr = current.isr if len(current.isr) == 1 else [replica for replica in current.isr if replica != broker]
    return LeaderIsr(leader, current.leader_epoch + 1, isr, controller_epoch, current.zk_version)
