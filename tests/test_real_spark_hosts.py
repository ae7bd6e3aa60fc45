"""spark_jobs on a Spark standalone cluster on hosts, against kafka-zk on hosts: exactly once through a kill -9."""

import json
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from confluent_kafka import Producer

from kafka_zk.tools.local_cluster import LocalCluster
from kafka_zk.tools.spark_standalone import SparkStandalone, worker_host
from spark_jobs import topic_stats, windowed_counts
from spark_jobs.topic_to_parquet import start_query
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.hosts_support import fresh_hosts
from tests.spark_support import (
    create_topic,
    make_spark_session,
    produce,
    stop_shared_spark_session,
    windowed_counts_args,
)

BROKERS = 3
WORKERS = 2
BASE_MS = int(datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp() * 1000)
EXECUTOR_SETTINGS = {"spark.executor.memory": "512m", "spark.executor.cores": "1"}


@pytest.fixture(scope="module")
def on_hosts(tmp_path_factory):
    """One ZooKeeper server and three brokers, a Spark master and two workers, each on a host of its own on one
    bridge, and the test process's driver on ``client``; teardown ends every JVM and removes every host."""
    stop_shared_spark_session()  # one SparkContext per process: the local one goes; the next module starts it anew
    folder = tmp_path_factory.mktemp("spark-hosts")
    hosts = fresh_hosts()
    cluster = LocalCluster(
        folder / "kafka",
        brokers=BROKERS,
        zookeepers=1,
        hosts=hosts,
        overrides=TEST_DEFAULTS,
        zookeeper_config={"tickTime": "500"},
    )
    standalone = SparkStandalone(folder / "spark", hosts, workers=WORKERS)
    session = None
    try:
        hosts.create(["zk-1"] + ["broker-%d" % n for n in range(BROKERS)] + standalone.host_names())
        standalone.start(wait=False)  # the JVMs start while the brokers do
        cluster.start(timeout=90)
        standalone.wait_alive_workers(WORKERS, timeout=120)
        session = make_spark_session(
            "kafka-zk-hosts-tests",
            master=standalone.master_url,
            settings=dict(standalone.driver_settings(), **EXECUTOR_SETTINGS),
        )
        wait_for(
            lambda: executor_count(session) == WORKERS,
            120,
            interval=0.2,
            message="an executor on each worker registered with the driver",
        )
        yield SimpleNamespace(spark=session, standalone=standalone, bootstrap=cluster.bootstrap_servers, hosts=hosts)
    finally:
        try:
            if session is not None:
                for query in session.streams.active:
                    query.stop()
                session.stop()
        finally:
            standalone.stop()
            cluster.kill()  # the brokers and ZooKeeper, then every namespace (the Spark ones too), link and bridge


def executor_count(spark):
    """Executors registered with the driver (its block manager list counts the driver too)."""
    return spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1


def where_tasks_ran(spark, tasks):
    """{(network namespace, SPARK_LOCAL_IP)} of the Python workers that ran ``tasks`` tasks."""

    def here(_):
        return [(os.readlink("/proc/self/ns/net"), os.environ.get("SPARK_LOCAL_IP"), os.getpid())]

    return spark.sparkContext.parallelize(range(tasks), tasks).mapPartitions(here).collect()


def namespace_of(hosts, name):
    """What /proc/<pid>/ns/net reads for a process on host ``name``."""
    return "net:[%d]" % os.stat("/run/netns/%s" % hosts.host(name).namespace).st_ino


def test_tasks_run_in_the_worker_namespaces(on_hosts):
    workers = {
        namespace_of(on_hosts.hosts, worker_host(n)): on_hosts.hosts.address(worker_host(n))
        for n in range(1, WORKERS + 1)
    }
    ran = where_tasks_ran(on_hosts.spark, 8)
    assert {(namespace, address) for namespace, address, _ in ran} == set(workers.items())
    assert os.getpid() not in {pid for _, _, pid in ran}
    assert os.readlink("/proc/self/ns/net") not in workers  # the driver is on client


def test_topic_stats_reads_the_hosts_cluster(on_hosts):
    spark, bootstrap = on_hosts.spark, on_hosts.bootstrap
    create_topic(bootstrap, "hosts-stats", 3, replication_factor=3)
    delivered = produce(
        bootstrap, "hosts-stats", [(b"heavy" if i % 3 else b"k%d" % i, b"x" * 50, None) for i in range(1500)]
    )
    partitions, keys = topic_stats.compute_stats(spark, bootstrap, ["hosts-stats"], top=3)
    assert sum(p["records"] for p in partitions) == len(delivered) == 1500
    for p in partitions:
        assert p["records"] == sum(1 for part, _ in delivered if part == p["partition"])
    assert keys[0] == {"topic": "hosts-stats", "key": "heavy", "records": 1000, "bytes": 1000 * 55}


def test_windowed_counts_from_topic_to_topic_on_the_hosts_cluster(on_hosts, tmp_path):
    spark, bootstrap = on_hosts.spark, on_hosts.bootstrap
    create_topic(bootstrap, "hosts-events", 2, replication_factor=3)
    create_topic(bootstrap, "hosts-window-counts", 1, replication_factor=3)
    events, expected = [], {}
    for minute in range(3):
        for i, key in enumerate(["a", "b"] * (minute + 2)):
            events.append(
                (key.encode(), json.dumps({"key": key, "ts": BASE_MS + minute * 60_000 + i * 1000}).encode(), None)
            )
            window = datetime.fromtimestamp((BASE_MS + minute * 60_000) / 1000, timezone.utc)
            counted = (window.strftime("%Y-%m-%dT%H:%M:%SZ"), key)
            expected[counted] = expected.get(counted, 0) + 1
    events.append((b"z", json.dumps({"key": "z", "ts": BASE_MS + 30 * 60_000}).encode(), None))  # moves the watermark
    produce(bootstrap, "hosts-events", events)
    args = windowed_counts_args(bootstrap, "hosts-events", "hosts-window-counts", tmp_path / "checkpoint")
    query = windowed_counts.start_query(spark, args)
    query.awaitTermination(180)
    assert query.exception() is None
    counts = (
        spark.read.format("kafka_zk")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "hosts-window-counts")
        .load()
        .collect()
    )
    got = {(json.loads(row.value)["window_start"], row.key.decode()): json.loads(row.value)["count"] for row in counts}
    assert got == expected


class SteadyProducer:
    """Produces numbered records to a topic from a thread until stopped; remembers every acknowledged one."""

    def __init__(self, bootstrap, topic, chunk=10, pause=0.05):
        self.topic = topic
        self.chunk, self.pause = chunk, pause
        self.delivered = {}  # (partition, offset): value
        self.failures = []
        self._producer = Producer(
            {"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, "linger.ms": 5}
        )
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="steady-producer", daemon=True)
        self._sent = 0

    def _on_delivery(self, error, message):
        if error is not None:
            self.failures.append(error)
        else:
            self.delivered[(message.partition(), message.offset())] = message.value()

    def _run(self):
        while not self._stopping.is_set():
            for _ in range(self.chunk):
                self._producer.produce(
                    self.topic,
                    b"steady-%07d" % self._sent,
                    b"key-%d" % (self._sent % 97),
                    on_delivery=self._on_delivery,
                )
                self._sent += 1
            self._producer.poll(0)
            self._stopping.wait(self.pause)  # the pace of the load, not a wait for a condition

    def start(self):
        self._thread.start()
        return self

    def acked(self):
        return len(self.delivered)

    def stop(self):
        """Stop sending and wait for every acknowledgement; returns what was delivered (harmless twice)."""
        self._stopping.set()
        self._thread.join(30)
        self._producer.flush(60)
        return dict(self.delivered)


def committed_output(spark, path):
    """[(partition, offset, value)] of the committed Parquet files (Spark's sink log hides uncommitted ones)."""
    if not any(Path(path, "_spark_metadata").glob("[0-9]*")):
        return []
    return [
        (r.partition, r.offset, bytes(r.value))
        for r in spark.read.parquet(path).select("partition", "offset", "value").collect()
    ]


def test_streaming_stays_exactly_once_through_a_worker_kill_9(on_hosts, tmp_path):
    spark, bootstrap, standalone = on_hosts.spark, on_hosts.bootstrap, on_hosts.standalone
    topic = "hosts-stream"
    create_topic(bootstrap, topic, 3, replication_factor=3)
    producer = SteadyProducer(bootstrap, topic).start()
    args = SimpleNamespace(
        bootstrap_server=bootstrap,
        topic=[topic],
        output=str(tmp_path / "out"),
        checkpoint=str(tmp_path / "checkpoint"),
        starting_offsets="earliest",
        max_offsets_per_trigger=2000,
        trigger_seconds=0.5,
        available_now=False,
        timeout=None,
        fail_on_data_loss="true",
    )
    offsets_dir, commits_dir = Path(args.checkpoint, "offsets"), Path(args.checkpoint, "commits")
    query = start_query(spark, args, [topic])
    started = time.monotonic()
    marks = {}
    try:
        wait_for(
            lambda: (commits_dir / "1").exists() or query.exception() is not None,
            120,
            interval=0.1,
            message="two batches committed",
        )
        assert query.exception() is None
        # Kill worker 1's host while a batch runs: planned (its offsets logged), not yet committed.
        running = wait_for(
            lambda: _batch_in_flight(offsets_dir, commits_dir), 60, interval=0.01, message="a batch in flight"
        )
        standalone.kill_worker(1)
        marks["killed"] = time.monotonic() - started
        mid_batch = not (commits_dir / str(running)).exists()
        acked_at_kill = producer.acked()
        standalone.wait_alive_workers(WORKERS - 1, timeout=60)
        wait_for(lambda: executor_count(spark) == WORKERS - 1, 60, message="the driver to drop the lost executor")
        marks["executor lost"] = time.monotonic() - started
        # The stream goes on with the other worker's executor while records keep coming.
        wait_for(lambda: producer.acked() >= acked_at_kill + 500, 60, message="records produced after the kill")
        delivered = producer.stop()
        assert not producer.failures, producer.failures[:3]
        output = wait_for(
            lambda: _all_or_failed(query, spark, args.output, len(delivered)),
            180,
            interval=1.0,
            message="every produced record in the output",
        )
        assert query.exception() is None, query.exception()
        marks["all read"] = time.monotonic() - started
    finally:
        query.stop()
        producer.stop()
    keys = [(partition, offset) for partition, offset, _ in output]
    duplicates = len(keys) - len(set(keys))
    missing = set(delivered) - set(keys)
    print(
        "worker kill -9 %s: %d records produced, %d in the output, %d duplicates, %d missing, %d batches (%s)"
        % (
            "mid-batch %d" % running if mid_batch else "between batches",
            len(delivered),
            len(output),
            duplicates,
            len(missing),
            len(list(commits_dir.glob("[0-9]*"))),
            ", ".join("%s at %.1f s" % item for item in marks.items()),
        )
    )
    # Whether the kill caught a batch in flight depends on the moment (printed above); either way nothing is lost
    # or written twice.
    assert duplicates == 0 and not missing
    assert {(p, o): v for p, o, v in output} == delivered


def _batch_in_flight(offsets_dir, commits_dir):
    planned = [int(path.name) for path in offsets_dir.glob("[0-9]*")]
    latest = max(planned, default=-1)
    return latest if latest >= 0 and not (commits_dir / str(latest)).exists() else None


def _all_or_failed(query, spark, path, expected):
    if query.exception() is not None:
        return [("failed", str(query.exception()), b"")]
    output = committed_output(spark, path)
    return output if len(output) >= expected else None
