"""AddPartitionsToTxn (key 24): the transaction coordinator records partitions a transaction writes to.

As Kafka 2.5: if any partition is unknown, nothing is added; those answer UNKNOWN_TOPIC_OR_PARTITION and the
others OPERATION_NOT_ATTEMPTED. Otherwise every partition answers the coordinator's error.
"""

from twisted.internet import defer

from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, authorized_names

API_KEY = 24


def partition_results(errors):
    """{tp: error} -> the response's results, grouped by topic in request order."""
    topics = {}
    for (topic, partition), error in errors.items():
        topics.setdefault(topic, []).append({"partition_index": partition, "error_code": error})
    return [{"name": name, "results": results} for name, results in topics.items()]


def handle(request, *, metadata_cache, txn_coordinator, authorizer=None):
    body = request.body
    partitions = [(topic["name"], partition) for topic in body["topics"] for partition in topic["partitions"]]
    if not authorized(authorizer, request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body["transactional_id"]):
        return defer.succeed(
            {
                "throttle_time_ms": 0,
                "results": partition_results({tp: Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED for tp in partitions}),
            }
        )
    # Write on each topic; the internal topics are never added this way (their partitions answer
    # TOPIC_AUTHORIZATION_FAILED whatever the ACLs say, as Kafka).
    writable = authorized_names(
        authorizer,
        request,
        AclOperation.WRITE,
        ResourceType.TOPIC,
        [tp[0] for tp in partitions if tp[0] not in (OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC)],
    )
    failed = {}
    for tp in partitions:
        if tp[0] not in writable:
            failed[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
        elif metadata_cache.partition_info(*tp) is None:
            failed[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
    if failed:
        errors = {tp: failed.get(tp, Errors.OPERATION_NOT_ATTEMPTED) for tp in partitions}
        return {"throttle_time_ms": 0, "results": partition_results(errors)}
    result = txn_coordinator.handle_add_partitions(
        body["transactional_id"], body["producer_id"], body["producer_epoch"], partitions
    )
    return result.addCallback(
        lambda error: {"throttle_time_ms": 0, "results": partition_results({tp: error for tp in partitions})}
    )
