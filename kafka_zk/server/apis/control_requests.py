"""Shared parsing, fencing and ordering for controller requests (LeaderAndIsr, UpdateMetadata, StopReplica)."""

from kafka_zk.protocol.errors import Errors


def in_arrival_order(apply):
    """Wrap a control request handler so that the broker applies control requests one at a time, in the order
    they arrived: the controller pipelines them, and an UpdateMetadata must not overtake a LeaderAndIsr that
    waits for topic configs (Metadata would name a leader that has not heard it leads)."""
    def handle(server, request):
        return server.control_requests.run(apply, server, request)
    handle.__doc__ = apply.__doc__
    return handle


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
