"""Kafka 2.5.1 against kafka-zk on one pair of clusters, two comparisons in turn.

First the command-line tools: Kafka 2.5.1's own tool classes against Kafka's cluster and our scripts/ against ours,
with the same arguments (the bootstrap servers and ZooKeeper connect string each cluster's): exit codes and standard
output compared, error messages included, from one table of commands run in order.

Then the files of one-replica partitions after the same produce sequence (plain, gzip, snappy, lz4 and zstd batches
with keys, headers and timestamps, segments rolled by segment.bytes, a compacted topic the cleaner has cleaned,
committed and aborted transactions): segments, indexes, transaction indexes, producer snapshots and checkpoints,
through Kafka's own DumpLogSegments on both and byte for byte where no broker-chosen value (a producer id, a marker's
time) is in them. It stops both clusters (the files are final after a clean shutdown), so it comes last; its topics
and checkpoint lines are its own, whatever the tools made before."""

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic

from tests.cluster_support import wait_for
from tests.reference.differential_support import Tally, cluster_pair, run_kafka_class, run_our_script

# One pair for both comparisons (a pair's start and stop is some 15 s of a worker): the tools' settings (groups that
# rebalance at once) and the files' (a cleaner that looks every half second), three partitions of each internal topic.
pair = cluster_pair(
    {
        "offsets.topic.num.partitions": "3",
        "transaction.state.log.num.partitions": "3",
        "group.initial.rebalance.delay.ms": "0",
        "log.cleaner.backoff.ms": "500",
    }
)

# == the command-line tools ======================================================================================

NOW = int(time.time() * 1000)  # records within the retention time

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


# == the files of a partition ==================================================================================

# Every partition on broker 0 alone.
FILE_TOPICS = {
    "plain": {"segment.bytes": "2048", "index.interval.bytes": "256"},
    "compacted": {
        "cleanup.policy": "compact",
        "segment.bytes": "1024",
        "min.cleanable.dirty.ratio": "0.01",
        "min.compaction.lag.ms": "86400000",  # 0 once every record is in: one cleaning of the whole log
        "file.delete.delay.ms": "0",
        "index.interval.bytes": "128",
    },
    "txn": {"segment.bytes": "4096", "index.interval.bytes": "128"},
}
BYTE_COMPARABLE = ("plain", "compacted")  # no producer id or broker time in their files
BASE_TIMESTAMP = int(time.time() * 1000) - 3_600_000  # an hour ago: ours, the same on both clusters
CHECKPOINTS = ("recovery-point-offset-checkpoint", "replication-offset-checkpoint", "log-start-offset-checkpoint")


def _produce(cluster):
    """The same records, batch by batch (a flush after each), on one cluster."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    for future in admin.create_topics(
        [NewTopic(name, 1, replica_assignment=[[0]], config=config) for name, config in FILE_TOPICS.items()]
    ).values():
        future.result(60)
    timestamp = iter(range(BASE_TIMESTAMP, BASE_TIMESTAMP + 100_000, 7))
    for codec in ("none", "gzip", "snappy", "lz4", "zstd", "none", "gzip"):
        producer = Producer(
            {
                "bootstrap.servers": cluster.bootstrap_servers,
                "compression.type": codec,
                # flush() sends at once whatever linger says; a shorter linger once sent a batch's first record alone
                # (the test process starved for a second beside the other worker's JVMs)
                "linger.ms": 60000,
                "acks": 1,
            }
        )
        producer.list_topics(timeout=30)  # the partitions known before the first record: no batch sent early
        for batch in range(3):
            for index in range(12):
                producer.produce(
                    "plain",
                    key=None if index % 4 == 0 else b"key-%d" % index,
                    value=b"%s batch %d record %d " % (codec.encode(), batch, index) * (1 + index % 3),
                    headers=[("codec", codec.encode()), ("index", b"%d" % index)] if index % 2 else None,
                    timestamp=next(timestamp),
                )
            assert producer.flush(30) == 0
        for index in range(10):
            producer.produce(
                "compacted",
                key=b"k%d" % (index % 4),
                value=None if index == 9 else b"%s value %d" % (codec.encode(), index) * 4,
                timestamp=next(timestamp),
            )
            assert producer.flush(30) == 0  # a batch each: the client's grouping would vary
    transactional = Producer(
        {"bootstrap.servers": cluster.bootstrap_servers, "transactional.id": "files-tx", "linger.ms": 20}
    )
    transactional.init_transactions(60)
    for outcome in ("commit", "abort", "commit", "abort", "commit"):
        transactional.begin_transaction()
        for index in range(6):
            transactional.produce(
                "txn",
                key=b"tx-%d" % index,
                value=b"%s %d" % (outcome.encode(), index),
                headers=[("outcome", outcome.encode())],
                timestamp=next(timestamp),
            )
        transactional.flush(30)
        if outcome == "commit":
            transactional.commit_transaction(60)
        else:
            transactional.abort_transaction(60)
    # The coordinator writes the last marker after the commit returns: the record after it waits for it.
    watcher = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "files-watcher"})
    try:
        wait_for(
            lambda: watcher.get_watermark_offsets(TopicPartition("txn", 0), timeout=10)[1] == 5 * 7,
            30,
            message="the last commit marker",
        )
    finally:
        watcher.close()
    plain = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": 1})
    plain.produce("txn", key=b"after", value=b"last", timestamp=next(timestamp))
    assert plain.flush(30) == 0
    lag = ConfigEntry("min.compaction.lag.ms", "0", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.TOPIC, "compacted", incremental_configs=[lag])
    admin.incremental_alter_configs([resource])[resource].result(60)


def _cleaned(cluster):
    """Whether the cleaner has cleaned the compacted topic up to its active segment."""
    checkpoint = cluster.broker(0).log_dir / "cleaner-offset-checkpoint"
    active = max(int(path.stem) for path in (cluster.broker(0).log_dir / "compacted-0").glob("*.log"))
    folder = cluster.broker(0).log_dir / "compacted-0"
    return (
        checkpoint.exists()
        and ("compacted 0 %d" % active) in checkpoint.read_text().splitlines()
        and not list(folder.glob("*.deleted"))
    )


def _checkpoint_entries(cluster, name):
    path = cluster.broker(0).log_dir / name
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    return lines[:1] + sorted(line for line in lines[2:] if line.split(" ")[0] in FILE_TOPICS)


def _files(cluster):
    """{topic: {file name: path}} of each partition's folder, leftover .deleted/.cleaned files included."""
    folders = {name: cluster.broker(0).log_dir / ("%s-0" % name) for name in FILE_TOPICS}
    return {name: {path.name: path for path in sorted(folder.iterdir())} for name, folder in folders.items()}


def _dump(paths):
    """Kafka's DumpLogSegments of every file at once: {file name: its lines, the folder's path taken out}."""
    code, out, err = run_kafka_class(
        "kafka.tools.DumpLogSegments", ["--deep-iteration", "--print-data-log", "--files", ",".join(map(str, paths))]
    )
    assert code == 0, err
    dumps, current = {}, None
    for line in out.splitlines():
        if line.startswith("Dumping "):
            current = "/".join(line.split("/")[-2:])
            dumps[current] = []
            continue
        dumps[current].append(line)
    return dumps


OUR_TIMESTAMPS = re.compile(r"\b1\d{12}\b")


def _normalised(topic, line):
    """A transactional partition's producer id and the broker's own times (its markers') become placeholders."""
    if topic != "txn":
        return line
    line = re.sub(r"producerId: \d+", "producerId: <pid>", line)
    line = re.sub(r"producerId=\d+", "producerId=<pid>", line)
    line = re.sub(r"crc: \d+", "crc: <covers the producer id>", line)
    return OUR_TIMESTAMPS.sub(
        lambda match: match.group(0) if BASE_TIMESTAMP <= int(match.group(0)) < BASE_TIMESTAMP + 100_000 else "<time>",
        line,
    )


def test_the_files_match_kafkas_after_the_same_produce_sequence(pair):
    kafka, ours = pair
    for cluster in (kafka, ours):
        _produce(cluster)
    for cluster in (kafka, ours):
        wait_for(lambda: _cleaned(cluster), 60, message="the cleaner to clean the compacted topic")
    # After a clean shutdown the files are final: indexes trimmed, snapshots written, checkpoints at the log ends.
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda cluster: cluster.stop(), (kafka, ours)))
    tally = Tally("comparisons (lines of dumps, files' bytes, checkpoints)")
    files = {"checkpoint": 0, "dumped": 0, "bytes": 0}
    for name in CHECKPOINTS + ("cleaner-offset-checkpoint",):
        tally.compare(name, _checkpoint_entries(kafka, name), _checkpoint_entries(ours, name))
        files["checkpoint"] += 1
    kafka_files, our_files = _files(kafka), _files(ours)
    dumpable = (".log", ".index", ".timeindex", ".txnindex", ".snapshot")
    dumps = [
        _dump([path for topic in files.values() for name, path in topic.items() if name.endswith(dumpable)])
        for files in (kafka_files, our_files)
    ]
    for topic in FILE_TOPICS:
        kafka_names, our_names = set(kafka_files[topic]), set(our_files[topic])
        tally.compare(
            topic + " file names (only on one side)", sorted(kafka_names - our_names), sorted(our_names - kafka_names)
        )
        for name in sorted(set(kafka_files[topic]) & set(our_files[topic])):
            kafka_path, our_path = kafka_files[topic][name], our_files[topic][name]
            if name == "leader-epoch-checkpoint":
                tally.compare("%s/%s" % (topic, name), kafka_path.read_text(), our_path.read_text())
                files["checkpoint"] += 1
                continue
            if name.endswith(dumpable):
                files["dumped"] += 1
                kafka_lines = [
                    _normalised(topic, line) for line in dumps[0].get("%s-0/%s" % (topic, name), ["<not dumped>"])
                ]
                our_lines = [
                    _normalised(topic, line) for line in dumps[1].get("%s-0/%s" % (topic, name), ["<not dumped>"])
                ]
                for index in range(max(len(kafka_lines), len(our_lines))):
                    difference = tally.compare(
                        "%s/%s dump line %d" % (topic, name, index),
                        kafka_lines[index] if index < len(kafka_lines) else None,
                        our_lines[index] if index < len(our_lines) else None,
                    )
                    if difference:
                        break  # the first differing line of a file says enough
            if topic in BYTE_COMPARABLE and not name.endswith(".snapshot"):
                kafka_bytes, our_bytes = kafka_path.read_bytes(), our_path.read_bytes()
                files["bytes"] += 1
                tally.compare(
                    "%s/%s bytes" % (topic, name),
                    (len(kafka_bytes), kafka_bytes == our_bytes),
                    (len(our_bytes), True),
                )
    print(
        "\nfiles compared: %d checkpoint files, %d files through DumpLogSegments, %d of them byte for byte"
        % (files["checkpoint"], files["dumped"], files["bytes"])
    )
    print(tally.report())
    assert files["dumped"] > 20 and files["bytes"] > 10
    assert not tally.differences, tally.report()
