"""Fetch (key 1): records below the high watermark for consumers, below the last stable offset (with the
aborted transactions) for read_committed ones, and to the log end for followers."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.client_quotas import ANONYMOUS
from kafka_zk.server.quota_configs import sanitize
from kafka_zk.record.validation import down_convert
from kafka_zk.server.replica_manager import FetchInfo, FetchResult

API_KEY = 1
_NO_LIMIT = 0x7FFFFFFF


def handle(server, request):
    body = request.body
    version = request.api_version
    if body.get("session_epoch", -1) > 0 and body.get("session_id", 0) != 0:
        return {"throttle_time_ms": 0, "error_code": Errors.FETCH_SESSION_ID_NOT_FOUND, "session_id": 0,
                "responses": []}
    fetch_infos = []
    unknown = []
    for topic_data in body["topics"]:
        topic = topic_data["topic"]
        for partition_data in topic_data["partitions"]:
            tp = (topic, partition_data["partition"])
            if not server.metadata_cache.contains_topic(topic) and server.replica_manager.get_partition(*tp) is None:
                unknown.append(tp)
                continue
            fetch_infos.append(FetchInfo(tp, partition_data["fetch_offset"], partition_data["partition_max_bytes"],
                                         partition_data["current_leader_epoch"], partition_data["log_start_offset"]))
    max_bytes = body["max_bytes"] if version >= 3 else _NO_LIMIT
    isolation_level = body.get("isolation_level", 0) if version >= 4 else 0
    result = server.replica_manager.fetch_messages(body["max_wait_ms"], body["min_bytes"], max_bytes,
                                                   fetch_infos, body["replica_id"], isolation_level)

    def build(results):
        throttle_ms = 0
        if body["replica_id"] < 0:  # consumers; followers are subject to replication quotas instead
            client = sanitize(request.client_id or "")
            size = sum(len(outcome.records or b"") for outcome in results.values())
            now = server.now_ms()
            throttle_ms = server.fetch_quotas.record(ANONYMOUS, client, size, now)
            if throttle_ms > 0:  # as Kafka: a throttled fetch answers without data, which is not counted
                server.fetch_quotas.unrecord(ANONYMOUS, client, size, now)
                results = {tp: FetchResult(outcome.error, b"", outcome.high_watermark, outcome.log_start_offset,
                                           outcome.log_end_offset, outcome.last_stable_offset,
                                           None if outcome.aborted_transactions is None else [])
                           for tp, outcome in results.items()}
        topics = {}
        for tp in unknown:
            topics.setdefault(tp[0], []).append(_partition(tp[1], Errors.UNKNOWN_TOPIC_OR_PARTITION))
        for tp, outcome in results.items():
            records = outcome.records
            if version <= 3 and records:
                records = down_convert(records, 0 if version <= 1 else 1)
            entry = _partition(tp[1], outcome.error, outcome.high_watermark, outcome.log_start_offset, records,
                               outcome.last_stable_offset, outcome.aborted_transactions)
            topics.setdefault(tp[0], []).append(entry)
        return {"throttle_time_ms": throttle_ms, "error_code": Errors.NONE, "session_id": 0,
                "responses": [{"topic": topic, "partitions": partitions} for topic, partitions in topics.items()]}
    return result.addCallback(build)


def _partition(index, error, high_watermark=-1, log_start_offset=-1, records=b"", last_stable_offset=-1,
               aborted_transactions=None):
    """One partition's answer; ``aborted_transactions`` is None (null on the wire) for read_uncommitted."""
    aborted = None if aborted_transactions is None else [
        {"producer_id": producer_id, "first_offset": first_offset}
        for producer_id, first_offset in aborted_transactions]
    return {"partition_index": index, "error_code": error, "high_watermark": high_watermark,
            "last_stable_offset": last_stable_offset, "log_start_offset": log_start_offset,
            "aborted_transactions": aborted, "preferred_read_replica": -1, "records": records}
