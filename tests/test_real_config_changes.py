"""Topic configs altered at runtime (AlterConfigs, IncrementalAlterConfigs) reach every broker's logs."""

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.raw_wire import controller_bootstrap, create_topic, partition_leaders, produce, request


def describe(bootstrap, topic, name):
    response = request(
        bootstrap,
        32,
        1,
        {
            "resources": [{"resource_type": 2, "resource_name": topic, "configuration_keys": [name]}],
            "include_synonyms": False,
        },
    )
    entry = response["results"][0]["configs"][0]
    return entry["value"], entry["config_source"]


@pytest.mark.timeout(90)
@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning")
def test_incremental_and_full_alter_configs_take_effect(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, "tunable", assignments={0: [1]}) == Errors.NONE
    wait_for(lambda: partition_leaders(bootstrap, "tunable") == {0: 1}, message="leader")
    leader = cluster.broker(1).bootstrap
    big = encode_batch([(None, b"x" * 3000)])
    # Other brokers may learn of the leader before it has applied its LeaderAndIsr.
    wait_for(lambda: produce(leader, "tunable", 0, big)[0] == Errors.NONE, message="the leader to accept")

    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    resource = ConfigResource(
        ResourceType.TOPIC,
        "tunable",
        incremental_configs=[ConfigEntry("max.message.bytes", "1000", incremental_operation=AlterConfigOpType.SET)],
    )
    admin.incremental_alter_configs([resource])[resource].result(30)
    wait_for(lambda: produce(leader, "tunable", 0, big)[0] == Errors.MESSAGE_TOO_LARGE, message="new limit")
    assert describe(bootstrap, "tunable", "max.message.bytes") == ("1000", 1)  # DYNAMIC_TOPIC_CONFIG

    full = ConfigResource(ResourceType.TOPIC, "tunable", set_config={"retention.ms": "123456"})
    admin.alter_configs([full])[full].result(30)  # replaces every override: the size limit is gone
    wait_for(lambda: produce(leader, "tunable", 0, big)[0] == Errors.NONE, message="limit removed")
    assert describe(bootstrap, "tunable", "retention.ms") == ("123456", 1)
    assert describe(bootstrap, "tunable", "max.message.bytes")[1] == 5  # DEFAULT_CONFIG

    bad = ConfigResource(ResourceType.TOPIC, "tunable", set_config={"cleanup.policy": "shred"})
    with pytest.raises(Exception) as error:
        admin.alter_configs([bad])[bad].result(30)
    assert "cleanup.policy" in str(error.value)
    unknown = ConfigResource(ResourceType.TOPIC, "no-such-topic", set_config={"retention.ms": "1"})
    with pytest.raises(KafkaException):
        admin.alter_configs([unknown])[unknown].result(30)


TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
EMPTY_POLICY = "Invalid value  for configuration %s: String must be one of: compact, delete"


def incremental(bootstrap, resource_type, name, operations, version=1):
    """(error code, message) of an IncrementalAlterConfigs of one resource: operations [(config, op, value)]."""
    response = request(
        bootstrap,
        44,
        version,
        {
            "resources": [
                {
                    "resource_type": resource_type,
                    "resource_name": name,
                    "configs": [
                        {"name": config, "config_operation": op, "value": value} for config, op, value in operations
                    ],
                }
            ],
            "validate_only": False,
        },
    )
    result = response["responses"][0]
    return result["error_code"], result["error_message"]


def alter(bootstrap, resource_type, name, configs, version=1):
    response = request(
        bootstrap,
        33,
        version,
        {
            "resources": [
                {
                    "resource_type": resource_type,
                    "resource_name": name,
                    "configs": [{"name": config, "value": value} for config, value in configs.items()],
                }
            ],
            "validate_only": False,
        },
    )
    result = response["responses"][0]
    return result["error_code"], result["error_message"]


def config_value(bootstrap, resource_type, name, config):
    response = request(
        bootstrap,
        32,
        1,
        {
            "resources": [{"resource_type": resource_type, "resource_name": name, "configuration_keys": [config]}],
            "include_synonyms": False,
        },
    )
    return response["results"][0]["configs"][0]["value"]


def wait_for_value(bootstrap, resource_type, name, config, expected):
    """Until the broker answers the value (a dynamic change reaches it through ZooKeeper's notification)."""
    wait_for(
        lambda: config_value(bootstrap, resource_type, name, config) == expected,
        message="%s %s of %s" % (config, expected, name),
    )


def delete_records(bootstrap, topic, offset):
    response = request(
        bootstrap,
        21,
        1,
        {"topics": [{"name": topic, "partitions": [{"partition_index": 0, "offset": offset}]}], "timeout_ms": 10000},
    )
    return response["topics"][0]["partitions"][0]["error_code"]


@pytest.mark.timeout(90)
def test_append_and_subtract_start_from_the_value_in_force_and_never_empty_cleanup_policy(cluster):
    """The drill that once left broker 1 with an empty log.cleanup.policy override, after which every DeleteRecords
    of its partitions failed with POLICY_VIOLATION: APPEND and SUBTRACT now work on the value in force (the default
    `delete` when nothing sets it, as Kafka 2.6 fixed it), and no cleanup.policy may be an empty list."""
    bootstrap = cluster.brokers[0].bootstrap
    leader = cluster.broker(1).bootstrap
    assert create_topic(bootstrap, "policies", assignments={0: [1]}) == Errors.NONE
    wait_for(
        lambda: produce(leader, "policies", 0, encode_batch([(b"k", b"v")] * 4))[0] == Errors.NONE,
        message="the leader to accept",
    )

    assert incremental(leader, BROKER, "1", [("log.cleanup.policy", APPEND, "compact")]) == (Errors.NONE, None)
    wait_for_value(leader, BROKER, "1", "log.cleanup.policy", "delete,compact")
    assert incremental(leader, BROKER, "1", [("log.cleanup.policy", SUBTRACT, "compact")]) == (Errors.NONE, None)
    wait_for_value(leader, BROKER, "1", "log.cleanup.policy", "delete")
    assert incremental(leader, BROKER, "1", [("log.cleanup.policy", SUBTRACT, "delete")]) == (
        Errors.INVALID_REQUEST,
        "Invalid config value for resource ConfigResource(type=BROKER, name='1'): "
        + EMPTY_POLICY % "log.cleanup.policy",
    )
    assert incremental(bootstrap, BROKER, "", [("log.cleanup.policy", SET, "")]) == (
        Errors.INVALID_REQUEST,
        "Invalid config value for resource ConfigResource(type=BROKER, name=''): "
        + EMPTY_POLICY % "log.cleanup.policy",
    )
    assert delete_records(leader, "policies", 2) == Errors.NONE

    assert incremental(bootstrap, TOPIC, "policies", [("cleanup.policy", APPEND, "compact")]) == (Errors.NONE, None)
    wait_for_value(bootstrap, TOPIC, "policies", "cleanup.policy", "delete,compact")
    assert incremental(bootstrap, TOPIC, "policies", [("cleanup.policy", SUBTRACT, "delete,compact")]) == (
        Errors.INVALID_REQUEST,
        "Invalid config value for resource ConfigResource(type=TOPIC, name='policies'): "
        + EMPTY_POLICY % "cleanup.policy",
    )
    assert alter(bootstrap, TOPIC, "policies", {"cleanup.policy": ""})[0] == Errors.INVALID_REQUEST
    assert incremental(bootstrap, TOPIC, "policies", [("retention.ms", APPEND, "5")]) == (
        Errors.INVALID_REQUEST,
        "Config value append is not allowed for config key: retention.ms",
    )
    assert incremental(bootstrap, TOPIC, "policies", [("cleanup.policy", SUBTRACT, "compact")]) == (Errors.NONE, None)
    wait_for_value(bootstrap, TOPIC, "policies", "cleanup.policy", "delete")
    wait_for(lambda: delete_records(leader, "policies", 3) == Errors.NONE, message="DeleteRecords under `delete`")

    created = request(
        controller_bootstrap(bootstrap),  # only the controller creates topics
        19,
        4,
        {
            "topics": [
                {
                    "name": "no-policy",
                    "num_partitions": 1,
                    "replication_factor": 1,
                    "assignments": [],
                    "configs": [{"name": "cleanup.policy", "value": ""}],
                }
            ],
            "timeout_ms": 10000,
            "validate_only": False,
        },
    )
    assert (created["topics"][0]["error_code"], created["topics"][0]["error_message"]) == (
        Errors.INVALID_CONFIG,
        EMPTY_POLICY % "cleanup.policy",
    )


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api, version", [("alter", 0), ("alter", 1), ("incremental", 0), ("incremental", 1)])
def test_configs_of_a_missing_topic_answer_as_kafka_25(cluster, api, version):
    """Kafka 2.5 checks the topic in ZooKeeper and answers its AdminOperationException: an unexpected error with the
    message clients of 2.5 key on; an illegal name is an invalid topic."""
    bootstrap = cluster.brokers[0].bootstrap

    def change(topic):
        if api == "alter":
            return alter(bootstrap, TOPIC, topic, {"retention.ms": "1000"}, version)
        return incremental(bootstrap, TOPIC, topic, [("cleanup.policy", APPEND, "compact")], version)

    assert change("no-such-topic") == (Errors.UNKNOWN_SERVER_ERROR, 'Topic "no-such-topic" does not exist.')
    assert change("no such topic") == (
        Errors.INVALID_TOPIC_EXCEPTION,
        'Topic name "no such topic" is illegal, it contains a character other than '
        "ASCII alphanumerics, '.', '_' and '-'",
    )
