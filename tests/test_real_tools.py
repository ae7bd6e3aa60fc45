"""Kafka's command-line tools, run as an operator runs them, against a real cluster."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.cluster_support import wait_for
from tests.raw_wire import partition_leaders

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"


def tool(name, *args, stdin=None, timeout=60):
    return subprocess.run(
        [str(SCRIPTS / name), *map(str, args)], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def describe_lines(output):
    return [line for line in output.splitlines() if line.strip()]


@pytest.mark.timeout(180)
def test_kafka_topics_with_bootstrap_server_and_zookeeper(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    created = tool(
        "kafka-topics.sh",
        "--bootstrap-server",
        bootstrap,
        "--create",
        "--topic",
        "ops",
        "--partitions",
        3,
        "--replication-factor",
        2,
        "--config",
        "retention.ms=100000",
    )
    assert created.returncode == 0, created.stderr
    assert created.stdout.strip() == "Created topic ops."
    wait_for(lambda: len(partition_leaders(bootstrap, "ops")) == 3, message="leaders of ops")

    listed = tool("kafka-topics.sh", "--bootstrap-server", bootstrap, "--list")
    assert "ops" in listed.stdout.split()

    for connect in (["--bootstrap-server", bootstrap], ["--zookeeper", cluster.zk_connect]):
        described = tool("kafka-topics.sh", *connect, "--describe", "--topic", "ops")
        assert described.returncode == 0, described.stderr
        lines = describe_lines(described.stdout)
        assert lines[0] == "Topic: ops\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention.ms=100000"
        assert len(lines) == 4
        for index, line in enumerate(lines[1:]):
            fields = dict(part.split(": ", 1) for part in line.strip().split("\t"))
            assert fields["Topic"] == "ops" and fields["Partition"] == str(index)
            replicas = fields["Replicas"].split(",")
            assert len(replicas) == 2 and fields["Leader"] in replicas
            assert sorted(fields["Isr"].split(",")) == sorted(replicas)

    again = tool("kafka-topics.sh", "--bootstrap-server", bootstrap, "--create", "--topic", "ops", "--partitions", 1)
    assert again.returncode == 1
    assert "Error while executing topic command : Topic ops already exists" in again.stdout + again.stderr

    pinned = tool(
        "kafka-topics.sh",
        "--zookeeper",
        cluster.zk_connect,
        "--create",
        "--topic",
        "pinned",
        "--replica-assignment",
        "1:2,2:0",
    )
    assert pinned.stdout.strip() == "Created topic pinned.", pinned.stderr
    wait_for(lambda: partition_leaders(bootstrap, "pinned") == {0: 1, 1: 2}, message="pinned leaders")

    shell = subprocess.run(
        [str(SCRIPTS / "zookeeper-shell.sh"), cluster.zk_connect, "get", "/brokers/topics/pinned"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    znode = json.loads([line for line in shell.stdout.splitlines() if line.startswith("{")][0])
    assert znode == {
        "version": 2,
        "partitions": {"0": [1, 2], "1": [2, 0]},
        "adding_replicas": {},
        "removing_replicas": {},
    }

    deleted = tool("kafka-topics.sh", "--zookeeper", cluster.zk_connect, "--delete", "--topic", "pinned")
    assert deleted.stdout.splitlines()[0] == "Topic pinned is marked for deletion."


@pytest.mark.timeout(120)
def test_console_producer_and_consumer_round_trip_lines(cluster):
    bootstrap = cluster.bootstrap_servers
    lines = ["key%d:value %d" % (i % 3, i) for i in range(50)]
    produced = tool(
        "kafka-console-producer.sh",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        "console",
        "--property",
        "parse.key=true",
        "--property",
        "key.separator=:",
        stdin="\n".join(lines) + "\n",
    )
    assert produced.returncode == 0, produced.stderr
    consumed = tool(
        "kafka-console-consumer.sh",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        "console",
        "--from-beginning",
        "--max-messages",
        50,
        "--property",
        "print.key=true",
        "--timeout-ms",
        20000,
    )
    assert consumed.returncode == 0, consumed.stderr
    got = consumed.stdout.splitlines()
    assert sorted(got) == sorted(line.replace(":", "\t", 1) for line in lines)
    assert "Processed a total of 50 messages" in consumed.stderr
    for key in ("key0", "key1", "key2"):  # one partition per key keeps order per key
        assert [line for line in got if line.startswith(key + "\t")] == [
            line.replace(":", "\t", 1) for line in lines if line.startswith(key + ":")
        ]

    one = tool(
        "kafka-console-consumer.sh",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        "console",
        "--partition",
        0,
        "--offset",
        "earliest",
        "--max-messages",
        1,
        "--timeout-ms",
        20000,
    )
    assert one.returncode == 0 and len(one.stdout.splitlines()) == 1


@pytest.mark.timeout(120)
def test_dump_log_reads_a_brokers_segment(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    assert (
        tool(
            "kafka-topics.sh",
            "--bootstrap-server",
            bootstrap,
            "--create",
            "--topic",
            "dump",
            "--replica-assignment",
            "0",
        ).returncode
        == 0
    )
    wait_for(lambda: partition_leaders(bootstrap, "dump") == {0: 0}, message="dump leader")
    produced = tool(
        "kafka-console-producer.sh", "--bootstrap-server", bootstrap, "--topic", "dump", stdin="alpha\nbeta\n"
    )
    assert produced.returncode == 0, produced.stderr
    segment = cluster.brokers[0].log_dir / "dump-0" / "00000000000000000000.log"
    wait_for(lambda: segment.exists() and segment.stat().st_size > 0, message="segment data")
    dumped = tool("kafka-dump-log.sh", "--files", segment, "--print-data-log")
    assert dumped.returncode == 0, dumped.stderr
    assert dumped.stdout.startswith("Dumping %s" % segment)
    assert "baseOffset: 0" in dumped.stdout
    assert "payload: alpha" in dumped.stdout and "payload: beta" in dumped.stdout


@pytest.mark.timeout(120)
def test_kafka_topics_alter_adds_partitions_in_both_modes(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    assert (
        tool(
            "kafka-topics.sh", "--bootstrap-server", bootstrap, "--create", "--topic", "grow", "--partitions", 1
        ).returncode
        == 0
    )
    wait_for(lambda: len(partition_leaders(bootstrap, "grow")) == 1, message="grow leader")
    altered = tool("kafka-topics.sh", "--bootstrap-server", bootstrap, "--alter", "--topic", "grow", "--partitions", 3)
    assert altered.returncode == 0, altered.stdout + altered.stderr
    wait_for(lambda: len(partition_leaders(bootstrap, "grow")) == 3, message="3 partitions with leaders")
    altered = tool(
        "kafka-topics.sh", "--zookeeper", cluster.zk_connect, "--alter", "--topic", "grow", "--partitions", 5
    )
    assert altered.returncode == 0, altered.stdout + altered.stderr
    wait_for(lambda: len(partition_leaders(bootstrap, "grow")) == 5, message="5 partitions with leaders")
    shrink = tool("kafka-topics.sh", "--bootstrap-server", bootstrap, "--alter", "--topic", "grow", "--partitions", 2)
    assert shrink.returncode == 1
    assert "Topic currently has 5 partitions, which is higher than the requested 2." in shrink.stdout + shrink.stderr


@pytest.mark.timeout(120)
def test_kafka_configs_alters_and_describes_topic_overrides(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    assert (
        tool(
            "kafka-topics.sh", "--bootstrap-server", bootstrap, "--create", "--topic", "configured", "--partitions", 1
        ).returncode
        == 0
    )
    wait_for(lambda: partition_leaders(bootstrap, "configured"), message="configured leader")
    altered = tool(
        "kafka-configs.sh",
        "--bootstrap-server",
        bootstrap,
        "--entity-type",
        "topics",
        "--entity-name",
        "configured",
        "--alter",
        "--add-config",
        "retention.ms=5000,cleanup.policy=[compact,delete]",
    )
    assert altered.returncode == 0, altered.stderr
    assert altered.stdout.strip() == "Completed updating config for topic configured."
    described = tool(
        "kafka-configs.sh",
        "--zookeeper",
        cluster.zk_connect,
        "--entity-type",
        "topics",
        "--entity-name",
        "configured",
        "--describe",
    )
    assert described.stdout.splitlines() == [
        "Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.",  # as Kafka 2.5.1's
        "Use --bootstrap-server instead to specify a broker to connect to.",
        "Configs for topic 'configured' are cleanup.policy=compact,delete,retention.ms=5000",
    ]
    removed = tool(
        "kafka-configs.sh",
        "--zookeeper",
        cluster.zk_connect,
        "--entity-type",
        "topics",
        "--entity-name",
        "configured",
        "--alter",
        "--delete-config",
        "cleanup.policy",
    )
    assert removed.stdout.splitlines()[-1] == "Completed updating config for entity: topic 'configured'."
    wait_for(
        lambda: (
            "  retention.ms=5000 sensitive=false"
            in tool(
                "kafka-configs.sh",
                "--bootstrap-server",
                bootstrap,
                "--entity-type",
                "topics",
                "--entity-name",
                "configured",
                "--describe",
            ).stdout
        ),
        message="the broker to describe the override",
    )
    described = tool(
        "kafka-configs.sh",
        "--bootstrap-server",
        bootstrap,
        "--entity-type",
        "topics",
        "--entity-name",
        "configured",
        "--describe",
    ).stdout
    assert described.splitlines()[0] == "Dynamic configs for topic configured are:"
    assert "cleanup.policy" not in described
    bad = tool(
        "kafka-configs.sh",
        "--bootstrap-server",
        bootstrap,
        "--entity-type",
        "topics",
        "--entity-name",
        "configured",
        "--alter",
        "--add-config",
        "cleanup.policy=shred",
    )
    assert bad.returncode == 1 and "cleanup.policy" in bad.stderr
