"""Kafka Connect 2.5.1 in distributed mode on a 3-broker kafka-zk cluster: two workers run FileStreamSource (a file
of numbered lines to a topic) and FileStreamSink (that topic to a file), driven by their REST API, while one worker
and one broker are killed with SIGKILL; every line reaches the sink file, in order, at least once. Connect's internal
topics are created compacted, with 3 replicas, as ZooKeeper's /config/topics and /brokers/topics show."""

import json
import time
import uuid

import pytest
from kazoo.client import KazooClient

from kafka_zk.tools.connect_worker import ConnectJarsMissing, ConnectWorkerProcess, jars_dir
from tests.cluster_support import start_cluster, wait_for
from tests.ports import free_port

# Apache Kafka 2.5.1's own brokers instead (3) make the same module the oracle of Connect's behaviour.
KAFKA_BROKERS = 0
LINES_BEFORE_FAULTS = 3000
LINES_DURING_FAULTS = 3000
LINES_AFTER_FAULTS = 2000
TOTAL_LINES = LINES_BEFORE_FAULTS + LINES_DURING_FAULTS + LINES_AFTER_FAULTS
BROKER_OVERRIDES = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "6",
    "group.initial.rebalance.delay.ms": "0",
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "zookeeper.session.timeout.ms": "6000",
}


@pytest.fixture(scope="module")
def connect(request, tmp_path_factory, zookeeper_server, broker_processes):
    """A 3-broker cluster and two Connect workers of one group; the workers' folder holds the source file."""
    try:
        jars_dir(ConnectWorkerProcess(".", {}).libs, ConnectWorkerProcess.marker_jar)
    except ConnectJarsMissing as error:
        pytest.skip(str(error))
    folder = tmp_path_factory.mktemp("connect")
    cluster = start_cluster(
        folder / "cluster", zookeeper_server, overrides=BROKER_OVERRIDES, kafka_brokers=KAFKA_BROKERS
    )
    group = "connect-%s" % uuid.uuid4().hex[:8]
    workers = []
    try:
        for index in range(2):
            properties = worker_properties(cluster.bootstrap_servers, group, free_port())
            workers.append(ConnectWorkerProcess(folder / ("worker-%d" % index), properties))
        for worker in workers:
            worker.start(timeout=120)
        yield Connect(cluster, workers, group, folder)
    finally:
        for worker in workers:
            worker.kill()
        cluster.stop()


def worker_properties(bootstrap_servers, group, rest_port):
    """connect-distributed.properties of Kafka's kind, with rebalances fast enough for a test: a dead worker's tasks
    move after 3 s (scheduled.rebalance.max.delay.ms, 5 minutes by default) once its session (6 s) has expired."""
    return {
        "bootstrap.servers": bootstrap_servers,
        "group.id": group,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "config.storage.topic": "%s-configs" % group,
        "offset.storage.topic": "%s-offsets" % group,
        "status.storage.topic": "%s-status" % group,
        "config.storage.replication.factor": "3",
        "offset.storage.replication.factor": "3",
        "status.storage.replication.factor": "3",
        "offset.flush.interval.ms": "1000",
        "session.timeout.ms": "6000",
        "heartbeat.interval.ms": "1000",
        "scheduled.rebalance.max.delay.ms": "3000",
        "rest.host.name": "127.0.0.1",
        "rest.port": str(rest_port),
        "rest.advertised.host.name": "127.0.0.1",
        "rest.advertised.port": str(rest_port),
    }


class Connect:
    def __init__(self, cluster, workers, group, folder):
        self.cluster = cluster
        self.workers = workers
        self.group = group
        self.folder = folder

    def live_worker(self):
        return next(worker for worker in self.workers if worker.is_running())

    def create_connector(self, name, config):
        status, body = self.live_worker().rest("POST", "/connectors", {"name": name, "config": config}, timeout=60)
        assert status == 201, (status, body)
        return body

    def status(self, name):
        status, body = self.live_worker().rest("GET", "/connectors/%s/status" % name)
        return body if status == 200 else None

    def wait_running(self, name, timeout=90):
        def running():
            body = self.status(name)
            tasks = (body or {}).get("tasks", [])
            states = [(body or {}).get("connector", {}).get("state")] + [task["state"] for task in tasks]
            return body if tasks and set(states) == {"RUNNING"} else None

        return wait_for(running, timeout, 0.5, "connector %s RUNNING: %s" % (name, self.status(name)))


def append_lines(path, first, count):
    with open(path, "a") as handle:
        handle.write("".join("line-%06d\n" % number for number in range(first, first + count)))


def sink_numbers(path):
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    return [int(line[len("line-") :]) for line in text.splitlines() if line.startswith("line-")]


def test_file_source_to_file_sink_survives_a_worker_and_a_broker_killed(connect):
    source_file = connect.folder / "source.txt"
    sink_file = connect.folder / "sink.txt"
    topic = "lines-%s" % uuid.uuid4().hex[:8]
    append_lines(source_file, 0, LINES_BEFORE_FAULTS)
    started = time.monotonic()
    connect.create_connector(
        "file-source",
        {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "tasks.max": "1",
            "file": str(source_file),
            "topic": topic,
        },
    )
    connect.create_connector(
        "file-sink",
        {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1",
            "file": str(sink_file),
            "topics": topic,
        },
    )
    connect.wait_running("file-source")
    connect.wait_running("file-sink")
    wait_for(lambda: len(sink_numbers(sink_file)) >= LINES_BEFORE_FAULTS // 2, 60, 0.2, "the first lines in the sink")

    # The worker running the source task dies, then a broker, while more lines come.
    source_worker_id = connect.wait_running("file-source")["tasks"][0]["worker_id"]
    victim = next(worker for worker in connect.workers if worker.worker_id == source_worker_id)
    victim.kill()
    append_lines(source_file, LINES_BEFORE_FAULTS, LINES_DURING_FAULTS)
    broker = connect.cluster.brokers[1]
    broker.kill()

    def source_moved():
        body = connect.status("file-source")
        tasks = (body or {}).get("tasks", [])
        return tasks and tasks[0]["state"] == "RUNNING" and tasks[0]["worker_id"] != source_worker_id

    wait_for(source_moved, 90, 0.5, "the source task off %s" % source_worker_id)
    broker.start(timeout=60)
    append_lines(source_file, LINES_BEFORE_FAULTS + LINES_DURING_FAULTS, LINES_AFTER_FAULTS)
    wait_for(
        lambda: set(range(TOTAL_LINES)) <= set(sink_numbers(sink_file)),
        120,
        0.5,
        "all %d lines in the sink (have %d)" % (TOTAL_LINES, len(set(sink_numbers(sink_file)))),
    )
    elapsed = time.monotonic() - started
    delivered = sink_numbers(sink_file)
    # At least once, in order: each line is the next new one, or a repeat of one already written (a replay of what the
    # killed worker had sent or written but not yet committed offsets for).
    highest = -1
    for number in delivered:
        assert number == highest + 1 or number <= highest, (number, highest)
        highest = max(highest, number)
    assert highest == TOTAL_LINES - 1
    duplicates = len(delivered) - TOTAL_LINES
    print("\n%d lines delivered in %.1fs, %d duplicates" % (TOTAL_LINES, elapsed, duplicates))
    for name in ("file-source", "file-sink"):
        assert connect.wait_running(name)["connector"]["state"] == "RUNNING"


def test_internal_topics_are_compacted_with_three_replicas(connect):
    client = KazooClient(hosts=connect.cluster.zk_connect)
    client.start(15)
    try:
        for kind, partitions in (("configs", 1), ("offsets", 25), ("status", 5)):
            topic = "%s-%s" % (connect.group, kind)
            config = json.loads(client.get("/config/topics/%s" % topic)[0])
            assert config["version"] == 1
            assert config["config"]["cleanup.policy"] == "compact", (topic, config)
            assignment = json.loads(client.get("/brokers/topics/%s" % topic)[0])["partitions"]
            assert len(assignment) == partitions, (topic, assignment)
            assert all(len(set(replicas)) == 3 for replicas in assignment.values()), (topic, assignment)
    finally:
        client.stop()
        client.close()


def test_the_workers_run_connect_2_5_1_with_a_capped_heap_and_name_the_cluster(connect):
    client = KazooClient(hosts=connect.cluster.zk_connect)
    client.start(15)
    try:
        cluster_id = json.loads(client.get("/cluster/id")[0])["id"]
    finally:
        client.stop()
        client.close()
    for worker in connect.workers:
        if not worker.is_running():
            continue  # the one the flow test killed
        command = open("/proc/%d/cmdline" % worker.pid(), "rb").read().split(b"\0")
        assert b"-Xmx256m" in command and b"org.apache.kafka.connect.cli.ConnectDistributed" in command
        assert "Kafka Connect started" in worker.log_file.read_text()
        status, root = worker.rest("GET", "/")
        assert status == 200
        assert root["version"] == "2.5.1"
        assert root["kafka_cluster_id"] == cluster_id
