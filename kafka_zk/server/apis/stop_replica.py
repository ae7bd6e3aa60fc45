"""StopReplica (key 5): stop serving partitions and, for deleted topics, remove their logs."""

from kafka_zk.common import state_change_log
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized
from kafka_zk.server.apis.control_requests import fencing_error, in_arrival_order

API_KEY = 5


@in_arrival_order
def handle(
    request, *, replica_manager, broker_epoch, group_coordinator, txn_coordinator, authorizer=None, broker_id=-1
):
    body = request.body
    partitions = [(p["topic_name"], p["partition_index"]) for p in body.get("ungrouped_partitions") or []]
    for topic in body.get("topics") or []:
        partitions.extend((topic["name"], index) for index in topic["partition_indexes"])
    if not cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION):
        denied = Errors.CLUSTER_AUTHORIZATION_FAILED
        return {
            "error_code": denied,
            "partition_errors": [
                {"topic_name": topic, "partition_index": index, "error_code": denied} for topic, index in partitions
            ],
        }
    error = fencing_error(body, replica_manager.controller_epoch, broker_epoch())
    if error is not None:
        if error == Errors.STALE_CONTROLLER_EPOCH:
            state_change_log.log_stale_controller(
                broker_id,
                "StopReplica",
                request.correlation_id,
                body["controller_id"],
                body["controller_epoch"],
                replica_manager.controller_epoch,
            )
        return {"error_code": error, "partition_errors": []}
    replica_manager.check_controller_epoch(body["controller_epoch"])
    errors = [
        {
            "topic_name": topic,
            "partition_index": index,
            "error_code": replica_manager.stop_replica(topic, index, body["delete_partitions"]),
        }
        for topic, index in partitions
    ]
    state_change_log.log_stop_replica(
        broker_id, partitions, body["delete_partitions"], [entry["error_code"] for entry in errors]
    )
    for topic, index in partitions:
        if topic == OFFSETS_TOPIC:
            group_coordinator.on_resignation(index)
        elif topic == TRANSACTION_STATE_TOPIC:
            txn_coordinator.on_resignation(index)
    return {"error_code": Errors.NONE, "partition_errors": errors}
