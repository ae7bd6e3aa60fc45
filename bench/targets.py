"""The clusters a benchmark compares (kafka-zk, Apache Kafka 2.5.1's own JVM brokers, librdkafka's mock cluster) and
shared bench helpers."""

import json
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402
from kafka_zk.tools.reference_broker import ReferenceBrokerProcess  # noqa: E402
from tests.ports import free_port  # noqa: E402,F401  (the test suite's ports, below the ephemeral range)

PROBLEM_LINE = re.compile(r"\[[^]]*\] (?:WARN|WARNING|ERROR|CRITICAL) (.*)")
MOCK_BROKERS = 3
KZ_BROKERS = 3
KAFKA_HEAP = ("-Xmx1g", "-Xms1g")  # Kafka's JVM brokers get the same heap on every run


def quiet_logger():
    """A logger for librdkafka that drops its chatter (the mock cluster's notice, connection noise)."""
    logger = logging.getLogger("librdkafka-bench")
    logger.addHandler(logging.NullHandler())
    logger.propagate = False
    return logger


def stat_cpu_seconds(stat_text, ticks_per_second):
    """User + system CPU seconds in the text of a /proc/<pid>/stat file: fields 14 and 15, counted after the
    command name, which sits in parentheses and may itself hold spaces or parentheses."""
    fields = stat_text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks_per_second


def brokers_cpu_seconds(cluster):
    """User + system CPU seconds the running brokers of a LocalCluster have used so far."""
    total = 0.0
    for broker in cluster.brokers:
        pid = broker.pid()
        if pid is None:
            continue
        with open("/proc/%d/stat" % pid) as handle:
            total += stat_cpu_seconds(handle.read(), os.sysconf("SC_CLK_TCK"))
    return total


def rss_mb(pid):
    """The resident set size of process ``pid`` in MiB (VmRSS of /proc/<pid>/status)."""
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def per_million(cpu_seconds, count):
    """CPU seconds per million records (or requests); NaN when there were none."""
    return cpu_seconds * 1e6 / count if count else float("nan")


class KafkaZkTarget:
    """A kafka-zk cluster: our own LocalCluster in a temp dir on free ports, or an existing one (--bootstrap)."""

    name = "kafka-zk"
    kafka_brokers = 0  # how many of the cluster's brokers run Apache Kafka's JVM broker

    def __init__(self, bootstrap=None, keep_data=False, overrides=None, environment=None, metrics=False):
        """``environment``: added to each broker process's environment (e.g. PYTHONPATH naming the tree the
        brokers run from, KAFKA_ZK_PROFILE); ``metrics``: the brokers serve Prometheus metrics on free ports."""
        self._given = bootstrap
        self._metrics = metrics
        self._keep_data = keep_data
        self._overrides = overrides
        self._environment = dict(environment or {})
        self.cluster = None
        self.data_dir = None

    def start(self):
        if self._given:
            return self
        self.data_dir = tempfile.mkdtemp(prefix="kafka-zk-bench-")
        ports = [free_port() for _ in range(KZ_BROKERS)]
        self.cluster = LocalCluster(
            self.data_dir,
            brokers=KZ_BROKERS,
            zk_port=free_port(),
            broker_ports=ports,
            overrides=self._overrides,
            metrics_ports=[free_port() for _ in ports] if self._metrics else None,
            kafka_brokers=self.kafka_brokers,
        )
        for broker in self.cluster.brokers:
            broker.environment.update(self._environment)
            if isinstance(broker, ReferenceBrokerProcess):
                broker.heap = KAFKA_HEAP
        self.cluster.start()
        return self

    @property
    def bootstrap_servers(self):
        return self._given or self.cluster.bootstrap_servers

    def create_topic(self, topic, partitions, replication_factor, config=None):
        create_topic(self.bootstrap_servers, topic, partitions, replication_factor, config=config)
        return partitions, replication_factor

    def broker_cpu_seconds(self):
        """User + system CPU seconds used so far by the brokers this target started (None with --bootstrap)."""
        return None if self.cluster is None else brokers_cpu_seconds(self.cluster)

    def broker_logs(self):
        if self.cluster is None:
            return []
        return [
            broker.log_path(name)
            for broker in self.cluster.brokers
            for name in ("server.log", "controller.log", "state-change.log", "log-cleaner.log")
        ]

    def stop(self):
        if self.cluster is None:
            return
        self.cluster.stop()
        report_broker_problems(self)
        self.cluster = None
        if not self._keep_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)


class KafkaTarget(KafkaZkTarget):
    """Apache Kafka 2.5.1: three of its JVM brokers (heap KAFKA_HEAP on every run) on a ZooKeeper of their own, started
    and measured as a kafka-zk cluster is; the reference every figure is first compared with."""

    name = "kafka"
    kafka_brokers = KZ_BROKERS

    def __init__(self, keep_data=False, overrides=None):
        super().__init__(None, keep_data, overrides)


class MockTarget:
    """librdkafka's in-process mock cluster, owned by a holder client; other clients bootstrap to its brokers."""

    name = "mock"

    def __init__(self):
        self._holder = None
        self.bootstrap_servers = None

    def start(self):
        self._holder = Producer({"test.mock.num.brokers": MOCK_BROKERS, "log_level": 3}, logger=quiet_logger())
        brokers = self._holder.list_topics(timeout=10).brokers.values()
        self.bootstrap_servers = ",".join("%s:%d" % (broker.host, broker.port) for broker in brokers)
        return self

    def create_topic(self, topic, partitions, replication_factor, config=None):
        """The mock cluster names controller 0, which it does not have, so CreateTopics never finds it; the
        topic is auto-created by a metadata request instead, with the mock's fixed defaults."""
        producer = Producer(client_config(self.bootstrap_servers, **{"allow.auto.create.topics": True}))
        meta = producer.list_topics(topic, timeout=10).topics[topic]
        wait_for_leaders(producer, topic, len(meta.partitions), 30.0)
        meta = producer.list_topics(topic, timeout=10).topics[topic]
        return len(meta.partitions), len(meta.partitions[0].replicas)

    def broker_cpu_seconds(self):
        return None

    def broker_logs(self):
        return []

    def stop(self):
        self._holder = None


def is_checkout(tree):
    """Whether ``tree`` holds a kafka-zk checkout whose brokers a bench can run (a --baseline)."""
    return (Path(tree) / "kafka_zk" / "server" / "main.py").is_file()


def trees_to_compare(this, baseline):
    """[(name, tree)]: this checkout, then the --baseline checkout when one is given."""
    trees = [("this", this)]
    if baseline:
        if not is_checkout(baseline):
            raise SystemExit("%s is not a kafka-zk checkout" % baseline)
        trees.append(("baseline", Path(baseline).resolve()))
    return trees


def restart_brokers(cluster, tree):
    """Stop every broker of ``cluster`` (a clean shutdown) and start them again running the code of ``tree``."""
    for broker in cluster.brokers:
        broker.signal(signal.SIGTERM)
    for broker in cluster.brokers:
        broker.stop(already_signalled=True)
    for broker in cluster.brokers:
        broker.environment["PYTHONPATH"] = str(tree)
    cluster.start()


def client_config(bootstrap, **extra):
    """Client settings for a bench client: librdkafka's INFO chatter (disconnect notices) is left out."""
    config = {"bootstrap.servers": bootstrap, "log_level": 5}
    config.update(extra)
    return config


def create_topic(bootstrap, topic, partitions, replication_factor, timeout=30.0, config=None):
    """Create `topic` (topic `config`: {name: value}) with CreateTopics and wait until every partition has a
    leader in the metadata."""
    admin = AdminClient(client_config(bootstrap))
    new = NewTopic(topic, partitions, replication_factor, config=dict(config or {}))
    futures = admin.create_topics([new], operation_timeout=timeout)
    futures[topic].result(timeout)
    wait_for_leaders(admin, topic, partitions, timeout)


def wait_for_leaders(client, topic, partitions, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        meta = client.list_topics(topic, timeout=5).topics.get(topic)
        if (
            meta is not None
            and meta.error is None
            and len(meta.partitions) == partitions
            and all(p.leader >= 0 and p.error is None for p in meta.partitions.values())
        ):
            return meta
        time.sleep(0.1)
    raise RuntimeError("topic %s has no leaders after %.0fs" % (topic, timeout))


def unique_topic(prefix):
    return "%s-%d-%d" % (prefix, os.getpid(), time.monotonic_ns() % 10**9)


def add_common_args(parser):
    parser.add_argument("--bootstrap", help="use this running kafka-zk cluster instead of starting one")
    parser.add_argument("--partitions", type=int, default=4, help="kafka-zk partitions; the mock always auto-creates 4")
    parser.add_argument(
        "--replication-factor",
        type=int,
        default=3,
        help="kafka-zk topics' replication factor; 3 by default, like the mock's topics",
    )
    parser.add_argument(
        "--only",
        choices=["kafka-zk", "kafka", "mock"],
        help="run one target only (kafka: Apache Kafka 2.5.1's JVM brokers, heap %s)" % " ".join(KAFKA_HEAP),
    )
    parser.add_argument("--keep-data", action="store_true", help="keep the kafka-zk temp dir (broker logs)")


def make_targets(args, overrides=None):
    """The targets --only selects; ``overrides`` are broker settings for a kafka-zk cluster the bench starts."""
    targets = []
    if args.only in (None, "kafka-zk"):
        targets.append(KafkaZkTarget(args.bootstrap, args.keep_data, overrides))
    if args.only in (None, "kafka"):
        targets.append(KafkaTarget(args.keep_data, overrides))
    if args.only in (None, "mock"):
        targets.append(MockTarget())
    return targets


def run_on_targets(args, run, overrides=None):
    """{target name: run(target)} for each target the command line names, started before and stopped after."""
    by_target = {}
    for target in make_targets(args, overrides):
        print("starting %s ..." % target.name)
        target.start()
        try:
            by_target[target.name] = run(target)
        finally:
            target.stop()
    print()
    return by_target


def report_broker_problems(target):
    """Print the distinct WARNING/ERROR lines (and tracebacks) of the kafka-zk broker logs."""
    for path in target.broker_logs():
        try:
            lines = Path(path).read_text(errors="replace").splitlines()
        except OSError:
            continue
        distinct = {}
        for line in lines:
            match = PROBLEM_LINE.match(line)
            if match:
                distinct.setdefault(match.group(1), line)
            elif line.startswith("Traceback") or line.startswith("  File "):
                distinct.setdefault(line, line)
        if distinct:
            print("  %s: %d distinct WARNING/ERROR lines:" % (path, len(distinct)))
            for line in list(distinct.values())[:8]:
                print("    " + line[:220])


def percentile(sorted_values, fraction):
    """The value at ``fraction`` (0.5 the median, 1.0 the maximum) of already sorted values, nearest rank; NaN when
    there are none."""
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(round(fraction * (len(sorted_values) - 1))))]


def ratio(ours, theirs):
    if not ours or not theirs:
        return "-"
    return "%.2f" % (ours / theirs)


def print_table(headers, rows):
    widths = [max(len(str(row[i])) for row in [headers] + rows) for i in range(len(headers))]
    for row in [headers] + rows:
        print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))


def timed_produce(producer, topic, records, value, timeout):
    """Produce `records` copies of `value` as fast as the client takes them, then flush.

    Returns (seconds, records not delivered, note): note says why the loop gave up, if it did."""
    start = time.perf_counter()
    deadline = start + timeout
    for index in range(records):
        while True:
            try:
                producer.produce(topic, value)
                break
            except BufferError:
                producer.poll(0.005)
                if time.perf_counter() > deadline:
                    return time.perf_counter() - start, records - index, "timed out queueing"
        if index % 20000 == 0:
            producer.poll(0)
    left = producer.flush(max(1.0, deadline - time.perf_counter()))
    return time.perf_counter() - start, left, None


def produce_run(bootstrap, topic, records, value, settings, timeout):
    """A fresh producer with `settings` (acks, linger.ms, compression.type, ...) sends `records` copies of
    `value` (timed_produce). Returns (seconds, records not delivered, None or why: the first error or the
    loop's note)."""
    errors = []
    config = {
        "bootstrap.servers": bootstrap,
        "queue.buffering.max.messages": 1000000,
        "delivery.report.only.error": True,
        "log_level": 3,
        "on_delivery": lambda err, msg: errors.append(err),
    }
    config.update(settings)
    producer = Producer(config, logger=quiet_logger())
    producer.list_topics(topic, timeout=10)
    elapsed, left, note = timed_produce(producer, topic, records, value, timeout)
    return elapsed, left + len(errors), note or (errors[0] if errors else None)


def wait_for_high_watermarks(bootstrap, topic, records, timeout=30.0):
    """(sum of high watermarks, seconds until they covered `records`, smallest ISR size) after a run.

    The high watermark moves only when the in-sync followers have the records, so the wait is the replication
    lag left when the producer's flush returned (zero for acks=-1)."""
    consumer = Consumer(
        client_config(bootstrap, **{"group.id": "bench-high-watermarks", "log_level": 3}), logger=quiet_logger()
    )
    try:
        start = time.perf_counter()
        while True:
            meta = consumer.list_topics(topic, timeout=10).topics[topic]
            total = sum(
                consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                for p in meta.partitions
            )
            waited = time.perf_counter() - start
            if total >= records or waited > timeout:
                return total, waited, min(len(p.isrs) for p in meta.partitions.values())
            time.sleep(0.02)
    finally:
        consumer.close()


class ZkView:
    """Batched async reads of the partition state znodes (what the controller has decided)."""

    def __init__(self, connect, partitions):
        self.zk = KazooClient(hosts=connect, timeout=30)
        self.zk.start(30)
        self.partitions = partitions

    def controller(self):
        try:
            return json.loads(self.zk.get("/controller")[0])["brokerid"]
        except NoNodeError:
            return None

    def states(self, partitions=None):
        """{(topic, partition): (leader, isr)}; a missing state znode maps to None."""
        partitions = self.partitions if partitions is None else partitions
        pending = [(tp, self.zk.get_async("/brokers/topics/%s/partitions/%d/state" % tp)) for tp in partitions]
        out = {}
        for tp, result in pending:
            try:
                state = json.loads(result.get(timeout=60)[0])
                out[tp] = (state["leader"], state["isr"])
            except NoNodeError:
                out[tp] = None
        return out

    def close(self):
        self.zk.stop()
        self.zk.close()
