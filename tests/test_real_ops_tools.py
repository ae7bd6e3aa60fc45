"""Operator tools of Kafka 2.5 run as scripts against one real 3-broker cluster: kafka-leader-election,
kafka-preferred-replica-election, kafka-broker-api-versions, GetOffsetShell / kafka-get-offsets, kafka-run-class."""

import json
import re
import subprocess
import time
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from kafka_zk.protocol.api_keys import API_SPECS
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import metadata, request

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"


def tool(name, *args, stdin=None, timeout=90):
    return subprocess.run(
        [str(SCRIPTS / name), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


cluster = module_cluster(overrides={"auto.leader.rebalance.enable": "false"})


def partition_state(bootstrap, topic):
    """{partition: (leader, sorted isr)} from a broker's metadata."""
    topics = metadata(bootstrap, [topic])["topics"]
    return {
        p["partition_index"]: (p["leader_id"], sorted(p["isr_nodes"]))
        for t in topics
        if t["error_code"] == 0
        for p in t["partitions"]
    }


def create_topic(cluster, name, assignment):
    bootstrap = cluster.brokers[0].bootstrap
    created = tool(
        "kafka-topics.sh",
        "--bootstrap-server",
        bootstrap,
        "--create",
        "--topic",
        name,
        "--replica-assignment",
        assignment,
    )
    assert created.returncode == 0, created.stderr
    replicas = len(assignment.split(",")[0].split(":"))
    wait_for(
        lambda: (lambda s: s and all(leader >= 0 and len(isr) == replicas for leader, isr in s.values()))(
            partition_state(bootstrap, name)
        ),
        timeout=60,
        message="%s fully in sync" % name,
    )


def bounce(cluster, broker_id, topic, partition):
    """Restart a broker so that it no longer leads ``partition`` (whose preferred leader it is)."""
    bootstrap = next(b.bootstrap for b in cluster.brokers if b.broker_id != broker_id)
    broker = cluster.broker(broker_id)
    broker.stop()
    wait_for(
        lambda: partition_state(bootstrap, topic).get(partition, (-1,))[0] not in (-1, broker_id),
        timeout=60,
        message="leader moved off %d" % broker_id,
    )
    broker.start()
    wait_for(
        lambda: broker_id in partition_state(bootstrap, topic)[partition][1],
        timeout=60,
        message="%d back in the ISR" % broker_id,
    )
    assert partition_state(bootstrap, topic)[partition][0] != broker_id


def cluster_zk_get(cluster, path):
    zk = KazooClient(hosts=cluster.zk_connect)
    zk.start(timeout=30)
    try:
        return zk.get(path)[0].decode()
    finally:
        zk.stop()
        zk.close()


def write_json(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


@pytest.mark.timeout(300)
def test_leader_election_moves_leadership_back_to_the_preferred_replica(cluster, tmp_path):
    bootstrap = cluster.brokers[0].bootstrap
    create_topic(cluster, "elect", "1:2:0,2:0:1")
    bounce(cluster, 1, "elect", 0)

    elected = tool(
        "kafka-leader-election.sh",
        "--bootstrap-server",
        bootstrap,
        "--election-type",
        "preferred",
        "--topic",
        "elect",
        "--partition",
        0,
    )
    assert elected.returncode == 0, elected.stderr
    assert elected.stdout.splitlines() == ["Successfully completed leader election (PREFERRED) for partitions elect-0"]
    assert partition_state(bootstrap, "elect")[0][0] == 1

    listed = write_json(
        tmp_path, "both.json", {"partitions": [{"topic": "elect", "partition": 1}, {"topic": "elect", "partition": 0}]}
    )
    again = tool(
        "kafka-leader-election.sh",
        "--bootstrap-server",
        bootstrap,
        "--election-type",
        "PREFERRED",
        "--path-to-json-file",
        listed,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == ["Valid replica already elected for partitions elect-0, elect-1"]

    unclean = tool(
        "kafka-leader-election.sh",
        "--bootstrap-server",
        bootstrap,
        "--election-type",
        "unclean",
        "--topic",
        "elect",
        "--partition",
        1,
    )
    assert unclean.returncode == 0, unclean.stderr
    assert unclean.stdout.splitlines() == ["Valid replica already elected for partitions elect-1"]

    missing = tool(
        "kafka-leader-election.sh",
        "--bootstrap-server",
        bootstrap,
        "--election-type",
        "preferred",
        "--topic",
        "elect",
        "--partition",
        9,
    )
    assert missing.returncode == 1
    assert missing.stdout.splitlines() == [
        "Error completing leader election (PREFERRED) for partition: elect-9: "
        "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: The partition does not exist."
    ]
    assert missing.stderr.splitlines() == [
        'Exception in thread "main" kafka.common.AdminCommandFailedException: 1 replica(s) could not be elected'
    ]

    # A broker that is not the controller answers NOT_CONTROLLER per partition with no top-level error (2.5).
    controller_id = json.loads(cluster_zk_get(cluster, "/controller"))["brokerid"]
    other = next(b for b in cluster.brokers if b.broker_id != controller_id)
    answer = request(
        other.bootstrap,
        43,
        1,
        {"election_type": 0, "timeout_ms": 30000, "topic_partitions": [{"topic": "elect", "partition_id": [0]}]},
    )
    assert answer["error_code"] == 0
    assert [
        (p["partition_id"], p["error_code"]) for p in answer["replica_election_results"][0]["partition_result"]
    ] == [(0, 41)]

    everything = tool(
        "kafka-leader-election.sh",
        "--bootstrap-server",
        bootstrap,
        "--election-type",
        "preferred",
        "--all-topic-partitions",
    )
    assert everything.returncode == 0, everything.stderr
    # An election of all partitions is answered with the partitions elected or failed alone, as Kafka 2.5 does.
    assert everything.stdout == ""


@pytest.mark.timeout(120)
def test_leader_election_bad_input(cluster, tmp_path):
    bootstrap = cluster.brokers[0].bootstrap
    base = ["--bootstrap-server", bootstrap]
    cases = [
        (
            base + ["--election-type", "sideways", "--all-topic-partitions"],
            'Exception in thread "main" joptsimple.OptionArgumentConversionException: '
            "Cannot parse argument 'sideways' of option election-type",
        ),
        (base + ["--all-topic-partitions"], "Missing required option(s): election-type"),
        (["--election-type", "preferred", "--all-topic-partitions"], "Missing required option(s): bootstrap-server"),
        (base + ["--election-type", "preferred", "--topic", "elect"], "Missing required option(s): partition"),
        (
            base + ["--election-type", "preferred"],
            "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file",
        ),
        (
            base + ["--election-type", "preferred", "--path-to-json-file", write_json(tmp_path, "bad.json", "{oops")],
            'Exception in thread "main" kafka.admin.AdminOperationException: Replica election data is empty',
        ),
        (
            base + ["--election-type", "preferred", "--path-to-json-file", tmp_path / "absent.json"],
            'Exception in thread "main" java.nio.file.NoSuchFileException: %s' % (tmp_path / "absent.json"),
        ),
    ]
    for argv, first_line in cases:
        result = tool("kafka-leader-election.sh", *argv)
        assert result.returncode == 1, argv
        assert result.stdout == ""
        assert result.stderr.splitlines()[0] == first_line
        assert "Traceback" not in result.stderr


@pytest.mark.timeout(300)
def test_preferred_replica_election_by_zookeeper_and_by_brokers(cluster, tmp_path):
    bootstrap = cluster.brokers[0].bootstrap
    create_topic(cluster, "prefer", "2:0:1")
    bounce(cluster, 2, "prefer", 0)
    listed = write_json(
        tmp_path, "p.json", {"partitions": [{"topic": "prefer", "partition": 0}, {"topic": "prefer", "partition": 5}]}
    )
    by_zk = tool(
        "kafka-preferred-replica-election.sh", "--zookeeper", cluster.zk_connect, "--path-to-json-file", listed
    )
    assert by_zk.returncode == 0, by_zk.stderr
    assert by_zk.stdout.splitlines() == [
        "This tool is deprecated. Please use kafka-leader-election tool. Tracking issue: KAFKA-8405",
        "Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.",
        "Use --bootstrap-server instead to specify a broker to connect to.",
        "Created preferred replica election path with prefer-0",
        "Successfully started preferred replica election for partitions Set(prefer-0)",
        "Skipping preferred replica leader election for partition prefer-5 since it doesn't exist.",
    ]
    wait_for(lambda: partition_state(bootstrap, "prefer")[0][0] == 2, timeout=60, message="2 leads prefer-0")

    bounce(cluster, 2, "prefer", 0)
    one = write_json(tmp_path, "one.json", {"partitions": [{"topic": "prefer", "partition": 0}]})
    by_brokers = tool(
        "kafka-preferred-replica-election.sh", "--bootstrap-server", bootstrap, "--path-to-json-file", one
    )
    assert by_brokers.returncode == 0, by_brokers.stderr
    assert by_brokers.stdout.splitlines() == [
        "This tool is deprecated. Please use kafka-leader-election tool. Tracking issue: KAFKA-8405",
        "Successfully completed preferred replica election for partitions prefer-0",
    ]
    assert partition_state(bootstrap, "prefer")[0][0] == 2

    both = tool(
        "kafka-preferred-replica-election.sh", "--bootstrap-server", bootstrap, "--zookeeper", cluster.zk_connect
    )
    assert both.returncode == 1
    assert both.stderr.splitlines()[0] == "Exactly one of '[bootstrap-server]' or '[zookeeper]' must be provided"
    duplicate = write_json(tmp_path, "dup.json", {"partitions": [{"topic": "prefer", "partition": 0}] * 2})
    dup = tool("kafka-preferred-replica-election.sh", "--bootstrap-server", bootstrap, "--path-to-json-file", duplicate)
    assert dup.returncode == 1
    assert dup.stderr.splitlines() == [
        'Exception in thread "main" kafka.admin.AdminOperationException: '
        "Preferred replica election data contains duplicate partitions: prefer-0"
    ]


@pytest.mark.timeout(120)
def test_broker_api_versions_prints_one_block_per_broker(cluster):
    result = tool("kafka-broker-api-versions.sh", "--bootstrap-server", cluster.brokers[0].bootstrap)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    blocks = [index for index, line in enumerate(lines) if line.endswith(" -> (")]
    assert len(blocks) == 3
    per_block = len(API_SPECS) + 2
    assert len(lines) == 3 * per_block
    for number, broker in enumerate(sorted(cluster.brokers, key=lambda b: b.broker_id)):
        block = lines[number * per_block : (number + 1) * per_block]
        assert block[0] == "%s (id: %d rack: null) -> (" % (broker.bootstrap, broker.broker_id)
        assert block[-1] == ")"
        entries = block[1:-1]
        assert entries[0] == "\tProduce(0): 0 to %d [usable: %d]," % (
            API_SPECS[0].max_version,
            API_SPECS[0].max_version,
        )
        assert all(entry.endswith(",") for entry in entries[:-1]) and not entries[-1].endswith(",")
        served = {
            entry["api_key"]: (entry["min_version"], entry["max_version"])
            for entry in request(broker.bootstrap, 18, 0, {})["api_keys"]
        }
        for key, entry in zip(sorted(API_SPECS), entries):
            spec = API_SPECS[key]
            if key not in served:
                assert entry.rstrip(",") == "\t%s(%d): UNSUPPORTED" % (spec.name, key)
                continue
            low, high = served[key]
            versions = "%d" % low if low == high else "%d to %d" % (low, high)
            assert entry.rstrip(",") == "\t%s(%d): %s [usable: %d]" % (
                spec.name,
                key,
                versions,
                min(high, spec.max_version),
            )

    missing = tool("kafka-broker-api-versions.sh")
    assert missing.returncode == 1
    assert "Traceback" not in missing.stderr


@pytest.mark.timeout(180)
def test_get_offset_shell_prints_topic_partition_offset_lines(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    create_topic(cluster, "offs", "0:1,1:2")
    before = int(time.time() * 1000) - 1000
    # acks=all: the latest offset GetOffsetShell prints is the high watermark, which acks=1 may leave behind.
    produced = tool(
        "kafka-console-producer.sh",
        "--broker-list",
        bootstrap,
        "--topic",
        "offs",
        "--request-required-acks",
        "all",
        "--property",
        "parse.key=true",
        stdin="a\tone\nb\ttwo\nc\tthree\n",
    )
    assert produced.returncode == 0, produced.stderr
    brokers = ",".join(b.bootstrap for b in cluster.brokers)

    def offsets(*args, script="kafka-get-offsets.sh", prefix=()):
        result = tool(script, *prefix, "--broker-list", brokers, "--topic", "offs", *args)
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()

    latest = offsets()
    assert [line.rsplit(":", 1)[0] for line in latest] == ["offs:0", "offs:1"]
    assert sum(int(line.rsplit(":", 1)[1]) for line in latest) == 3
    assert offsets("--time", -2) == ["offs:0:0", "offs:1:0"]
    assert offsets(
        "--time",
        -1,
        "--partitions",
        "1",
        "--offsets",
        5,
        "--max-wait-ms",
        100,
        script="kafka-run-class.sh",
        prefix=["kafka.tools.GetOffsetShell"],
    ) == [latest[1]]
    searched = offsets("--time", before)
    assert [line for line in searched if not line.endswith(":")] == [
        "offs:%d:0" % p for p in (0, 1) if int(latest[p].rsplit(":", 1)[1]) > 0
    ]
    assert offsets("--time", before + 10**9) == ["offs:0:", "offs:1:"]

    def fails(*args):
        result = tool("kafka-get-offsets.sh", *args)
        assert result.returncode == 1, args
        assert "Traceback" not in result.stderr
        return result.stderr.splitlines()

    assert fails("--broker-list", brokers, "--topic", "nope") == ["Topic nope does not exist"]
    assert fails("--broker-list", brokers, "--topic", "offs", "--partitions", "7") == [
        "Topic offs does not have any of the requested partitions 7"
    ]
    assert fails("--broker-list", brokers, "--topic", "offs", "--partitions", "0,x") == [
        "--partitions expects a comma separated list of numeric partition ids, but received: 0,x"
    ]
    assert fails("--broker-list", brokers)[0] == 'Missing required argument "[topic]"'
    assert (
        fails("--broker-list", "localhost", "--topic", "offs")[0]
        == "Please provide valid host:port like host1:9091,host2:9092"
    )
    partly = tool(
        "kafka-get-offsets.sh", "--broker-list", brokers, "--topic", "offs", "--partitions", "0,4", "--time", -2
    )
    assert partly.returncode == 0 and partly.stdout.splitlines() == ["offs:0:0"]
    assert partly.stderr.splitlines() == ["Error: partition 4 does not exist"]

    unknown = tool("kafka-run-class.sh", "kafka.tools.NoSuchTool")
    assert unknown.returncode == 1
    assert unknown.stderr.splitlines() == ["Error: Could not find or load main class kafka.tools.NoSuchTool"]
    assert re.match(r"usage: ", tool("kafka-run-class.sh", "kafka.tools.GetOffsetShell").stderr)
