"""acks=-1 produce throughput to an RF=3 topic on 3 kafka-zk brokers next to librdkafka's 3-broker mock cluster."""

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kafka_zk.tools.local_cluster import LocalCluster  # noqa: E402
from targets import MockTarget, free_port, quiet_logger, timed_produce, wait_for_leaders  # noqa: E402

VALUE_SIZE = 100
BROKERS = 3
RUN_TIMEOUT = 300.0
# (acks, linger.ms, batch.size); 1,000,000 rather than 1 MiB keeps a batch under message.max.bytes.
CASES = [
    (-1, 5, 16384),
    (-1, 20, 1000000),
    (1, 5, 16384),
    (1, 20, 1000000),
]


def case_label(case):
    acks, linger, batch = case
    return "acks=%d linger=%dms batch=%s" % (acks, linger, "16KiB" if batch == 16384 else "1MB")


class KafkaZk:
    name = "kafka-zk"

    def __init__(self, partitions, min_isr, keep):
        self.partitions = partitions
        self.min_isr = min_isr
        self.keep = keep
        self.data_dir = tempfile.mkdtemp(prefix="kz-replicated-")
        self.cluster = LocalCluster(self.data_dir, brokers=BROKERS, zk_port=free_port(),
                                    broker_ports=[free_port() for _ in range(BROKERS)])
        self.bootstrap = None

    def start(self):
        self.cluster.start()
        self.bootstrap = self.cluster.bootstrap_servers
        return self

    def create_topic(self, topic):
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        new = NewTopic(topic, self.partitions, BROKERS, config={"min.insync.replicas": str(self.min_isr)})
        admin.create_topics([new], operation_timeout=30)[topic].result(40)
        meta = wait_for_leaders(admin, topic, self.partitions, 30)
        return len(meta.partitions), len(meta.partitions[0].replicas)

    def stop(self):
        self.cluster.stop()
        if not self.keep:
            shutil.rmtree(self.data_dir, ignore_errors=True)


class Mock(MockTarget):
    """The mock cluster auto-creates topics (4 partitions, RF min(3, brokers)); its CreateTopics never finds a
    controller. It keeps one log per partition and answers acks=-1 without waiting for any follower."""

    def start(self):
        super().start()
        self.bootstrap = self.bootstrap_servers
        return self

    def create_topic(self, topic):
        return super().create_topic(topic, None, None)


def produce_run(bootstrap, topic, records, case):
    """Produce `records` values; returns (seconds, undelivered, first error)."""
    acks, linger, batch = case
    errors = []
    producer = Producer({
        "bootstrap.servers": bootstrap, "acks": acks, "linger.ms": linger, "batch.size": batch,
        "queue.buffering.max.messages": 1000000, "delivery.report.only.error": True, "log_level": 3,
        "on_delivery": lambda err, msg: errors.append(err)}, logger=quiet_logger())
    producer.list_topics(topic, timeout=10)
    elapsed, left, note = timed_produce(producer, topic, records, b"v" * VALUE_SIZE, RUN_TIMEOUT)
    return elapsed, left + len(errors), note or (errors[0] if errors else None)


def replication_check(bootstrap, topic, records, timeout=30.0):
    """(sum of high watermarks, seconds until they covered `records`, smallest ISR size) after a run.

    The high watermark moves only when followers have the records, so the wait is the replication lag left
    when the producer's flush returned (zero for acks=-1)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "replicated-bench-check", "log_level": 3},
                        logger=quiet_logger())
    try:
        start = time.perf_counter()
        while True:
            meta = consumer.list_topics(topic, timeout=10).topics[topic]
            total = sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                        for p in meta.partitions)
            waited = time.perf_counter() - start
            if total >= records or waited > timeout:
                return total, waited, min(len(p.isrs) for p in meta.partitions.values())
            time.sleep(0.02)
    finally:
        consumer.close()


def bench(target, args):
    results = {}
    for case in CASES:
        runs = []
        for attempt in range(args.repeat):
            topic = "repl-%d-%d" % (case[0] + 1, time.monotonic_ns() % 10**9)
            partitions, replicas = target.create_topic(topic)
            seconds, missing, error = produce_run(target.bootstrap, topic, args.records, case)
            rate = (args.records - missing) / seconds
            hw, waited, min_isr = replication_check(target.bootstrap, topic, args.records - missing)
            runs.append(rate)
            print("  %-8s %-30s %9.0f rec/s  %d partitions RF %d; high watermarks %d (+%.2fs), min ISR %d%s"
                  % (target.name, case_label(case), rate, partitions, replicas, hw, waited, min_isr,
                     "; %d undelivered (%s)" % (missing, error) if missing else ""))
        results[case] = sorted(runs)[len(runs) // 2]
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--partitions", type=int, default=6, help="kafka-zk partitions (the mock makes 4)")
    parser.add_argument("--min-isr", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the median is reported")
    parser.add_argument("--only", choices=["kafka-zk", "mock"])
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    print("%d records of %d-byte values per case; kafka-zk: %d brokers, RF %d, min.insync.replicas=%d"
          % (args.records, VALUE_SIZE, BROKERS, BROKERS, args.min_isr))
    targets = []
    if args.only in (None, "kafka-zk"):
        targets.append(KafkaZk(args.partitions, args.min_isr, args.keep_data))
    if args.only in (None, "mock"):
        targets.append(Mock())
    by_target = {}
    for target in targets:
        print("starting %s ..." % target.name)
        target.start()
        try:
            by_target[target.name] = bench(target, args)
        finally:
            target.stop()
    ours, mock = by_target.get("kafka-zk", {}), by_target.get("mock", {})
    print()
    header = "%-30s %14s %8s %14s %8s %8s" % ("case", "kafka-zk rec/s", "MB/s", "mock rec/s", "MB/s", "kz/mock")
    print(header)
    for case in CASES:
        ours_rate, mock_rate = ours.get(case, 0), mock.get(case, 0)
        print("%-30s %14.0f %8.1f %14.0f %8.1f %8s" % (
            case_label(case), ours_rate, ours_rate * VALUE_SIZE / 1e6, mock_rate, mock_rate * VALUE_SIZE / 1e6,
            "%.2f" % (ours_rate / mock_rate) if ours_rate and mock_rate else "-"))
    if ours.get(CASES[0]) and ours.get(CASES[2]):
        print("kafka-zk acks=-1 / acks=1 (linger 5ms, 16KiB): %.2f" % (ours[CASES[0]] / ours[CASES[2]]))


if __name__ == "__main__":
    main()
