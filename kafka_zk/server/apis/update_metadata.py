"""UpdateMetadata (key 6): the controller's view of live brokers and partition leaders."""

import logging

from kafka_zk.common import state_change_log
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized
from kafka_zk.server.apis.control_requests import fencing_error, in_arrival_order, partition_states
from kafka_zk.server.metadata_cache import BrokerEndpoints, PartitionInfo

API_KEY = 6

log = logging.getLogger(__name__)


@in_arrival_order
def handle(
    request,
    *,
    replica_manager,
    metadata_cache,
    group_coordinator,
    on_metadata_updated,
    broker_id,
    broker_epoch,
    clock,
    authorizer=None,
):
    body = request.body
    if not cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION):
        return {"error_code": Errors.CLUSTER_AUTHORIZATION_FAILED}
    error = fencing_error(body, replica_manager.controller_epoch, broker_epoch())
    if error is not None:
        if error == Errors.STALE_CONTROLLER_EPOCH:
            state_change_log.log_stale_controller(
                broker_id,
                "UpdateMetadata",
                request.correlation_id,
                body["controller_id"],
                body["controller_epoch"],
                replica_manager.controller_epoch,
            )
        return {"error_code": error}
    replica_manager.check_controller_epoch(body["controller_epoch"])
    started = clock.seconds()
    brokers = []
    for broker in body["live_brokers"]:
        if request.api_version == 0:
            endpoints = {"PLAINTEXT": (broker["v0_host"], broker["v0_port"])}
        else:
            endpoints = {
                (endpoint.get("listener") or "PLAINTEXT").upper(): (endpoint["host"], endpoint["port"])
                for endpoint in broker["endpoints"]
            }
        brokers.append(BrokerEndpoints(broker["id"], endpoints, broker.get("rack")))
    states = [
        (
            topic,
            state["partition_index"],
            PartitionInfo(
                state["leader"],
                state["leader_epoch"],
                list(state["isr"]),
                list(state["replicas"]),
                list(state.get("offline_replicas") or []),
                state["controller_epoch"],
                state["zk_version"],
            ),
        )
        for topic, state in partition_states(body)
    ]
    deleted = metadata_cache.update(body["controller_id"], body["controller_epoch"], brokers, states)
    state_change_log.log_update_metadata(
        broker_id, request.correlation_id, body["controller_id"], body["controller_epoch"], list(partition_states(body))
    )
    if deleted:
        group_coordinator.handle_deleted_partitions(deleted)
    on_metadata_updated()
    log.info(
        "[Broker id=%d] UpdateMetadata from controller %d epoch %d: %d brokers, %d partitions; applied in %.3fs, "
        "%.3fs after it arrived",
        broker_id,
        body["controller_id"],
        body["controller_epoch"],
        len(brokers),
        len(states),
        clock.seconds() - started,
        started - request.received_ms / 1000.0,
    )
    return {"error_code": Errors.NONE}
