"""StopReplica (key 5): stop serving partitions and, for deleted topics, remove their logs."""

from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.server.apis.control_requests import fencing_error, in_arrival_order
from kafka_zk.coordinator.group.group_metadata_manager import OFFSETS_TOPIC

API_KEY = 5


@in_arrival_order
def handle(server, request):
    body = request.body
    partitions = [(p["topic_name"], p["partition_index"]) for p in body.get("ungrouped_partitions") or []]
    for topic in body.get("topics") or []:
        partitions.extend((topic["name"], index) for index in topic["partition_indexes"])
    error = fencing_error(server, body)
    if error is not None:
        return {"error_code": error, "partition_errors": []}
    server.replica_manager.check_controller_epoch(body["controller_epoch"])
    errors = [{"topic_name": topic, "partition_index": index,
               "error_code": server.replica_manager.stop_replica(topic, index, body["delete_partitions"])}
              for topic, index in partitions]
    coordinator = getattr(server, "group_coordinator", None)
    if coordinator is not None:
        for topic, index in partitions:
            if topic == OFFSETS_TOPIC:
                coordinator.on_resignation(index)
    txn_coordinator = getattr(server, "txn_coordinator", None)
    if txn_coordinator is not None:
        for topic, index in partitions:
            if topic == TRANSACTION_STATE_TOPIC:
                txn_coordinator.on_resignation(index)
    return {"error_code": Errors.NONE, "partition_errors": errors}
