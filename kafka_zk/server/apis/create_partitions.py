"""CreatePartitions (key 37): add partitions to existing topics through their ZooKeeper assignment."""

from collections import Counter

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names

API_KEY = 37


@defer.inlineCallbacks
def handle(request, *, admin, controller, authorizer=None):
    body = request.body
    if not controller().is_active:  # only the controller adds partitions: Kafka 2.5 answers before anything else
        return {
            "throttle_time_ms": 0,
            "results": [
                {"name": topic["name"], "error_code": Errors.NOT_CONTROLLER, "error_message": None}
                for topic in body["topics"]
            ],
        }
    counts = Counter(topic["name"] for topic in body["topics"])
    duplicates = [name for name, count in counts.items() if count > 1]  # one answer each, as Kafka 2.5
    single = [topic for topic in body["topics"] if counts[topic["name"]] == 1]
    alterable = authorized_names(
        authorizer, request, AclOperation.ALTER, ResourceType.TOPIC, [topic["name"] for topic in single]
    )
    requests = [
        (
            topic["name"],
            topic["count"],
            None if topic["assignments"] is None else [entry["broker_ids"] for entry in topic["assignments"]],
        )
        for topic in single
        if topic["name"] in alterable
    ]
    outcomes = yield admin.create_partitions(requests, body["timeout_ms"], body["validate_only"])
    outcomes = (
        [(name, Errors.INVALID_REQUEST, "Duplicate topic in request.") for name in duplicates]
        + [
            (topic["name"], Errors.TOPIC_AUTHORIZATION_FAILED, "The topic authorization is failed.")
            for topic in single
            if topic["name"] not in alterable
        ]
        + list(outcomes)
    )
    return {
        "throttle_time_ms": 0,
        "results": [{"name": name, "error_code": code, "error_message": message} for name, code, message in outcomes],
    }
