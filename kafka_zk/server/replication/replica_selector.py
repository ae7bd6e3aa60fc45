"""Which replica a consumer should fetch from (KIP-392): the selectors that replica.selector.class names.

A selector is a function ``select(client_rack, replicas, leader)`` over ReplicaViews (``leader`` is one of
``replicas``) that returns the chosen view, or None for no preference. Pure code."""

from collections import namedtuple

from kafka_zk.server.config.kafka_config import RACK_AWARE_REPLICA_SELECTOR

ReplicaView = namedtuple("ReplicaView", "broker_id rack log_end_offset ms_since_caught_up")

RACK_AWARE = RACK_AWARE_REPLICA_SELECTOR


def most_caught_up(replica):
    """Sort key of Kafka's ReplicaView comparator: log end offset, then the most recently caught up, then
    the broker id; the greatest key is the most caught up."""
    return (replica.log_end_offset, -replica.ms_since_caught_up, replica.broker_id)


def rack_aware(client_rack, replicas, leader):
    """The leader when it shares the client's rack (or the client names none, or no replica is there),
    else the most caught-up replica in the client's rack."""
    if not client_rack:
        return leader
    same_rack = [replica for replica in replicas if replica.rack == client_rack]
    if not same_rack or leader in same_rack:
        return leader
    return max(same_rack, key=most_caught_up)


SELECTORS = {RACK_AWARE: rack_aware}


def selector_for(class_name):
    """The selector replica.selector.class names; None (the default) means consumers read from leaders only."""
    return None if class_name is None else SELECTORS[class_name]
