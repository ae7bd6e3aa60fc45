"""Streaming reads of kafka-zk topics into Parquet with Spark checkpoints: restarts, kill -9 of the job, of a broker."""

import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from confluent_kafka import Consumer, TopicPartition

from spark_jobs.common import run_stream
from spark_jobs.topic_to_parquet import start_query
from tests.cluster_support import start_cluster, wait_for
from tests.spark_support import create_topic, produce, spark  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def fast_cluster(tmp_path_factory, zookeeper_server):
    """Three brokers whose ZooKeeper sessions expire after 6 s, so a killed leader is replaced quickly, and whose
    retention runs twice a second."""
    running = start_cluster(
        tmp_path_factory.mktemp("spark-stream"),
        zookeeper_server,
        overrides={
            "zookeeper.session.timeout.ms": "6000",
            "log.retention.check.interval.ms": "500",
            "log.segment.delete.delay.ms": "0",
        },
    )
    yield running
    running.stop()


def _records(start, count, tag):
    return [(b"key-%d" % (i % 97), b"%s-%07d" % (tag, i), None) for i in range(start, start + count)]


def _job_args(bootstrap, topic, tmp_path, **extra):
    values = dict(
        bootstrap_server=bootstrap,
        topic=[topic],
        output=str(tmp_path / "out"),
        checkpoint=str(tmp_path / "checkpoint"),
        starting_offsets="earliest",
        max_offsets_per_trigger=None,
        trigger_seconds=None,
        available_now=True,
        timeout=None,
        fail_on_data_loss="true",
    )
    values.update(extra)
    return SimpleNamespace(**values)


def _output(spark, path):
    """[(partition, offset, value)] of the committed Parquet files (Spark's sink log hides uncommitted ones)."""
    if not any(Path(path, "_spark_metadata").glob("[0-9]*")):
        return []
    return [
        (r.partition, r.offset, bytes(r.value))
        for r in spark.read.parquet(path).select("partition", "offset", "value").collect()
    ]


def _assert_exactly(output, delivered):
    keys = [(p, o) for p, o, _ in output]
    assert len(keys) == len(set(keys)), "repeated records: %d" % (len(keys) - len(set(keys)))
    assert {(p, o): v for p, o, v in output} == {k: v for k, (_, v, _) in delivered.items()}


def test_available_now_twice_with_rate_limit_reads_each_record_once(spark, fast_cluster, tmp_path):
    bootstrap = fast_cluster.bootstrap_servers
    create_topic(bootstrap, "stream-twice", 3)
    delivered = produce(bootstrap, "stream-twice", _records(0, 3000, b"a"))
    args = _job_args(bootstrap, "stream-twice", tmp_path, max_offsets_per_trigger=700)
    query = start_query(spark, args, ["stream-twice"])
    query.awaitTermination(300)
    assert query.exception() is None
    batches = [p for p in query.recentProgress if p.numInputRows]
    assert len(batches) >= 5 and all(p.numInputRows <= 700 for p in batches)
    _assert_exactly(_output(spark, args.output), delivered)
    assert Path(args.output, "topic=stream-twice").is_dir()

    delivered.update(produce(bootstrap, "stream-twice", _records(3000, 2000, b"b")))
    query = start_query(spark, args, ["stream-twice"])
    query.awaitTermination(300)
    assert query.exception() is None
    _assert_exactly(_output(spark, args.output), delivered)


def test_job_killed_mid_batch_resumes_exactly_once(spark, fast_cluster, tmp_path):
    bootstrap = fast_cluster.bootstrap_servers
    create_topic(bootstrap, "stream-kill", 2)
    delivered = produce(bootstrap, "stream-kill", _records(0, 12000, b"k"))
    command = [
        sys.executable,
        "-m",
        "spark_jobs.topic_to_parquet",
        "--bootstrap-server",
        bootstrap,
        "--master",
        "local[1]",
        "--topic",
        "stream-kill",
        "--output",
        str(tmp_path / "out"),
        "--checkpoint",
        str(tmp_path / "checkpoint"),
        "--available-now",
        "--max-offsets-per-trigger",
        "1500",
    ]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    log = open(tmp_path / "job1.log", "w")
    job = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        offsets_dir = tmp_path / "checkpoint" / "offsets"
        commits_dir = tmp_path / "checkpoint" / "commits"
        # Kill once batch 2 is planned (its offsets are logged) but not yet committed: mid-batch.
        wait_for(
            lambda: (offsets_dir / "2").exists() or job.poll() is not None,
            240,
            interval=0.02,
            message="batch 2 to start",
        )
        assert job.poll() is None, (tmp_path / "job1.log").read_text()[-3000:]
        killed_mid_batch = not (commits_dir / "2").exists()
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
        log.close()
    assert killed_mid_batch
    before = _output(spark, str(tmp_path / "out"))
    assert 0 < len(before) < len(delivered)

    # The same job resumes from the killed run's checkpoint (in this process, to spare a second JVM start).
    args = _job_args(bootstrap, "stream-kill", tmp_path, max_offsets_per_trigger=1500)
    progress = io.StringIO()
    query = start_query(spark, args, ["stream-kill"])
    run_stream(query, True, 300, out=progress)
    assert query.exception() is None
    assert re.search(r"^batch \d+: \d+ records, \d+ records/s, \d+ ms", progress.getvalue(), re.M)
    _assert_exactly(_output(spark, str(tmp_path / "out")), delivered)


def test_broker_killed_during_streaming_read_loses_and_repeats_nothing(spark, fast_cluster, tmp_path):
    bootstrap = fast_cluster.bootstrap_servers
    create_topic(bootstrap, "stream-failover", 3, replication_factor=3)
    delivered = produce(bootstrap, "stream-failover", _records(0, 6000, b"f"))
    args = _job_args(
        bootstrap, "stream-failover", tmp_path, available_now=False, trigger_seconds=0.5, max_offsets_per_trigger=600
    )
    query = start_query(spark, args, ["stream-failover"])
    try:
        wait_for(lambda: len(_output(spark, args.output)) > 0, 120, interval=0.5, message="a first batch")
        victim = fast_cluster.broker(0)
        victim.kill()
        delivered.update(produce(bootstrap, "stream-failover", _records(6000, 1000, b"g")))
        wait_for(
            lambda: query.exception() is not None or len(_output(spark, args.output)) >= len(delivered),
            240,
            interval=1.0,
            message="every record in the output",
        )
        assert query.exception() is None
    finally:
        query.stop()
        if not fast_cluster.broker(0).is_running():
            fast_cluster.broker(0).start()
    _assert_exactly(_output(spark, args.output), delivered)


def _watermarks(bootstrap, topic):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "spark-tests-meta"})
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
    finally:
        consumer.close()


def test_records_deleted_by_retention_fail_the_query_or_are_skipped(spark, fast_cluster):
    bootstrap = fast_cluster.bootstrap_servers
    create_topic(bootstrap, "retained", 1, configs={"segment.bytes": "2000", "retention.bytes": "2000"})
    # Small batches, so segments roll often and retention has whole old segments to delete.
    for start in range(0, 400, 20):
        produce(bootstrap, "retained", _records(start, 20, b"r"))
    low, high = wait_for(
        lambda: (lambda w: w if w[0] > 0 else None)(_watermarks(bootstrap, "retained")),
        60,
        message="retention to delete the first segments",
    )
    from_zero = '{"retained":{"0":0}}'

    def batch(fail):
        return (
            spark.read.format("kafka_zk")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", "retained")
            .option("startingOffsets", from_zero)
            .option("endingOffsets", '{"retained":{"0":%d}}' % high)
            .option("failOnDataLoss", fail)
            .load()
        )

    with pytest.raises(Exception, match="Some data may have been lost"):
        batch("true").count()
    offsets = [r.offset for r in batch("false").select("offset").collect()]
    assert offsets and min(offsets) >= low and max(offsets) == high - 1 and len(offsets) == len(set(offsets))

    def stream(fail, name):
        df = (
            spark.readStream.format("kafka_zk")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", "retained")
            .option("startingOffsets", from_zero)
            .option("failOnDataLoss", fail)
            .load()
        )
        return df.writeStream.format("memory").queryName(name).trigger(availableNow=True).start()

    failing = stream("true", "retained_strict")
    with pytest.raises(Exception, match="Some data may have been lost"):
        failing.awaitTermination(120)
    lenient = stream("false", "retained_lenient")
    lenient.awaitTermination(120)
    assert lenient.exception() is None
    read = [r.offset for r in spark.sql("select offset from retained_lenient").collect()]
    assert read and min(read) >= low and len(read) == len(set(read)) and max(read) >= high - 1
