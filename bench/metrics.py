"""The cost of metrics on the produce path: two kafka-zk clusters in one run, one with metrics.enabled=true (and its
Prometheus endpoints scraped as Prometheus would) and one with metrics.enabled=false, the same produce loads on
each in turn; throughput, broker CPU and p99 produce latency side by side, as on/off ratios (the median of each
round's own ratio).

``--in-process`` measures the same path without processes or sockets, where a loaded machine blurs it less: Produce
requests (acks=1 and acks=-1, one partition of 5 records each) fed to a listener connection, its handler, a real
ReplicaManager and real logs in this process, metrics on and off alternating in small chunks; CPU microseconds per
request, Python bytecodes per request, and (where valgrind is installed) machine instructions per request."""

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from targets import (  # noqa: E402
    brokers_cpu_seconds,
    client_config,
    free_port,
    print_table,
    quiet_logger,
    timed_produce,
    unique_topic,
    wait_for_leaders,
)

from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402

BROKERS = 3
VALUE_SIZE = 100
RUN_TIMEOUT = 300.0
THROUGHPUT_CASES = [(1, 0), (-1, 0), (1, 5), (-1, 5)]  # (acks, linger.ms), batch.size 16 KiB
LATENCY_CASES = [1, -1]
WARM_UP_RECORDS = 200  # produced and delivered before a latency run's clock starts


class Cluster:
    """A LocalCluster of three brokers with metrics on (endpoints scraped every ``scrape_s``) or off."""

    def __init__(self, metrics, scrape_s, keep):
        self.metrics = metrics
        self.name = "metrics on" if metrics else "metrics off"
        self.scrape_s = scrape_s
        self.keep = keep
        self.data_dir = tempfile.mkdtemp(prefix="kz-metrics-bench-")
        self.cluster = LocalCluster(
            self.data_dir,
            brokers=BROKERS,
            zk_port=free_port(),
            broker_ports=[free_port() for _ in range(BROKERS)],
            overrides={"metrics.enabled": "true" if metrics else "false"},
            metrics_ports=[free_port() for _ in range(BROKERS)] if metrics else None,
        )
        self.scrapes = 0
        self._stopping = threading.Event()

    def start(self):
        self.cluster.start()
        if self.metrics and self.scrape_s > 0:
            threading.Thread(target=self._scrape, daemon=True).start()
        return self

    def _scrape(self):
        while not self._stopping.wait(self.scrape_s):
            for broker in self.cluster.brokers:
                try:
                    with urllib.request.urlopen(broker.metrics_url, timeout=10) as response:
                        response.read()
                    self.scrapes += 1
                except OSError:
                    pass

    @property
    def bootstrap(self):
        return self.cluster.bootstrap_servers

    def create_topic(self, partitions, min_isr):
        topic = unique_topic("metrics-bench")
        admin = AdminClient(client_config(self.bootstrap))
        new = NewTopic(topic, partitions, BROKERS, config={"min.insync.replicas": str(min_isr)})
        admin.create_topics([new], operation_timeout=30)[topic].result(40)
        wait_for_leaders(admin, topic, partitions, 30)
        return topic

    def cpu_seconds(self):
        return brokers_cpu_seconds(self.cluster)

    def stop(self):
        self._stopping.set()
        self.cluster.stop()
        if not self.keep:
            shutil.rmtree(self.data_dir, ignore_errors=True)


def producer_for(cluster, acks, linger_ms, on_delivery=None):
    config = {"acks": acks, "linger.ms": linger_ms, "batch.size": 16384, "queue.buffering.max.messages": 1000000}
    if on_delivery is not None:
        config["on_delivery"] = on_delivery
    else:
        config["delivery.report.only.error"] = True
    return Producer(client_config(cluster.bootstrap, **config), logger=quiet_logger())


def throughput_run(cluster, args, acks, linger_ms):
    """(records/s, broker CPU ms per 100,000 records) of one fresh topic and producer."""
    topic = cluster.create_topic(args.partitions, args.min_isr)
    producer = producer_for(cluster, acks, linger_ms)
    producer.list_topics(topic, timeout=10)
    cpu = cluster.cpu_seconds()
    seconds, left, note = timed_produce(producer, topic, args.records, b"v" * VALUE_SIZE, RUN_TIMEOUT)
    cpu = cluster.cpu_seconds() - cpu
    if left:
        print("  %s: %d undelivered (%s)" % (cluster.name, left, note))
    return (args.records - left) / seconds, cpu * 1000.0 * 100000 / args.records


def latency_run(cluster, args, acks):
    """p50 and p99 (ms) of produce() to delivery report, at a fixed rate with linger.ms=0 (after a warm-up that
    waits for the new topic's followers to be fetching), and the brokers' CPU ms per 100,000 records meanwhile: at
    a rate below saturation every request carries a record or two, the request path's cost per record."""
    topic = cluster.create_topic(args.partitions, args.min_isr)
    latencies, errors = [], []

    def delivered(error, message):
        if error is not None:
            errors.append(error)
        else:
            latencies.append(message.latency())

    producer = producer_for(cluster, acks, 0, delivered)
    producer.list_topics(topic, timeout=10)
    for _ in range(WARM_UP_RECORDS):
        producer.produce(topic, b"v" * VALUE_SIZE)
    producer.flush(30)
    del latencies[:]
    cpu = cluster.cpu_seconds()
    count = int(args.rate * args.seconds)
    start = time.perf_counter()
    for index in range(count):
        ahead = start + index / args.rate - time.perf_counter()
        if ahead > 0.001:
            time.sleep(ahead)
        producer.produce(topic, b"v" * VALUE_SIZE)
        producer.poll(0)
    producer.flush(30)
    cpu = cluster.cpu_seconds() - cpu
    if errors:
        print("  %s: %d delivery errors (%s)" % (cluster.name, len(errors), errors[0]))
    latencies.sort()
    return (
        latencies[len(latencies) // 2] * 1000.0,
        latencies[int(len(latencies) * 0.99)] * 1000.0,
        cpu * 1000.0 * 100000 / count,
    )


def in_process_path(enabled, directory):
    """A listener connection, the Produce handler, a real ReplicaManager and real logs (four partitions led by this
    broker alone, in ``directory``), metrics ``enabled`` or not: (protocol, transport, registry, clock)."""
    import functools

    from twisted.internet import defer
    from twisted.internet.testing import StringTransport

    from kafka_zk.common.metrics import MetricsRegistry
    from kafka_zk.log.log_config import LogConfig
    from kafka_zk.log.log_manager import LogManager
    from kafka_zk.net.request_metrics import SocketServerMetrics
    from kafka_zk.net.socket_server import KafkaServerFactory, Listener
    from kafka_zk.server.apis import Dispatcher, produce
    from kafka_zk.server.config.kafka_config import KafkaConfig
    from kafka_zk.server.config.topic_config import effective_topic_config
    from kafka_zk.server.metrics.broker_topic_stats import BrokerTopicStats
    from kafka_zk.server.quota.client_quotas import ClientQuotaManager
    from kafka_zk.server.replication.fetch_session import FetchSessionCache
    from kafka_zk.server.replication.replica_manager import ReplicaManager

    class Call:
        def __init__(self, function, args):
            self.function, self.args, self.pending = function, args, True

        def active(self):
            return self.pending

        def cancel(self):
            self.pending = False

    class Clock:
        """Wall time. A call for now (the replica manager's end-of-turn batch) runs when the request's turn ends;
        later ones (acks=all timeouts) never come due in a run this short."""

        seconds = staticmethod(time.time)

        def __init__(self):
            self.due = []

        def callLater(self, delay, function, *args):
            call = Call(function, args)
            if delay <= 0:
                self.due.append(call)
            return call

        def end_turn(self):
            due, self.due = self.due, []
            for call in due:
                if call.pending:
                    call.pending = False
                    call.function(*call.args)

    class Nothing:
        """Fetchers, log-dir mover and replication quotas of a broker with no followers."""

        leader = follower = None

        def __getattr__(self, name):
            return lambda *args, **kwargs: False

    class Topics:
        def contains_topic(self, topic):
            return True

    config = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})
    clock, registry = Clock(), MetricsRegistry(time.time, enabled=enabled)
    manager = ReplicaManager(
        1,
        LogManager([directory], LogConfig(), clock),
        lambda topic: config,
        clock,
        isr_writer=lambda partition, isr: defer.succeed(None),
        is_broker_alive=lambda broker: True,
        replication_quotas=Nothing(),
        fetch_sessions=FetchSessionCache(100),
        make_fetchers=lambda _: Nothing(),
        make_log_dir_mover=lambda _: Nothing(),
        knows_partition=lambda tp: True,
        topic_stats=BrokerTopicStats(registry),
    )
    manager.become_leader_or_follower(
        [
            {
                "topic": "t",
                "partition": p,
                "leader": 1,
                "leader_epoch": 0,
                "isr": [1],
                "replicas": [1],
                "zk_version": 0,
                "controller_epoch": 1,
            }
            for p in range(4)
        ],
        {},
    )
    handle = functools.partial(
        produce.handle,
        metadata_cache=Topics(),
        replica_manager=manager,
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
        clock=clock,
    )
    factory = KafkaServerFactory(
        Dispatcher({0: handle}), clock, 1 << 20, Listener(), SocketServerMetrics(registry, clock)
    )
    protocol, transport = factory.buildProtocol(None), StringTransport()
    protocol.makeConnection(transport)
    return protocol, transport, registry, clock


def produce_frames(acks):
    """400 Produce v8 request frames of one batch of 5 records each, over the four partitions in turn."""
    import struct

    from kafka_zk.protocol.headers import encode_request
    from kafka_zk.record.records import encode_batch

    batch = encode_batch([(None, b"v" * VALUE_SIZE)] * 5)
    frames = []
    for index in range(400):
        request = encode_request(
            0,
            8,
            index,
            "bench",
            {
                "transactional_id": None,
                "acks": acks,
                "timeout_ms": 1000,
                "topics": [{"name": "t", "partitions": [{"partition_index": index % 4, "records": batch}]}],
            },
        )
        frames.append(struct.pack(">i", len(request)) + request)
    return frames


def feed(path, frames):
    protocol, _, _, clock = path
    for frame in frames:
        protocol.dataReceived(frame)
        clock.end_turn()


def in_process(args):
    import functools

    directories = []

    def connection(enabled):
        directories.append(tempfile.mkdtemp(prefix="kz-metrics-inproc-"))
        return in_process_path(enabled, directories[-1])

    rows = []
    for acks in (1, -1):
        frames = produce_frames(acks)
        connections = {enabled: connection(enabled) for enabled in (True, False)}
        cpu = {True: 0.0, False: 0.0}
        for chunk in range(args.chunks):
            for enabled in (True, False) if chunk % 2 else (False, True):
                _, transport, registry, _ = connections[enabled]
                start = time.process_time()
                feed(connections[enabled], frames)
                cpu[enabled] += time.process_time() - start
                transport.clear()
                if enabled and chunk % 25 == 0:
                    registry.samples()  # a scrape's collection now and then, as Prometheus would
        on, off = (cpu[enabled] / (args.chunks * len(frames)) * 1e6 for enabled in (True, False))
        codes = {
            enabled: bytecodes(functools.partial(feed, connections[enabled], frames)) / len(frames)
            for enabled in (True, False)
        }
        row = [
            acks_label(acks),
            "%.1f" % on,
            "%.1f" % off,
            "%.3f" % (on / off),
            "%.0f" % codes[True],
            "%.0f" % codes[False],
            "%.3f" % (codes[True] / codes[False]),
        ]
        if shutil.which("valgrind"):
            counted = {enabled: instructions(acks, enabled) for enabled in (True, False)}
            row += ["%.0f" % counted[True], "%.0f" % counted[False], "%.3f" % (counted[True] / counted[False])]
        rows.append(row)
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)
    print(
        "in process: %d Produce requests per case and setting, CPU microseconds per request; Python bytecodes "
        "per request and, under valgrind, machine instructions per request (both load-independent)"
        % (args.chunks * 400)
    )
    print_table(
        [
            "produce path",
            "on us",
            "off us",
            "on/off",
            "on bytecodes",
            "off bytecodes",
            "on/off",
            "on instr",
            "off instr",
            "on/off",
        ][: len(rows[0])],
        rows,
    )


INSTRUCTION_RUNS = (500, 1500)  # requests fed in the two runs whose difference is counted


def instructions(acks, enabled):
    """Machine instructions per request of the in-process path, counted by valgrind's cachegrind (the one figure
    that includes the C work, the interpreter's and the libraries', and that no load moves): the difference of two
    runs of this script (``--feed``) that feed INSTRUCTION_RUNS requests after a warm-up, divided by the
    difference of their requests. Timing on arrival 50 ms after the last timed request is held off (under
    valgrind every request is that slow); the hash seed is fixed."""
    import subprocess

    environment = dict(os.environ, PYTHONHASHSEED="0")
    runs = [
        subprocess.Popen(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                "--cachegrind-out-file=/dev/null",
                sys.executable,
                __file__,
                "--feed",
                "on" if enabled else "off",
                "--acks",
                str(acks),
                "--requests",
                str(requests),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        for requests in INSTRUCTION_RUNS
    ]
    counts = []
    for run in runs:
        _, errors = run.communicate()
        found = re.search(r"I\s+refs:\s+([\d,]+)", errors)
        if run.returncode != 0 or found is None:
            raise RuntimeError("valgrind run failed: %s" % errors[-2000:])
        counts.append(int(found.group(1).replace(",", "")))
    return (counts[1] - counts[0]) / (INSTRUCTION_RUNS[1] - INSTRUCTION_RUNS[0])


def feed_only(args):
    """``--feed``: one in-process path fed ``--requests`` requests after a warm-up of 400 (for ``instructions``)."""
    import gc

    from kafka_zk.net import request_metrics

    request_metrics.TIME_AT_LEAST_EVERY_S = float("inf")
    directory = tempfile.mkdtemp(prefix="kz-metrics-feed-")
    try:
        path = in_process_path(args.feed == "on", directory)
        frames = produce_frames(args.acks)
        feed(path, frames)
        path[1].clear()
        gc.collect()
        gc.freeze()  # what the set-up left stays out of the collections that the requests' garbage triggers
        for start in range(0, args.requests, len(frames)):
            feed(path, frames[: args.requests - start])
            path[1].clear()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def bytecodes(run):
    """How many Python bytecodes run() executes (a tracer counting opcode events; the one timing figure a shared
    machine's load does not move). The request metrics' rule of timing any request that comes 50 ms after the last
    timed one is held off meanwhile: traced, everything runs far slower than 50 ms apart."""
    from kafka_zk.net import request_metrics

    count = [0]

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            count[0] += 1
        return tracer

    interval, request_metrics.TIME_AT_LEAST_EVERY_S = request_metrics.TIME_AT_LEAST_EVERY_S, float("inf")
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
        request_metrics.TIME_AT_LEAST_EVERY_S = interval
    return count[0]


def acks_label(acks):
    return "acks=all" if acks == -1 else "acks=%d" % acks


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000, help="records per throughput run")
    parser.add_argument("--rate", type=float, default=2000.0, help="records/s of the latency runs")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of a latency run")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds (on and off each, order alternating); medians are reported"
    )
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--min-isr", type=int, default=2)
    parser.add_argument(
        "--scrape-interval",
        type=float,
        default=10.0,
        help="seconds between scrapes of the metrics-on brokers (0: none)",
    )
    parser.add_argument("--keep-data", action="store_true")
    parser.add_argument("--fixed-rate-only", action="store_true", help="only the fixed-rate (latency) runs")
    parser.add_argument("--linger", type=int, action="append", help="only the throughput cases of this linger.ms")
    parser.add_argument("--in-process", action="store_true", help="only the in-process measurement")
    parser.add_argument("--chunks", type=int, default=200, help="in-process: chunks of 400 requests per setting")
    parser.add_argument("--feed", choices=("on", "off"), help=argparse.SUPPRESS)
    parser.add_argument("--acks", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--requests", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.feed:
        feed_only(args)
        return
    if args.in_process:
        in_process(args)
        return
    print(
        "%d brokers, topics of %d partitions RF %d min.insync.replicas %d; %d records of %d bytes per "
        "throughput run (batch.size 16 KiB); latency runs at %.0f records/s for %.0f s with linger.ms=0"
        % (BROKERS, args.partitions, BROKERS, args.min_isr, args.records, VALUE_SIZE, args.rate, args.seconds)
    )
    clusters = [Cluster(True, args.scrape_interval, args.keep_data), Cluster(False, 0, args.keep_data)]
    throughput = {}  # (case, cluster name) -> [(rate, cpu ms)]
    latency = {}  # (acks, cluster name) -> [(p50, p99)]
    try:
        for cluster in clusters:
            print("starting %s ..." % cluster.name)
            cluster.start()
        for round_index in range(args.rounds):
            order = clusters if round_index % 2 == 0 else clusters[::-1]
            for acks, linger in throughput_cases(args):
                for cluster in order:
                    rate, cpu = throughput_run(cluster, args, acks, linger)
                    throughput.setdefault(((acks, linger), cluster.name), []).append((rate, cpu))
                    print(
                        "  round %d %-11s %-8s linger=%dms  %9.0f rec/s  %5.0f broker CPU ms/100k records"
                        % (round_index + 1, cluster.name, acks_label(acks), linger, rate, cpu)
                    )
            for acks in LATENCY_CASES:
                for cluster in order:
                    p50, p99, cpu = latency_run(cluster, args, acks)
                    latency.setdefault((acks, cluster.name), []).append((p50, p99, cpu))
                    print(
                        "  round %d %-11s %-8s latency p50 %.2f ms p99 %.2f ms  %5.0f broker CPU ms/100k records"
                        % (round_index + 1, cluster.name, acks_label(acks), p50, p99, cpu)
                    )
    finally:
        for cluster in clusters:
            cluster.stop()
    on, off = clusters[0].name, clusters[1].name
    print()
    print("medians of %d rounds; %d scrapes of the metrics-on brokers" % (args.rounds, clusters[0].scrapes))
    print(
        "on/off: the median of each round's own ratio (its two runs ran back to back, so a machine whose speed "
        "drifts moves both alike)"
    )
    rows = []
    for case in throughput_cases(args):
        runs_on, runs_off = throughput[(case, on)], throughput[(case, off)]
        rows.append(
            [
                "%s linger=%dms" % (acks_label(case[0]), case[1]),
                "%.0f" % statistics.median(rate for rate, _ in runs_on),
                "%.0f" % statistics.median(rate for rate, _ in runs_off),
                "%.3f" % paired_ratio(runs_on, runs_off, 0),
                "%.0f" % statistics.median(cpu for _, cpu in runs_on),
                "%.0f" % statistics.median(cpu for _, cpu in runs_off),
                "%.3f" % paired_ratio(runs_on, runs_off, 1),
            ]
        )
    if rows:
        print_table(["throughput case", "on rec/s", "off rec/s", "on/off", "on CPU ms", "off CPU ms", "on/off"], rows)
        print()
    rows = []
    for acks in LATENCY_CASES:
        runs_on, runs_off = latency[(acks, on)], latency[(acks, off)]
        row = [acks_label(acks)]
        for field, form in ((0, "%.2f"), (1, "%.2f"), (2, "%.0f")):
            row += [
                form % statistics.median(run[field] for run in runs_on),
                form % statistics.median(run[field] for run in runs_off),
                "%.3f" % paired_ratio(runs_on, runs_off, field),
            ]
        rows.append(row)
    print_table(
        [
            "fixed rate (%.0f rec/s)" % args.rate,
            "on p50 ms",
            "off p50 ms",
            "on/off",
            "on p99 ms",
            "off p99 ms",
            "on/off",
            "on CPU ms",
            "off CPU ms",
            "on/off",
        ],
        rows,
    )


def throughput_cases(args):
    if args.fixed_rate_only:
        return []
    return [(acks, linger) for acks, linger in THROUGHPUT_CASES if not args.linger or linger in args.linger]


def paired_ratio(runs_on, runs_off, field):
    """The median over rounds of on/off for ``field`` of the round's two runs."""
    return statistics.median(run_on[field] / run_off[field] for run_on, run_off in zip(runs_on, runs_off))


if __name__ == "__main__":
    main()
