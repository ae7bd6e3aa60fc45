"""Produce and consume throughput of kafka-zk next to Apache Kafka 2.5.1 and librdkafka's mock cluster, with
confluent-kafka."""

import argparse
import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from targets import add_common_args, client_config, print_table, ratio, run_on_targets, timed_produce, unique_topic

VALUE_SIZE = 100
# (acks, linger.ms, batch.size); 1,000,000 bytes rather than 1 MiB: a batch must stay under the broker's
# message.max.bytes (1000012 by default), as on Kafka.
PRODUCE_CASES = [
    (1, 0, 16384),
    (1, 5, 16384),
    (1, 20, 16384),
    (1, 20, 1000000),
    (-1, 5, 16384),
    (-1, 20, 1000000),
]
RUN_TIMEOUT = 300.0


def case_label(case):
    acks, linger, batch = case
    return "acks=%d linger=%dms batch=%s" % (acks, linger, "16KiB" if batch == 16384 else "1MB")


def produce_run(bootstrap, topic, records, case):
    """Produce `records` values of VALUE_SIZE bytes; returns (seconds, records not delivered)."""
    acks, linger, batch = case
    failed = []
    producer = Producer(
        client_config(
            bootstrap,
            **{
                "acks": acks,
                "linger.ms": linger,
                "batch.size": batch,
                "queue.buffering.max.messages": 1000000,
                "delivery.report.only.error": True,
                "on_delivery": lambda err, msg: failed.append(err),
            },
        )
    )
    producer.list_topics(topic, timeout=10)
    elapsed, left, _ = timed_produce(producer, topic, records, b"v" * VALUE_SIZE, RUN_TIMEOUT)
    if failed:
        print("    %d delivery errors, first: %s" % (len(failed), failed[0]))
    return elapsed, left + len(failed)


def consume_run(bootstrap, topic, partitions):
    """Read every partition from its log start until all records it held at the start arrived.

    The mock cluster keeps only about 5 MiB per partition, so the count to read is taken from the watermarks.
    fetch.queue.backoff.ms is lowered from librdkafka's 1000 ms: once its local queue passes queued.min.messages
    it would otherwise pause fetching for a second in the middle of the run. Returns (seconds, read, expected)."""
    consumer = Consumer(
        client_config(
            bootstrap,
            **{
                "group.id": "bench-" + uuid.uuid4().hex,
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "fetch.queue.backoff.ms": 10,
            },
        )
    )
    try:
        # Known leaders before assign: otherwise librdkafka retries the offset lookup only after 500 ms.
        consumer.list_topics(topic, timeout=10)
        expected = 0
        for partition in range(partitions):
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            expected += high - low
        start = time.perf_counter()
        deadline = start + RUN_TIMEOUT
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING) for partition in range(partitions)])
        count = 0
        errors = []
        while count < expected and time.perf_counter() < deadline:
            # no more than are still due: consume(n, timeout) waits out the timeout until n have come
            for message in consumer.consume(min(10000, expected - count), timeout=1.0):
                if message.error():
                    errors.append(message.error())
                else:
                    count += 1
        elapsed = time.perf_counter() - start
    finally:
        consumer.close()
    if errors:
        print("    %d consume errors, first: %s" % (len(errors), errors[0]))
    return elapsed, count, expected


def bench_target(target, args):
    """All produce cases, then consumes of the first case's topic; {label: (records/s, MB/s, CPU ms, note)}.

    Each figure is the median of --repeat runs (a fresh topic per produce run)."""
    results = {}
    first_topic = None
    for case in PRODUCE_CASES:
        runs = []
        for _ in range(args.repeat):
            topic = unique_topic("bench-produce")
            partitions, replicas = target.create_topic(topic, args.partitions, args.replication_factor)
            cpu_before = target.broker_cpu_seconds()
            seconds, missing = produce_run(target.bootstrap_servers, topic, args.records, case)
            runs.append(((args.records - missing) / seconds, missing, _cpu_used(target, cpu_before)))
            if first_topic is None:
                first_topic = (topic, partitions)
        rate, missing, cpu = sorted(runs)[len(runs) // 2]
        note = "" if not missing else "%d undelivered" % missing
        results["produce " + case_label(case)] = (rate, rate * VALUE_SIZE / 1e6, cpu, note)
        print(
            "  %-8s produce %-32s %9.0f rec/s  (runs: %s; %d partitions, RF %d) %s"
            % (
                target.name,
                case_label(case),
                rate,
                " ".join("%.0f" % run[0] for run in runs),
                partitions,
                replicas,
                note,
            )
        )
    runs = []
    for _ in range(args.repeat):
        cpu_before = target.broker_cpu_seconds()
        seconds, count, expected = consume_run(target.bootstrap_servers, *first_topic)
        runs.append((count / seconds, count, expected, _cpu_used(target, cpu_before)))
    rate, count, expected, cpu = sorted(runs)[len(runs) // 2]
    note = "%d of %d read" % (count, expected) if count < expected else ""
    if expected < args.records:
        note += " log held %d of %d" % (expected, args.records)
    results["consume from beginning"] = (rate, rate * VALUE_SIZE / 1e6, cpu, note.strip())
    print(
        "  %-8s consume %-32s %9.0f rec/s  (runs: %s) %s"
        % (target.name, "%d records" % expected, rate, " ".join("%.0f" % run[0] for run in runs), note)
    )
    return results


def _cpu_used(target, before):
    """Broker CPU milliseconds since `before`, for the records of one run (None for the mock cluster)."""
    after = target.broker_cpu_seconds()
    return None if before is None or after is None else (after - before) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the median is reported")
    add_common_args(parser)
    args = parser.parse_args()
    print(
        "%d records of %d-byte values per case; kafka-zk topics RF %d (the mock auto-creates RF 3); "
        "MB/s counts value bytes" % (args.records, VALUE_SIZE, args.replication_factor)
    )
    by_target = run_on_targets(args, lambda target: bench_target(target, args))
    ours, kafka, mock = (by_target.get(name, {}) for name in ("kafka-zk", "kafka", "mock"))
    rows = []
    for label in ours or kafka or mock:
        zk_rate, zk_mb, zk_cpu, zk_note = ours.get(label, (0, 0, None, ""))
        ka_rate, ka_mb, ka_cpu, ka_note = kafka.get(label, (0, 0, None, ""))
        mk_rate, mk_mb, _, mk_note = mock.get(label, (0, 0, None, ""))
        rows.append(
            [
                label,
                "%.0f" % zk_rate,
                "%.1f" % zk_mb,
                "-" if zk_cpu is None else "%.0f" % zk_cpu,
                "%.0f" % ka_rate,
                "-" if ka_cpu is None else "%.0f" % ka_cpu,
                ratio(zk_rate, ka_rate),
                "%.0f" % mk_rate,
                ratio(zk_rate, mk_rate),
                " ".join(note for note in (zk_note, ka_note, mk_note) if note),
            ]
        )
    print_table(
        [
            "case",
            "kafka-zk rec/s",
            "MB/s",
            "broker CPU ms",
            "kafka rec/s",
            "broker CPU ms",
            "ratio kz/kafka",
            "mock rec/s",
            "ratio kz/mock",
            "notes",
        ],
        rows,
    )
    print("broker CPU ms: user+system time of the three brokers (kafka-zk's, or Kafka's JVMs) during the median run")


if __name__ == "__main__":
    main()
