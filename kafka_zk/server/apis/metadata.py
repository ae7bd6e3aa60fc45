"""Metadata (key 3): brokers, controller and partition leaders from the cache; auto-creates topics."""

from twisted.internet import defer

from kafka_zk.common.topic_names import validate_topic_name, InvalidTopicName
from kafka_zk.protocol.errors import Errors

API_KEY = 3


@defer.inlineCallbacks
def handle(request, *, metadata_cache, config, admin, cluster_id):
    body = request.body
    version = request.api_version
    requested = body["topics"]
    if requested is None or (version == 0 and not requested):
        names = sorted(metadata_cache.topics())
    else:
        names = [topic["name"] for topic in requested]
    allow_auto_create = version < 4 or body.get("allow_auto_topic_creation", True)
    topics = []
    for name in names:
        if metadata_cache.contains_topic(name):
            topics.append(_topic_metadata(metadata_cache, name, version))
            continue
        error = Errors.UNKNOWN_TOPIC_OR_PARTITION
        try:
            validate_topic_name(name)
        except InvalidTopicName:
            error = Errors.INVALID_TOPIC_EXCEPTION
        else:
            if allow_auto_create and config["auto.create.topics.enable"]:
                error = yield admin.auto_create_topic(name)
        topics.append({"error_code": error, "name": name, "is_internal": False, "partitions": [],
                       "topic_authorized_operations": -2147483648})
    brokers = []
    for broker_id in metadata_cache.alive_broker_ids():
        broker = metadata_cache.brokers[broker_id]
        endpoint = broker.endpoints.get(request.listener_name)  # the listener the request came in on
        if endpoint is not None:
            brokers.append({"node_id": broker_id, "host": endpoint[0], "port": endpoint[1],
                            "rack": broker.rack})
    return {
        "throttle_time_ms": 0,
        "brokers": brokers,
        "cluster_id": cluster_id(),
        "controller_id": metadata_cache.controller_id if metadata_cache.controller_id is not None else -1,
        "topics": topics,
        "cluster_authorized_operations": -2147483648,
    }


def _topic_metadata(metadata_cache, name, version):
    alive = set(metadata_cache.alive_broker_ids())
    partitions = []
    for index, info in sorted(metadata_cache.partitions[name].items()):
        error = Errors.NONE
        replicas = list(info.replicas)
        isr = list(info.isr)
        if info.leader not in alive:
            error = Errors.LEADER_NOT_AVAILABLE
        elif version == 0 and (any(r not in alive for r in replicas) or any(r not in alive for r in isr)):
            error = Errors.REPLICA_NOT_AVAILABLE
        if version == 0:
            replicas = [r for r in replicas if r in alive]
            isr = [r for r in isr if r in alive]
        partitions.append({
            "error_code": error, "partition_index": index,
            "leader_id": info.leader if info.leader in alive else -1,
            "leader_epoch": info.leader_epoch, "replica_nodes": replicas, "isr_nodes": isr,
            "offline_replicas": list(info.offline_replicas)})
    return {"error_code": Errors.NONE, "name": name, "is_internal": name.startswith("__"),
            "partitions": partitions, "topic_authorized_operations": -2147483648}
