"""kafka-configs.sh on a real cluster: dynamic broker configs (live), client and user quota configs, bad input."""

import json

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from kafka_zk.zk.client import KafkaZkClient
from tests.cluster_support import wait_for
from tests.raw_wire import create_topic, partition_leaders, produce, request
from tests.test_real_tools import tool


@pytest.fixture(scope="module")
def zk(cluster):
    client = KafkaZkClient(cluster.zk_connect)
    client.start(timeout=30)
    yield client
    client.close()


def znode(zk, path):
    return json.loads(zk.get_data(path)[0].decode())


def describe_configs(bootstrap, resource_type, name, keys=None):
    """{config name: (value, source, [(synonym source, name, value)])} from DescribeConfigs v1."""
    response = request(
        bootstrap,
        32,
        1,
        {
            "resources": [{"resource_type": resource_type, "resource_name": name, "configuration_keys": keys}],
            "include_synonyms": True,
        },
    )
    result = response["results"][0]
    assert result["error_code"] == Errors.NONE, result
    return {
        entry["name"]: (
            entry["value"],
            entry["config_source"],
            [(s["source"], s["name"], s["value"]) for s in entry["synonyms"]],
        )
        for entry in result["configs"]
    }


def configs(cluster, *args):
    return tool("kafka-configs.sh", "--bootstrap-server", cluster.brokers[0].bootstrap, *args)


ZOOKEEPER_WARNING = (
    "Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.\n"
    "Use --bootstrap-server instead to specify a broker to connect to.\n"
)


def zk_configs(cluster, *args):
    """kafka-configs --zookeeper; its stdout without the deprecation warning Kafka 2.5 prints once the arguments
    pass their checks."""
    result = tool("kafka-configs.sh", "--zookeeper", cluster.zk_connect, *args)
    if result.stdout.startswith(ZOOKEEPER_WARNING):
        result.stdout = result.stdout[len(ZOOKEEPER_WARNING) :]
    return result


@pytest.mark.timeout(180)
def test_dynamic_broker_configs_through_the_brokers(cluster, zk):
    per_broker = configs(
        cluster, "--entity-type", "brokers", "--entity-name", "1", "--alter", "--add-config", "log.retention.ms=7200000"
    )
    assert per_broker.returncode == 0, per_broker.stderr
    assert per_broker.stdout.strip() == "Completed updating config for broker 1."
    assert znode(zk, "/config/brokers/1") == {"version": 1, "config": {"log.retention.ms": "7200000"}}
    described = wait_for(
        lambda: (lambda out: "log.retention.ms" in out and out)(
            configs(cluster, "--entity-type", "brokers", "--entity-name", "1", "--describe").stdout
        ),
        message="broker 1 to describe its dynamic config",
    )
    # Kafka's synonyms start at the config's own name: log.retention.hours stays a DEFAULT_CONFIG.
    assert described.splitlines() == [
        "Dynamic configs for broker 1 are:",
        "  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=7200000, "
        "DEFAULT_CONFIG:log.retention.hours=168}",
    ]
    hours = describe_configs(cluster.broker(1).bootstrap, 4, "1", ["log.retention.hours", "log.retention.minutes"])
    assert hours == {
        "log.retention.hours": ("168", 5, [(5, "log.retention.hours", "168")]),
        "log.retention.minutes": (None, 5, []),
    }

    default = configs(
        cluster,
        "--entity-type",
        "brokers",
        "--entity-default",
        "--alter",
        "--add-config",
        "log.segment.bytes=2000,log.retention.ms=3600000",
    )
    assert default.returncode == 0, default.stderr
    assert default.stdout.strip() == "Completed updating default config for brokers in the cluster."
    assert znode(zk, "/config/brokers/<default>") == {
        "version": 1,
        "config": {"log.segment.bytes": "2000", "log.retention.ms": "3600000"},
    }
    notes = [znode(zk, "/config/changes/" + name) for name in sorted(zk.get_children("/config/changes"))]
    assert {"version": 2, "entity_path": "brokers/<default>"} in notes
    assert {"version": 2, "entity_path": "brokers/1"} in notes
    assert configs(cluster, "--entity-type", "brokers", "--entity-default", "--describe").stdout.splitlines() == [
        "Default configs for brokers in the cluster are:",
        "  log.retention.ms=3600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000, "
        "DEFAULT_CONFIG:log.retention.hours=168}",
        "  log.segment.bytes=2000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=2000, "
        "DEFAULT_CONFIG:log.segment.bytes=1073741824}",
    ]

    # Every broker applies it live: a topic without overrides inherits it, per-broker still wins on broker 1.
    for broker in cluster.brokers:
        wait_for(
            lambda: (
                describe_configs(broker.bootstrap, 4, str(broker.broker_id), ["log.segment.bytes"])[
                    "log.segment.bytes"
                ][:2]
                == ("2000", 3)
            ),
            message="broker %d to apply the default" % broker.broker_id,
        )
    broker1 = describe_configs(cluster.broker(1).bootstrap, 4, "1", ["log.retention.ms"])["log.retention.ms"]
    assert broker1[1] == 2 and broker1[2][:2] == [
        (2, "log.retention.ms", "7200000"),
        (3, "log.retention.ms", "3600000"),
    ]
    assert create_topic(cluster.brokers[0].bootstrap, "rolling", assignments={0: [2]}) == Errors.NONE
    leader = cluster.broker(2)
    wait_for(lambda: partition_leaders(leader.bootstrap, "rolling") == {0: 2}, message="leader of rolling")
    topic = describe_configs(leader.bootstrap, 2, "rolling", ["segment.bytes", "retention.ms"])
    assert topic["segment.bytes"][:2] == ("2000", 3) and topic["retention.ms"][:2] == ("3600000", 3)
    batch = encode_batch([(None, b"x" * 1500)])
    wait_for(lambda: produce(leader.bootstrap, "rolling", 0, batch)[0] == Errors.NONE, message="first append")
    for _ in range(3):
        assert produce(leader.bootstrap, "rolling", 0, batch)[0] == Errors.NONE
    segments = sorted(path.name for path in (leader.log_dir / "rolling-0").glob("*.log"))
    assert len(segments) == 4, segments  # each 1.5 kB batch fills a 2000-byte segment

    everything = configs(cluster, "--entity-type", "brokers", "--entity-name", "0", "--describe", "--all").stdout
    lines = everything.splitlines()
    assert lines[0] == "All configs for broker 0 are:"
    assert (
        "  log.segment.bytes=2000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=2000, "
        "DEFAULT_CONFIG:log.segment.bytes=1073741824}"
    ) in lines
    assert any(
        line.startswith("  broker.id=0 sensitive=false synonyms={STATIC_BROKER_CONFIG:broker.id=0") for line in lines
    )

    every_broker = configs(cluster, "--entity-type", "brokers", "--describe").stdout.splitlines()
    headers = [line for line in every_broker if not line.startswith("  ")]
    assert headers == [
        "Dynamic configs for broker 0 are:",
        "Dynamic configs for broker 1 are:",
        "Dynamic configs for broker 2 are:",
        "Default configs for brokers in the cluster are:",
    ]
    every_topic = configs(cluster, "--entity-type", "topics", "--describe").stdout
    assert "Dynamic configs for topic rolling are:" in every_topic.splitlines()

    removed = configs(
        cluster, "--entity-type", "brokers", "--entity-default", "--alter", "--delete-config", "log.segment.bytes"
    )
    assert removed.returncode == 0, removed.stderr
    wait_for(
        lambda: (
            describe_configs(leader.bootstrap, 2, "rolling", ["segment.bytes"])["segment.bytes"][:2]
            == ("1073741824", 5)
        ),
        message="the default segment size back",
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--entity-name", "0", "--add-config", "broker.id=5"],
            "org.apache.kafka.common.errors.InvalidRequestException: Invalid config value for resource "
            "ConfigResource(type=BROKER, name='0'): Cannot update these configs dynamically: Set(broker.id)",
        ),
        (
            ["--entity-name", "0", "--add-config", "log.retention.ms=soon"],
            "Invalid config value for resource ConfigResource(type=BROKER, name='0'): Invalid value soon for "
            "configuration log.retention.ms: Not a number of type LONG",
        ),
        (
            ["--entity-default", "--add-config", "listeners=PLAINTEXT://:1"],
            "Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)",
        ),
        (
            ["--entity-name", "0", "--delete-config", "log.flush.interval.ms"],
            "Invalid config(s): log.flush.interval.ms",
        ),
        ([], "--entity-name or --entity-default must be specified with --alter of users, clients or brokers"),
    ],
)
def test_bad_broker_config_changes_are_refused(cluster, args, message):
    refused = configs(cluster, "--entity-type", "brokers", "--alter", *args)
    assert refused.returncode == 1
    assert message in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.timeout(120)
def test_broker_configs_through_zookeeper(cluster, zk):
    altered = zk_configs(
        cluster,
        "--entity-type",
        "brokers",
        "--entity-name",
        "2",
        "--alter",
        "--add-config",
        "follower.replication.throttled.rate=1048576",
    )
    assert altered.returncode == 0, altered.stderr
    assert altered.stdout.strip() == "Completed updating config for entity: brokers '2'."
    assert (
        zk_configs(cluster, "--entity-type", "brokers", "--entity-name", "2", "--describe").stdout.strip()
        == "Configs for brokers '2' are follower.replication.throttled.rate=1048576"
    )
    wait_for(
        lambda: (
            describe_configs(cluster.broker(2).bootstrap, 4, "2", ["follower.replication.throttled.rate"])[
                "follower.replication.throttled.rate"
            ][:2]
            == ("1048576", 2)
        ),
        message="broker 2 to apply the throttle",
    )
    default = zk_configs(
        cluster,
        "--entity-type",
        "brokers",
        "--entity-default",
        "--alter",
        "--add-config",
        "leader.replication.throttled.rate=2000000",
    )
    assert default.stdout.strip() == "Completed updating config for entity: default brokers."
    wait_for(
        lambda: (
            describe_configs(cluster.broker(0).bootstrap, 4, "0", ["leader.replication.throttled.rate"])[
                "leader.replication.throttled.rate"
            ][:2]
            == ("2000000", 3)
        ),
        message="broker 0 to apply the default",
    )

    running = zk_configs(
        cluster, "--entity-type", "brokers", "--entity-name", "2", "--alter", "--add-config", "log.retention.ms=1000"
    )
    assert running.returncode == 1
    assert running.stderr.strip() == (
        "requirement failed: --bootstrap-server option must be specified to update broker configs "
        "Set(log.retention.ms) when broker 2 is running. Broker configuraton updates using ZooKeeper are supported "
        "for bootstrapping before brokers are started to enable encrypted password configs to be stored in "
        "ZooKeeper."
    )
    bad = zk_configs(
        cluster,
        "--entity-type",
        "brokers",
        "--entity-name",
        "x",
        "--alter",
        "--add-config",
        "follower.replication.throttled.rate=1",
    )
    assert bad.returncode == 1 and bad.stderr.strip() == (
        "Error parsing broker x. The broker's Entity Name must be a single integer value"
    )


@pytest.mark.timeout(120)
def test_client_and_user_quota_configs(cluster, zk):
    cases = [
        (
            ["--entity-type", "clients", "--entity-name", "reporter"],
            "client-id 'reporter'",
            "/config/clients/reporter",
            "clients/reporter",
        ),
        (
            ["--entity-type", "clients", "--entity-default"],
            "default client-id",
            "/config/clients/<default>",
            "clients/<default>",
        ),
        (
            ["--entity-type", "users", "--entity-name", "CN=alice,O=org"],
            "user-principal 'CN=alice,O=org'",
            "/config/users/CN%3Dalice%2CO%3Dorg",
            "users/CN%3Dalice%2CO%3Dorg",
        ),
        (
            ["--entity-type", "users", "--entity-name", "bob", "--entity-type", "clients", "--entity-name", "app"],
            "user-principal 'bob', client-id 'app'",
            "/config/users/bob/clients/app",
            "users/bob/clients/app",
        ),
        (
            ["--entity-type", "users", "--entity-default", "--entity-type", "clients", "--entity-default"],
            "default user-principal, default client-id",
            "/config/users/<default>/clients/<default>",
            "users/<default>/clients/<default>",
        ),
    ]
    for entity, printed, path, entity_path in cases:
        altered = zk_configs(
            cluster,
            *entity,
            "--alter",
            "--add-config",
            "producer_byte_rate=1024,consumer_byte_rate=2048,request_percentage=50",
        )
        assert altered.returncode == 0, altered.stderr
        assert altered.stdout.strip() == "Completed updating config for entity: %s." % printed
        assert znode(zk, path) == {
            "version": 1,
            "config": {"producer_byte_rate": "1024", "consumer_byte_rate": "2048", "request_percentage": "50"},
        }
        notes = [znode(zk, "/config/changes/" + name) for name in sorted(zk.get_children("/config/changes"))]
        assert notes[-1] == {"version": 2, "entity_path": entity_path}
        described = zk_configs(cluster, *entity, "--describe")
        assert described.stdout.strip() == (
            "Configs for %s are consumer_byte_rate=2048,producer_byte_rate=1024,request_percentage=50" % printed
        )
    deleted = zk_configs(
        cluster,
        "--entity-type",
        "clients",
        "--entity-name",
        "reporter",
        "--alter",
        "--delete-config",
        "request_percentage,consumer_byte_rate",
    )
    assert deleted.returncode == 0
    assert znode(zk, "/config/clients/reporter") == {"version": 1, "config": {"producer_byte_rate": "1024"}}

    all_users = zk_configs(cluster, "--entity-type", "users", "--describe").stdout.splitlines()
    assert all_users == [
        "Configs for user-principal 'CN=alice,O=org' are consumer_byte_rate=2048,"
        "producer_byte_rate=1024,request_percentage=50"
    ]  # bob and <default> hold only clients
    user_clients = zk_configs(cluster, "--entity-type", "users", "--entity-type", "clients", "--describe")
    assert user_clients.stdout.splitlines() == [
        "Configs for default user-principal, default client-id are consumer_byte_rate=2048,producer_byte_rate=1024,"
        "request_percentage=50",
        "Configs for user-principal 'bob', client-id 'app' are consumer_byte_rate=2048,producer_byte_rate=1024,"
        "request_percentage=50",
    ]

    scram = zk_configs(
        cluster,
        "--entity-type",
        "users",
        "--entity-name",
        "carol",
        "--alter",
        "--add-config",
        "SCRAM-SHA-256=[iterations=8192,password=carol-secret]",
    )
    assert scram.returncode == 0, scram.stderr
    stored = znode(zk, "/config/users/carol")["config"]["SCRAM-SHA-256"]
    assert stored.startswith("salt=") and ",stored_key=" in stored and stored.endswith(",iterations=8192")


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "args, stderr",
    [
        (
            ["--zookeeper", None, "--entity-type", "clients", "--entity-name", "c", "--alter", "--add-config", "foo=1"],
            "requirement failed: Unknown Dynamic Configuration: Set(foo).",
        ),
        (
            [
                "--zookeeper",
                None,
                "--entity-type",
                "users",
                "--entity-name",
                "u",
                "--alter",
                "--add-config",
                "producer_byte_rate=fast",
            ],
            "org.apache.kafka.common.config.ConfigException: Invalid value fast for configuration producer_byte_rate: "
            "Not a number of type LONG",
        ),
        (
            ["--zookeeper", None, "--entity-type", "clients", "--alter", "--add-config", "producer_byte_rate=1"],
            "--entity-name or --entity-default must be specified with --alter of users, clients or brokers",
        ),
        (
            [
                "--zookeeper",
                None,
                "--entity-type",
                "users",
                "--entity-name",
                "u",
                "--entity-type",
                "clients",
                "--alter",
                "--add-config",
                "producer_byte_rate=1",
            ],
            "--entity-name or --entity-default must be specified with each --entity-type for --alter",
        ),
        (
            [
                "--zookeeper",
                None,
                "--entity-type",
                "topics",
                "--entity-name",
                "nope",
                "--alter",
                "--add-config",
                "retention.ms=1",
            ],
            'kafka.admin.AdminOperationException: Topic "nope" does not exist.',
        ),
        (
            ["--zookeeper", None, "--entity-type", "groups", "--describe"],
            "Invalid entity-type groups, --entity-type must be one of "
            "List(topics, clients, users, brokers, broker-loggers)",
        ),
        (
            ["--bootstrap", "--entity-type", "users", "--entity-name", "u", "--describe"],
            'Missing required argument "[zookeeper]"',
        ),
    ],
)
def test_bad_quota_and_entity_input(cluster, args, stderr):
    args = [cluster.zk_connect if arg is None else arg for arg in args]
    if args[0] == "--bootstrap":
        args = ["--bootstrap-server", cluster.brokers[0].bootstrap] + args[1:]
    refused = tool("kafka-configs.sh", *args)
    assert refused.returncode == 1
    assert stderr in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.timeout(120)
def test_broker_logger_levels(cluster):
    name = "kafka_zk.server.kafka_server"
    before = configs(cluster, "--entity-type", "broker-loggers", "--entity-name", "1", "--describe")
    assert before.returncode == 0, before.stderr
    lines = before.stdout.splitlines()
    assert lines[0] == "Dynamic configs for broker-logger 1 are:"
    root = [line for line in lines if line.startswith("  root=")][0]
    root_level = root.split("=")[1].split()[0]
    assert root == "  root=%s sensitive=false synonyms={DYNAMIC_BROKER_LOGGER_CONFIG:root=%s}" % (
        root_level,
        root_level,
    )

    altered = configs(
        cluster, "--entity-type", "broker-loggers", "--entity-name", "1", "--alter", "--add-config", "%s=TRACE" % name
    )
    assert altered.returncode == 0, altered.stderr
    assert altered.stdout.strip() == "Completed updating config for broker-logger 1."
    levels = describe_configs(cluster.broker(1).bootstrap, 8, "1", [name, "root"])
    assert levels[name][:2] == ("TRACE", 6) and levels["root"][0] == root_level
    assert describe_configs(cluster.broker(0).bootstrap, 8, "0", [name])[name][0] != "TRACE"  # only broker 1

    reset = configs(
        cluster, "--entity-type", "broker-loggers", "--entity-name", "1", "--alter", "--delete-config", name
    )
    assert reset.returncode == 0, reset.stderr
    assert describe_configs(cluster.broker(1).bootstrap, 8, "1", [name])[name][0] == root_level

    bad_level = configs(
        cluster, "--entity-type", "broker-loggers", "--entity-name", "1", "--alter", "--add-config", "%s=LOUD" % name
    )
    assert bad_level.returncode == 1
    assert (
        "Cannot set the log level of %s to LOUD as it is not a supported log level. Valid log4j levels are "
        "OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL" % name
    ) in bad_level.stderr
    legacy = request(
        cluster.broker(1).bootstrap,
        33,
        1,
        {
            "resources": [{"resource_type": 8, "resource_name": "1", "configs": [{"name": name, "value": "DEBUG"}]}],
            "validate_only": False,
        },
    )["responses"][0]
    assert (legacy["error_code"], legacy["error_message"]) == (
        Errors.INVALID_REQUEST,
        "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER",
    )
    with_zk = zk_configs(cluster, "--entity-type", "broker-loggers", "--entity-name", "1", "--describe")
    assert with_zk.returncode == 1 and "Invalid entity type broker-loggers" in with_zk.stderr
