"""Broker CPU seconds per million records for produce cases (acks, replication factor, linger, codec) on 3 kafka-zk
brokers, optionally against brokers run from a baseline tree in the same run, and where the brokers' time goes."""

import argparse
import itertools
import math
import pstats
import random
import resource
import signal
import statistics
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import namedtuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from confluent_kafka.admin import AdminClient  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402
from targets import (  # noqa: E402
    KafkaZkTarget,
    client_config,
    is_checkout,
    produce_run,
    unique_topic,
    wait_for_high_watermarks,
)

TREE = Path(__file__).resolve().parent.parent
VALUE_SIZE = 100
RUN_TIMEOUT = 300.0
PROFILE_VARIABLE = "KAFKA_ZK_PROFILE"  # kafka_zk/server/main.py run_reactor
REQUESTS_SAMPLE = "kafka_network_requestmetrics_requests_total"  # RequestsPerSec's count, per request and version
ACKS = {"0": 0, "1": 1, "all": -1, "-1": -1}
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")

Case = namedtuple("Case", "acks replication_factor linger codec")


def case_label(case):
    return "acks=%s RF %d linger %d %s" % (
        "all" if case.acks == -1 else case.acks,
        case.replication_factor,
        case.linger,
        case.codec,
    )


def default_cases():
    """Every acks x RF at linger 5 without compression; then, at acks=all RF 3, linger 0 and 20 and each codec."""
    cases = [Case(acks, rf, 5, "none") for acks in (0, 1, -1) for rf in (1, 3)]
    cases += [Case(-1, 3, linger, "none") for linger in (0, 20)]
    cases += [Case(-1, 3, 5, codec) for codec in CODECS[1:]]
    return cases


def chosen_cases(args):
    """The default matrix, or the product of the lists given (--acks, --rf, --linger, --codec; an axis not given
    stays at acks=all, RF 3, linger 5, none)."""
    if not (args.acks or args.rf or args.linger or args.codec):
        return default_cases()
    acks = [ACKS[item] for item in (args.acks or "all").split(",")]
    rfs = [int(item) for item in (args.rf or "3").split(",")]
    lingers = [int(item) for item in (args.linger or "5").split(",")]
    codecs = (args.codec or "none").split(",")
    return [Case(*values) for values in itertools.product(acks, rfs, lingers, codecs)]


def record_value():
    """One 100-byte value of random upper-case letters, sent as every record (as Kafka's ProducerPerformance
    does with its payload), so that compressed cases compress like a real payload repeated."""
    rng = random.Random(22)
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(VALUE_SIZE)).encode()


def request_counts(metrics_text):
    """{request name: requests so far} in one Prometheus scrape of a broker (all versions summed)."""
    counts = {}
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            if sample.name == REQUESTS_SAMPLE:
                name = sample.labels.get("request")
                counts[name] = counts.get(name, 0) + sample.value
    return counts


def client_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Side:
    """One 3-broker kafka-zk cluster whose brokers run from `tree` (PYTHONPATH), and its runs' figures."""

    def __init__(self, name, tree, args, environment=None):
        self.name = name
        self.tree = Path(tree).resolve()
        self.target = KafkaZkTarget(
            keep_data=args.keep_data, metrics=True, environment=dict(environment or {}, PYTHONPATH=str(self.tree))
        )
        self.profiled = PROFILE_VARIABLE in (environment or {})
        # case -> [(records/s, broker CPU s per 1M, client CPU s per 1M, records per Produce request,
        #           Fetch requests per 1M records)]
        self.runs = {}

    def start(self):
        commit = (
            subprocess.run(
                ["git", "-C", str(self.tree), "describe", "--always", "--dirty"], capture_output=True, text=True
            ).stdout.strip()
            or "?"
        )
        print("starting the %s cluster (brokers from %s, commit %s) ..." % (self.name, self.tree, commit), flush=True)
        self.target.start()
        return self

    def idle_cpu_share(self, seconds=2.0):
        """Share of a core the three brokers use together while nothing is produced."""
        before = self.target.broker_cpu_seconds()
        time.sleep(seconds)
        return (self.target.broker_cpu_seconds() - before) / seconds

    def prepare(self, case, args):
        """A fresh topic with the case's layout, its followers settled; returns its name."""
        topic = unique_topic("cpu")
        self.target.create_topic(
            topic,
            args.partitions,
            case.replication_factor,
            {"min.insync.replicas": str(min(2, case.replication_factor))},
        )
        time.sleep(args.settle)
        return topic

    def warm_up(self, case, args, value):
        """One uncounted run: the first high-watermark check creates __consumer_offsets (its consumer has a
        group.id) and the first requests of each kind build their codecs."""
        self.run(case, args, value, records=min(args.records, 50000), label="warm-up")

    def run(self, case, args, value, records=None, label=None):
        """Produce the case once on a fresh topic; CPU is counted from the first record until the high
        watermarks cover every record (all in-sync replicas have them). Returns the run's figures."""
        records = records or args.records
        topic = self.prepare(case, args)
        bootstrap = self.target.bootstrap_servers
        settings = {"acks": case.acks, "linger.ms": case.linger, "compression.type": case.codec}
        if args.batch_size:
            settings["batch.size"] = args.batch_size
        requests_start = self.request_counts()
        self.signal_brokers(signal.SIGUSR2)  # brokers under cProfile start their profiles afresh
        broker_start, client_start = self.target.broker_cpu_seconds(), client_cpu_seconds()
        seconds, missing, error = produce_run(bootstrap, topic, records, value, settings, RUN_TIMEOUT)
        delivered = max(records - missing, 1)
        high_watermarks, waited, min_isr = wait_for_high_watermarks(bootstrap, topic, delivered)
        broker_cpu = self.target.broker_cpu_seconds() - broker_start
        client_cpu = client_cpu_seconds() - client_start
        self.signal_brokers(signal.SIGUSR1)  # and stop gathering
        requests_end = self.request_counts()
        produces, fetches = (requests_end.get(name, 0) - requests_start.get(name, 0) for name in ("Produce", "Fetch"))
        counted = bool(requests_start and requests_end)  # nan: the brokers serve no metrics
        figures = (
            delivered / seconds,
            broker_cpu * 1e6 / delivered,
            client_cpu * 1e6 / delivered,
            delivered / max(produces, 1) if counted else math.nan,
            fetches * 1e6 / delivered if counted else math.nan,
        )
        print(
            "  %-7s %-30s %7.0f rec/s  broker CPU %5.2f s (%5.2f s per 1M)  %5d Produce, %5d Fetch requests  "
            "high watermarks %d (+%.2fs), min ISR %d%s"
            % (
                label or self.name,
                case_label(case),
                figures[0],
                broker_cpu,
                figures[1],
                produces,
                fetches,
                high_watermarks,
                waited,
                min_isr,
                "; %d undelivered (%s)" % (missing, error) if missing else "",
            ),
            flush=True,
        )
        self.delete(topic)
        return figures

    def request_counts(self):
        """{request name: requests} the three brokers have answered so far (their Prometheus endpoints); empty
        when a broker does not serve them (a tree from before the metrics)."""
        total = {}
        for broker in self.target.cluster.brokers:
            try:
                with urllib.request.urlopen(broker.metrics_url, timeout=10) as response:
                    text = response.read().decode()
            except OSError:
                return {}
            for name, count in request_counts(text).items():
                total[name] = total.get(name, 0) + count
        return total

    def signal_brokers(self, signum):
        if self.profiled:
            for broker in self.target.cluster.brokers:
                broker.signal(signum)

    def delete(self, topic, timeout=30.0):
        """Delete the run's topic (so every run finds the same cluster) and wait until it has gone."""
        admin = AdminClient(client_config(self.target.bootstrap_servers))
        admin.delete_topics([topic], operation_timeout=timeout)[topic].result(timeout)
        deadline = time.monotonic() + timeout
        while topic in admin.list_topics(timeout=10).topics and time.monotonic() < deadline:
            time.sleep(0.1)

    def stop(self):
        self.target.stop()


def median_of(runs, index):
    return statistics.median(run[index] for run in runs)


def spread(runs, index, fmt):
    values = [run[index] for run in runs]
    if len(values) == 1:
        return fmt % values[0]
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(values), min(values), max(values))


def print_results(cases, sides):
    """Medians per case ([min-max] of the runs for the CPU), one column group per side, ratios after / before."""
    print()
    if len(sides) == 1:
        (side,) = sides
        print(
            "%-30s %9s %24s %8s %12s %12s"
            % ("case", "rec/s", "broker CPU s per 1M", "client", "rec/Produce", "Fetch per 1M")
        )
        for case in cases:
            runs = side.runs[case]
            print(
                "%-30s %9.0f %24s %8.2f %12.0f %12.0f"
                % (
                    case_label(case),
                    median_of(runs, 0),
                    spread(runs, 1, "%.2f"),
                    median_of(runs, 2),
                    median_of(runs, 3),
                    median_of(runs, 4),
                )
            )
        print(
            "client: the bench process's CPU s per 1M; rec/Produce: records per Produce request; Fetch per 1M: "
            "Fetch requests (followers' and the bench's) per 1M records"
        )
        return
    before, after = sides
    print(
        "%-30s %9s %9s %6s %22s %22s %6s %13s %15s"
        % (
            "case",
            "before/s",
            "after/s",
            "ratio",
            "before CPU s/1M",
            "after CPU s/1M",
            "ratio",
            "rec/Produce",
            "Fetch per 1M",
        )
    )
    for case in cases:
        old, new = before.runs[case], after.runs[case]
        print(
            "%-30s %9.0f %9.0f %6.2f %22s %22s %6.2f %6.0f %6.0f %7.0f %7.0f"
            % (
                case_label(case),
                median_of(old, 0),
                median_of(new, 0),
                median_of(new, 0) / median_of(old, 0),
                spread(old, 1, "%.2f"),
                spread(new, 1, "%.2f"),
                median_of(new, 1) / median_of(old, 1),
                median_of(old, 3),
                median_of(new, 3),
                median_of(old, 4),
                median_of(new, 4),
            )
        )
    print(
        "ratio: after / before (rec/s: higher is better; CPU: lower is better); [min-max] of the runs; "
        "rec/Produce: records per Produce request, Fetch per 1M: Fetch requests per 1M records (before, after)"
    )


def top_functions(stats, limit):
    """[(own seconds, cumulative seconds, calls, "file:line(function)")] of the `limit` functions with the most
    own time in a pstats.Stats, most first."""
    rows = []
    for (filename, line, function), (_, calls, own, cumulative, _) in stats.stats.items():
        rows.append((own, cumulative, calls, "%s:%d(%s)" % (short_path(filename), line, function)))
    rows.sort(key=lambda row: row[0], reverse=True)
    return rows[:limit]


def short_path(filename):
    """A module's path from its package root (kafka_zk/..., twisted/...) rather than the whole path."""
    parts = Path(filename).parts
    for root in ("kafka_zk", "twisted", "kazoo", "site-packages", "lib"):
        if root in parts:
            index = len(parts) - 1 - parts[::-1].index(root)
            return "/".join(parts[index + (root in ("site-packages", "lib")) :])
    return filename


def profile(case, args, value):
    """Run `case` once on brokers under cProfile (the profile reset just before the first record) and print the
    functions with the most own time, summed over the three brokers."""
    folder = Path(args.profile_dir or tempfile.mkdtemp(prefix="kafka-zk-profile-"))
    side = Side("profile", TREE, args, environment={PROFILE_VARIABLE: str(folder)}).start()
    try:
        side.warm_up(case, args, value)
        side.run(case, args, value, records=args.profile_records or args.records)
    finally:
        side.stop()
    paths = sorted(str(path) for path in folder.glob("broker-*.prof"))
    if not paths:
        print("no profiles in %s (did the brokers stop cleanly?)" % folder)
        return
    stats = pstats.Stats(*paths)
    print()
    print(
        "Profile of %s, %d records (brokers under cProfile, so slower than above), own CPU time of the "
        "reactor threads summed over %d brokers: %.2f s; files in %s"
        % (case_label(case), args.profile_records or args.records, len(paths), stats.total_tt, folder)
    )
    print("%9s %9s %6s %10s  %s" % ("own s", "cum s", "own %", "calls", "function"))
    for own, cumulative, calls, name in top_functions(stats, args.profile_top):
        print("%9.3f %9.3f %6.1f %10d  %s" % (own, cumulative, 100.0 * own / stats.total_tt, calls, name))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=500000, help="records per run (default 500,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case and side; medians are reported")
    parser.add_argument(
        "--partitions", type=int, default=6, help="partitions per topic (default 6: 2 leaders per broker)"
    )
    parser.add_argument("--batch-size", type=int, help="producer batch.size (default: the client's, 1,000,000)")
    parser.add_argument(
        "--acks",
        help="comma list of 0,1,all: with --rf/--linger/--codec, the cases are their "
        "product instead of the default matrix",
    )
    parser.add_argument("--rf", help="comma list of replication factors (RF 3 topics get min.insync.replicas=2)")
    parser.add_argument("--linger", help="comma list of linger.ms values")
    parser.add_argument("--codec", help="comma list of %s" % ",".join(CODECS))
    parser.add_argument(
        "--baseline",
        metavar="TREE",
        help="another checkout (e.g. git worktree add /tmp/base <commit>): the same cases on a "
        "second cluster whose brokers run from it, alternating with this tree's",
    )
    parser.add_argument("--settle", type=float, default=0.5, help="seconds between creating a topic and the run")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="afterwards, run the first acks=all RF 3 case (or the first case) on brokers under "
        "cProfile and print the top functions by own time",
    )
    parser.add_argument("--profile-only", action="store_true", help="only the profile run")
    parser.add_argument("--profile-top", type=int, default=25)
    parser.add_argument(
        "--profile-records",
        type=int,
        help="records of the profiled run (default --records; cProfile slows per-record work "
        "~10x: use ~50,000 for compressed cases)",
    )
    parser.add_argument("--profile-dir", help="where the brokers write broker-<id>.prof (default: a temp dir)")
    parser.add_argument("--keep-data", action="store_true", help="keep the clusters' temp dirs (broker logs)")
    args = parser.parse_args()
    cases = chosen_cases(args)
    unknown = {case.codec for case in cases} - set(CODECS)
    if unknown:
        parser.error("unknown codec %s" % ",".join(sorted(unknown)))
    if args.baseline and not is_checkout(args.baseline):
        parser.error("%s is not a kafka-zk checkout" % args.baseline)
    value = record_value()
    print(
        "%d records of %d bytes per run, %d partitions per topic, batch.size %s, median of %d; load average "
        "%s"
        % (
            args.records,
            VALUE_SIZE,
            args.partitions,
            args.batch_size or "default",
            args.repeat,
            " ".join(open("/proc/loadavg").read().split()[:3]),
        ),
        flush=True,
    )
    if not args.profile_only:
        sides = ([Side("before", args.baseline, args)] if args.baseline else []) + [Side("after", TREE, args)]
        try:
            for side in sides:
                side.start()
                side.warm_up(cases[0], args, value)
            for side in sides:
                print("  %s: brokers idle at %.1f%% of a core together" % (side.name, 100 * side.idle_cpu_share()))
            for repeat, (index, case) in itertools.product(range(args.repeat), enumerate(cases)):
                order = sides if (repeat + index) % 2 == 0 else sides[::-1]
                for side in order:
                    side.runs.setdefault(case, []).append(side.run(case, args, value))
        finally:
            for side in sides:
                side.stop()
        print_results(cases, sides)
    if args.profile or args.profile_only:
        leader_heavy = [case for case in cases if case.acks == -1 and case.replication_factor == 3]
        profile((leader_heavy or cases)[0], args, value)


if __name__ == "__main__":
    main()
