"""LeaderAndIsr (key 4): the controller tells this broker which partitions it leads or follows."""

import logging

from kafka_zk.common import state_change_log
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized
from kafka_zk.server.apis.control_requests import fencing_error, in_arrival_order, partition_states

API_KEY = 4

log = logging.getLogger(__name__)


@in_arrival_order
def handle(
    request,
    *,
    replica_manager,
    broker_id,
    broker_epoch,
    prepare_topic_configs,
    group_coordinator,
    txn_coordinator,
    clock,
    authorizer=None,
):
    body = request.body
    states = list(partition_states(body))
    if not cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION):
        error = Errors.CLUSTER_AUTHORIZATION_FAILED  # only brokers (the controller) may send it
    else:
        error = fencing_error(body, replica_manager.controller_epoch, broker_epoch())
    if error is not None:
        if error == Errors.STALE_CONTROLLER_EPOCH:
            state_change_log.log_stale_controller(
                broker_id,
                "LeaderAndIsr",
                request.correlation_id,
                body["controller_id"],
                body["controller_epoch"],
                replica_manager.controller_epoch,
            )
        return {
            "error_code": error,
            "partition_errors": [
                {"topic_name": topic, "partition_index": s["partition_index"], "error_code": error}
                for topic, s in states
            ],
        }
    replica_manager.check_controller_epoch(body["controller_epoch"])
    state_change_log.log_leader_and_isr_received(
        broker_id, request.correlation_id, body["controller_id"], body["controller_epoch"], states
    )
    normalized = [
        {
            "topic": topic,
            "partition": s["partition_index"],
            "leader": s["leader"],
            "leader_epoch": s["leader_epoch"],
            "isr": s["isr"],
            "replicas": s["replicas"],
            "zk_version": s["zk_version"],
            "controller_epoch": s["controller_epoch"],
            "is_new": s.get("is_new", False),
        }
        for topic, s in states
    ]
    result = prepare_topic_configs({state["topic"] for state in normalized})

    def apply(_):
        started = clock.seconds()
        leaders = {leader["broker_id"]: (leader["host_name"], leader["port"]) for leader in body["live_leaders"]}
        errors = replica_manager.become_leader_or_follower(normalized, leaders)
        state_change_log.log_leader_and_isr_applied(
            broker_id, request.correlation_id, body["controller_id"], body["controller_epoch"], states, errors
        )
        _notify_group_coordinator(group_coordinator, broker_id, normalized, errors)
        _notify_txn_coordinator(txn_coordinator, broker_id, normalized, errors)
        log.info(
            "[Broker id=%d] LeaderAndIsr from controller %d epoch %d: %d partitions, %d led here; applied in "
            "%.3fs, %.3fs after it arrived",
            broker_id,
            body["controller_id"],
            body["controller_epoch"],
            len(normalized),
            sum(1 for state in normalized if state["leader"] == broker_id),
            clock.seconds() - started,
            started - request.received_ms / 1000.0,
        )
        return {
            "error_code": Errors.NONE,
            "partition_errors": [
                {"topic_name": tp[0], "partition_index": tp[1], "error_code": code} for tp, code in errors.items()
            ],
        }

    return result.addCallback(apply)


def _notify_group_coordinator(coordinator, broker_id, states, errors):
    """Leading a `__consumer_offsets` partition loads its groups; following it unloads them."""
    for state in states:
        tp = (state["topic"], state["partition"])
        if tp[0] != OFFSETS_TOPIC or errors.get(tp, Errors.NONE) != Errors.NONE:
            continue
        if state["leader"] == broker_id:
            coordinator.on_election(tp[1])
        else:
            coordinator.on_resignation(tp[1])


def _notify_txn_coordinator(coordinator, broker_id, states, errors):
    """Leading a `__transaction_state` partition loads its transactions at the leader epoch (the coordinator
    epoch of its markers); following it unloads them."""
    for state in states:
        tp = (state["topic"], state["partition"])
        if tp[0] != TRANSACTION_STATE_TOPIC or errors.get(tp, Errors.NONE) != Errors.NONE:
            continue
        if state["leader"] == broker_id:
            coordinator.on_election(tp[1], state["leader_epoch"])
        else:
            coordinator.on_resignation(tp[1], state["leader_epoch"])
