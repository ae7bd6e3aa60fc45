"""Partition leader election strategies as pure functions of assignment, ISR and live brokers."""

from collections.abc import Collection, Sequence
from typing import NamedTuple


class ElectionResult(NamedTuple):
    leader: int | None  # None: no replica qualifies
    isr: Sequence[int]


def offline_partition_leader(
    assignment: Sequence[int], isr: Sequence[int], live_brokers: Collection[int], unclean_enabled: bool
) -> ElectionResult:
    """First live assigned replica in the ISR; with unclean election, else the first live one."""
    live_isr = [broker for broker in isr if broker in live_brokers]
    for replica in assignment:
        if replica in live_brokers and replica in isr:
            return ElectionResult(replica, live_isr)
    if unclean_enabled:
        for replica in assignment:
            if replica in live_brokers:
                return ElectionResult(replica, [replica])
    return ElectionResult(None, isr)


def reassign_partition_leader(
    reassignment: Sequence[int], isr: Sequence[int], live_brokers: Collection[int]
) -> ElectionResult:
    for replica in reassignment:
        if replica in live_brokers and replica in isr:
            return ElectionResult(replica, list(isr))
    return ElectionResult(None, isr)


def preferred_replica_leader(
    assignment: Sequence[int], isr: Sequence[int], live_brokers: Collection[int]
) -> ElectionResult:
    if assignment and assignment[0] in live_brokers and assignment[0] in isr:
        return ElectionResult(assignment[0], list(isr))
    return ElectionResult(None, isr)


def controlled_shutdown_leader(
    assignment: Sequence[int], isr: Sequence[int], live_brokers: Collection[int], shutting_down: Collection[int]
) -> ElectionResult:
    new_isr = [broker for broker in isr if broker not in shutting_down]
    for replica in assignment:
        if replica in live_brokers and replica in new_isr:
            return ElectionResult(replica, new_isr)
    return ElectionResult(None, new_isr)
