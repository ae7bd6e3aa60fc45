"""The cost of metrics on the produce path: two kafka-zk clusters in one run, one with metrics.enabled=true (and its
Prometheus endpoints scraped as Prometheus would) and one with metrics.enabled=false, the same produce loads on
each in turn; throughput, broker CPU and p99 produce latency side by side, as on/off ratios."""

import argparse
import os
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

from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402
from targets import (  # noqa: E402
    client_config, free_port, print_table, quiet_logger, timed_produce, unique_topic, wait_for_leaders)

BROKERS = 3
VALUE_SIZE = 100
RUN_TIMEOUT = 300.0
THROUGHPUT_CASES = [(1, 0), (-1, 0), (1, 5), (-1, 5)]  # (acks, linger.ms), batch.size 16 KiB
LATENCY_CASES = [1, -1]


class Cluster:
    """A LocalCluster of three brokers with metrics on (endpoints scraped every ``scrape_s``) or off."""

    def __init__(self, metrics, scrape_s, keep):
        self.metrics = metrics
        self.name = "metrics on" if metrics else "metrics off"
        self.scrape_s = scrape_s
        self.keep = keep
        self.data_dir = tempfile.mkdtemp(prefix="kz-metrics-bench-")
        self.cluster = LocalCluster(
            self.data_dir, brokers=BROKERS, zk_port=free_port(), broker_ports=[free_port() for _ in range(BROKERS)],
            overrides={"metrics.enabled": "true" if metrics else "false"},
            metrics_ports=[free_port() for _ in range(BROKERS)] if metrics else None)
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
        total = 0.0
        for broker in self.cluster.brokers:
            pid = broker.pid()
            if pid is None:
                continue
            with open("/proc/%d/stat" % pid) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total

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
    """p50 and p99 (ms) of produce() to delivery report, at a fixed rate with linger.ms=0."""
    topic = cluster.create_topic(args.partitions, args.min_isr)
    latencies, errors = [], []

    def delivered(error, message):
        if error is not None:
            errors.append(error)
        else:
            latencies.append(message.latency())

    producer = producer_for(cluster, acks, 0, delivered)
    producer.list_topics(topic, timeout=10)
    count = int(args.rate * args.seconds)
    start = time.perf_counter()
    for index in range(count):
        ahead = start + index / args.rate - time.perf_counter()
        if ahead > 0.001:
            time.sleep(ahead)
        producer.produce(topic, b"v" * VALUE_SIZE)
        producer.poll(0)
    producer.flush(30)
    if errors:
        print("  %s: %d delivery errors (%s)" % (cluster.name, len(errors), errors[0]))
    latencies.sort()
    return (latencies[len(latencies) // 2] * 1000.0, latencies[int(len(latencies) * 0.99)] * 1000.0)


def acks_label(acks):
    return "acks=all" if acks == -1 else "acks=%d" % acks


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000, help="records per throughput run")
    parser.add_argument("--rate", type=float, default=2000.0, help="records/s of the latency runs")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of a latency run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (on and off each, order alternating); "
                        "medians are reported")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--min-isr", type=int, default=2)
    parser.add_argument("--scrape-interval", type=float, default=10.0,
                        help="seconds between scrapes of the metrics-on brokers (0: none)")
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    print("%d brokers, topics of %d partitions RF %d min.insync.replicas %d; %d records of %d bytes per "
          "throughput run (batch.size 16 KiB); latency runs at %.0f records/s for %.0f s with linger.ms=0"
          % (BROKERS, args.partitions, BROKERS, args.min_isr, args.records, VALUE_SIZE, args.rate, args.seconds))
    clusters = [Cluster(True, args.scrape_interval, args.keep_data), Cluster(False, 0, args.keep_data)]
    throughput = {}  # (case, cluster name) -> [(rate, cpu ms)]
    latency = {}  # (acks, cluster name) -> [(p50, p99)]
    try:
        for cluster in clusters:
            print("starting %s ..." % cluster.name)
            cluster.start()
        for round_index in range(args.rounds):
            order = clusters if round_index % 2 == 0 else clusters[::-1]
            for acks, linger in THROUGHPUT_CASES:
                for cluster in order:
                    rate, cpu = throughput_run(cluster, args, acks, linger)
                    throughput.setdefault(((acks, linger), cluster.name), []).append((rate, cpu))
                    print("  round %d %-11s %-8s linger=%dms  %9.0f rec/s  %5.0f broker CPU ms/100k records"
                          % (round_index + 1, cluster.name, acks_label(acks), linger, rate, cpu))
            for acks in LATENCY_CASES:
                for cluster in order:
                    p50, p99 = latency_run(cluster, args, acks)
                    latency.setdefault((acks, cluster.name), []).append((p50, p99))
                    print("  round %d %-11s %-8s latency p50 %.2f ms p99 %.2f ms"
                          % (round_index + 1, cluster.name, acks_label(acks), p50, p99))
    finally:
        for cluster in clusters:
            cluster.stop()
    on, off = clusters[0].name, clusters[1].name
    print()
    print("medians of %d rounds; %d scrapes of the metrics-on brokers" % (args.rounds, clusters[0].scrapes))
    rows = []
    for case in THROUGHPUT_CASES:
        on_rate = statistics.median(rate for rate, _ in throughput[(case, on)])
        off_rate = statistics.median(rate for rate, _ in throughput[(case, off)])
        on_cpu = statistics.median(cpu for _, cpu in throughput[(case, on)])
        off_cpu = statistics.median(cpu for _, cpu in throughput[(case, off)])
        rows.append(["%s linger=%dms" % (acks_label(case[0]), case[1]), "%.0f" % on_rate, "%.0f" % off_rate,
                     "%.3f" % (on_rate / off_rate), "%.0f" % on_cpu, "%.0f" % off_cpu, "%.3f" % (on_cpu / off_cpu)])
    print_table(["throughput case", "on rec/s", "off rec/s", "on/off", "on CPU ms", "off CPU ms", "on/off"], rows)
    print()
    rows = []
    for acks in LATENCY_CASES:
        on_p50 = statistics.median(p50 for p50, _ in latency[(acks, on)])
        off_p50 = statistics.median(p50 for p50, _ in latency[(acks, off)])
        on_p99 = statistics.median(p99 for _, p99 in latency[(acks, on)])
        off_p99 = statistics.median(p99 for _, p99 in latency[(acks, off)])
        rows.append([acks_label(acks), "%.2f" % on_p50, "%.2f" % off_p50, "%.3f" % (on_p50 / off_p50),
                     "%.2f" % on_p99, "%.2f" % off_p99, "%.3f" % (on_p99 / off_p99)])
    print_table(["produce latency (ms)", "on p50", "off p50", "on/off", "on p99", "off p99", "on/off"], rows)


if __name__ == "__main__":
    main()
