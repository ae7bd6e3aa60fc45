"""AlterReplicaLogDirs (key 34): move replicas of this broker into other log dirs (Kafka 2.5's alterReplicaLogDirs)."""

import logging
import os

from kafka_zk.log.log import future_dir_name
from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.security.authorizer import AclOperation
from kafka_zk.server.apis.authorization import cluster_authorized

API_KEY = 34
MAX_DIR_NAME = 255

log = logging.getLogger(__name__)


def handle(request, *, log_manager, replica_manager, metadata_cache, authorizer=None):
    allowed = cluster_authorized(authorizer, request, AclOperation.ALTER)
    results = {}
    for entry in request.body["dirs"]:
        for topic_data in entry["topics"]:
            for partition in topic_data["partitions"]:
                tp = (topic_data["name"], partition)
                if not allowed:
                    results[tp] = Errors.CLUSTER_AUTHORIZATION_FAILED
                    continue
                try:
                    alter_log_dir(tp, entry["path"], log_manager, replica_manager, metadata_cache)
                    results[tp] = Errors.NONE
                except KafkaError as error:
                    results[tp] = error.code
                except OSError as error:
                    log.error("moving %s-%d to %s failed: %s", tp[0], tp[1], entry["path"], error)
                    results[tp] = Errors.KAFKA_STORAGE_ERROR
    by_topic = {}
    for (topic, partition), code in results.items():
        by_topic.setdefault(topic, []).append({"partition_index": partition, "error_code": code})
    return {
        "throttle_time_ms": 0,
        "results": [{"topic_name": topic, "partitions": partitions} for topic, partitions in by_topic.items()],
    }


def alter_log_dir(tp, requested_dir, log_manager, replica_manager, metadata_cache):
    mover = replica_manager.log_dir_mover
    if len(future_dir_name(*tp)) > MAX_DIR_NAME:
        raise KafkaError(Errors.INVALID_TOPIC_EXCEPTION, "The topic name is too long.")
    destination = os.path.abspath(requested_dir) if requested_dir else requested_dir
    if destination not in log_manager.log_dirs:
        raise KafkaError(Errors.LOG_DIR_NOT_FOUND, "Log dir %s is not found in the config." % requested_dir)
    if not os.path.isdir(destination):
        raise KafkaError(Errors.KAFKA_STORAGE_ERROR, "Log directory %s is offline" % destination)
    partition = replica_manager.get_partition(*tp)
    future_dir = log_manager.future_log_dir_of(*tp)
    if future_dir is not None and future_dir != destination:
        mover.cancel(tp)  # a new destination replaces the move in progress
        log_manager.remove_future_log(*tp)
    log_manager.maybe_update_preferred_dir(tp[0], tp[1], destination)
    if partition is None:
        known = metadata_cache.partition_info(*tp) is not None
        raise KafkaError(Errors.REPLICA_NOT_AVAILABLE if known else Errors.UNKNOWN_TOPIC_OR_PARTITION)
    if partition.log is None:
        raise KafkaError(Errors.REPLICA_NOT_AVAILABLE)
    if log_manager.log_dir_of(*tp) == destination:
        return
    if log_manager.get_future_log(*tp) is None:
        log_manager.create_future_log(tp[0], tp[1], destination, partition.log.config)
    mover.start(tp)
