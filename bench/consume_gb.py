"""Read a ~1 GB topic with one confluent-kafka consumer: MB/s and broker CPU seconds per GB read, optionally
against brokers started from another checkout (--baseline) serving the same data, alternating.

The topic (default 3 partitions, replication factor 1, every partition led by broker 0, so one broker serves the
whole read and its CPU is "the leader's") is filled once with 1 KiB records (no key, no compression, 1 MB batches),
then read from the beginning --repeat times per tree. Without --baseline the brokers keep running between reads;
with it, before each read every broker is stopped and restarted from the tree being measured (ZooKeeper and the
data dir stay), trees alternating, so both sides read the same on-disk segments from a warm page cache.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from targets import (  # noqa: E402
    client_config,
    free_port,
    print_table,
    restart_brokers,
    timed_produce,
    trees_to_compare,
    wait_for_leaders,
)

from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402

BROKERS = 3
LEADER = 0
TOPIC = "consume-gb"
READ_TIMEOUT = 600.0
FILL_TIMEOUT = 900.0
# The consumer keeps librdkafka's (and Kafka's Java consumer's) fetch defaults: fetch.max.bytes 50 MiB per
# request, max.partition.fetch.bytes 1 MiB per partition, fetch.min.bytes 1, fetch.wait.max.ms 500 (never
# waited on: the data is there). fetch.queue.backoff.ms drops from 1000 to 10 ms: once the local queue passes
# queued.min.messages librdkafka would otherwise stop fetching for a whole second in the middle of the read.
CONSUMER_SETTINGS = {"enable.auto.commit": False, "enable.auto.offset.store": False, "fetch.queue.backoff.ms": 10}


def cpu_seconds(pid):
    """User + system CPU seconds process `pid` has used so far (0 when it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def broker_cpu(cluster):
    """{broker id: CPU seconds so far} of the running brokers."""
    return {broker.broker_id: cpu_seconds(broker.pid()) for broker in cluster.brokers}


def check_space(folder, needed):
    free = shutil.disk_usage(folder).free
    if free < needed * 1.2 + 2e9:
        raise SystemExit(
            "%s has %.1f GB free; the topic needs %.1f GB (plus a margin)" % (folder, free / 1e9, needed / 1e9)
        )
    return free


def create_topic(bootstrap, partitions, replication_factor):
    """TOPIC with every partition's preferred leader on broker LEADER (its replicas on the next brokers)."""
    replicas = [[(LEADER + i) % BROKERS for i in range(replication_factor)] for _ in range(partitions)]
    admin = AdminClient(client_config(bootstrap))
    new = NewTopic(TOPIC, num_partitions=partitions, replica_assignment=replicas)
    admin.create_topics([new], operation_timeout=30)[TOPIC].result(40)
    wait_for_leaders(admin, TOPIC, partitions, 30)


def fill(bootstrap, records, record_size):
    """Produce `records` values of `record_size` random bytes (one value, reused) as fast as possible."""
    failed = []
    producer = Producer(
        client_config(
            bootstrap,
            **{
                "acks": 1,
                "linger.ms": 20,
                "batch.size": 1000000,
                "compression.type": "none",
                "queue.buffering.max.messages": 1000000,
                "queue.buffering.max.kbytes": 1048576,
                "delivery.report.only.error": True,
                "on_delivery": lambda err, msg: failed.append(err),
            },
        )
    )
    producer.list_topics(TOPIC, timeout=10)
    elapsed, left, note = timed_produce(producer, TOPIC, records, os.urandom(record_size), FILL_TIMEOUT)
    if left or failed:
        raise SystemExit("fill failed: %d undelivered (%s)" % (left + len(failed), note or failed[0]))
    return elapsed


def held_records(bootstrap, partitions):
    consumer = Consumer(client_config(bootstrap, **{"group.id": "consume-gb-watermarks"}))
    try:
        return sum(
            high - low
            for low, high in (
                consumer.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10, cached=False)
                for p in range(partitions)
            )
        )
    finally:
        consumer.close()


def read_all(cluster, partitions, expected, record_size):
    """Read every partition from the beginning until `expected` records arrived: a dict of figures."""
    consumer = Consumer(
        client_config(cluster.bootstrap_servers, **{"group.id": "consume-gb-" + uuid.uuid4().hex}, **CONSUMER_SETTINGS)
    )
    try:
        # Known leaders before assign: otherwise librdkafka retries the offset lookup only after 500 ms.
        consumer.list_topics(TOPIC, timeout=10)
        cpu_before = broker_cpu(cluster)
        client_before = time.process_time()
        reader_before = time.thread_time()
        start = time.perf_counter()
        deadline = start + READ_TIMEOUT
        consumer.assign([TopicPartition(TOPIC, p, OFFSET_BEGINNING) for p in range(partitions)])
        count = 0
        errors = []
        first = None
        while count < expected and time.perf_counter() < deadline:
            batch = consumer.consume(10000, timeout=1.0)
            if first is None and batch:
                first = time.perf_counter() - start
            failures = [message.error() for message in batch if message.error() is not None]
            count += len(batch) - len(failures)
            errors += failures
        elapsed = time.perf_counter() - start
        client = time.process_time() - client_before
        reader = time.thread_time() - reader_before
        cpu_after = broker_cpu(cluster)
    finally:
        consumer.close()
    if count < expected:
        raise SystemExit("read %d of %d records in %.0f s (errors: %s)" % (count, expected, elapsed, errors[:3]))
    gigabytes = count * record_size / 1e9
    used = {broker: cpu_after[broker] - cpu_before[broker] for broker in cpu_after}
    return {
        "seconds": elapsed,
        "mb_s": gigabytes * 1000 / elapsed,
        "rec_s": count / elapsed,
        "broker_s_gb": sum(used.values()) / gigabytes,
        "leader_s_gb": used[LEADER] / gigabytes,
        "client_s_gb": client / gigabytes,
        "reader_busy": reader / elapsed,
        "first_s": first or 0.0,
        "errors": len(errors),
    }


def serve_from(cluster, tree, partitions):
    """The brokers restarted on the code of ``tree``, the topic led again."""
    restart_brokers(cluster, tree)
    wait_for_leaders(AdminClient(client_config(cluster.bootstrap_servers)), TOPIC, partitions, 60)


def describe(figures):
    return (
        "%6.2f s %7.1f MB/s %9.0f rec/s; CPU s/GB: brokers %.2f, leader %.2f, client %.2f (its reading "
        "thread busy %.0f %%); first record after %.3f s%s"
        % (
            figures["seconds"],
            figures["mb_s"],
            figures["rec_s"],
            figures["broker_s_gb"],
            figures["leader_s_gb"],
            figures["client_s_gb"],
            100 * figures["reader_busy"],
            figures["first_s"],
            "; %d errors" % figures["errors"] if figures["errors"] else "",
        )
    )


def print_medians(names, runs):
    """One row of medians per tree; with a baseline, a row of ratios this tree / baseline."""
    columns = [
        ("MB/s", "mb_s", "%.1f"),
        ("rec/s", "rec_s", "%.0f"),
        ("broker CPU s/GB", "broker_s_gb", "%.2f"),
        ("leader CPU s/GB", "leader_s_gb", "%.2f"),
        ("client CPU s/GB", "client_s_gb", "%.2f"),
        ("reader thread busy", "reader_busy", "%.2f"),
    ]
    medians = {
        name: {key: statistics.median(run[key] for run in runs[name]) for _, key, _ in columns} for name in names
    }
    rows = [[name] + [form % medians[name][key] for _, key, form in columns] for name in names]
    if len(names) == 2:
        ours, theirs = medians[names[0]], medians[names[1]]
        rows.append(
            ["%s/%s" % tuple(names)]
            + ["%.2f" % (ours[key] / theirs[key]) if theirs[key] else "-" for _, key, _ in columns]
        )
    print_table(["tree"] + [title for title, _, _ in columns], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=1.0, help="topic size in GB of record values (default 1)")
    parser.add_argument("--record-size", type=int, default=1024, help="value bytes per record (default 1024)")
    parser.add_argument("--partitions", type=int, default=3, help="partitions, all led by broker 0 (default 3)")
    parser.add_argument("--replication-factor", type=int, default=1, help="default 1 (fastest fill)")
    parser.add_argument("--repeat", type=int, default=3, help="reads per tree; medians are reported (default 3)")
    parser.add_argument("--baseline", help="another checkout: its brokers read the same data, alternating")
    parser.add_argument("--keep-data", action="store_true", help="keep the temp dir (and its data) at the end")
    args = parser.parse_args()
    records = int(args.gb * 1e9 / args.record_size)
    data_dir = tempfile.mkdtemp(prefix="kafka-zk-consume-gb-")
    free = check_space(data_dir, records * (args.record_size + 70) * args.replication_factor)
    trees = trees_to_compare(ROOT, args.baseline)
    print(
        "%d records of %d bytes (%.2f GB) in %d partitions RF %d led by broker %d; %s (%.0f GB free)"
        % (
            records,
            args.record_size,
            records * args.record_size / 1e9,
            args.partitions,
            args.replication_factor,
            LEADER,
            data_dir,
            free / 1e9,
        )
    )
    cluster = LocalCluster(
        data_dir, brokers=BROKERS, zk_port=free_port(), broker_ports=[free_port() for _ in range(BROKERS)]
    )
    for broker in cluster.brokers:
        broker.environment["PYTHONPATH"] = str(ROOT)
    try:
        cluster.start()
        create_topic(cluster.bootstrap_servers, args.partitions, args.replication_factor)
        seconds = fill(cluster.bootstrap_servers, records, args.record_size)
        expected = held_records(cluster.bootstrap_servers, args.partitions)
        print(
            "filled in %.1f s (%.0f MB/s); the topic holds %d records"
            % (seconds, records * args.record_size / 1e6 / seconds, expected)
        )
        runs = {name: [] for name, _ in trees}
        for attempt in range(args.repeat):
            for name, tree in trees:
                if args.baseline:
                    serve_from(cluster, tree, args.partitions)
                figures = read_all(cluster, args.partitions, expected, args.record_size)
                runs[name].append(figures)
                print("  %-9s read %d: %s" % (name, attempt + 1, describe(figures)))
    finally:
        cluster.stop()
        if args.keep_data:
            print("data kept in %s" % data_dir)
        else:
            shutil.rmtree(data_dir, ignore_errors=True)
    print("\nmedians of %d reads:" % args.repeat)
    print_medians([name for name, _ in trees], runs)


if __name__ == "__main__":
    main()
