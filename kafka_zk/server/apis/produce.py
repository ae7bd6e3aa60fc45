"""Produce (key 0): append record batches to partition leaders, answering per acks."""

from kafka_zk.common.clock import milliseconds
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized, authorized_names, cluster_authorized
from kafka_zk.server.quota.client_quotas import ANONYMOUS
from kafka_zk.zk.znodes import sanitize

API_KEY = 0
# The errors of a batch refused by record validation (a RecordValidationException in Kafka 2.5), which alone carry
# an error message.
_VALIDATION_ERRORS = (Errors.INVALID_RECORD, Errors.INVALID_TIMESTAMP)

# What the first batch of a partition's records says of its producer (Kafka's hasIdempotentRecords and
# hasTransactionalRecords look at the first batch only).
TRANSACTIONAL = 1
IDEMPOTENT = 2


def handle(request, *, metadata_cache, replica_manager, produce_quotas, clock, authorizer=None):
    body = request.body
    acks = body["acks"]
    topics = body["topics"]
    producers = 0
    for topic_data in topics:
        for partition_data in topic_data["partitions"]:
            # TRANSACTIONAL when the first batch is a v2 one with the transactional bit (attributes at offset 22,
            # bit 4); IDEMPOTENT when it is a v2 one with a producer id (the int64 at offset 43 is not negative).
            records = partition_data["records"]
            if records is not None and len(records) > 22 and records[16] == 2:
                if records[22] & 0x10:
                    producers |= TRANSACTIONAL
                if len(records) >= 51 and records[43] < 0x80:
                    producers |= IDEMPOTENT
    if producers & TRANSACTIONAL:
        # As Kafka: transactional batches need a transactional id authorized for writes; the whole request fails.
        transactional_id = body.get("transactional_id")
        if transactional_id is None or not authorized(
            authorizer, request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id
        ):
            return _respond_all(body, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) if acks != 0 else None
    elif producers & IDEMPOTENT and not cluster_authorized(authorizer, request, AclOperation.IDEMPOTENT_WRITE):
        return _respond_all(body, Errors.CLUSTER_AUTHORIZATION_FAILED) if acks != 0 else None
    writable = None  # every topic, when nothing authorizes
    if authorizer is not None:
        writable = authorized_names(
            authorizer, request, AclOperation.WRITE, ResourceType.TOPIC, [topic_data["name"] for topic_data in topics]
        )
    if acks not in (0, 1, -1):
        return _respond_all(body, Errors.INVALID_REQUIRED_ACKS, writable) if acks != 0 else None
    entries = {}
    early = {}
    for topic_data in topics:
        topic = topic_data["name"]
        for partition_data in topic_data["partitions"]:
            tp = (topic, partition_data["partition_index"])
            records = partition_data["records"]
            if writable is not None and topic not in writable:
                early[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif not metadata_cache.contains_topic(topic) and replica_manager.get_partition(*tp) is None:
                early[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            elif records is None or len(records) == 0:
                early[tp] = Errors.CORRUPT_MESSAGE
            elif request.api_version < 7 and _is_zstd(records):
                early[tp] = Errors.UNSUPPORTED_COMPRESSION_TYPE
            else:
                entries[tp] = records
    result = replica_manager.append_records_or_defer(body["timeout_ms"], acks, entries)
    if acks == 0:
        return None

    if type(result) is dict:  # acks 0/1: final at once (isinstance on a Deferred goes through ABCMeta, in Python)
        return _build(result, early, request, produce_quotas, clock)
    return result.addCallback(_build, early, request, produce_quotas, clock)


def bind(*, metadata_cache, replica_manager, produce_quotas, clock, authorizer=None):
    """``handle`` with its collaborators bound, as a closure of this compiled module: bind_handlers' generic
    wrapper is exec'd, so it would run interpreted on every request."""

    def bound(request):
        return handle(
            request,
            metadata_cache=metadata_cache,
            replica_manager=replica_manager,
            produce_quotas=produce_quotas,
            clock=clock,
            authorizer=authorizer,
        )

    return bound


def _build(results, early, request, produce_quotas, clock):
    """The response to the appends' ``results``, and the partitions ``early`` answered before any append."""
    throttle_ms = 0
    if produce_quotas.enabled:
        throttle_ms = produce_quotas.record(
            ANONYMOUS, sanitize(request.client_id or ""), request.size, milliseconds(clock)
        )
    responses = {}  # topic -> its partitions' list, in answers
    answers = []
    for tp, code in early.items():
        partitions = responses.get(tp[0])
        if partitions is None:
            partitions = responses[tp[0]] = []
            answers.append({"name": tp[0], "partitions": partitions})
        partitions.append(
            {
                "partition_index": tp[1],
                "error_code": code,
                "base_offset": -1,
                "log_append_time_ms": -1,
                "log_start_offset": -1,
                "record_errors": [],
                "error_message": None,
            }
        )
    for tp, outcome in results.items():
        error = outcome.error
        topic, partition_index = tp
        partitions = responses.get(topic)
        if partitions is None:
            partitions = responses[topic] = []
            answers.append({"name": topic, "partitions": partitions})
        partitions.append(
            {
                "partition_index": partition_index,
                "error_code": error,
                "base_offset": outcome.base_offset,
                "log_append_time_ms": outcome.log_append_time,
                "log_start_offset": outcome.log_start_offset,
                "record_errors": [
                    {"batch_index": index, "batch_index_error_message": message}
                    for index, message in outcome.record_errors
                ]
                if outcome.record_errors
                else [],
                # as Kafka 2.5: only a batch refused by record validation says why
                "error_message": outcome.message if error and error in _VALIDATION_ERRORS else None,
            }
        )
    return {
        "responses": answers,
        "throttle_time_ms": throttle_ms,
    }


def _respond_all(body, code, authorized_topics=None):
    """Every partition answers ``code``; those of topics outside ``authorized_topics`` (when given)
    TOPIC_AUTHORIZATION_FAILED."""

    def error_of(topic):
        if authorized_topics is None or topic in authorized_topics:
            return code
        return Errors.TOPIC_AUTHORIZATION_FAILED

    return {
        "responses": [
            {
                "name": topic["name"],
                "partitions": [
                    {
                        "partition_index": p["partition_index"],
                        "error_code": error_of(topic["name"]),
                        "base_offset": -1,
                        "log_append_time_ms": -1,
                        "log_start_offset": -1,
                        "record_errors": [],
                        "error_message": None,
                    }
                    for p in topic["partitions"]
                ],
            }
            for topic in body["topics"]
        ],
        "throttle_time_ms": 0,
    }


def _is_zstd(records):
    """zstd batches need Produce v7+ (the low byte of a v2 batch's attributes is at offset 22)."""
    return len(records) > 22 and records[16] == 2 and records[22] & 0x07 == 4
