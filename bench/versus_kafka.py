"""kafka-zk against Apache Kafka 2.5.1 on the same machine (issue 33): every scenario on a 3-broker cluster of each,
run by run in turn, with the median of each figure, the ratio kafka-zk / Kafka and the issue's goal for it.

Scenarios (--only): produce, java, latency, requests, failover, security. Each starts its two clusters once; runs then
alternate kafka-zk, Kafka, kafka-zk, ... (failover excepted: see FailoverScenario). --quick: tiny sizes, one run.
"""

import argparse
import selectors
import socket
import statistics
import struct
import subprocess
import sys
import time
import traceback
import uuid
from collections import namedtuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import latency  # noqa: E402
import security  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402
from failover import create_partitions, failover_cases  # noqa: E402
from idle_fetch import FETCH, FETCH_VERSION, fetch_body  # noqa: E402
from java_producer_perf import CASES as JAVA_CASES  # noqa: E402
from java_producer_perf import JVM_OPTIONS, run_java  # noqa: E402
from produce_consume import consume_run  # noqa: E402
from targets import (  # noqa: E402
    KAFKA_HEAP,
    KafkaTarget,
    KafkaZkTarget,
    ZkView,  # noqa: E402
    client_config,
    per_million,
    print_table,
    produce_run,
    rss_mb,
    unique_topic,
    wait_for_leaders,
)

from kafka_zk.protocol.headers import decode_response, encode_request  # noqa: E402
from tests.java_clients import KAFKA_2_5_CLIENTS, REFERENCE_LIBS  # noqa: E402

VALUE = b"v" * 100
RUN_TIMEOUT = 300.0
# The ratio kafka-zk / Kafka a figure must reach (">=") or stay under ("<="), from the goals.
AT_LEAST_KAFKA = (">=", 1.0)
AT_MOST_KAFKA = ("<=", 1.0)
ONE_RECORD_GOAL = (">=", 0.5)
RSS_GOAL = ("<=", 0.25)
Figure = namedtuple("Figure", "name unit goal")
PRODUCE_CASES = [(1, 1, 0), (1, 1, 5), (-1, 3, 0), (-1, 3, 5)]  # (acks, replication factor, linger.ms)
# One record per ProduceRequest: librdkafka sends one partition's batch per request, and a batch holds one message.
ONE_RECORD_PRODUCE = {"acks": 1, "linger.ms": 0, "batch.num.messages": 1}
PRODUCER_PERF = "org.apache.kafka.tools.ProducerPerformance"
CONSUMER_PERF = "kafka.tools.ConsumerPerformance"
JAVA_PARTITIONS = 6
IDLE_PARTITIONS = 12
# Default sizes, and --quick's; an option given on the command line wins over both.
SIZES = {
    "repeat": (3, 1),
    "warm_up_records": (20000, 1000),
    "records": (100000, 5000),
    "java_records": (500000, 20000),
    "latency_seconds": (8.0, 2.0),
    "request_records": (20000, 2000),
    "idle_consumers": (500, 50),
    "idle_seconds": (8.0, 2.0),
    "failover_partitions": (10000, 60),
    "security_records": (100000, 5000),
    "security_seconds": (5.0, 2.0),
}


def median(values):
    """The median of the values that are numbers (a failed run gives None); None when there are none."""
    numbers = [value for value in values if value is not None and value == value]
    return statistics.median(numbers) if numbers else None


def ratio_of(ours, theirs):
    """kafka-zk's figure over Kafka's, None when either is missing or Kafka's is 0."""
    if ours is None or theirs is None or theirs == 0:
        return None
    return ours / theirs


def goal_text(goal):
    return "-" if goal is None else "%s %g" % goal


def goal_met(ratio, goal):
    """ "yes" or "NO" for a ratio against a goal, "-" when there is no goal or no ratio."""
    if goal is None or ratio is None:
        return "-"
    operator, bound = goal
    return "yes" if (ratio >= bound if operator == ">=" else ratio <= bound) else "NO"


def shown(value):
    """A figure with as many decimals as its size needs."""
    if value is None:
        return "-"
    if abs(value) >= 100:
        return "{:,.0f}".format(value)
    return "%.2f" % value if abs(value) >= 1 else "%.3f" % value


def summary_rows(runs, names=("kafka-zk", "kafka")):
    """Table rows of every figure, in the order the runs first gave them: name, unit, the median of each target's
    runs, the ratio kafka-zk / Kafka, the goal and whether it is met. ``runs``: {target name: [{Figure: value}]}."""
    figures = []
    for name in names:
        for run in runs.get(name, []):
            figures.extend(figure for figure in run if figure not in figures)
    rows = []
    for figure in figures:
        ours, theirs = (median([run.get(figure) for run in runs.get(name, [])]) for name in names)
        ratio = ratio_of(ours, theirs)
        rows.append(
            [
                figure.name,
                figure.unit,
                shown(ours),
                shown(theirs),
                "-" if ratio is None else "%.2f" % ratio,
                goal_text(figure.goal),
                goal_met(ratio, figure.goal),
            ]
        )
    return rows


def print_summary(title, runs):
    counts = ", ".join("%s %d" % (name, len(runs.get(name, []))) for name in ("kafka-zk", "kafka"))
    print("\n%s (medians; runs: %s)" % (title, counts))
    print_table(["figure", "unit", "kafka-zk", "kafka", "kz/kafka", "goal", "met"], summary_rows(runs))


def consumer_perf_figures(output):
    """Kafka's ConsumerPerformance prints a header and one line of comma-separated figures: {header: value} of the
    last such line (the times as text, the rest as numbers)."""
    lines = [line for line in output.splitlines() if line.count(",") >= 9]
    header = [name.strip() for name in lines[0].split(",")]
    values = [value.strip() for value in lines[-1].split(",")]
    return {name: (value if name.endswith("time") else float(value)) for name, value in zip(header, values)}


def brokers_rss(target):
    """Each running broker's RSS in MiB (kafka-zk: the Python processes; Kafka: the JVMs)."""
    figures = {}
    for broker in target.cluster.brokers:
        pid = broker.pid()
        if pid is not None:
            figures[Figure("RSS broker %d" % broker.broker_id, "MiB", RSS_GOAL)] = rss_mb(pid)
    return figures


def cpu_since(target, before):
    return target.broker_cpu_seconds() - before


def min_insync(replication_factor):
    return {"min.insync.replicas": "2"} if replication_factor == 3 else None


def warm_up(target, records):
    """Produce ``records`` one-record requests (acks=all, RF 3, linger 0) and read them back, unmeasured: Kafka's JVMs
    start cold, and their first requests run interpreted while their JIT compilers take CPU from everything else."""
    topic = unique_topic("vs-warm-up")
    target.create_topic(topic, 4, 3)
    produce_run(target.bootstrap_servers, topic, records, VALUE, {"acks": -1, "linger.ms": 0}, RUN_TIMEOUT)
    consume_run(target.bootstrap_servers, topic, 4)


def plain_targets(args, overrides=None):
    return [KafkaZkTarget(None, args.keep_data, overrides), KafkaTarget(args.keep_data, overrides)]


class Scenario:
    """One group of figures: its two clusters (made by targets()), started once; prepare() once per cluster, run()
    once per run, giving {Figure: value}; finish() before the cluster stops."""

    name = ""
    alternate = True  # runs alternate between the two clusters, both up for the whole scenario
    rss = False  # each broker's RSS after every run
    warm_up = True  # warm_up() each cluster before its first run

    def targets(self, args):
        return plain_targets(args)

    def prepare(self, target, args):
        pass

    def run(self, target, args):
        raise NotImplementedError

    def finish(self, target):
        pass


class ProduceScenario(Scenario):
    """confluent-kafka producing --records 100-byte values (acks=1 RF 1, acks=all RF 3 min.insync.replicas 2; linger
    0 and 5), then reading the last topic back; records/s and broker CPU seconds per million records."""

    name = "produce"
    rss = True

    def run(self, target, args):
        figures = {}
        topic = None
        for acks, replication_factor, linger in PRODUCE_CASES:
            label = "produce acks=%s RF %d linger %d" % ("all" if acks == -1 else acks, replication_factor, linger)
            topic = unique_topic("vs-produce")
            target.create_topic(topic, args.partitions, replication_factor, config=min_insync(replication_factor))
            before = target.broker_cpu_seconds()
            seconds, missing, why = produce_run(
                target.bootstrap_servers, topic, args.records, VALUE, {"acks": acks, "linger.ms": linger}, RUN_TIMEOUT
            )
            cpu = cpu_since(target, before)
            delivered = args.records - missing
            if why:
                print("    %s %s: %d undelivered (%s)" % (target.name, label, missing, why))
            figures[Figure(label, "rec/s", AT_LEAST_KAFKA)] = delivered / seconds
            figures[Figure(label + " broker CPU", "s/M rec", None)] = per_million(cpu, delivered)
        before = target.broker_cpu_seconds()
        seconds, count, expected = consume_run(target.bootstrap_servers, topic, args.partitions)
        cpu = cpu_since(target, before)
        figures[Figure("consume from beginning", "rec/s", AT_LEAST_KAFKA)] = count / seconds
        figures[Figure("consume broker CPU", "s/M rec", None)] = per_million(cpu, count)
        return figures


class JavaScenario(Scenario):
    """Kafka 2.5.1's own ProducerPerformance (acks=all linger.ms 5 batch.size 64 KiB, RF 3 min.insync.replicas 2)
    and ConsumerPerformance (a group of one reading the same records) from build/kafka-2.5.1/libs."""

    name = "java"

    def run(self, target, args):
        topic = unique_topic("vs-java")
        target.create_topic(topic, JAVA_PARTITIONS, 3, config=min_insync(3))
        classpath = "%s/*" % REFERENCE_LIBS
        before = target.broker_cpu_seconds()
        produced, _, _ = run_java(
            classpath,
            target.bootstrap_servers,
            topic,
            args.java_records,
            None,
            JAVA_CASES["rf3"][2],
            RUN_TIMEOUT,
            main_class=PRODUCER_PERF,
            logging_option=KAFKA_2_5_CLIENTS.logging_option,
        )
        produce_cpu = cpu_since(target, before)
        before = target.broker_cpu_seconds()
        consumed = self.consumer_perf(target.bootstrap_servers, topic, args.java_records)
        consume_cpu = cpu_since(target, before)
        print(
            "    %-8s ProducerPerformance %.0f rec/s p99 %d ms; ConsumerPerformance %.0f rec/s"
            % (target.name, produced["rec_s"], produced["p99"], consumed["nMsg.sec"])
        )
        # Its rebalance.time.ms and fetch.* columns are wrong in 2.5.1 (join time measured from 0: about -1.8e12 ms
        # on either cluster), so the rate is the whole run's, the group join included.
        return {
            Figure("ProducerPerformance acks=all RF 3", "rec/s", AT_LEAST_KAFKA): produced["rec_s"],
            Figure("ProducerPerformance p99", "ms", AT_MOST_KAFKA): produced["p99"],
            Figure("ProducerPerformance broker CPU", "s/M rec", None): per_million(produce_cpu, produced["records"]),
            Figure("ConsumerPerformance (group join included)", "rec/s", AT_LEAST_KAFKA): consumed["nMsg.sec"],
            Figure("ConsumerPerformance broker CPU", "s/M rec", None): per_million(
                consume_cpu, consumed["data.consumed.in.nMsg"]
            ),
        }

    @staticmethod
    def consumer_perf(bootstrap, topic, records):
        command = (
            ["java"]
            + JVM_OPTIONS
            + [
                KAFKA_2_5_CLIENTS.logging_option,
                "-cp",
                "%s/*" % REFERENCE_LIBS,
                CONSUMER_PERF,
                "--bootstrap-server",
                bootstrap,
                "--topic",
                topic,
                "--messages",
                str(records),
                "--group",
                "vs-" + uuid.uuid4().hex,
                "--timeout",
                "30000",
            ]
        )
        done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        if done.returncode != 0:
            raise RuntimeError("ConsumerPerformance failed (exit %d): %s" % (done.returncode, done.stderr[-2000:]))
        return consumer_perf_figures(done.stdout)


class LatencyScenario(Scenario):
    """bench/latency.py's paced producer and consumer, acks=all RF 3, linger 0, at each --latency-rates."""

    name = "latency"

    def run(self, target, args):
        figures = {}
        for rate in args.latency_rates:
            settings = argparse.Namespace(
                partitions=args.partitions,
                replication_factor=3,
                fetch_wait_ms=5,
                linger_ms=0,
                rate=rate,
                warmup=1.0,
                seconds=args.latency_seconds,
                tick_ms=1.0,
            )
            result, _ = latency.run_case(target, settings, -1)
            for name in ("p50", "p99", "p99.9"):
                goal = AT_MOST_KAFKA if name == "p99" else None
                figures[Figure("latency %d msg/s %s" % (rate, name), "ms", goal)] = result[name]
        return figures


class IdleFetchers:
    """``count`` consumers of empty partitions, each on a connection of its own to its partition's leader, sending a
    sessionless Fetch that the leader parks for up to ``max_wait_ms`` and sending it again as soon as it is
    answered: what an idle consumer does. Counts the answers."""

    def __init__(self, leaders, count, max_wait_ms):
        """``leaders``: {(topic, partition): (host, port)}."""
        self.selector = selectors.DefaultSelector()
        self.connections = []
        partitions = sorted(leaders)
        for index in range(count):
            partition = partitions[index % len(partitions)]
            payload = encode_request(
                FETCH, FETCH_VERSION, index, "idle-consumer", fetch_body(0, -1, {partition: 0}, max_wait_ms)
            )
            sock = socket.create_connection(leaders[partition], timeout=30)
            sock.setblocking(False)
            connection = {"socket": sock, "request": struct.pack(">i", len(payload)) + payload, "buffer": b""}
            self.selector.register(sock, selectors.EVENT_READ, connection)
            self.connections.append(connection)
        self.answers = 0
        self.errors = []
        self.checked = set()

    def run(self, seconds):
        """Keep every consumer fetching for ``seconds``; the answers that came in that time."""
        first = self.answers
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for key, _ in self.selector.select(timeout=max(0.0, deadline - time.monotonic())):
                self._read(key.data)
        return self.answers - first

    def start(self):
        for connection in self.connections:
            connection["socket"].sendall(connection["request"])

    def _read(self, connection):
        data = connection["socket"].recv(65536)
        if not data:
            raise ConnectionError("a broker closed an idle consumer's connection")
        buffer = connection["buffer"] + data
        while len(buffer) >= 4 and len(buffer) >= 4 + struct.unpack_from(">i", buffer)[0]:
            size = struct.unpack_from(">i", buffer)[0]
            frame, buffer = buffer[4 : 4 + size], buffer[4 + size :]
            self.answers += 1
            if id(connection) not in self.checked:  # the first answer on each connection is decoded and checked
                self.checked.add(id(connection))
                self._check(decode_response(FETCH, FETCH_VERSION, frame)[1])
            connection["socket"].sendall(connection["request"])
        connection["buffer"] = buffer

    def _check(self, answer):
        codes = {answer["error_code"]} | {
            partition["error_code"] for topic in answer["responses"] for partition in topic["partitions"]
        }
        if codes != {0}:
            self.errors.append(sorted(codes))

    def close(self):
        for connection in self.connections:
            connection["socket"].close()
        self.selector.close()


class RequestScenario(Scenario):
    """The cost of a small request: Produce requests of one record each (acks=1, RF 1, one message per batch), and
    the empty Fetches of --idle-consumers idle consumers (RF 1 partitions): requests/s served and broker CPU
    seconds per million requests."""

    name = "requests"

    def run(self, target, args):
        topic = unique_topic("vs-one-record")
        target.create_topic(topic, args.partitions, 1)
        before = target.broker_cpu_seconds()
        seconds, missing, why = produce_run(
            target.bootstrap_servers, topic, args.request_records, VALUE, ONE_RECORD_PRODUCE, RUN_TIMEOUT
        )
        cpu = cpu_since(target, before)
        delivered = args.request_records - missing
        if why:
            print("    %s one-record produce: %d undelivered (%s)" % (target.name, missing, why))
        served, fetch_cpu, errors = self.idle_fetches(target, args)
        print(
            "    %-8s one-record Produce %.0f req/s, %.0f s/M; idle Fetch %.0f answers/s, %.0f s/M%s"
            % (
                target.name,
                delivered / seconds,
                per_million(cpu, delivered),
                served / args.idle_seconds,
                per_million(fetch_cpu, served),
                "; errors %s" % errors if errors else "",
            )
        )
        return {
            Figure("one-record Produce requests (acks=1)", "req/s", ONE_RECORD_GOAL): delivered / seconds,
            Figure("one-record Produce broker CPU", "s/M req", None): per_million(cpu, delivered),
            Figure("idle Fetches (%d consumers) served" % args.idle_consumers, "req/s", None): served
            / args.idle_seconds,
            Figure("idle Fetch broker CPU", "s/M req", None): per_million(fetch_cpu, served),
        }

    @staticmethod
    def idle_fetches(target, args):
        """(answers in --idle-seconds, broker CPU seconds in that time, error codes seen) after one warm-up second."""
        topic = unique_topic("vs-idle")
        target.create_topic(topic, IDLE_PARTITIONS, 1)
        # A fresh client may ask a broker that has not learnt of the topic yet: wait for its leaders too.
        admin = AdminClient(client_config(target.bootstrap_servers))
        partitions = wait_for_leaders(admin, topic, IDLE_PARTITIONS, 30.0).partitions
        addresses = {broker.id: (broker.host, broker.port) for broker in admin.list_topics(timeout=10).brokers.values()}
        leaders = {(topic, index): addresses[partition.leader] for index, partition in partitions.items()}
        fetchers = IdleFetchers(leaders, args.idle_consumers, args.idle_max_wait_ms)
        try:
            fetchers.start()
            fetchers.run(1.0)
            before = target.broker_cpu_seconds()
            served = fetchers.run(args.idle_seconds)
            return served, cpu_since(target, before), fetchers.errors
        finally:
            fetchers.close()


class FailoverScenario(Scenario):
    """bench/failover.py's cases at --failover-partitions (RF 3, 10 topics): controller kill -9, leader kill -9,
    SIGTERM, and the restart after the controller kill to full ISRs. Not alternated: the cluster not under test
    would spend its idle replication of as many partitions on the same two cores, so each cluster runs its runs
    alone (kafka-zk's first)."""

    name = "failover"
    alternate = False
    rss = True
    warm_up = False  # creating the partitions is warm-up enough, and no run sends many requests
    TOPICS = 10

    def __init__(self):
        self.views = {}

    def targets(self, args):
        return plain_targets(args, {"zookeeper.session.timeout.ms": args.session_timeout_ms})

    def settings(self, args):
        return argparse.Namespace(replication_factor=3, timeout=600.0, producer_rate=1000, no_clean=False)

    def topics(self, args):
        return ["failover-%d" % index for index in range(self.TOPICS)], max(1, args.failover_partitions // self.TOPICS)

    def prepare(self, target, args):
        topics, per_topic = self.topics(args)
        view = ZkView(target.cluster.zk_connect, [(topic, index) for topic in topics for index in range(per_topic)])
        self.views[target.name] = view
        create_partitions(target.cluster, view, topics, per_topic, self.settings(args))

    def run(self, target, args):
        topics, _ = self.topics(args)
        cases = failover_cases(
            target.cluster, self.views[target.name], topics, self.settings(args), args.session_timeout_ms / 1000.0
        )
        return {
            Figure("controller kill -9: leaders in Metadata", "s", AT_MOST_KAFKA): cases["controller"]["metadata"],
            Figure("leader kill -9: leaders in Metadata", "s", AT_MOST_KAFKA): cases["leader"]["metadata"],
            Figure("SIGTERM: leaders in Metadata", "s", AT_MOST_KAFKA): cases["clean"]["metadata"],
            Figure("restart after kill -9 to full ISR", "s", AT_MOST_KAFKA): sum(cases["restart"]),
        }

    def finish(self, target):
        view = self.views.pop(target.name, None)
        if view is not None:
            view.close()


class SecurityScenario(Scenario):
    """bench/security.py on both: PLAINTEXT and SASL_SSL (SCRAM-SHA-512 over TLS) listeners of the same brokers,
    produce acks=1 and acks=all, consume, latency acks=all at --security-rate."""

    name = "security"

    def targets(self, args):
        return [security.SecureKafkaZkTarget(args.keep_data), security.SecureKafkaTarget(args.keep_data)]

    def run(self, target, args):
        settings = argparse.Namespace(
            records=args.security_records,
            linger_ms=5,
            batch_size=16384,
            rate=args.security_rate,
            seconds=args.security_seconds,
            warmup=1.0,
            latency_linger_ms=1,
            fetch_wait_ms=5,
            partitions=args.partitions,
            replication_factor=3,
            repeat=1,
        )
        runs, _ = security.bench(target, settings)
        figures = {}
        for protocol in security.PROTOCOLS:
            for measure, by_protocol in runs.items():
                (values,) = by_protocol[protocol]
                label = "%s %s" % (protocol, measure)
                if "rate" in values:
                    figures[Figure(label, "rec/s", AT_LEAST_KAFKA)] = values["rate"]
                else:
                    figures[Figure(label + " p99", "ms", AT_MOST_KAFKA)] = values["p99"]
                figures[Figure(label + " broker CPU", "s/M rec", None)] = values["cpu"]
        return figures


SCENARIOS = {
    scenario.name: scenario
    for scenario in (
        ProduceScenario,
        JavaScenario,
        LatencyScenario,
        RequestScenario,
        FailoverScenario,
        SecurityScenario,
    )
}


def run_scenario(scenario, args):
    """{target name: [{Figure: value} of each run]}; a run that fails is reported and left out."""
    targets = scenario.targets(args)
    runs = {target.name: [] for target in targets}
    batches = [targets] if scenario.alternate else [[target] for target in targets]
    for batch in batches:
        started = []
        try:
            for target in batch:
                print("starting %s for %s ..." % (target.name, scenario.name))
                started.append(target.start())
                if scenario.warm_up:
                    warm_up(target, args.warm_up_records)
                scenario.prepare(target, args)
            for number in range(args.repeat):
                for target in batch:
                    start = time.monotonic()
                    try:
                        figures = scenario.run(target, args)
                    except Exception:
                        print("  %s run %d FAILED:\n%s" % (target.name, number + 1, traceback.format_exc(limit=4)))
                        continue
                    if scenario.rss:
                        figures.update(brokers_rss(target))
                    runs[target.name].append(figures)
                    print("  %s %s run %d: %.0f s" % (scenario.name, target.name, number + 1, time.monotonic() - start))
        except Exception:
            print("%s: %s\n%s" % (scenario.name, "could not start or prepare", traceback.format_exc(limit=6)))
        finally:
            for target in started:
                scenario.finish(target)
                target.stop()
    return runs


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated scenarios (default all): %s" % ", ".join(SCENARIOS))
    parser.add_argument("--quick", action="store_true", help="tiny sizes and one run: a smoke run")
    parser.add_argument("--repeat", type=int, help="runs per target; medians (default 3, --quick 1)")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the produce/latency/security topics")
    parser.add_argument("--records", type=int, help="produce: records per case (default 100,000)")
    parser.add_argument("--java-records", type=int, help="java: records per run (default 500,000)")
    parser.add_argument("--latency-rates", default="1000,10000", help="latency: msg/s, comma-separated")
    parser.add_argument("--latency-seconds", type=float, help="latency: measured seconds per rate (default 8)")
    parser.add_argument("--request-records", type=int, help="requests: one-record Produce requests (default 20,000)")
    parser.add_argument("--idle-consumers", type=int, help="requests: idle consumers (default 500)")
    parser.add_argument("--idle-seconds", type=float, help="requests: idle Fetch window (default 8)")
    parser.add_argument("--idle-max-wait-ms", type=int, default=500, help="requests: idle Fetch max wait")
    parser.add_argument("--failover-partitions", type=int, help="failover: partitions, RF 3 (default 10,000)")
    parser.add_argument("--session-timeout-ms", type=int, default=6000, help="failover: brokers' ZooKeeper session")
    parser.add_argument("--security-records", type=int, help="security: records per produce run (default 100,000)")
    parser.add_argument("--security-seconds", type=float, help="security: latency seconds (default 5)")
    parser.add_argument("--security-rate", type=float, default=5000.0, help="security: latency msg/s")
    parser.add_argument(
        "--warm-up-records", type=int, help="unmeasured acks=all records sent to each new cluster (default 20,000)"
    )
    parser.add_argument("--keep-data", action="store_true", help="keep the clusters' temp dirs (broker logs)")
    args = parser.parse_args(argv)
    for name, (default, quick) in SIZES.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else default)
    args.latency_rates = [int(rate) for rate in args.latency_rates.split(",")]
    args.only = [name.strip() for name in args.only.split(",")] if args.only else list(SCENARIOS)
    unknown = [name for name in args.only if name not in SCENARIOS]
    if unknown:
        parser.error("unknown scenarios %s (known: %s)" % (", ".join(unknown), ", ".join(SCENARIOS)))
    return args


def main():
    args = parse_args()
    print(
        "kafka-zk against Apache Kafka 2.5.1 (3 JVM brokers, heap %s), 3 brokers each on its own ZooKeeper; "
        "%d run(s) per target; scenarios: %s" % (" ".join(KAFKA_HEAP), args.repeat, ", ".join(args.only))
    )
    start = time.monotonic()
    everything = {"kafka-zk": [], "kafka": []}
    for name in args.only:
        scenario_start = time.monotonic()
        runs = run_scenario(SCENARIOS[name](), args)
        print_summary("%s, %.0f s" % (name, time.monotonic() - scenario_start), runs)
        for target, target_runs in runs.items():
            everything[target].append(target_runs)
    if len(args.only) > 1:
        merged = {target: merge_runs(groups) for target, groups in everything.items()}
        print_summary("all scenarios, %.0f s" % (time.monotonic() - start), merged)
    print("kz/kafka: kafka-zk's median over Kafka's; goal: what the issue asks of that ratio")


def merge_runs(groups):
    """Runs of several scenarios as one list of runs: run i holds every scenario's figures of its run i."""
    merged = []
    for runs in groups:
        for index, figures in enumerate(runs):
            if index == len(merged):
                merged.append({})
            merged[index].update(figures)
    return merged


if __name__ == "__main__":
    main()
