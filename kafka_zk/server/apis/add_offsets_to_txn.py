"""AddOffsetsToTxn (key 25): add the group's `__consumer_offsets` partition to a transaction."""

from kafka_zk.coordinator.group.records import OFFSETS_TOPIC

API_KEY = 25


def handle(request, *, group_coordinator, txn_coordinator):
    body = request.body
    partition = group_coordinator.manager.partition_for(body["group_id"])
    result = txn_coordinator.handle_add_partitions(body["transactional_id"], body["producer_id"],
                                                   body["producer_epoch"], [(OFFSETS_TOPIC, partition)])
    return result.addCallback(lambda error: {"throttle_time_ms": 0, "error_code": error})
