"""FindCoordinator (key 10): the leader of the group's `__consumer_offsets` partition, creating the topic on
first use; transaction coordinators are not run here, so key type 1 answers COORDINATOR_NOT_AVAILABLE."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.group_metadata_manager import OFFSETS_TOPIC

API_KEY = 10
KEY_TYPE_GROUP = 0
KEY_TYPE_TRANSACTION = 1


def _answer(error, node=(-1, "", -1)):
    node_id, host, port = node
    return {"throttle_time_ms": 0, "error_code": error,
            "error_message": error.message if error != Errors.NONE else "NONE",
            "node_id": node_id, "host": host, "port": port}


def offsets_topic_configs(config):
    return {"cleanup.policy": "compact", "compression.type": "producer",
            "segment.bytes": str(config["offsets.topic.segment.bytes"])}


@defer.inlineCallbacks
def _create_offsets_topic(server):
    """Kafka's createInternalTopic: only once enough brokers are alive for offsets.topic.replication.factor."""
    config = server.config
    factor = config["offsets.topic.replication.factor"]
    if len(server.metadata_cache.alive_broker_ids()) < factor:
        return
    yield server.admin.create_topics([(OFFSETS_TOPIC, config["offsets.topic.num.partitions"], factor, {},
                                       offsets_topic_configs(config))], 0, False)


@defer.inlineCallbacks
def handle(server, request):
    body = request.body
    key_type = body.get("key_type", KEY_TYPE_GROUP)
    coordinator = getattr(server, "group_coordinator", None)
    if key_type == KEY_TYPE_TRANSACTION:
        return _answer(Errors.COORDINATOR_NOT_AVAILABLE)
    if key_type != KEY_TYPE_GROUP:
        return _answer(Errors.INVALID_REQUEST)
    if coordinator is None:
        return _answer(Errors.COORDINATOR_NOT_AVAILABLE)
    cache = server.metadata_cache
    if not cache.contains_topic(OFFSETS_TOPIC):
        yield _create_offsets_topic(server)
        return _answer(Errors.COORDINATOR_NOT_AVAILABLE)
    info = cache.partition_info(OFFSETS_TOPIC, coordinator.manager.partition_for(body["key"]))
    endpoint = cache.endpoint(info.leader, server.listener_name) if info is not None and info.leader >= 0 else None
    if endpoint is None:
        return _answer(Errors.COORDINATOR_NOT_AVAILABLE)
    return _answer(Errors.NONE, (info.leader, endpoint[0], endpoint[1]))
