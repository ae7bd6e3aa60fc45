"""Kafka 2.5.1's own command-line tools against Kafka's cluster and our scripts/ against ours, with the same arguments
(the bootstrap servers and ZooKeeper connect string each cluster's): exit codes and standard output compared, error
messages included, from one table of commands run in order."""

import json
import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.reference.differential_support import Tally, cluster_pair, run_kafka_class, run_our_script

NOW = int(time.time() * 1000)  # records within the retention time
pair = cluster_pair({"offsets.topic.num.partitions": "3", "group.initial.rebalance.delay.ms": "0"})

STACK_TRACE = ("\tat ", "\t... ", "Caused by: ", "java.util.concurrent.ExecutionException: ")
# The differences tests/reference/known_differences.md lists ("## ZooKeeper, files and CLIs"), with their reasons.
KNOWN = {
    r"^topics describe overridden ": "the order of a topic's configs: our DescribeConfigs answer lists them in another "
    "order than Kafka's (a Java HashMap's iteration order there)",
}
B = ["--bootstrap-server", "{bootstrap}"]
Z = ["--zookeeper", "{zookeeper}"]
TOPICS = ("kafka.admin.TopicCommand", "kafka-topics.sh")
CONFIGS = ("kafka.admin.ConfigCommand", "kafka-configs.sh")
GROUPS = ("kafka.admin.ConsumerGroupCommand", "kafka-consumer-groups.sh")
OFFSETS = ("kafka.tools.GetOffsetShell", "kafka-get-offsets.sh")
ACLS = ("kafka.admin.AclCommand", "kafka-acls.sh")
ELECTION = ("kafka.admin.LeaderElectionCommand", "kafka-leader-election.sh")
PREFERRED = ("kafka.admin.PreferredReplicaLeaderElectionCommand", "kafka-preferred-replica-election.sh")
DELETE_RECORDS = ("kafka.admin.DeleteRecordsCommand", "kafka-delete-records.sh")
LOG_DIRS = ("kafka.admin.LogDirsCommand", "kafka-log-dirs.sh")
REASSIGN = ("kafka.admin.ReassignPartitionsCommand", "kafka-reassign-partitions.sh")

# (what, (Kafka's class, our script), arguments): run in this order on both clusters.
COMMANDS = [
    ("topics list", TOPICS, B + ["--list"]),
    ("topics describe", TOPICS, B + ["--describe", "--topic", "events"]),
    ("topics describe unknown", TOPICS, B + ["--describe", "--topic", "nosuch"]),
    (
        "topics create too many replicas",
        TOPICS,
        B + ["--create", "--topic", "made", "--partitions", "2", "--replication-factor", "5"],
    ),
    (
        "topics create assigned",
        TOPICS,
        B + ["--create", "--topic", "made", "--replica-assignment", "0:1,1:2", "--config", "retention.ms=100000"],
    ),
    (
        "topics create existing",
        TOPICS,
        B + ["--create", "--topic", "made", "--partitions", "1", "--replication-factor", "1"],
    ),
    ("topics describe made", TOPICS, B + ["--describe", "--topic", "made"]),
    ("topics fewer partitions", TOPICS, B + ["--alter", "--topic", "made", "--partitions", "1"]),
    (
        "topics more partitions",
        TOPICS,
        B + ["--alter", "--topic", "made", "--partitions", "3", "--replica-assignment", "0:1,1:2,2:0"],
    ),
    ("topics describe overridden", TOPICS, B + ["--describe", "--topics-with-overrides"]),
    ("topics zookeeper describe", TOPICS, Z + ["--describe", "--topic", "made"]),
    ("configs describe topic", CONFIGS, B + ["--describe", "--entity-type", "topics", "--entity-name", "made"]),
    (
        "configs alter topic",
        CONFIGS,
        B + ["--alter", "--entity-type", "topics", "--entity-name", "made", "--add-config", "cleanup.policy=compact"],
    ),
    (
        "configs invalid value",
        CONFIGS,
        B + ["--alter", "--entity-type", "topics", "--entity-name", "made", "--add-config", "cleanup.policy=sometimes"],
    ),
    ("configs unknown topic", CONFIGS, B + ["--describe", "--entity-type", "topics", "--entity-name", "nosuch"]),
    (
        "configs alter broker",
        CONFIGS,
        B
        + ["--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "log.cleaner.backoff.ms=16000"],
    ),
    ("configs describe broker", CONFIGS, B + ["--describe", "--entity-type", "brokers", "--entity-name", "1"]),
    (
        "configs zookeeper users",
        CONFIGS,
        Z + ["--alter", "--entity-type", "users", "--entity-name", "ann", "--add-config", "consumer_byte_rate=1024"],
    ),
    ("configs zookeeper describe users", CONFIGS, Z + ["--describe", "--entity-type", "users"]),
    ("groups list", GROUPS, B + ["--list"]),
    ("groups describe", GROUPS, B + ["--describe", "--group", "readers"]),
    ("groups describe unknown", GROUPS, B + ["--describe", "--group", "nosuch"]),
    (
        "groups reset dry run",
        GROUPS,
        B + ["--reset-offsets", "--group", "readers", "--topic", "events", "--to-earliest", "--dry-run"],
    ),
    ("groups delete", GROUPS, B + ["--delete", "--group", "readers"]),
    ("offsets latest", OFFSETS, ["--broker-list", "{bootstrap}", "--topic", "events", "--time", "-1"]),
    ("offsets unknown topic", OFFSETS, ["--broker-list", "{bootstrap}", "--topic", "nosuch", "--time", "-1"]),
    ("delete records", DELETE_RECORDS, B + ["--offset-json-file", "{deletion}"]),
    ("offsets after deletion", OFFSETS, ["--broker-list", "{bootstrap}", "--topic", "events", "--time", "-2"]),
    ("log dirs", LOG_DIRS, B + ["--describe", "--broker-list", "0", "--topic-list", "made"]),
    ("preferred election", ELECTION, B + ["--election-type", "preferred", "--all-topic-partitions"]),
    ("preferred replica election", PREFERRED, B),
    ("acls without authorizer", ACLS, B + ["--list"]),
    (
        "acls add zookeeper",
        ACLS,
        [
            "--authorizer-properties",
            "zookeeper.connect={zookeeper}",
            "--add",
            "--allow-principal",
            "User:ann",
            "--operation",
            "Read",
            "--topic",
            "events",
        ],
    ),
    ("acls list zookeeper", ACLS, ["--authorizer-properties", "zookeeper.connect={zookeeper}", "--list"]),
    ("reassign verify nothing", REASSIGN, Z + ["--verify", "--reassignment-json-file", "{reassignment}"]),
    ("topics delete", TOPICS, B + ["--delete", "--topic", "made"]),
]


# The commands that change what later ones see: each runs alone, the others between them at the same time.
CHANGING = {
    "topics create assigned",
    "topics more partitions",
    "configs alter topic",
    "configs alter broker",
    "configs zookeeper users",
    "groups delete",
    "delete records",
    "preferred election",
    "preferred replica election",
    "acls add zookeeper",
    "topics delete",
}


def _stages(commands):
    """The commands in order, in stages: a changing command alone, the reading ones between two together."""
    stages = [[]]
    for command in commands:
        if command[0] in CHANGING:
            stages += [[command], []]
        else:
            stages[-1].append(command)
    return [stage for stage in stages if stage]


def _prepare(cluster, folder):
    """The topic and group the commands read, the same on both clusters."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic("events", 3, replica_assignment=[[0, 1], [1, 2], [2, 0]])])["events"].result(60)
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})
    for partition in range(3):
        for index in range(5 + partition):
            producer.produce("events", value=b"%d" % index, partition=partition, timestamp=NOW + index)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "readers"})
    consumer.commit(
        offsets=[TopicPartition("events", partition, 2 + partition) for partition in range(3)], asynchronous=False
    )
    consumer.close()
    (folder / "deletion.json").write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "events", "partition": 1, "offset": 3}]})
    )
    (folder / "reassignment.json").write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "events", "partition": 0, "replicas": [0, 1]}]})
    )


def _run(cluster, folder, tool, arguments):
    values = {
        "bootstrap": cluster.bootstrap_servers,
        "zookeeper": cluster.zk_connect,
        "deletion": str(folder / "deletion.json"),
        "reassignment": str(folder / "reassignment.json"),
    }
    arguments = [argument.format(**values) for argument in arguments]
    if cluster.brokers[0].kind.startswith("Apache Kafka"):
        code, out, _ = run_kafka_class(tool[0], arguments)
    else:
        code, out, _ = run_our_script(tool[1], arguments)
    for text, placeholder in (
        (str(cluster.data_dir), "<data dir>"),
        (cluster.zk_connect, "<zookeeper>"),
        (cluster.bootstrap_servers, "<bootstrap>"),
    ):
        out = out.replace(text, placeholder)
    for broker in cluster.brokers:
        out = out.replace("%s:%d" % (broker.host, broker.port), "<broker %d>" % broker.broker_id)
    # The stack trace Kafka's tools print after some errors is the JVM's own, with no counterpart in Python.
    lines = [line for line in out.splitlines() if not line.startswith(STACK_TRACE)]
    while lines and not lines[-1]:
        lines.pop()
    return code, lines


def test_the_tools_answer_as_kafkas_do(pair, tmp_path):
    kafka, ours = pair
    folders = {}
    for cluster, name in ((kafka, "kafka"), (ours, "ours")):
        folders[id(cluster)] = tmp_path / name
        folders[id(cluster)].mkdir()
        _prepare(cluster, folders[id(cluster)])
    tally = Tally("CLI commands", KNOWN)
    with ThreadPoolExecutor(6) as pool:
        for stage in _stages(COMMANDS):
            runs = {
                (index, side): pool.submit(_run, cluster, folders[id(cluster)], stage[index][1], stage[index][2])
                for index in range(len(stage))
                for side, cluster in enumerate((kafka, ours))
            }
            for index, (what, _, arguments) in enumerate(stage):
                tally.compare("%s (%s)" % (what, " ".join(arguments)), runs[index, 0].result(), runs[index, 1].result())
    print("\n" + tally.report())
    assert tally.compared == len(COMMANDS)
    assert not tally.unexplained, tally.report()
