"""AddPartitionsToTxn (key 24): the transaction coordinator records partitions a transaction writes to.

As Kafka 2.5: if any partition is unknown, nothing is added; those answer UNKNOWN_TOPIC_OR_PARTITION and the
others OPERATION_NOT_ATTEMPTED. Otherwise every partition answers the coordinator's error.
"""

from kafka_zk.protocol.errors import Errors

API_KEY = 24


def partition_results(errors):
    """{tp: error} -> the response's results, grouped by topic in request order."""
    topics = {}
    for (topic, partition), error in errors.items():
        topics.setdefault(topic, []).append({"partition_index": partition, "error_code": error})
    return [{"name": name, "results": results} for name, results in topics.items()]


def handle(request, *, metadata_cache, txn_coordinator):
    body = request.body
    partitions = [(topic["name"], partition) for topic in body["topics"] for partition in topic["partitions"]]
    unknown = {tp for tp in partitions if metadata_cache.partition_info(*tp) is None}
    if unknown:
        errors = {tp: Errors.UNKNOWN_TOPIC_OR_PARTITION if tp in unknown else Errors.OPERATION_NOT_ATTEMPTED
                  for tp in partitions}
        return {"throttle_time_ms": 0, "results": partition_results(errors)}
    result = txn_coordinator.handle_add_partitions(body["transactional_id"], body["producer_id"],
                                                   body["producer_epoch"], partitions)
    return result.addCallback(lambda error: {"throttle_time_ms": 0,
                                             "results": partition_results({tp: error for tp in partitions})})
