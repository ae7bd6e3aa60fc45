"""kafka-producer-perf-test and kafka-consumer-perf-test against three real brokers: Kafka 2.5's lines and records."""

import datetime
import re
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka import Consumer as ConfluentConsumer
from confluent_kafka import TopicPartition

from kafka_zk.client.consumer import Consumer
from kafka_zk.tools.perf_support import JavaRandom
from tests.cluster_support import wait_for
from tests.raw_wire import partition_leaders

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"

NUMBER = r"(?:\d+\.\d+|NaN|Infinity)"
WINDOW_LINE = re.compile(
    r"^(\d+) records sent, (\d+\.\d) records/sec \((\d+\.\d{2}) MB/sec\), (%s) ms avg latency, "
    r"(\d+\.\d) ms max latency\.$" % NUMBER
)
TOTAL_LINE = re.compile(
    r"^(\d+) records sent, (\d+\.\d{6}) records/sec \((\d+\.\d{2}) MB/sec\), (\d+\.\d{2}) ms avg "
    r"latency, (\d+\.\d{2}) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, "
    r"(\d+) ms 99\.9th\.$"
)
HEADER = (
    "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
    "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
)
DETAILED_HEADER = (
    "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
    "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
)
TIME = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{3}"
FLOAT4 = r"-?(?:\d+\.\d{4}|NaN|Infinity)"
SUMMARY_LINE = re.compile(
    r"^(%s), (%s), (%s), (%s), (\d+), (%s), (\d+), (-?\d+), (%s), (%s)$"
    % (TIME, TIME, FLOAT4, FLOAT4, FLOAT4, FLOAT4, FLOAT4)
)
DETAILED_LINE = re.compile(
    r"^(%s), 0, (%s), (%s), (\d+), (%s), (\d+), (-?\d+), (%s), (%s)$" % (TIME, FLOAT4, FLOAT4, FLOAT4, FLOAT4, FLOAT4)
)
TIMEOUT_WARNING = (
    "WARNING: Exiting before consuming the expected number of messages: timeout (%d ms) exceeded. "
    "You can use the --timeout option to increase the timeout."
)


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S:%f")


def tool(name, *args, timeout=180):
    return subprocess.run(
        [str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def create_topic(cluster, name, partitions):
    bootstrap = cluster.brokers[0].bootstrap
    created = tool(
        "kafka-topics.sh",
        "--bootstrap-server",
        bootstrap,
        "--create",
        "--topic",
        name,
        "--partitions",
        partitions,
        "--replication-factor",
        3,
    )
    assert created.returncode == 0, created.stderr
    wait_for(lambda: len(partition_leaders(bootstrap, name)) == partitions, timeout=60, message="leaders of " + name)


def produce_perf(cluster, topic, *args):
    return tool(
        "kafka-producer-perf-test.sh",
        "--topic",
        topic,
        *args,
        "--producer-props",
        "bootstrap.servers=%s" % cluster.bootstrap_servers,
        "acks=1",
    )


def total_of(output):
    """The final line's fields; every line before it must be a 5-second window line."""
    lines = output.splitlines()
    assert lines, "no output"
    for line in lines[:-1]:
        assert WINDOW_LINE.match(line), line
    total = TOTAL_LINE.match(lines[-1])
    assert total, lines[-1]
    return total


def read_topic(cluster, topic, partitions, records):
    """The topic's ``records`` records, read back with our own client: {partition: [records in offset order]}.
    Producers here use acks=1, so the high watermarks reach ``records`` only once the followers have fetched."""
    consumer = Consumer(cluster.bootstrap_servers, auto_offset_reset="earliest")
    try:
        tps = [(topic, p) for p in range(partitions)]
        consumer.assign(tps)
        ends = wait_for(
            lambda: (lambda e: sum(e.values()) >= records and e)(consumer.end_offsets(tps)),
            timeout=60,
            message="high watermarks of %s at %d" % (topic, records),
        )
        got = {p: [] for p in range(partitions)}

        def drained():
            for record in consumer.poll(1000):
                got[record.partition].append(record)
            return all(len(got[p]) >= ends[(topic, p)] for p in range(partitions))

        wait_for(drained, timeout=60, message="all records of " + topic)
        return got
    finally:
        consumer.close()


@pytest.mark.timeout(400)
def test_producer_perf_unthrottled_records_and_consumer_perf_reads_them(cluster):
    create_topic(cluster, "perf", 3)
    produced = produce_perf(cluster, "perf", "--num-records", 20000, "--record-size", 100, "--throughput", -1)
    assert produced.returncode == 0, produced.stderr
    total = total_of(produced.stdout)
    assert int(total.group(1)) == 20000
    assert float(total.group(2)) > 0
    p50, p95, p99, p999 = (int(total.group(i)) for i in range(6, 10))
    assert p50 <= p95 <= p99 <= p999 <= float(total.group(5))

    # What Kafka 2.5's tool writes: 20000 records, null keys, one 100-letter payload drawn from Random(0).
    random = JavaRandom(0)
    expected = bytes(random.next_int(26) + 65 for _ in range(100))
    records = [r for part in read_topic(cluster, "perf", 3, 20000).values() for r in part]
    assert len(records) == 20000
    assert all(r.key is None and r.value == expected and not r.headers for r in records)
    assert set(expected) <= set(range(ord("A"), ord("Z") + 1))

    consumed = tool(
        "kafka-consumer-perf-test.sh",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--topic",
        "perf",
        "--messages",
        20000,
        "--timeout",
        60000,
    )
    assert consumed.returncode == 0, consumed.stderr
    lines = consumed.stdout.splitlines()
    assert lines[0] == HEADER
    assert len(lines) == 2, consumed.stdout
    summary = SUMMARY_LINE.match(lines[1])
    assert summary, lines[1]
    assert int(summary.group(5)) == 20000
    assert summary.group(3) == "%.4f" % (20000 * 100 / 1048576.0)
    elapsed_ms = (parse_time(summary.group(2)) - parse_time(summary.group(1))).total_seconds() * 1000
    rebalance_ms, fetch_ms = int(summary.group(7)), int(summary.group(8))
    assert rebalance_ms >= 0 and fetch_ms == round(elapsed_ms) - rebalance_ms

    hidden = tool(
        "kafka-consumer-perf-test.sh",
        "--broker-list",
        cluster.bootstrap_servers,
        "--topic",
        "perf",
        "--messages",
        20000,
        "--hide-header",
        "--group",
        "perf-readers",
        "--timeout",
        60000,
    )
    assert hidden.returncode == 0, hidden.stderr
    [line] = hidden.stdout.splitlines()
    assert int(SUMMARY_LINE.match(line).group(5)) == 20000

    detailed = tool(
        "kafka-consumer-perf-test.sh",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--topic",
        "perf",
        "--messages",
        20000,
        "--show-detailed-stats",
        "--reporting-interval",
        1,
        "--fetch-size",
        4096,
        "--timeout",
        60000,
    )
    assert detailed.returncode == 0, detailed.stderr
    lines = detailed.stdout.splitlines()
    assert lines[0] == DETAILED_HEADER
    progress = [DETAILED_LINE.match(line) for line in lines[1:]]
    assert progress and all(progress), detailed.stdout
    counts = [int(match.group(4)) for match in progress]
    assert counts == sorted(counts) and counts[-1] <= 20000


@pytest.mark.timeout(300)
def test_producer_perf_throttled_to_5000_records_per_second(cluster):
    create_topic(cluster, "throttled", 3)
    produced = produce_perf(cluster, "throttled", "--num-records", 20000, "--record-size", 100, "--throughput", 5000)
    assert produced.returncode == 0, produced.stderr
    total = total_of(produced.stdout)
    assert int(total.group(1)) == 20000
    assert 4000 <= float(total.group(2)) <= 6000, total.group(0)
    assert (
        total.group(3) == "%.2f" % (float(total.group(2)) * 100 / 1048576.0)
        or abs(float(total.group(3)) - float(total.group(2)) * 100 / 1048576.0) <= 0.01
    )


@pytest.mark.timeout(300)
def test_producer_perf_payload_file_and_delimiter(cluster, tmp_path):
    create_topic(cluster, "payloads", 1)
    payload_file = tmp_path / "payloads.txt"
    payload_file.write_text("alpha,beta,gamma,delta\n")
    produced = produce_perf(
        cluster,
        "payloads",
        "--num-records",
        300,
        "--payload-file",
        payload_file,
        "--payload-delimiter",
        ",",
        "--throughput",
        -1,
        "--print-metrics",
    )
    assert produced.returncode == 0, produced.stderr
    lines = produced.stdout.splitlines()
    assert lines[0] == "Reading payloads from: %s" % payload_file
    assert lines[1] == "Number of messages read: 4"
    end = lines.index("")  # --print-metrics: a blank line, then Kafka's metrics table
    assert int(total_of("\n".join(lines[2:end])).group(1)) == 300
    assert re.match(r"^Metric Name +Value$", lines[end + 1])
    metrics = dict(re.match(r"^(\S+) +: (\d+\.\d{3})$", line).groups() for line in lines[end + 2 :])
    assert metrics["producer-metrics:record-send-total:{client-id=producer-1}"] == "300.000"
    # Kafka's choice of payload per record: Random(0).nextInt(4), in send order (one partition keeps it).
    payloads = [b"alpha", b"beta", b"gamma", b"delta\n"]
    random = JavaRandom(0)
    expected = [payloads[random.next_int(4)] for _ in range(300)]
    got = read_topic(cluster, "payloads", 1, 300)[0]
    assert [r.value for r in got] == expected
    assert all(r.key is None for r in got)


@pytest.mark.timeout(300)
def test_perf_tools_bad_input(cluster, tmp_path):
    # The console entry points answer as the scripts do: no arguments is help (0) for the producer, usage (1) for
    # the consumer.
    entry_points = Path(sys.executable).parent
    helped = subprocess.run(
        [str(entry_points / "kafka-producer-perf-test")], capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0 and "--record-size" in helped.stdout
    usage = subprocess.run([str(entry_points / "kafka-consumer-perf-test")], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 1 and usage.stderr.startswith(
        "This tool helps in performance test for the full zookeeper consumer"
    )

    usage_error = tool("kafka-producer-perf-test.sh", "--num-records", 10, "--throughput", -1, "--record-size", 10)
    assert usage_error.returncode == 1
    assert usage_error.stderr.splitlines()[-1] == "producer-performance: error: argument --topic is required"

    both = tool(
        "kafka-producer-perf-test.sh",
        "--topic",
        "x",
        "--num-records",
        10,
        "--throughput",
        -1,
        "--record-size",
        10,
        "--payload-file",
        tmp_path / "p",
    )
    assert both.returncode == 1
    assert (
        both.stderr.splitlines()[-1]
        == "producer-performance: error: argument --payload-file: not allowed with argument --record-size"
    )

    neither = tool(
        "kafka-producer-perf-test.sh",
        "--topic",
        "x",
        "--num-records",
        10,
        "--throughput",
        -1,
        "--producer-props",
        "bootstrap.servers=%s" % cluster.bootstrap_servers,
    )
    assert neither.returncode == 1
    assert (
        neither.stderr.splitlines()[-1]
        == "producer-performance: error: one of the arguments --record-size --payload-file is required"
    )

    no_props = tool(
        "kafka-producer-perf-test.sh", "--topic", "x", "--num-records", 10, "--throughput", -1, "--record-size", 10
    )
    assert no_props.returncode == 1
    assert (
        no_props.stderr.splitlines()[-1]
        == "producer-performance: error: Either --producer-props or --producer.config must be specified."
    )

    bad_prop = tool(
        "kafka-producer-perf-test.sh",
        "--topic",
        "x",
        "--num-records",
        10,
        "--throughput",
        -1,
        "--record-size",
        10,
        "--producer-props",
        "bootstrap.servers=%s" % cluster.bootstrap_servers,
        "linger.ms",
    )
    assert bad_prop.returncode == 1
    assert (
        bad_prop.stderr.strip() == 'Exception in thread "main" java.lang.IllegalArgumentException: '
        "Invalid property: linger.ms"
    )
    bad_value = tool(
        "kafka-producer-perf-test.sh",
        "--topic",
        "x",
        "--num-records",
        10,
        "--throughput",
        -1,
        "--record-size",
        10,
        "--producer-props",
        "bootstrap.servers=%s" % cluster.bootstrap_servers,
        "acks=2",
    )
    assert bad_value.returncode == 1
    assert bad_value.stderr.strip() == (
        'Exception in thread "main" org.apache.kafka.common.config.ConfigException: '
        "Invalid value 2 for configuration acks: String must be one of: all, -1, 0, 1"
    )
    assert bad_value.stdout == ""

    # --transaction-duration-ms: the tool's records go out in transactions, and read_committed sees them all.
    create_topic(cluster, "perf-txn", 1)
    transactional = tool(
        "kafka-producer-perf-test.sh",
        "--topic",
        "perf-txn",
        "--num-records",
        10,
        "--throughput",
        -1,
        "--record-size",
        10,
        "--transaction-duration-ms",
        1000,
        "--producer-props",
        "bootstrap.servers=%s" % cluster.bootstrap_servers,
    )
    assert transactional.returncode == 0, transactional.stderr
    assert total_of(transactional.stdout).group(1) == "10"
    committed = ConfluentConsumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": "perf-txn-reader",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        committed.assign([TopicPartition("perf-txn", 0, 0)])
        values = []
        wait_for(
            lambda: values.extend(m.value() for m in committed.consume(10, 0.5) if not m.error()) or len(values) >= 10,
            timeout=60,
            message="the 10 committed records",
        )
        assert len(values) == 10 and all(len(value) == 10 for value in values)
    finally:
        committed.close()

    missing_file = produce_perf(
        cluster, "x", "--num-records", 10, "--throughput", -1, "--payload-file", tmp_path / "absent.txt"
    )
    assert missing_file.returncode == 1
    assert missing_file.stdout.strip() == "Reading payloads from: %s" % (tmp_path / "absent.txt")
    assert missing_file.stderr.strip().endswith("File does not exist or empty file provided.")

    no_topic = tool("kafka-consumer-perf-test.sh", "--bootstrap-server", cluster.bootstrap_servers, "--messages", 10)
    assert no_topic.returncode == 1
    assert no_topic.stderr.splitlines()[0] == 'Missing required argument "[topic]"'
    no_server = tool("kafka-consumer-perf-test.sh", "--topic", "x", "--messages", 10)
    assert no_server.returncode == 1
    assert no_server.stderr.strip() == (
        'Exception in thread "main" joptsimple.MissingRequiredOptionsException: '
        "Missing required option(s) [bootstrap-server]"
    )

    # A topic nobody wrote to: Kafka 2.5's consumer auto-creates it, reads nothing, warns, and still exits 0.
    unknown = tool(
        "kafka-consumer-perf-test.sh",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--topic",
        "never-written",
        "--messages",
        10,
        "--timeout",
        2000,
    )
    assert unknown.returncode == 0, unknown.stderr
    lines = unknown.stdout.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == TIMEOUT_WARNING % 2000
    assert int(SUMMARY_LINE.match(lines[2]).group(5)) == 0
