"""DeleteRecords on three real brokers with two log dirs each: kafka-delete-records, followers, disk, consumers."""

import json
import subprocess
import uuid
from pathlib import Path

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import create_led_topic, create_topic, fetch_records, partition_leaders, produce, request

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
TWO_DIRS = {
    "log.dirs": "{folder}/logs-a,{folder}/logs-b",
    "log.segment.delete.delay.ms": "0",
    "log.flush.start.offset.checkpoint.interval.ms": "300",
}


def tool(name, *args, timeout=90):
    return subprocess.run(
        [str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


cluster = module_cluster(overrides=TWO_DIRS)


def replica_dir(broker, topic, partition):
    """The one partition dir of this replica, in whichever of the broker's log dirs holds it."""
    found = [
        d / ("%s-%d" % (topic, partition)) for d in broker.log_dirs if (d / ("%s-%d" % (topic, partition))).is_dir()
    ]
    assert len(found) <= 1, found
    return found[0] if found else None


def segment_bases(path):
    return sorted(int(p.name[:-4]) for p in path.glob("*.log"))


def earliest_on(broker, topic, partition):
    """ListOffsets earliest on this broker's own replica (a replica id reads followers too)."""
    response = request(
        broker.bootstrap,
        2,
        1,
        {
            "replica_id": 1000,
            "topics": [{"name": topic, "partitions": [{"partition_index": partition, "timestamp": -2}]}],
        },
    )
    answer = response["topics"][0]["partitions"][0]
    return answer["offset"] if answer["error_code"] == Errors.NONE else None


def write_json(tmp_path, document):
    path = tmp_path / ("offsets-%s.json" % uuid.uuid4().hex[:6])
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def _agreed_leaders(cluster, topic):
    views = [partition_leaders(broker.bootstrap, topic) for broker in cluster.brokers]
    return views[0] if views[0] and all(view == views[0] for view in views) else None


@pytest.mark.timeout(240)
def test_delete_records_moves_every_replica_and_consumers_start_there(cluster, tmp_path):
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    bootstrap = cluster.brokers[0].bootstrap
    topic = "purge"
    assert (
        create_topic(
            bootstrap,
            topic,
            partitions=2,
            replication_factor=3,
            configs={"segment.bytes": "1200", "min.insync.replicas": "2"},
        )
        == Errors.NONE
    )
    # Every broker's metadata, the leaders' own included: a leader applies its LeaderAndIsr before the
    # UpdateMetadata that follows it, so it then takes produces (the first broker's view alone can run ahead).
    leaders = wait_for(lambda: _agreed_leaders(cluster, topic), message="leaders known to every broker")
    for partition in (0, 1):
        leader = cluster.broker(leaders[partition])
        for batch in range(8):  # 8 batches of 7 records: offset 20 is in the middle of a batch
            records = encode_batch(
                [(None, b"p%d-%03d" % (partition, batch * 7 + i) + b"." * 40, (), None) for i in range(7)]
            )
            assert produce(leader.bootstrap, topic, partition, records, acks=-1)[0] == Errors.NONE
    assert len(segment_bases(replica_dir(cluster.broker(leaders[0]), topic, 0))) > 3
    offsets = write_json(
        tmp_path,
        {
            "partitions": [
                {"topic": topic, "partition": 0, "offset": 20},
                {"topic": topic, "partition": 1, "offset": -1},
            ],
            "version": 1,
        },
    )
    done = tool("kafka-delete-records.sh", "--bootstrap-server", bootstrap, "--offset-json-file", offsets)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["Executing records delete operation", "Records delete operation completed:"]
    assert sorted(lines[2:]) == ["partition: purge-0\tlow_watermark: 20", "partition: purge-1\tlow_watermark: 56"]

    # The low watermark is the minimum over all replicas: every replica has moved its log start offset.
    for broker in cluster.brokers:
        assert earliest_on(broker, topic, 0) == 20 and earliest_on(broker, topic, 1) == 56
        path = replica_dir(broker, topic, 0)
        bases = segment_bases(path)
        assert bases[0] <= 20 and (len(bases) == 1 or bases[1] > 20), (broker.broker_id, bases)
        assert not list(path.glob("*.deleted"))
        assert segment_bases(replica_dir(broker, topic, 1))[-1] <= 56
        checkpoint = path.parent / "log-start-offset-checkpoint"
        wait_for(
            lambda: checkpoint.exists() and "purge 0 20" in checkpoint.read_text().splitlines(),
            message="log start offset checkpoint of broker %d" % broker.broker_id,
        )
        lines = checkpoint.read_text().splitlines()
        assert lines[0] == "0" and int(lines[1]) == len(lines) - 2

    leader0 = cluster.broker(leaders[0])
    assert fetch_records(leader0.bootstrap, topic, 0, offset=19)[0] == Errors.OFFSET_OUT_OF_RANGE
    error, _, records = fetch_records(leader0.bootstrap, topic, 0, offset=20)
    assert error == Errors.NONE and records[0].offset == 20

    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": "unused-manual-assign",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
        }
    )
    consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING) for partition in (0, 1)])
    seen = []
    try:
        wait_for(lambda: _poll_into(consumer, seen) and len(seen) >= 36, timeout=90, message="36 records")
        _poll_into(consumer, seen, timeout=1.0)
    finally:
        consumer.close()
    assert sorted((p, o) for p, o, _ in seen) == [(0, offset) for offset in range(20, 56)]
    assert seen[0][2].startswith(b"p0-020")


def _poll_into(consumer, seen, timeout=0.5):
    message = consumer.poll(timeout)
    if message is not None and message.error() is None:
        seen.append((message.partition(), message.offset(), message.value()))
    return True


@pytest.mark.timeout(180)
def test_bad_input_answers_as_kafka(cluster, tmp_path):
    bootstrap = cluster.brokers[1].bootstrap
    topic = "keep"
    leaders = create_led_topic(bootstrap, topic, partitions=1, replication_factor=3)
    leader = cluster.broker(leaders[0])
    # another broker's metadata can name the leader before the leader has applied its LeaderAndIsr; its own
    # metadata names it only after (a broker applies the controller's requests in the order they arrive)
    wait_for(lambda: partition_leaders(leader.bootstrap, topic) == leaders, message="the leader knows it leads")
    assert produce(leader.bootstrap, topic, 0, encode_batch([(None, b"a"), (None, b"b")]), acks=-1)[0] == 0

    malformed = tool(
        "kafka-delete-records.sh",
        "--bootstrap-server",
        bootstrap,
        "--offset-json-file",
        write_json(tmp_path, '{"partitions": [{"topic": '),
    )
    assert malformed.returncode == 1 and malformed.stdout == ""
    assert malformed.stderr.strip() == (
        'Exception in thread "main" kafka.admin.AdminOperationException: The input string is not a valid JSON'
    )

    unknown_and_beyond = tool(
        "kafka-delete-records.sh",
        "--bootstrap-server",
        bootstrap,
        "--offset-json-file",
        write_json(
            tmp_path,
            {
                "partitions": [
                    {"topic": "nosuch", "partition": 0, "offset": 1},
                    {"topic": topic, "partition": 0, "offset": 3},
                ],
                "version": 1,
            },
        ),
    )
    assert unknown_and_beyond.returncode == 0, unknown_and_beyond.stderr
    assert sorted(unknown_and_beyond.stdout.splitlines()[2:]) == [
        "partition: keep-0\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset "
        "is not within the range of offsets maintained by the server.",
        "partition: nosuch-0\terror: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server "
        "does not host this topic-partition.",
    ]
    assert earliest_on(leader, topic, 0) == 0

    duplicate = tool(
        "kafka-delete-records.sh",
        "--bootstrap-server",
        bootstrap,
        "--offset-json-file",
        write_json(tmp_path, {"partitions": [{"topic": topic, "partition": 0, "offset": 1}] * 2}),
    )
    assert duplicate.returncode == 1
    assert duplicate.stderr.strip() == (
        'Exception in thread "main" kafka.common.AdminCommandFailedException: '
        "Offset json file contains duplicate topic partitions: keep-0"
    )
    missing = tool("kafka-delete-records.sh", "--bootstrap-server", bootstrap)
    assert missing.returncode == 1 and 'Missing required argument "[offset-json-file]"' in missing.stderr
    assert "Traceback" not in missing.stderr + duplicate.stderr + malformed.stderr


@pytest.mark.timeout(120)
def test_kafka_log_dirs_describes_both_dirs_of_each_broker(cluster):
    bootstrap = cluster.brokers[2].bootstrap
    topic = "sized"
    assert create_topic(bootstrap, topic, partitions=2, replication_factor=3) == Errors.NONE
    leaders = wait_for(lambda: _agreed_leaders(cluster, topic), message="leaders known to every broker")
    for partition in (0, 1):
        batch = encode_batch([(None, b"x" * 100) for _ in range(5)])
        assert produce(cluster.broker(leaders[partition]).bootstrap, topic, partition, batch, acks=-1)[0] == 0
    described = tool("kafka-log-dirs.sh", "--describe", "--bootstrap-server", bootstrap, "--topic-list", topic)
    assert described.returncode == 0, described.stderr
    lines = described.stdout.splitlines()
    assert lines[:2] == [
        "Querying brokers for log directories information",
        "Received log directory information from brokers 0,1,2",
    ]
    assert len(lines) == 3 and ": " not in lines[2] and ", " not in lines[2]  # Jackson's compact JSON
    document = json.loads(lines[2])
    assert document["version"] == 1 and [b["broker"] for b in document["brokers"]] == [0, 1, 2]
    for entry in document["brokers"]:
        broker = cluster.broker(entry["broker"])
        assert sorted(d["logDir"] for d in entry["logDirs"]) == sorted(str(d) for d in broker.log_dirs)
        partitions = {}
        for log_dir in entry["logDirs"]:
            assert list(log_dir) == ["logDir", "error", "partitions"] and log_dir["error"] is None
            for replica in log_dir["partitions"]:
                assert list(replica) == ["partition", "size", "offsetLag", "isFuture"]
                path = Path(log_dir["logDir"]) / replica["partition"]
                assert path.is_dir()
                assert replica["size"] == sum(p.stat().st_size for p in path.glob("*.log")) > 0
                assert replica["offsetLag"] == 0 and replica["isFuture"] is False
                partitions[replica["partition"]] = log_dir["logDir"]
        assert sorted(partitions) == ["sized-0", "sized-1"]
        assert len(set(partitions.values())) == 2  # new partitions go to the dir with the fewest partitions
    one = tool(
        "kafka-log-dirs.sh",
        "--describe",
        "--bootstrap-server",
        bootstrap,
        "--broker-list",
        "1",
        "--topic-list",
        "nosuch",
    )
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines()[1] == "Received log directory information from brokers 1"
    only = json.loads(one.stdout.splitlines()[2])
    assert [b["broker"] for b in only["brokers"]] == [1]
    assert all(d["partitions"] == [] for d in only["brokers"][0]["logDirs"])
    no_describe = tool("kafka-log-dirs.sh", "--bootstrap-server", bootstrap)
    assert no_describe.returncode == 1 and 'Missing required argument "[describe]"' in no_describe.stderr
