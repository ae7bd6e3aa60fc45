"""Shared parsing, fencing and ordering for controller requests (LeaderAndIsr, UpdateMetadata, StopReplica)."""

import functools
import inspect

from kafka_zk.protocol.errors import Errors


def in_arrival_order(apply):
    """Wrap a control request handler so that the broker applies control requests one at a time, in the order
    they arrived: the controller pipelines them, and an UpdateMetadata must not overtake a LeaderAndIsr that
    waits for topic configs (Metadata would name a leader that has not heard it leads). The wrapped handler
    takes ``control_requests`` (the lock they take turns on) besides the collaborators of ``apply``."""

    @functools.wraps(apply)
    def handle(request, *, control_requests, **collaborators):
        return control_requests.run(apply, request, **collaborators)

    applied = inspect.signature(apply)
    handle.__signature__ = applied.replace(
        parameters=[*applied.parameters.values(), inspect.Parameter("control_requests", inspect.Parameter.KEYWORD_ONLY)]
    )
    return handle


def fencing_error(body, controller_epoch, broker_epoch):
    """STALE_CONTROLLER_EPOCH / STALE_BROKER_EPOCH, or None if the request may be applied; ``controller_epoch``
    is the latest this broker has seen, ``broker_epoch`` that of its current registration. The broker epoch is
    checked first, as Kafka 2.5's KafkaApis does before its ReplicaManager checks the controller epoch."""
    request_epoch = body.get("broker_epoch", -1)
    if request_epoch != -1 and request_epoch < broker_epoch:
        return Errors.STALE_BROKER_EPOCH
    if body["controller_epoch"] < controller_epoch:
        return Errors.STALE_CONTROLLER_EPOCH
    return None


def partition_states(body):
    """Yield (topic, state dict) for grouped (topic_states) and ungrouped layouts alike."""
    for state in body.get("ungrouped_partition_states") or []:
        yield state["topic_name"], state
    for topic_state in body.get("topic_states") or []:
        for state in topic_state["partition_states"]:
            yield topic_state["topic_name"], state
