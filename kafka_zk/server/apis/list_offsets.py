"""ListOffsets (key 2): offsets by timestamp, earliest (-2) and latest (-1: the high watermark, or the last
stable offset for isolation_level read_committed)."""

from collections import Counter

from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names

API_KEY = 2
LATEST = -1
EARLIEST = -2


def handle(request, *, replica_manager, authorizer=None):
    body = request.body
    version = request.api_version
    is_follower = body["replica_id"] >= 0
    describable = authorized_names(
        authorizer,
        request,
        AclOperation.DESCRIBE,
        ResourceType.TOPIC,
        [topic_data["name"] for topic_data in body["topics"]],
    )
    asked = Counter((t["name"], p["partition_index"]) for t in body["topics"] for p in t["partitions"])
    answered = set()
    topics = []
    for topic_data in body["topics"]:
        partitions = []
        for partition_data in topic_data["partitions"]:
            tp = (topic_data["name"], partition_data["partition_index"])
            if tp in answered:  # as Kafka 2.5, which reads the request into a map: one answer a partition
                continue
            answered.add(tp)
            if topic_data["name"] not in describable:
                partitions.append(_answer(partition_data["partition_index"], Errors.TOPIC_AUTHORIZATION_FAILED))
                continue
            if version >= 1 and asked[tp] > 1:
                partitions.append(_answer(partition_data["partition_index"], Errors.INVALID_REQUEST))
                continue
            partitions.append(
                _list_offset(
                    replica_manager,
                    topic_data["name"],
                    partition_data,
                    version,
                    is_follower,
                    body.get("isolation_level", 0),
                )
            )
        if partitions or not topic_data["partitions"]:
            topics.append({"name": topic_data["name"], "partitions": partitions})
    return {"throttle_time_ms": 0, "topics": topics}


def _answer(index, error=Errors.NONE):
    return {
        "partition_index": index,
        "error_code": error,
        "old_style_offsets": [],
        "timestamp": -1,
        "offset": -1,
        "leader_epoch": -1,
    }


def _list_offset(replica_manager, topic, data, version, is_follower, isolation_level):
    index = data["partition_index"]
    answer = _answer(index)
    try:
        partition = replica_manager.get_partition(topic, index)
        if partition is None:
            raise KafkaError(replica_manager.missing_partition_error((topic, index)))
        if is_follower:
            if partition.log is None:
                raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        else:
            partition.check_leader(data.get("current_leader_epoch", -1))
        log = partition.log
        timestamp = data["timestamp"]
        if is_follower:
            upper = log.log_end_offset
        elif isolation_level == 1:  # read_committed: the last stable offset
            upper = partition.last_stable_offset
        else:
            upper = partition.high_watermark
        if timestamp == LATEST:
            found = (-1, upper)
        elif timestamp == EARLIEST:
            found = (-1, log.log_start_offset)
        else:
            match = log.fetch_offset_by_timestamp(timestamp)
            found = None if match is None or match.offset >= upper else (match.timestamp, match.offset)
        if version == 0:
            if found is None:
                answer["old_style_offsets"] = []
            else:
                answer["old_style_offsets"] = [found[1]]
        elif found is not None:
            answer["timestamp"], answer["offset"] = found
            answer["leader_epoch"] = partition.leader_epoch if timestamp in (LATEST, EARLIEST) else match.leader_epoch
    except KafkaError as error:
        answer["error_code"] = error.code
    return answer
