"""DescribeLogDirs (key 35): every log dir of this broker with the size and lag of the replicas in it."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 35


def handle(request, *, log_manager, replica_manager, authorizer=None):
    if not cluster_authorized(authorizer, request, AclOperation.DESCRIBE):
        return {"throttle_time_ms": 0, "results": []}  # as Kafka: no error, no log dirs
    wanted = request.body["topics"]
    if wanted is None:
        selected = None
    else:
        selected = {(t["topic"], p) for t in wanted for p in t["partition_index"]}
    results = []
    for log_dir in log_manager.log_dirs:
        if log_manager.failures.is_offline(log_dir):
            results.append({"error_code": Errors.KAFKA_STORAGE_ERROR, "log_dir": log_dir, "topics": []})
            continue
        by_topic = {}
        for (topic, partition), log, is_future in log_manager.logs_in_dir(log_dir):
            if selected is not None and (topic, partition) not in selected:
                continue
            by_topic.setdefault(topic, []).append(
                {
                    "partition_index": partition,
                    "partition_size": log.size,
                    "offset_lag": offset_lag(log_manager, replica_manager, topic, partition, log, is_future),
                    "is_future_key": is_future,
                }
            )
        results.append(
            {
                "error_code": Errors.NONE,
                "log_dir": log_dir,
                "topics": [{"name": topic, "partitions": partitions} for topic, partitions in sorted(by_topic.items())],
            }
        )
    return {"throttle_time_ms": 0, "results": results}


def offset_lag(log_manager, replica_manager, topic, partition, log, is_future):
    """Kafka's getLogEndOffsetLag: a future log lags the current log's end; the current one its HW (never < 0)."""
    current = log_manager.get_log(topic, partition)
    if current is None:
        return -1
    if is_future:
        return current.log_end_offset - log.log_end_offset
    hosted = replica_manager.get_partition(topic, partition)
    high_watermark = hosted.high_watermark if hosted is not None and hosted.log is current else 0
    return max(high_watermark - log.log_end_offset, 0)
