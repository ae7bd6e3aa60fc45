"""kafka-topics: option checks, describe formatting, and both modes (fake brokers; real ZooKeeper)."""

import argparse
import io
import json

import pytest

from kafka_zk.client.admin import ConfigEntry, Reassignment
from kafka_zk.client.cluster import PartitionInfo, TopicInfo
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools import topics
from kafka_zk.tools.command_line import UsageError, run_tool
from kafka_zk.zk.client import KafkaZkClient
from kafka_zk.zk.znodes import BrokerInfo, EndPoint
from tests.client_fake_broker import FakeCluster


def run_topics(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(topics.build_parser(), topics.run, list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def parse(*argv):
    return topics.build_parser().parse_args(list(argv))


# -- option checks -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bootstrap-server", "h:1"], "exactly one action"),
        (["--bootstrap-server", "h:1", "--list", "--describe"], "exactly one action"),
        (["--list"], "Only one of --bootstrap-server or --zookeeper"),
        (["--list", "--bootstrap-server", "h:1", "--zookeeper", "z:2"], "Only one of"),
        (["--create", "--bootstrap-server", "h:1"], 'Missing required argument "[topic]"'),
        (["--create", "--zookeeper", "z:2", "--topic", "t", "--partitions", "1"], '"[replication-factor]"'),
        (
            ["--list", "--bootstrap-server", "h:1", "--partitions", "3"],
            'Option "[partitions]" can\'t be used with option "[list]"',
        ),
        (["--alter", "--zookeeper", "z:2", "--topic", "t", "--replication-factor", "3"], '"[replication-factor]"'),
        (["--delete", "--bootstrap-server", "h:1", "--topic", "t", "--if-not-exists"], '"[if-not-exists]"'),
        (["--alter", "--bootstrap-server", "h:1", "--topic", "t"], 'Missing required argument "[partitions]"'),
        (
            ["--alter", "--bootstrap-server", "h:1", "--topic", "t", "--partitions", "2", "--config", "a=b"],
            "kafka-configs",
        ),
        (
            ["--create", "--bootstrap-server", "h:1", "--topic", "t", "--partitions", "2", "--replica-assignment", "1"],
            '"[replica-assignment]" can\'t be used with option "[partitions]"',
        ),
        (["--describe", "--zookeeper", "z:2", "--under-min-isr-partitions"], '"[zookeeper]"'),
    ],
)
def test_option_checks(argv, message):
    with pytest.raises(UsageError) as failure:
        topics.check_args(parse(*argv))
    assert message.lower() in str(failure.value).lower()


def test_usage_errors_exit_1_with_message_on_stderr():
    code, out, err = run_topics("--list")
    assert code == 1 and out == ""
    assert "Only one of --bootstrap-server or --zookeeper must be specified" in err
    assert run_topics()[0] == 1


def test_topic_configs_are_parsed_and_validated():
    assert topics.parse_topic_configs(["retention.ms = 1000", "cleanup.policy=compact"]) == {
        "retention.ms": "1000",
        "cleanup.policy": "compact",
    }
    with pytest.raises(topics.CommandError, match='format "key=val"'):
        topics.parse_topic_configs(["retention.ms"])
    with pytest.raises(topics.CommandError, match="Unknown topic config name: nope"):
        topics.parse_topic_configs(["nope=1"])


# -- describe formatting -------------------------------------------------------------------------


def _info(name, partitions):
    return TopicInfo(
        name,
        Errors.NONE,
        False,
        {
            p: PartitionInfo(name, p, leader, replicas, isr, [], Errors.NONE, 0)
            for p, (leader, replicas, isr) in partitions.items()
        },
    )


def _flags(**set_flags):
    names = topics.REPORT_OPTIONS + ("topics_with_overrides",)
    return argparse.Namespace(**{name: set_flags.get(name, False) for name in names})


def test_describe_lines_from_metadata():
    info = _info("t", {1: (2, [2, 1], [2]), 0: (1, [1, 2], [1, 2]), 2: (-1, [3, 1], [])})
    configs = [
        ConfigEntry("retention.ms", "1000", False, False, False, 1),
        ConfigEntry("segment.bytes", "1073741824", False, False, False, 4),
        ConfigEntry("min.insync.replicas", "2", True, False, False, 5),
    ]
    description = topics.description_from_metadata(info, configs)
    assert topics.describe_lines(_flags(), [description], {1, 2}) == [
        "Topic: t\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention.ms=1000,segment.bytes=1073741824",
        "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2",
        "\tTopic: t\tPartition: 1\tLeader: 2\tReplicas: 2,1\tIsr: 2",
        "\tTopic: t\tPartition: 2\tLeader: none\tReplicas: 3,1\tIsr: ",
    ]

    def partitions(**flags):
        return [line.split("\t")[2] for line in topics.describe_lines(_flags(**flags), [description], {1, 2})]

    assert partitions(under_replicated_partitions=True) == ["Partition: 1", "Partition: 2"]
    assert partitions(unavailable_partitions=True) == ["Partition: 2"]
    assert partitions(under_min_isr_partitions=True) == ["Partition: 1", "Partition: 2"]
    assert partitions(at_min_isr_partitions=True) == ["Partition: 0"]
    assert topics.describe_lines(_flags(topics_with_overrides=True), [description], {1, 2}) == [
        topics.topic_line(description)
    ]
    bare = topics.description_from_metadata(_info("u", {0: (1, [1], [1])}))
    assert topics.describe_lines(_flags(topics_with_overrides=True), [bare], {1}) == []


def test_describe_shows_an_ongoing_reassignment():
    info = _info("t", {0: (1, [1, 2, 3], [1, 2])})
    moving = {("t", 0): Reassignment([1, 2, 3], [3], [1])}
    description = topics.description_from_metadata(info, [], moving)
    assert topics.describe_lines(_flags(), [description], {1, 2, 3}) == [
        "Topic: t\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: ",
        "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\tAdding Replicas: 3\tRemoving Replicas: 1",
    ]


# -- --bootstrap-server mode on fake brokers ---------------------------------------------------


@pytest.fixture
def fake():
    cluster = FakeCluster(broker_count=2)
    for broker in cluster.brokers:  # no ListPartitionReassignments: describe carries on without it
        broker.api_versions = [v for v in broker.api_versions if v[0] != 46]
    yield cluster
    cluster.stop()


def test_bootstrap_mode(fake):
    bootstrap = ("--bootstrap-server", fake.bootstrap)
    assert run_topics(
        "--create",
        "--topic",
        "orders",
        "--partitions",
        "2",
        "--replication-factor",
        "1",
        "--config",
        "retention.ms=1000",
        *bootstrap,
    )[:2] == (0, "Created topic orders.\n")
    code, out, _ = run_topics("--create", "--topic", "orders", "--partitions", "2", *bootstrap)
    assert (code, out) == (1, "Error while executing topic command : Topic orders already exists\n")
    assert run_topics("--create", "--topic", "orders", "--if-not-exists", *bootstrap)[:2] == (0, "")
    code, out, _ = run_topics("--create", "--topic", "my_topic", *bootstrap)
    assert out == topics.COLLISION_WARNING + "\nCreated topic my_topic.\n"
    assert run_topics("--list", *bootstrap)[1] == "my_topic\norders\n"
    assert run_topics("--list", "--topic", "ord.*", *bootstrap)[1] == "orders\n"
    code, out, _ = run_topics("--describe", "--topic", "orders", *bootstrap)
    assert out.splitlines() == [
        "Topic: orders\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: retention.ms=1000",
        "\tTopic: orders\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0",
        "\tTopic: orders\tPartition: 1\tLeader: 0\tReplicas: 0\tIsr: 0",
    ]
    code, out, _ = run_topics("--describe", "--topic", "nope", *bootstrap)
    assert (code, out) == (0, "")  # as Kafka 2.5.1's TopicCommand answers through the brokers
    assert run_topics("--describe", "--topic", "nope", "--if-exists", *bootstrap)[:2] == (0, "")
    assert run_topics("--delete", "--topic", "orders", *bootstrap)[:2] == (0, "")
    assert "orders" not in fake.topics


@pytest.mark.parametrize(
    "error, name",
    [
        (Errors.TOPIC_AUTHORIZATION_FAILED, "TopicAuthorizationException"),
        (Errors.CLUSTER_AUTHORIZATION_FAILED, "ClusterAuthorizationException"),
        (Errors.POLICY_VIOLATION, "PolicyViolationException"),
        (Errors.INVALID_CONFIG, "InvalidConfigurationException"),
        (Errors.REQUEST_TIMED_OUT, "TimeoutException"),
    ],
)
def test_a_broker_error_is_printed_with_kafkas_exception_class(error, name):
    assert topics.exception_class(error) == name


# -- --zookeeper mode on a real ZooKeeper ------------------------------------------------------


@pytest.fixture
def zk(zk_connect):
    client = KafkaZkClient(zk_connect, session_timeout_ms=6000)
    client.start(10)
    client.create_persistent_paths()
    for broker_id in (0, 1):
        client.register_broker(BrokerInfo(broker_id, [EndPoint("PLAINTEXT", "h", 9092 + broker_id, "PLAINTEXT")]), 1)
    yield zk_connect, client
    client.close()


def test_zookeeper_mode(zk):
    zk_connect, client = zk
    mode = ("--zookeeper", zk_connect)
    assert run_topics(
        "--create",
        "--topic",
        "a",
        "--partitions",
        "2",
        "--replication-factor",
        "2",
        "--config",
        "retention.ms=5",
        *mode,
    )[:2] == (0, "Created topic a.\n")
    assert run_topics("--create", "--topic", "b", "--replica-assignment", "1,0", *mode)[:2] == (0, "Created topic b.\n")
    code, out, _ = run_topics("--create", "--topic", "c", "--partitions", "1", "--replication-factor", "3", *mode)
    assert (code, out) == (
        1,
        "Error while executing topic command : Replication factor: 3 larger than available brokers: 2.\n",
    )
    client.kazoo.create(
        "/brokers/topics/b/partitions/0/state",
        json.dumps({"controller_epoch": 1, "leader": 1, "version": 1, "leader_epoch": 0, "isr": [1]}).encode(),
        makepath=True,
    )
    code, out, _ = run_topics("--describe", "--topic", "b", *mode)
    assert out.splitlines() == [
        "Topic: b\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: ",
        "\tTopic: b\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1",
        "\tTopic: b\tPartition: 1\tLeader: none\tReplicas: 0\tIsr: ",
    ]
    assert run_topics("--describe", "--topic", "a", *mode)[1].startswith(
        "Topic: a\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: retention.ms=5\n"
    )
    assert run_topics("--delete", "--topic", "b", *mode)[1] == (
        "Topic b is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not set to true.\n"
    )
    assert run_topics("--delete", "--topic", "b", *mode)[1] == "Topic b is already marked for deletion.\n"
    assert run_topics("--list", *mode)[1] == "a\nb - marked for deletion\n"
    assert run_topics("--describe", "--topic", "b", *mode)[1].splitlines()[0].endswith("\tMarkedForDeletion: true")
    code, out, _ = run_topics("--alter", "--topic", "a", "--partitions", "3", *mode)
    assert out.endswith("Adding partitions succeeded!\n")
    assert sorted(client.get_topic_assignment("a")) == [0, 1, 2]
    code, out, _ = run_topics("--alter", "--topic", "a", "--config", "retention.ms=9", *mode)
    assert out.endswith("Updated config for topic a.\n")
    assert client.get_entity_config("topics", "a") == {"retention.ms": "9"}
    code, out, _ = run_topics("--delete", "--topic", "zzz", *mode)
    assert (code, out) == (1, "Error while executing topic command : Topic 'zzz' does not exist as expected\n")
