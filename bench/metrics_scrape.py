"""How long a Prometheus scrape of a broker with 10,000 partitions takes, and how long it holds the broker's reactor.

One broker (of a local cluster with its own ZooKeeper) leads --partitions partitions, so that its scrape holds
about 4 x partitions per-partition log samples plus everything else. The scrape is timed from the outside
(HTTP GET to the last byte), while a probe thread sends ApiVersions requests to the same broker one after another:
their round trips while a scrape runs, against the idle ones, show how long the reactor could not answer (the
registry's samples are taken on the reactor; the text is rendered in a worker thread). With --in-process the
same kind of registry (10,000 logs and led partitions, in this process) is also timed directly (samples(), the
reactor's share, and render(), the worker thread's) and served by the broker's endpoint on a reactor whose
lateness a 5 ms LoopingCall measures.

    python bench/metrics_scrape.py [--partitions 10000] [--scrapes 10] [--in-process]
"""

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

from prometheus_client.parser import text_string_to_metric_families

ROOT = str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, ROOT)
# the brokers this starts run this checkout's code too, not whatever kafka_zk the venv has installed
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))

from failover import create_topics, wait_until  # noqa: E402
from targets import free_port  # noqa: E402

from kafka_zk.client.connection import BrokerConnection  # noqa: E402
from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402

API_VERSIONS = 18


class Probe(threading.Thread):
    """ApiVersions round trips, back to back, each recorded as (start, seconds)."""

    def __init__(self, host, port):
        super().__init__(daemon=True)
        self.connection = BrokerConnection(host, port, client_id="scrape-bench-probe", timeout=60)
        self.trips = []
        self.running = True

    def run(self):
        while self.running:
            start = time.monotonic()
            self.connection.request(API_VERSIONS, {}, version=0)
            self.trips.append((start, time.monotonic() - start))
            time.sleep(0.001)

    def between(self, start, end):
        return [seconds for began, seconds in self.trips if start <= began + seconds and began <= end]

    def stop(self):
        self.running = False
        self.join(5)
        self.connection.close()


def scrape(url):
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=60) as answer:
        body = answer.read()
    return start, time.monotonic(), body


def ms(seconds):
    return "%.1f ms" % (seconds * 1000)


def real_broker(args):
    data_dir = tempfile.mkdtemp(prefix="kz-scrape-")
    cluster = LocalCluster(
        data_dir,
        brokers=1,
        zk_port=free_port(),
        broker_ports=[free_port()],
        metrics_ports=[free_port()],
        overrides={"offsets.topic.num.partitions": "1"},
    )
    probe = None
    try:
        cluster.start(timeout=args.timeout)
        broker = cluster.brokers[0]
        per_topic = args.partitions // args.topics
        topics = ["scrape-%d" % i for i in range(args.topics)]
        start = time.monotonic()
        create_topics(cluster, topics, per_topic, 1, args.timeout)
        print("%d partitions created in %.1fs" % (per_topic * args.topics, time.monotonic() - start))

        def all_led():
            samples = scrape(broker.metrics_url)[2].decode()
            for line in samples.splitlines():
                if line.startswith("kafka_server_replicamanager_leadercount "):
                    return float(line.split()[1]) >= per_topic * args.topics
            return False

        wait_until(all_led, args.timeout, "the broker to lead every partition")
        probe = Probe(broker.host, broker.port)
        probe.start()
        time.sleep(2.0)
        idle_end = time.monotonic()
        idle = probe.between(0, idle_end)
        windows, sizes = [], []
        for _ in range(args.scrapes):
            begin, end, body = scrape(broker.metrics_url)
            windows.append((begin, end))
            sizes.append(len(body))
            time.sleep(0.5)
        time.sleep(0.2)
        families = list(text_string_to_metric_families(body.decode()))
        sample_count = sum(len(family.samples) for family in families)
        durations = [end - begin for begin, end in windows]
        during = [seconds for begin, end in windows for seconds in probe.between(begin, end)]
        print(
            "scrape of one broker with %d partitions: %d families, %d samples, %.1f MB of text"
            % (per_topic * args.topics, len(families), sample_count, sizes[-1] / 1e6)
        )
        print(
            "scrape time over %d scrapes: min %s, median %s, max %s"
            % (len(durations), ms(min(durations)), ms(statistics.median(durations)), ms(max(durations)))
        )
        print(
            "ApiVersions round trip (the reactor's responsiveness): idle median %s, max %s (%d trips); "
            "during scrapes median %s, max %s (%d trips)"
            % (
                ms(statistics.median(idle)),
                ms(max(idle)),
                len(idle),
                ms(statistics.median(during)),
                ms(max(during)),
                len(during),
            )
        )
    finally:
        if probe is not None:
            probe.stop()
        cluster.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def in_process(args):
    """A registry like the broker's for ``args.partitions`` led partitions (their logs, the replica manager, the
    fetch session cache), served by the broker's PrometheusEndpoint on a reactor in this process: scrapes from a
    thread, and a LoopingCall every 5 ms on the reactor whose lateness is how long the reactor was held."""
    from twisted.internet import reactor, task, threads

    from kafka_zk.common.metrics import MetricsRegistry
    from kafka_zk.log.log_config import LogConfig
    from kafka_zk.log.log_manager import LogManager
    from kafka_zk.server import gc_policy
    from kafka_zk.server.config.kafka_config import KafkaConfig
    from kafka_zk.server.config.topic_config import effective_topic_config
    from kafka_zk.server.metrics import prometheus
    from kafka_zk.server.metrics.endpoint import PrometheusEndpoint
    from kafka_zk.server.replication.fetch_session import FetchSessionCache
    from kafka_zk.server.replication.replica_manager import ReplicaManager

    class Nothing:
        def __getattr__(self, name):
            return lambda *args, **kwargs: None

    data_dir = tempfile.mkdtemp(prefix="kz-scrape-inproc-")
    gc_policy.install(reactor)  # the broker's garbage collection policy (kafka_zk.server.main)
    try:
        registry = MetricsRegistry(clock=reactor.seconds)
        config = effective_topic_config(KafkaConfig({"zookeeper.connect": "zk"}).log_config_defaults(), {})
        logs = LogManager([data_dir], LogConfig(), reactor, metrics=registry)
        replicas = ReplicaManager(
            1,
            logs,
            lambda topic: config,
            reactor,
            isr_writer=None,
            is_broker_alive=lambda broker_id: True,
            replication_quotas=Nothing(),
            fetch_sessions=FetchSessionCache(1000, metrics=registry),
            make_fetchers=lambda changed: Nothing(),
            make_log_dir_mover=lambda get: Nothing(),
            metrics=registry,
        )
        start = time.monotonic()
        replicas.become_leader_or_follower(
            [
                {
                    "topic": "scrape-%d" % (p // 1000),
                    "partition": p % 1000,
                    "leader": 1,
                    "leader_epoch": 0,
                    "isr": [1],
                    "replicas": [1],
                    "zk_version": 0,
                    "controller_epoch": 1,
                }
                for p in range(args.partitions)
            ],
            {},
        )
        print("in process: %d logs made in %.1fs" % (args.partitions, time.monotonic() - start))
        gc_policy.freeze_startup_objects()
        taken, rendered = [], []
        for _ in range(args.scrapes):
            start = time.perf_counter()
            samples = registry.samples()
            taken.append(time.perf_counter() - start)
            start = time.perf_counter()
            prometheus.render(samples)
            rendered.append(time.perf_counter() - start)
        print(
            "in process: %d samples; samples() (on the reactor) median %s, max %s; render() (worker thread, "
            "after the first) median %s, max %s; the first render %s"
            % (
                len(samples),
                ms(statistics.median(taken)),
                ms(max(taken)),
                ms(statistics.median(rendered[1:])),
                ms(max(rendered[1:])),
                ms(rendered[0]),
            )
        )

        endpoint = PrometheusEndpoint("http://127.0.0.1:0", registry, reactor)
        lateness = []  # (time, seconds late)
        interval = 0.005
        last = [None]

        def tick():
            now = time.monotonic()
            if last[0] is not None:
                lateness.append((now, max(0.0, now - last[0] - interval)))
            last[0] = now

        ticker = task.LoopingCall(tick)
        windows = []

        def scrapes():
            time.sleep(1.0)
            url = "http://127.0.0.1:%d/metrics" % endpoint.bound_port
            for _ in range(args.scrapes):
                begin, end, _body = scrape(url)
                windows.append((begin, end))
                time.sleep(0.3)

        def run():
            endpoint.startService()
            ticker.start(interval)
            done = threads.deferToThread(scrapes)
            done.addBoth(lambda _: (ticker.stop(), endpoint.stopService(), reactor.stop()))

        reactor.callWhenRunning(run)
        reactor.run()
        durations = [end - begin for begin, end in windows]
        during = [late for at, late in lateness if any(begin <= at <= end + 0.01 for begin, end in windows)]
        idle = [late for at, late in lateness if at < windows[0][0]]
        worst = [max([late for at, late in lateness if begin <= at <= end + 0.01] or [0.0]) for begin, end in windows]
        print(
            "in process, through the endpoint: scrape median %s, max %s; reactor lateness (a 5 ms LoopingCall) "
            "idle max %s, during scrapes median %s, max %s; per scrape: %s"
            % (
                ms(statistics.median(durations)),
                ms(max(durations)),
                ms(max(idle)),
                ms(statistics.median(during)),
                ms(max(during)),
                ", ".join("%.0f/%.0f" % (d * 1000, w * 1000) for d, w in zip(durations, worst)),
            )
        )
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--partitions", type=int, default=10000)
    parser.add_argument("--topics", type=int, default=10, help="spread the partitions over this many topics")
    parser.add_argument("--scrapes", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=600.0, help="bound on every wait, seconds")
    parser.add_argument("--in-process", action="store_true", help="also time samples() and render() in process")
    parser.add_argument("--no-broker", action="store_true", help="skip the real broker")
    args = parser.parse_args()
    if args.in_process:
        in_process(args)
    if not args.no_broker:
        real_broker(args)


if __name__ == "__main__":
    main()
