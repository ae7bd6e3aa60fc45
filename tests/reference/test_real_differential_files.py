"""The files of one-replica partitions on Apache Kafka 2.5.1 and on kafka-zk after the same produce sequence (plain,
gzip, snappy, lz4 and zstd batches with keys, headers and timestamps, segments rolled by segment.bytes, a compacted
topic the cleaner has cleaned, committed and aborted transactions): segments, indexes, transaction indexes, producer
snapshots and checkpoints, through Kafka's own DumpLogSegments on both and byte for byte where no broker-chosen value
(a producer id, a marker's time) is in them."""

import re
import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic

from tests.cluster_support import wait_for
from tests.reference.differential_support import Tally, cluster_pair, run_kafka_class

SETTINGS = {
    "offsets.topic.num.partitions": "3",
    "transaction.state.log.num.partitions": "3",
    "log.cleaner.backoff.ms": "500",
}
pair = cluster_pair(SETTINGS)

# Every partition on broker 0 alone.
TOPICS = {
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
        [NewTopic(name, 1, replica_assignment=[[0]], config=config) for name, config in TOPICS.items()]
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
    return lines[:1] + sorted(line for line in lines[2:] if line.split(" ")[0] in TOPICS)


def _files(cluster):
    """{topic: {file name: path}} of each partition's folder, leftover .deleted/.cleaned files included."""
    folders = {name: cluster.broker(0).log_dir / ("%s-0" % name) for name in TOPICS}
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
    for topic in TOPICS:
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
