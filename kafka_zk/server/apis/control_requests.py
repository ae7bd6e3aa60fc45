"""Shared parsing and fencing for controller requests (LeaderAndIsr, UpdateMetadata, StopReplica)."""

from kafka_zk.protocol.errors import Errors


def fencing_error(server, body):
    """STALE_CONTROLLER_EPOCH / STALE_BROKER_EPOCH, or None if the request may be applied."""
    if body["controller_epoch"] < server.replica_manager.controller_epoch:
        return Errors.STALE_CONTROLLER_EPOCH
    broker_epoch = body.get("broker_epoch", -1)
    if broker_epoch != -1 and broker_epoch < server.broker_epoch:
        return Errors.STALE_BROKER_EPOCH
    return None


def partition_states(body):
    """Yield (topic, state dict) for grouped (topic_states) and ungrouped layouts alike."""
    for state in body.get("ungrouped_partition_states") or []:
        yield state["topic_name"], state
    for topic_state in body.get("topic_states") or []:
        for state in topic_state["partition_states"]:
            yield topic_state["topic_name"], state
