"""DeleteTopics (key 20): mark topics for deletion in ZooKeeper and wait for them to go."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names

API_KEY = 20


@defer.inlineCallbacks
def handle(request, *, admin, config, controller, authorizer=None):
    body = request.body
    names = body["topic_names"]
    if not controller().is_active:  # only the controller deletes topics: Kafka 2.5 answers before anything else
        return {
            "throttle_time_ms": 0,
            "responses": [{"name": name, "error_code": Errors.NOT_CONTROLLER} for name in names],
        }
    if not config["delete.topic.enable"]:  # answered before authorization, as Kafka
        deletable = set(names)
    else:
        deletable = authorized_names(authorizer, request, AclOperation.DELETE, ResourceType.TOPIC, names)
    outcomes = yield admin.delete_topics([name for name in names if name in deletable], body["timeout_ms"])
    outcomes = [(name, Errors.TOPIC_AUTHORIZATION_FAILED) for name in names if name not in deletable] + outcomes
    return {"throttle_time_ms": 0, "responses": [{"name": name, "error_code": code} for name, code in outcomes]}
