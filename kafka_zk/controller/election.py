"""Partition leader election strategies as pure functions of assignment, ISR and live brokers."""

from collections import namedtuple

ElectionResult = namedtuple("ElectionResult", "leader isr")


def offline_partition_leader(assignment, isr, live_brokers, unclean_enabled):
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


def reassign_partition_leader(reassignment, isr, live_brokers):
    for replica in reassignment:
        if replica in live_brokers and replica in isr:
            return ElectionResult(replica, list(isr))
    return ElectionResult(None, isr)


def preferred_replica_leader(assignment, isr, live_brokers):
    if assignment and assignment[0] in live_brokers and assignment[0] in isr:
        return ElectionResult(assignment[0], list(isr))
    return ElectionResult(None, isr)


def controlled_shutdown_leader(assignment, isr, live_brokers, shutting_down):
    new_isr = [broker for broker in isr if broker not in shutting_down]
    for replica in assignment:
        if replica in live_brokers and replica in new_isr:
            return ElectionResult(replica, new_isr)
    return ElectionResult(None, new_isr)
