"""WriteTxnMarkers (key 27): the transaction coordinator's COMMIT/ABORT markers appended to partition leaders.

As Kafka 2.5: each marker becomes one control batch per partition (transactional and control bits,
producer id and epoch, no sequence), appended with acks=-1 under request.timeout.ms; a partition with no
local log answers UNKNOWN_TOPIC_OR_PARTITION, a follower NOT_LEADER_FOR_PARTITION, a stale coordinator
epoch TRANSACTION_COORDINATOR_FENCED and an older producer epoch INVALID_PRODUCER_EPOCH. The response
leaves once every marker's appends are replicated (or timed out).
"""

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages.write_txn_markers import error_response
from kafka_zk.record.records import control_marker_record, encode_batch
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 27


def marker_batch(producer_id, producer_epoch, commit, coordinator_epoch, timestamp_ms):
    """The control batch Kafka writes for one transaction marker."""
    key, value = control_marker_record(commit, coordinator_epoch)
    return encode_batch(
        [(key, value, (), timestamp_ms)],
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        is_transactional=True,
        is_control=True,
        first_timestamp=timestamp_ms,
    )


def handle(request, *, replica_manager, group_coordinator, config, clock, authorizer=None):
    if not cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION):
        # only brokers (transaction coordinators) may write markers: every partition is refused, nothing appended
        return error_response(request.body, request.api_version, Errors.CLUSTER_AUTHORIZATION_FAILED)
    timeout_ms = config["request.timeout.ms"]
    now = milliseconds(clock)
    pending = []
    for marker in request.body["markers"]:
        producer_id = marker["producer_id"]
        errors = {}
        entries = {}
        batch = marker_batch(
            producer_id, marker["producer_epoch"], marker["transaction_result"], marker["coordinator_epoch"], now
        )
        for topic in marker["topics"]:
            for index in topic["partition_indexes"]:
                tp = (topic["name"], index)
                partition = replica_manager.get_partition(*tp)
                if partition is None or partition.log is None:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    entries[tp] = (bytearray(batch), marker["coordinator_epoch"])
        appended = replica_manager.append_txn_markers(timeout_ms, entries) if entries else defer.succeed({})
        appended.addCallback(_complete_offsets, group_coordinator, producer_id, marker["transaction_result"])
        pending.append(appended.addCallback(_merge, producer_id, errors))

    def build(per_marker):
        return {
            "markers": [
                {
                    "producer_id": producer_id,
                    "topics": [
                        {
                            "name": topic,
                            "partitions": [
                                {"partition_index": index, "error_code": code} for index, code in partitions
                            ],
                        }
                        for topic, partitions in _by_topic(errors).items()
                    ],
                }
                for producer_id, errors in per_marker
            ]
        }

    return defer.gatherResults(pending, consumeErrors=True).addCallback(build)


def _complete_offsets(results, coordinator, producer_id, commit):
    """Markers written to `__consumer_offsets` partitions settle the producer's pending transactional offsets
    there (Kafka's scheduleHandleTxnCompletion)."""
    written = [tp[1] for tp, result in results.items() if tp[0] == OFFSETS_TOPIC and result.error == Errors.NONE]
    if written:
        coordinator.handle_txn_completion(producer_id, written, commit)
    return results


def _merge(results, producer_id, errors):
    merged = dict(errors)
    for tp, result in results.items():
        merged[tp] = result.error
    return producer_id, merged


def _by_topic(errors):
    topics = {}
    for (topic, index), code in errors.items():
        topics.setdefault(topic, []).append((index, code))
    return topics
