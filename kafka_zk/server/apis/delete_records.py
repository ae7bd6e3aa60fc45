"""DeleteRecords (key 21): move partitions' log start offsets forward on their leaders, waiting for followers."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names

API_KEY = 21


def handle(request, *, metadata_cache, replica_manager, authorizer=None):
    body = request.body
    deletable = authorized_names(
        authorizer,
        request,
        AclOperation.DELETE,
        ResourceType.TOPIC,
        [topic_data["name"] for topic_data in body["topics"]],
    )
    offsets = {}
    early = {}
    for topic_data in body["topics"]:
        topic = topic_data["name"]
        for partition_data in topic_data["partitions"]:
            tp = (topic, partition_data["partition_index"])
            if topic not in deletable:
                early[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif metadata_cache.partition_info(*tp) is None:
                early[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                offsets[tp] = partition_data["offset"]

    def build(results):
        by_topic = {}
        for tp, code in early.items():
            by_topic.setdefault(tp[0], []).append({"partition_index": tp[1], "low_watermark": -1, "error_code": code})
        for tp, result in results.items():
            by_topic.setdefault(tp[0], []).append(
                {"partition_index": tp[1], "error_code": result.error, "low_watermark": result.low_watermark}
            )
        return {
            "throttle_time_ms": 0,
            "topics": [{"name": topic, "partitions": partitions} for topic, partitions in by_topic.items()],
        }

    return replica_manager.delete_records(body["timeout_ms"], offsets).addCallback(build)
