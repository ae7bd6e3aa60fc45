"""spark_jobs against real brokers: windowed_counts (Kafka -> Spark -> Kafka), topic_stats, the CLIs, bad input."""

import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from kafka_zk.client.admin import AdminClient
from spark_jobs import topic_stats, windowed_counts
from tests.cluster_support import wait_for
from tests.ports import free_port
from tests.spark_support import consume_all, create_topic, produce, spark, windowed_counts_args  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
BASE_MS = int(datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp() * 1000)


def test_windowed_counts_writes_every_window_back_to_a_topic(spark, cluster, tmp_path):
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "events", 2)
    create_topic(bootstrap, "window-counts", 1)
    events = []
    expected = {}
    for minute in range(3):
        for i, key in enumerate(["a", "b", "c"] * (minute + 2)):
            ts = BASE_MS + minute * 60_000 + i * 1000
            events.append((key.encode(), json.dumps({"key": key, "ts": ts}).encode(), None))
            start = datetime.fromtimestamp((BASE_MS + minute * 60_000) / 1000, timezone.utc)
            window = start.strftime("%Y-%m-%dT%H:%M:%SZ")
            expected[(window, key)] = expected.get((window, key), 0) + 1
    # ISO-8601 event times parse too; one far-later event moves the watermark past every window above.
    events.append((b"z", json.dumps({"key": "z", "ts": "2026-01-01T00:30:00Z"}).encode(), None))
    events.append((b"bad", b"not json", None))
    produce(bootstrap, "events", events)
    args = windowed_counts_args(bootstrap, "events", "window-counts", tmp_path / "checkpoint")
    query = windowed_counts.start_query(spark, args)
    query.awaitTermination(300)
    assert query.exception() is None
    written = consume_all(bootstrap, "window-counts", 1)
    got = {}
    for key, value, _ in written.values():
        count = json.loads(value)
        assert count["key"] == key.decode()
        got[(count["window_start"], count["key"])] = count["count"]
    assert got == expected


def test_topic_stats_table_and_plot(spark, cluster, tmp_path):
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "stats", 2)
    records = [(b"heavy" if i % 3 else b"k%d" % i, b"x" * 50, None) for i in range(900)]
    delivered = produce(bootstrap, "stats", records)
    partitions, keys = topic_stats.compute_stats(spark, bootstrap, ["stats"], top=3)
    assert sum(p["records"] for p in partitions) == 900
    for p in partitions:
        in_partition = [r for (part, _), r in delivered.items() if part == p["partition"]]
        assert p["records"] == len(in_partition)
        assert p["bytes"] == sum(len(k) + len(v) for k, v, _ in in_partition)
        assert p["first"] <= p["last"]
    assert keys[0] == {"topic": "stats", "key": "heavy", "records": 600, "bytes": 600 * 55}
    table = topic_stats.report(partitions, keys)
    assert table.splitlines()[0].split() == list(topic_stats.PARTITION_COLUMNS)
    assert "heavy" in table
    topic_stats.plot(partitions, keys, tmp_path / "stats.png")
    assert (tmp_path / "stats.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("job", ["topic_to_parquet", "topic_stats", "windowed_counts"])
def test_jobs_have_help_with_common_options(job):
    result = subprocess.run(
        [sys.executable, "-m", "spark_jobs." + job, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "--bootstrap-server" in result.stdout and "--master" in result.stdout


def test_new_partitions_are_read_by_later_micro_batches(spark, cluster):
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "growing", 1)
    produce(bootstrap, "growing", [(None, b"first-%d" % i, None) for i in range(10)])
    stream = (
        spark.readStream.format("kafka_zk")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "growing")
        .option("startingOffsets", "earliest")
        .load()
    )
    query = stream.writeStream.format("memory").queryName("growing_out").trigger(processingTime="1 second").start()
    try:
        wait_for(
            lambda: spark.sql("select * from growing_out").count() == 10, 120, interval=0.5, message="the first records"
        )
        with AdminClient(bootstrap) as admin:
            admin.create_partitions({"growing": (3, None)})
        wait_for(lambda: _partition_count(bootstrap, "growing") == 3, 60, message="3 partitions")
        from confluent_kafka import Producer

        producer = Producer({"bootstrap.servers": bootstrap})
        for partition in (1, 2):
            for i in range(5):
                producer.produce("growing", b"new-%d-%d" % (partition, i), partition=partition)
        assert producer.flush(30) == 0
        try:
            wait_for(
                lambda: query.exception() is not None or spark.sql("select * from growing_out").count() >= 20,
                120,
                interval=0.5,
                message="records of the new partitions",
            )
        except AssertionError as timed_out:
            raise AssertionError(
                "%s; rows per partition %s; query status %s; last progress %s"
                % (timed_out, _rows_per_partition(spark), query.status, query.lastProgress)
            ) from None
        assert query.exception() is None
        assert _rows_per_partition(spark) == {0: 10, 1: 5, 2: 5}
    finally:
        query.stop()


def _rows_per_partition(spark):
    rows = spark.sql("select partition, count(*) as n from growing_out group by partition").collect()
    return {r.partition: r.n for r in rows}


def _partition_count(bootstrap, topic):
    with AdminClient(bootstrap) as admin:
        return len(admin.describe_topics([topic])[topic].partitions)


def _expect_error(action, *fragments, within=90):
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        action()
    assert time.monotonic() - started < within
    text = str(caught.value)
    for fragment in fragments:
        assert fragment in text, text[:2000]


def _reader(spark, bootstrap, **options):
    reader = spark.read.format("kafka_zk").option("kafka.bootstrap.servers", bootstrap)
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader


def test_bad_input_is_a_clear_error_not_a_hang(spark, cluster):
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "bad-input", 1)
    _expect_error(
        lambda: _reader(spark, bootstrap, subscribe="bad-input", startingOffset="earliest").load(),
        "Unknown option",
        "startingoffset",
    )
    _expect_error(
        lambda: _reader(spark, bootstrap, subscribe="bad-input", assign='{"bad-input":[0]}').load().count(),
        "Only one of the following options can be specified",
    )
    _expect_error(
        lambda: _reader(spark, bootstrap, subscribe="bad-input", startingOffsets='{"bad-input":{"0":').load().count(),
        "Expected e.g.",
        "startingOffsets",
    )
    _expect_error(
        lambda: _reader(spark, bootstrap, subscribe="bad-input", **{"kafka.no.such.setting": "1"}).load().count(),
        "Invalid kafka.* client setting",
        "no.such.setting",
    )
    _expect_error(
        lambda: _reader(spark, bootstrap, subscribe="no-such-topic").load().count(),
        "Topic no-such-topic does not exist",
    )
    _expect_error(
        lambda: _reader(spark, "127.0.0.1:%d" % free_port(), subscribe="bad-input").load().count(),
        "Cannot reach the Kafka cluster",
    )
    stream = (
        spark.readStream.format("kafka_zk")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "no-such-topic")
        .load()
    )
    query = stream.writeStream.format("memory").queryName("never").start()
    try:
        _expect_error(lambda: query.awaitTermination(90), "Topic no-such-topic does not exist")
    finally:
        query.stop()


def test_sink_errors_reach_the_driver(spark, cluster):
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "sink-errors", 1)
    df = spark.createDataFrame([("v1",), ("v2",)], "value string")
    writer = df.write.format("kafka_zk").mode("append").option("kafka.bootstrap.servers", bootstrap)
    _expect_error(lambda: writer.save(), "topic option required")
    bad_partition = df.withColumn("partition", F.lit(7))
    _expect_error(
        lambda: (
            bad_partition.write.format("kafka_zk")
            .mode("append")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("topic", "sink-errors")
            .save()
        ),
        "could not be written",
    )
    _expect_error(
        lambda: (
            spark.createDataFrame([(1,)], "v int")
            .write.format("kafka_zk")
            .mode("append")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("topic", "sink-errors")
            .save()
        ),
        "Required attribute 'value' not found",
    )


def test_job_with_unreachable_cluster_says_so_in_one_line(tmp_path):
    command = [
        sys.executable,
        "-m",
        "spark_jobs.topic_to_parquet",
        "--bootstrap-server",
        "127.0.0.1:%d" % free_port(),
        "--master",
        "local[1]",
        "--topic",
        "t",
        "--output",
        str(tmp_path / "out"),
        "--checkpoint",
        str(tmp_path / "checkpoint"),
        "--available-now",
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ") and "Cannot reach the Kafka cluster" in last
    assert "\tat org.apache" not in result.stderr and "Traceback" not in result.stderr
