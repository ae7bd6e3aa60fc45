"""Metadata (key 3): brokers, controller and partition leaders from the cache; auto-creates topics."""

from twisted.internet import defer

from kafka_zk.common.topic_names import InvalidTopicName, validate_topic_name
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import CLUSTER_NAME, AclOperation, ResourceType
from kafka_zk.server.apis.authorization import (
    AUTHORIZED_OPERATIONS_OMITTED,
    authorized_names,
    authorized_operations,
    cluster_authorized,
)

API_KEY = 3


@defer.inlineCallbacks
def handle(request, *, metadata_cache, config, admin, cluster_id, authorizer=None):
    body = request.body
    version = request.api_version
    requested = body["topics"]
    all_topics = requested is None or (version == 0 and not requested)
    if all_topics:
        names = sorted(metadata_cache.topics())
    else:
        names = [topic["name"] for topic in requested]
    allow_auto_create = (version < 4 or body.get("allow_auto_topic_creation", True)) and config[
        "auto.create.topics.enable"
    ]
    # As Kafka: topics the principal may not Describe are left out of an all-topics answer and answer
    # TOPIC_AUTHORIZATION_FAILED when named (whether they exist is not disclosed); creating a missing topic
    # needs Create on the cluster or on the topic.
    describable = authorized_names(authorizer, request, AclOperation.DESCRIBE, ResourceType.TOPIC, names)
    creatable = None  # None: every missing topic may be created
    if allow_auto_create and not cluster_authorized(authorizer, request, AclOperation.CREATE):
        missing = [name for name in names if name in describable and not metadata_cache.contains_topic(name)]
        creatable = authorized_names(authorizer, request, AclOperation.CREATE, ResourceType.TOPIC, missing)
    topics = []
    create_denied = []
    for name in dict.fromkeys(names):
        if name not in describable:
            continue
        if metadata_cache.contains_topic(name):
            topics.append(_topic_metadata(metadata_cache, name, version))
            continue
        if allow_auto_create and creatable is not None and name not in creatable:
            create_denied.append(_error_topic(Errors.TOPIC_AUTHORIZATION_FAILED, name, is_internal(name)))
            continue
        error = Errors.UNKNOWN_TOPIC_OR_PARTITION  # an illegal name too, unless auto-created (as Kafka 2.5)
        if allow_auto_create:
            try:
                validate_topic_name(name)
            except InvalidTopicName:
                error = Errors.INVALID_TOPIC_EXCEPTION
            else:
                error = yield admin.auto_create_topic(name)
        topics.append(_error_topic(error, name, False))
    cluster_operations = AUTHORIZED_OPERATIONS_OMITTED
    if version >= 8:
        if body.get("include_cluster_authorized_operations"):
            cluster_operations = 0
            if cluster_authorized(authorizer, request, AclOperation.DESCRIBE):
                cluster_operations = authorized_operations(authorizer, request, ResourceType.CLUSTER, CLUSTER_NAME)
        if body.get("include_topic_authorized_operations"):
            for topic in topics:
                topic["topic_authorized_operations"] = authorized_operations(
                    authorizer, request, ResourceType.TOPIC, topic["name"]
                )
    topics.extend(create_denied)
    if not all_topics:
        topics.extend(
            _error_topic(Errors.TOPIC_AUTHORIZATION_FAILED, name, False)
            for name in dict.fromkeys(names)
            if name not in describable
        )
    brokers = []
    for broker_id in metadata_cache.alive_broker_ids():
        broker = metadata_cache.brokers[broker_id]
        endpoint = broker.endpoints.get(request.listener_name)  # the listener the request came in on
        if endpoint is not None:
            brokers.append({"node_id": broker_id, "host": endpoint[0], "port": endpoint[1], "rack": broker.rack})
    return {
        "throttle_time_ms": 0,
        "brokers": brokers,
        "cluster_id": cluster_id(),
        "controller_id": metadata_cache.controller_id if metadata_cache.controller_id is not None else -1,
        "topics": topics,
        "cluster_authorized_operations": cluster_operations,
    }


def is_internal(name):
    """Kafka's Topic.isInternal: the two coordinator topics."""
    return name in (OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC)


def _error_topic(error, name, internal):
    return {
        "error_code": error,
        "name": name,
        "is_internal": internal,
        "partitions": [],
        "topic_authorized_operations": AUTHORIZED_OPERATIONS_OMITTED,
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
        partitions.append(
            {
                "error_code": error,
                "partition_index": index,
                "leader_id": info.leader if info.leader in alive else -1,
                "leader_epoch": info.leader_epoch,
                "replica_nodes": replicas,
                "isr_nodes": isr,
                "offline_replicas": list(info.offline_replicas),
            }
        )
    return {
        "error_code": Errors.NONE,
        "name": name,
        "is_internal": name.startswith("__"),
        "partitions": partitions,
        "topic_authorized_operations": AUTHORIZED_OPERATIONS_OMITTED,
    }
