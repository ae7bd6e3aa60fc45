"""OffsetForLeaderEpoch (key 23): the end offset of a leader epoch, for follower truncation."""

from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names, cluster_authorized

API_KEY = 23


def handle(request, *, replica_manager, authorizer=None):
    names = [topic_data["topic"] for topic_data in request.body["topics"]]
    # Followers hold ClusterAction on the cluster; consumers (KIP-320) need Describe on each topic.
    if cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION):
        describable = set(names)
    else:
        describable = authorized_names(authorizer, request, AclOperation.DESCRIBE, ResourceType.TOPIC, names)
    topics = []
    for topic_data in request.body["topics"]:
        topic = topic_data["topic"]
        partitions = []
        for data in topic_data["partitions"]:
            index = data["partition"]
            answer = {"error_code": Errors.NONE, "partition": index, "leader_epoch": -1, "end_offset": -1}
            if topic not in describable:
                answer["error_code"] = Errors.TOPIC_AUTHORIZATION_FAILED
                partitions.append(answer)
                continue
            try:
                partition = replica_manager.get_partition(topic, index)
                if partition is None:
                    raise KafkaError(replica_manager.missing_partition_error((topic, index)))
                partition.check_leader(data["current_leader_epoch"])
                answer["leader_epoch"], answer["end_offset"] = partition.log.end_offset_for_epoch(data["leader_epoch"])
            except KafkaError as error:
                answer["error_code"] = error.code
            partitions.append(answer)
        topics.append({"topic": topic, "partitions": partitions})
    return {"throttle_time_ms": 0, "topics": topics}
