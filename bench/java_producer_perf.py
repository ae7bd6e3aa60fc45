"""Kafka's Java producer (kafka-clients 4.3) against 3 kafka-zk brokers through our ProducerPerformance program
(bench/java/ProducerPerformance.java, which behaves like Kafka's kafka-producer-perf-test): records/s and latency.

Cases (a fresh topic per run, 6 partitions, 100-byte records, no compression, --throughput -1):
  rf3: replication factor 3, min.insync.replicas=2, acks=-1 linger.ms=5 batch.size=65536 (issue 22's target:
       421,000 records/s, Kafka's published figure for one producer with 3x synchronous replication)
  rf1: replication factor 1, acks=-1, the client's default batching (kafka-clients 4.x: linger.ms=5,
       batch.size=16384)
There is no mock column: librdkafka's mock cluster does listen on localhost ports, but kafka-clients 4.3 cannot use
it (tried 2026-11-27: the mock answers ApiVersions v4 with UNSUPPORTED_VERSION and no key list, and after falling back
to v0 the client rebootstraps and never sees the topic: "Topic ... not present in metadata after 60000 ms"). --mock
only says so; the rf3 row shows its ratio to the 421,000 target, and a line after it what the JVM alone would need.
"""

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from targets import (  # noqa: E402
    brokers_cpu_seconds,
    client_config,
    free_port,
    print_table,
    restart_brokers,
    trees_to_compare,
    wait_for_leaders,
)

from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402
from tests.java_clients import KAFKA_4_CLIENTS, classpath  # noqa: E402

BROKERS = 3
PARTITIONS = 6
RECORD_SIZE = 100
TARGET = 421000
ISSUE_TODAY = {"rf3": 280000, "rf1": 147000}
# name: (replication factor, min.insync.replicas, producer settings beyond bootstrap.servers, default records)
CASES = {
    "rf3": (3, 2, ["acks=-1", "linger.ms=5", "batch.size=65536"], 3000000),
    "rf1": (1, 1, ["acks=-1"], 1500000),
}
# As kafka-run-class.sh runs the tools: G1 with short pauses; kafka-producer-perf-test.sh gives 512 MB of heap.
JVM_OPTIONS = ["-Xmx512m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35"]
SUMMARY = (
    r"(\d+)%s records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max "
    r"latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99.9th\."
)
WHOLE_RUN, STEADY_STATE = re.compile(SUMMARY % ""), re.compile(SUMMARY % " steady state")
FIELDS = ("records", "rec_s", "mb_s", "avg_ms", "max_ms", "p50", "p95", "p99", "p999")


def java_classpath():
    return classpath(KAFKA_4_CLIENTS, ROOT / "bench" / "java", "bench-classes")


def create_topic(bootstrap, topic, replication_factor, min_isr):
    admin = AdminClient(client_config(bootstrap))
    new = NewTopic(topic, PARTITIONS, replication_factor, config={"min.insync.replicas": str(min_isr)})
    admin.create_topics([new], operation_timeout=30)[topic].result(40)
    wait_for_leaders(admin, topic, PARTITIONS, 30)


def compiler_cpu_seconds(pid):
    """CPU seconds the JIT compiler threads ("C1/C2 CompilerThread<n>") of JVM `pid` have used so far."""
    total = 0.0
    for stat in Path("/proc/%d/task" % pid).glob("*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if "CompilerThre" in text[text.index("(") : text.rindex(")")]:
            fields = text.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def run_java(
    cp, bootstrap, topic, records, warmup, settings, timeout, main_class="ProducerPerformance", logging_option=None
):
    """One ProducerPerformance run: (its summary figures with "java_cpu" and "jit_cpu" (the compiler threads' share,
    read every 0.2 s while it runs), its steady-state records/s or None, its output). ``main_class`` and
    ``logging_option``: another tool of the same arguments and output, e.g. Kafka 2.5.1's own
    org.apache.kafka.tools.ProducerPerformance (``warmup`` None: it has no --warmup-records)."""
    logging_option = logging_option or "-Dlog4j2.configurationFile=%s" % (ROOT / "tests" / "java" / "log4j2.properties")
    command = (
        ["java"]
        + JVM_OPTIONS
        + [
            logging_option,
            "-cp",
            cp,
            main_class,
            "--topic",
            topic,
            "--num-records",
            str(records),
            "--record-size",
            str(RECORD_SIZE),
            "--throughput",
            "-1",
        ]
        + ([] if warmup is None else ["--warmup-records", str(warmup)])
        + [
            "--producer-props",
            "bootstrap.servers=%s" % bootstrap,
        ]
        + settings
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    jit = 0.0
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        deadline = time.monotonic() + timeout
        while process.poll() is None:
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                break
            jit = max(jit, compiler_cpu_seconds(process.pid))
            time.sleep(0.2)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match, steady = WHOLE_RUN.search(stdout), STEADY_STATE.search(stdout)
    if process.returncode != 0 or match is None or (warmup and steady is None):
        raise SystemExit(
            "ProducerPerformance failed (exit %d):\n%s\n%s" % (process.returncode, stdout[-3000:], stderr[-3000:])
        )
    figures = dict(zip(FIELDS, (float(value) for value in match.groups())))
    figures["java_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    figures["jit_cpu"] = jit
    figures["java_work_cpu"] = figures["java_cpu"] - jit
    return figures, steady and float(steady.group(2)), stdout


def one_run(cluster, cp, case, args):
    """A fresh topic for `case` and one ProducerPerformance run on it: a dict of figures."""
    replication, min_isr, settings, default_records = CASES[case]
    records = args.records or default_records
    warmup = records // 5 if args.warmup_records is None else args.warmup_records
    topic = "javaperf-%s-%d" % (case, time.monotonic_ns() % 10**9)
    create_topic(cluster.bootstrap_servers, topic, replication, min_isr)
    broker_before = brokers_cpu_seconds(cluster)
    figures, steady, output = run_java(
        cp, cluster.bootstrap_servers, topic, records, warmup, settings, timeout=max(300.0, records / 5000)
    )
    figures["broker_cpu"] = brokers_cpu_seconds(cluster) - broker_before
    figures["steady_rec_s"] = steady or 0.0
    if args.verbose:
        print(output.rstrip())
    return figures


def describe(figures):
    return (
        "%9.0f rec/s (steady state %.0f) %6.2f MB/s, latency avg %.1f / p50 %d / p99 %d / p99.9 %d ms; CPU s: "
        "brokers %.1f, java %.1f (JIT %.1f)"
        % (
            figures["rec_s"],
            figures["steady_rec_s"],
            figures["mb_s"],
            figures["avg_ms"],
            figures["p50"],
            figures["p99"],
            figures["p999"],
            figures["broker_cpu"],
            figures["java_cpu"],
            figures["jit_cpu"],
        )
    )


def print_medians(cases, names, runs):
    rows = []
    for case in cases:
        for name in names:
            m = {key: statistics.median(run[key] for run in runs[(case, name)]) for key in runs[(case, name)][0]}
            rows.append(
                [
                    case,
                    name,
                    "%.0f" % m["rec_s"],
                    "%.0f" % m["steady_rec_s"],
                    "%.2f" % m["mb_s"],
                    "%.1f" % m["avg_ms"],
                    "%d" % m["p50"],
                    "%d" % m["p99"],
                    "%d" % m["p999"],
                    "%.2f" % (m["broker_cpu"] * 1e6 / m["records"]),
                    "%.2f" % (m["java_cpu"] * 1e6 / m["records"]),
                    "%.2f" % (m["java_work_cpu"] * 1e6 / m["records"]),
                    "%.2f" % (m["rec_s"] / TARGET) if case == "rf3" else "-",
                    "%.2f" % (m["rec_s"] / ISSUE_TODAY[case]),
                ]
            )
    print_table(
        [
            "case",
            "tree",
            "rec/s",
            "steady rec/s",
            "MB/s",
            "avg ms",
            "p50",
            "p99",
            "p99.9",
            "broker CPU s/M",
            "java CPU s/M",
            "without JIT",
            "/421k",
            "/issue",
        ],
        rows,
    )
    print(
        "rf3: RF 3 min.insync 2 acks=-1 linger.ms=5 batch.size=65536; rf1: RF 1 acks=-1, client default batching; "
        "/issue: against the issue's figures (rf3 280,000, rf1 147,000)"
    )
    for name in names if "rf3" in cases else ():
        print(jvm_needs_at_target(runs[("rf3", name)], name))


def jvm_needs_at_target(rf3_runs, name):
    """What the producer's JVM alone would take of this machine's cores at 421,000 records/s: its work per record
    at that rate, and its JIT compiler's seconds spread over a run of that length (medians of the runs)."""
    records = statistics.median(run["records"] for run in rf3_runs)
    work = statistics.median(run["java_work_cpu"] for run in rf3_runs) / records
    jit = statistics.median(run["jit_cpu"] for run in rf3_runs)
    seconds = records / TARGET
    return (
        "rf3 %s: at %s rec/s the JVM alone would use %.2f cores (%.2f s of work per 1M records, and its JIT "
        "compiler's %.1f s over a %.1f s run) of the %d here, before any broker"
        % (name, format(TARGET, ","), work * TARGET + jit / seconds, work * 1e6, jit, seconds, os.cpu_count())
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="rf3,rf1", help="comma-separated: rf3, rf1 (default both)")
    parser.add_argument("--records", type=int, help="records per run (default: rf3 3,000,000, rf1 1,500,000)")
    parser.add_argument(
        "--warmup-records",
        type=int,
        help="the tool's --warmup-records: a second, steady-state rate after them (default: a fifth "
        "of the records; 0: none)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per case and tree; medians (default 3)")
    parser.add_argument("--baseline", help="another checkout: brokers restarted from it for alternate runs")
    parser.add_argument("--mock", action="store_true", help="explain why there is no mock column")
    parser.add_argument("--keep-data", action="store_true", help="keep the temp dir (broker logs)")
    parser.add_argument("--verbose", action="store_true", help="print ProducerPerformance's own output")
    args = parser.parse_args()
    cases = [name.strip() for name in args.cases.split(",") if name.strip()]
    unknown = [name for name in cases if name not in CASES]
    if unknown:
        parser.error("unknown cases %s (known: %s)" % (", ".join(unknown), ", ".join(CASES)))
    if args.mock:
        print(
            "--mock: kafka-clients 4.3 cannot use librdkafka's mock cluster (it never gets the topic's metadata "
            "from it); the rf3 row shows kafka-zk against the 421,000 records/s target instead."
        )
    trees = trees_to_compare(ROOT, args.baseline)
    cp = java_classpath()
    data_dir = tempfile.mkdtemp(prefix="kafka-zk-javaperf-")
    cluster = LocalCluster(
        data_dir, brokers=BROKERS, zk_port=free_port(), broker_ports=[free_port() for _ in range(BROKERS)]
    )
    for broker in cluster.brokers:
        broker.environment["PYTHONPATH"] = str(ROOT)
    runs = {(case, name): [] for case in cases for name, _ in trees}
    try:
        cluster.start()
        for attempt in range(args.repeat):
            for name, tree in trees:
                if args.baseline:
                    restart_brokers(cluster, tree)
                for case in cases:
                    figures = one_run(cluster, cp, case, args)
                    runs[(case, name)].append(figures)
                    print("  %-8s %s run %d: %s" % (name, case, attempt + 1, describe(figures)))
    finally:
        cluster.stop()
        if args.keep_data:
            print("data kept in %s" % data_dir)
        else:
            shutil.rmtree(data_dir, ignore_errors=True)
    print(
        "\nmedians of %d runs (%d partitions, %d-byte records, %d brokers on %d cores):"
        % (args.repeat, PARTITIONS, RECORD_SIZE, BROKERS, os.cpu_count())
    )
    print_medians(cases, [name for name, _ in trees], runs)


if __name__ == "__main__":
    main()
