"""FindCoordinator (key 10): the leader of the key's partition of `__consumer_offsets` (key type 0, groups) or
`__transaction_state` (key type 1, transactional ids), creating the internal topic on first use."""

from twisted.internet import defer

from kafka_zk.controller.assignment import RackAwareMode
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized

API_KEY = 10
KEY_TYPE_GROUP = 0
KEY_TYPE_TRANSACTION = 1


def _answer(error, node=(-1, "", -1)):
    node_id, host, port = node
    return {
        "throttle_time_ms": 0,
        "error_code": error,
        "error_message": error.message if error != Errors.NONE else "NONE",
        "node_id": node_id,
        "host": host,
        "port": port,
    }


def offsets_topic_configs(config):
    return {
        "cleanup.policy": "compact",
        "compression.type": "producer",
        "segment.bytes": str(config["offsets.topic.segment.bytes"]),
    }


def transaction_topic_configs(config):
    """Kafka's TransactionLog topic configs: compacted, uncompressed, min.insync from the broker config."""
    return {
        "cleanup.policy": "compact",
        "compression.type": "uncompressed",
        "min.insync.replicas": str(config["transaction.state.log.min.isr"]),
        "segment.bytes": str(config["transaction.state.log.segment.bytes"]),
        "unclean.leader.election.enable": "false",
    }


def _internal_topic(config, key_type):
    """(topic, partitions, replication factor, configs) of the coordinator topic for ``key_type``."""
    if key_type == KEY_TYPE_GROUP:
        return (
            OFFSETS_TOPIC,
            config["offsets.topic.num.partitions"],
            config["offsets.topic.replication.factor"],
            offsets_topic_configs(config),
        )
    return (
        TRANSACTION_STATE_TOPIC,
        config["transaction.state.log.num.partitions"],
        config["transaction.state.log.replication.factor"],
        transaction_topic_configs(config),
    )


@defer.inlineCallbacks
def _create_internal_topic(key_type, config, metadata_cache, admin):
    """Kafka's createInternalTopic: only once enough brokers are alive for the topic's replication factor."""
    topic, partitions, factor, configs = _internal_topic(config, key_type)
    if len(metadata_cache.alive_broker_ids()) < factor:
        return
    yield admin.create_topics([(topic, partitions, factor, {}, configs)], 0, False, rack_aware_mode=RackAwareMode.SAFE)


@defer.inlineCallbacks
def handle(request, *, group_coordinator, txn_coordinator, config, metadata_cache, admin, authorizer=None):
    body = request.body
    key_type = body.get("key_type", KEY_TYPE_GROUP)
    if key_type == KEY_TYPE_GROUP and not authorized(
        authorizer, request, AclOperation.DESCRIBE, ResourceType.GROUP, body["key"]
    ):
        return _answer(Errors.GROUP_AUTHORIZATION_FAILED)
    if key_type == KEY_TYPE_TRANSACTION and not authorized(
        authorizer, request, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, body["key"]
    ):
        return _answer(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if key_type == KEY_TYPE_GROUP:
        coordinator = group_coordinator
    elif key_type == KEY_TYPE_TRANSACTION:
        coordinator = txn_coordinator
    else:
        return _answer(Errors.INVALID_REQUEST)
    topic = _internal_topic(config, key_type)[0]
    if not metadata_cache.contains_topic(topic):
        yield _create_internal_topic(key_type, config, metadata_cache, admin)
        return _answer(Errors.COORDINATOR_NOT_AVAILABLE)
    info = metadata_cache.partition_info(topic, coordinator.manager.partition_for(body["key"]))
    endpoint = (
        metadata_cache.endpoint(info.leader, request.listener_name) if info is not None and info.leader >= 0 else None
    )
    if endpoint is None:
        return _answer(Errors.COORDINATOR_NOT_AVAILABLE)
    return _answer(Errors.NONE, (info.leader, endpoint[0], endpoint[1]))
