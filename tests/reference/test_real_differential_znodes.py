"""The znode trees of Apache Kafka 2.5.1 and of kafka-zk after the same admin operations: topics with configs and
explicit assignments, dynamic configs of topics, brokers, clients and users, SCRAM credentials, added partitions, a
throttled reassignment, a preferred election, ACLs and a deleted topic; paths, data (null vs empty included) and
whether a znode is ephemeral, with only what legitimately differs normalised."""

import json
import re

from confluent_kafka import ElectionType, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
)
from kazoo.exceptions import NoNodeError

from tests.cluster_support import wait_for
from tests.reference.differential_support import (
    Tally,
    cluster_pair,
    run_kafka_class,
    run_our_script,
    zookeeper_client,
)

pair = cluster_pair()

SEQUENTIAL = re.compile(r"^(.*_)(\d{10})$")
# Values that are the cluster's own and not a behaviour: which broker won an election, when, on which port.
RANDOM_SCRAM_FIELDS = ("salt", "stored_key", "server_key")
# The differences tests/reference/known_differences.md lists ("## ZooKeeper, files and CLIs"), with their reasons.
KNOWN = {
    r"^/config/changes/config_change_<seq (10|11|12)>$": "the order of the brokers whose throttle rates "
    "kafka-reassign-partitions --execute sets (Kafka's: a Scala set's iteration order; ours: ascending)",
    r"^/latest_producer_id_block$": "Kafka's transaction coordinators each take a producer id block when they start; "
    "ours take one at the first InitProducerId",
}


def _tool(cluster, kafka_class, script, args):
    """Kafka's tool class on Kafka's cluster, our script on ours; fails on a non-zero exit."""
    if cluster.brokers[0].kind.startswith("Apache Kafka"):
        code, out, err = run_kafka_class(kafka_class, args)
    else:
        code, out, err = run_our_script(script, args)
    assert code == 0, (kafka_class, args, out, err)
    return out


def _admin_operations(cluster, folder):
    """The same operations, in the same order, on one cluster."""
    # An operation's wait on the broker and the client's own timeout (both socket.timeout.ms: confluent-kafka's
    # elect_leaders takes no timeouts of its own) end before the test's, so a slow one fails with its reason.
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers, "socket.timeout.ms": 30000})
    topics = [
        NewTopic(
            "configured",
            3,
            replica_assignment=[[0, 1], [1, 2], [2, 0]],
            config={"retention.ms": "3600000", "cleanup.policy": "compact", "min.insync.replicas": "2"},
        ),
        NewTopic("moved", 2, replica_assignment=[[0, 1], [1, 2]]),
        NewTopic("doomed", 1, replica_assignment=[[2]]),
        NewTopic("plain", 2, replica_assignment=[[0, 1, 2], [1, 2, 0]]),
    ]
    for future in admin.create_topics(topics).values():
        future.result(60)
    for future in admin.incremental_alter_configs(
        [
            ConfigResource(
                ConfigResource.Type.TOPIC,
                "plain",
                incremental_configs=[
                    ConfigEntry("segment.ms", "600000", incremental_operation=AlterConfigOpType.SET),
                    ConfigEntry("max.message.bytes", "200000", incremental_operation=AlterConfigOpType.SET),
                ],
            ),
            ConfigResource(
                ConfigResource.Type.BROKER,
                "1",
                incremental_configs=[
                    ConfigEntry("log.cleaner.backoff.ms", "20000", incremental_operation=AlterConfigOpType.SET)
                ],
            ),
        ]
    ).values():
        future.result(60)
    broker_default = ["--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.bytes=1073741824"]
    _tool(
        cluster,
        "kafka.admin.ConfigCommand",
        "kafka-configs.sh",
        ["--bootstrap-server", cluster.bootstrap_servers, "--alter"] + broker_default,
    )
    zookeeper = ["--zookeeper", cluster.zk_connect]
    for entity in (
        ["--entity-type", "clients", "--entity-name", "reporter", "--add-config", "producer_byte_rate=1048576"],
        ["--entity-type", "users", "--entity-name", "alice", "--add-config", "consumer_byte_rate=2097152"],
        ["--entity-type", "users", "--entity-default", "--add-config", "request_percentage=50"],
        [
            "--entity-type",
            "users",
            "--entity-name",
            "alice",
            "--entity-type",
            "clients",
            "--entity-name",
            "reporter",
            "--add-config",
            "producer_byte_rate=4096",
        ],
        [
            "--entity-type",
            "users",
            "--entity-name",
            "bob",
            "--add-config",
            "SCRAM-SHA-256=[iterations=8192,password=b]",
        ],
        ["--entity-type", "users", "--entity-name", "bob", "--add-config", "SCRAM-SHA-512=[password=bob-secret]"],
    ):
        _tool(cluster, "kafka.admin.ConfigCommand", "kafka-configs.sh", zookeeper + ["--alter"] + entity)
    for future in admin.create_partitions([NewPartitions("moved", 4, replica_assignment=[[2, 0], [0, 1]])]).values():
        future.result(60)
    plan = folder / ("reassign-%s.json" % id(cluster))
    plan.write_text(
        json.dumps(
            {
                "version": 1,
                "partitions": [
                    {"topic": "moved", "partition": 0, "replicas": [1, 2]},
                    {"topic": "moved", "partition": 1, "replicas": [2, 1]},
                ],
            }
        )
    )
    reassign = zookeeper + ["--reassignment-json-file", str(plan)]
    _tool(
        cluster,
        "kafka.admin.ReassignPartitionsCommand",
        "kafka-reassign-partitions.sh",
        reassign + ["--execute", "--throttle", "1000000"],
    )
    with zookeeper_client(cluster.zk_connect) as client:
        wait_for(lambda: not client.exists("/admin/reassign_partitions"), 60, message="the reassignment")
        # --verify of a completed reassignment removes its throttles, as an operator runs it afterwards.
        _tool(cluster, "kafka.admin.ReassignPartitionsCommand", "kafka-reassign-partitions.sh", reassign + ["--verify"])
        wait_for(lambda: _leader(client, "moved", 1) == 1, 30, message="moved-1 led by 1 after its reassignment")
    elected = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition("moved", 1)]).result(60)
    assert list(elected.values()) == [None], elected
    # The brokers run without an authorizer: ACLs go to ZooKeeper through the ACL tool, as Kafka 2.5's does.
    authorizer = ["--authorizer-properties", "zookeeper.connect=%s" % cluster.zk_connect]
    for acl in (
        ["--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "configured"],
        ["--add", "--allow-principal", "User:bob", "--producer", "--topic", "moved"],
        ["--add", "--deny-principal", "User:eve", "--deny-host", "10.0.0.9", "--operation", "All", "--group", "g"],
        [
            "--add",
            "--allow-principal",
            "User:carol",
            "--operation",
            "Write",
            "--topic",
            "logs-",
            "--resource-pattern-type",
            "prefixed",
        ],
        ["--add", "--allow-principal", "User:carol", "--operation", "Describe", "--cluster"],
    ):
        _tool(cluster, "kafka.admin.AclCommand", "kafka-acls.sh", authorizer + acl + ["--force"])
    for future in admin.delete_topics(["doomed"]).values():
        future.result(60)
    with zookeeper_client(cluster.zk_connect) as client:
        wait_for(
            lambda: (
                not client.exists("/brokers/topics/doomed")
                and not client.get_children("/admin/delete_topics")
                and not client.get_children("/isr_change_notification")
                and _leader(client, "moved", 1) == 2
            ),
            60,
            message="the deletion, the election and the ISR notifications to settle",
        )


def _leader(client, topic, partition):
    try:
        data, _ = client.get("/brokers/topics/%s/partitions/%d/state" % (topic, partition))
    except NoNodeError:
        return None
    return json.loads(data)["leader"]


def _walk(client, path="/"):
    """{path: (ephemeral, data)} of every znode under ``path``; a sequential child's number becomes its rank."""
    tree = {}
    try:
        data, stat = client.get(path)
    except NoNodeError:
        return tree
    tree[path] = (stat.ephemeralOwner != 0, data)
    children = sorted(client.get_children(path))
    ranks = {}
    for child in children:
        match = SEQUENTIAL.match(child)
        shown = child
        if match:
            ranks[match.group(1)] = ranks.get(match.group(1), -1) + 1
            shown = "%s<seq %d>" % (match.group(1), ranks[match.group(1)])
        for sub_path, value in _walk(client, path.rstrip("/") + "/" + child).items():
            tree[sub_path.replace(path.rstrip("/") + "/" + child, path.rstrip("/") + "/" + shown, 1)] = value
    return tree


def _normalised(path, data):
    """The data of one znode with what belongs to one cluster alone replaced by a placeholder."""
    if data is None:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")
    if not isinstance(value, dict):
        return value
    if path == "/cluster/id":
        value["id"] = "<cluster id>"
    if path == "/controller":
        value.update(brokerid="<controller>", timestamp="<ms>")
    if path.startswith("/brokers/ids/"):
        value.update(host="<host>", port="<port>", endpoints="<endpoints>", timestamp="<ms>")
    if path.startswith("/kafka-acl") and "acls" in value:
        # A set to Kafka (its order is a Scala set's iteration order), read back as one by both.
        value["acls"] = sorted(value["acls"], key=lambda acl: sorted(acl.items()))
    if path == "/latest_producer_id_block":
        value["broker"] = "<broker>"
    if path.startswith("/config/users/") and any(key.startswith("SCRAM-") for key in value.get("config", {})):
        for key, credential in value["config"].items():
            if key.startswith("SCRAM-"):
                fields = dict(part.split("=", 1) for part in credential.split(","))
                fields.update({name: "<%s>" % name for name in RANDOM_SCRAM_FIELDS if name in fields})
                value["config"][key] = ",".join("%s=%s" % item for item in sorted(fields.items()))
    return value


def test_the_znode_trees_match_kafkas_after_the_same_admin_operations(pair, tmp_path):
    kafka, ours = pair
    for cluster in (kafka, ours):
        try:
            _admin_operations(cluster, tmp_path)
        except Exception as error:
            raise AssertionError("the admin operations failed on %s" % cluster.brokers[0].kind) from error
    trees = []
    for cluster in (kafka, ours):
        with zookeeper_client(cluster.zk_connect) as client:
            trees.append(_walk(client))
    kafka_tree, our_tree = trees
    tally = Tally("znode paths", KNOWN)
    for path in sorted(set(kafka_tree) | set(our_tree)):
        if path not in kafka_tree or path not in our_tree:
            tally.compare(path + " (exists)", path in kafka_tree, path in our_tree)
            continue
        kafka_ephemeral, kafka_data = kafka_tree[path]
        our_ephemeral, our_data = our_tree[path]
        tally.compare(
            path,
            (kafka_ephemeral, _normalised(path, kafka_data)),
            (our_ephemeral, _normalised(path, our_data)),
        )
    print("\n" + tally.report())
    assert tally.compared > 100
    assert not tally.unexplained, tally.report()
