"""CreateTopics (key 19): validate, write the assignment to ZooKeeper, wait for leaders."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names, cluster_authorized

API_KEY = 19


@defer.inlineCallbacks
def handle(request, *, admin, controller, authorizer=None):
    body = request.body
    version = request.api_version
    if not controller().is_active:  # only the controller creates topics: Kafka 2.5 answers before anything else
        return {
            "throttle_time_ms": 0,
            "topics": [
                {
                    "name": topic["name"],
                    "error_code": Errors.NOT_CONTROLLER,
                    "error_message": "" if version >= 1 else None,
                    "num_partitions": -1,
                    "replication_factor": -1,
                    "configs": [],
                    "topic_config_error_code": Errors.NONE,
                }
                for topic in body["topics"]
            ],
        }
    seen = set()
    duplicates = set()
    for topic in body["topics"]:
        (duplicates if topic["name"] in seen else seen).add(topic["name"])
    names = [topic["name"] for topic in body["topics"]]
    # Create on the cluster, or else on each topic; a topic's configs are only shown with DescribeConfigs on it.
    creatable = (
        set(names)
        if cluster_authorized(authorizer, request, AclOperation.CREATE)
        else authorized_names(authorizer, request, AclOperation.CREATE, ResourceType.TOPIC, names)
    )
    configs_visible = authorized_names(authorizer, request, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, names)
    specs = []
    denied = []
    for topic in body["topics"]:
        if topic["name"] in duplicates:
            continue
        if topic["name"] not in creatable:
            denied.append(topic["name"])
            continue
        assignment = {entry["partition_index"]: list(entry["broker_ids"]) for entry in topic["assignments"]}
        configs = {entry["name"]: entry["value"] for entry in topic["configs"]}
        specs.append((topic["name"], topic["num_partitions"], topic["replication_factor"], assignment, configs))
    outcomes = yield admin.create_topics(specs, body["timeout_ms"], body.get("validate_only", False))
    results = []
    for name in sorted(duplicates):
        results.append(
            {
                "name": name,
                "error_code": Errors.INVALID_REQUEST,
                "error_message": "Create topics request from client `%s` contains multiple entries "
                "for the following topics: %s" % (request.client_id, name),
                "num_partitions": -1,
                "replication_factor": -1,
                "configs": None,
                "topic_config_error_code": _config_error(name, configs_visible),
            }
        )
    for name in denied:
        results.append(
            {
                "name": name,
                "error_code": Errors.TOPIC_AUTHORIZATION_FAILED,
                "error_message": "Authorization failed." if version >= 1 else None,
                "num_partitions": -1,
                "replication_factor": -1,
                "configs": None,
                "topic_config_error_code": _config_error(name, configs_visible),
            }
        )
    for outcome in outcomes:
        entry = {
            "name": outcome.name,
            "error_code": outcome.error,
            "error_message": outcome.message if version >= 1 else None,
            "num_partitions": outcome.num_partitions,
            "replication_factor": outcome.replication_factor,
            "configs": None,
        }
        if outcome.error == Errors.NONE and outcome.name not in configs_visible:
            # As Kafka's AdminManager: no configs, partition count or replication factor without DescribeConfigs.
            entry.update(
                topic_config_error_code=Errors.TOPIC_AUTHORIZATION_FAILED, num_partitions=-1, replication_factor=-1
            )
        elif version >= 5 and outcome.error == Errors.NONE:
            entry["configs"] = [
                {"name": name, "value": str(value), "read_only": False, "config_source": source, "is_sensitive": False}
                for name, (value, source) in sorted(outcome.configs.items())
            ]
        results.append(entry)
    return {"throttle_time_ms": 0, "topics": results}


def _config_error(name, configs_visible):
    return Errors.NONE if name in configs_visible else Errors.TOPIC_AUTHORIZATION_FAILED
