"""Produce and consume throughput of kafka-zk next to librdkafka's mock cluster, with confluent-kafka."""

import argparse
import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from targets import add_common_args, client_config, make_targets, print_table, ratio, unique_topic

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
    producer = Producer(client_config(bootstrap, **{
        "acks": acks, "linger.ms": linger, "batch.size": batch,
        "queue.buffering.max.messages": 1000000, "delivery.report.only.error": True,
        "on_delivery": lambda err, msg: failed.append(err)}))
    producer.list_topics(topic, timeout=10)
    value = b"v" * VALUE_SIZE
    start = time.perf_counter()
    deadline = start + RUN_TIMEOUT
    for index in range(records):
        while True:
            try:
                producer.produce(topic, value)
                break
            except BufferError:
                producer.poll(0.005)
                if time.perf_counter() > deadline:
                    return time.perf_counter() - start, records - index
        if index % 20000 == 0:
            producer.poll(0)
    left = producer.flush(max(1.0, deadline - time.perf_counter()))
    elapsed = time.perf_counter() - start
    if failed:
        print("    %d delivery errors, first: %s" % (len(failed), failed[0]))
    return elapsed, left + len(failed)


def consume_run(bootstrap, topic, partitions):
    """Read every partition from its log start until all records it held at the start arrived.

    The mock cluster keeps only about 5 MiB per partition, so the count to read is taken from the watermarks;
    returns (seconds, records read, records expected)."""
    consumer = Consumer(client_config(bootstrap, **{
        "group.id": "bench-" + uuid.uuid4().hex, "enable.auto.commit": False,
        "enable.auto.offset.store": False}))
    try:
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
            for message in consumer.consume(10000, timeout=1.0):
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
    """All produce cases, then consumes of the first case's topic; {label: (records/s, MB/s, note)}.

    Each figure is the median of --repeat runs (a fresh topic per produce run)."""
    results = {}
    first_topic = None
    for case in PRODUCE_CASES:
        runs = []
        for _ in range(args.repeat):
            topic = unique_topic("bench-produce")
            partitions, replicas = target.create_topic(topic, args.partitions, args.replication_factor)
            seconds, missing = produce_run(target.bootstrap_servers, topic, args.records, case)
            runs.append(((args.records - missing) / seconds, missing))
            if first_topic is None:
                first_topic = (topic, partitions)
        rate, missing = sorted(runs)[len(runs) // 2]
        note = "" if not missing else "%d undelivered" % missing
        results["produce " + case_label(case)] = (rate, rate * VALUE_SIZE / 1e6, note)
        print("  %-8s produce %-32s %9.0f rec/s  (runs: %s; %d partitions, RF %d) %s"
              % (target.name, case_label(case), rate, " ".join("%.0f" % run[0] for run in runs),
                 partitions, replicas, note))
    runs = []
    for _ in range(args.repeat):
        seconds, count, expected = consume_run(target.bootstrap_servers, *first_topic)
        runs.append((count / seconds, count, expected))
    rate, count, expected = sorted(runs)[len(runs) // 2]
    note = "%d of %d read" % (count, expected) if count < expected else ""
    if expected < args.records:
        note += " log held %d of %d" % (expected, args.records)
    results["consume from beginning"] = (rate, rate * VALUE_SIZE / 1e6, note.strip())
    print("  %-8s consume %-32s %9.0f rec/s  (runs: %s) %s" % (target.name, "%d records" % expected, rate,
                                                              " ".join("%.0f" % run[0] for run in runs), note))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the median is reported")
    add_common_args(parser)
    args = parser.parse_args()
    print("%d records of %d-byte values per case; topics RF %d (kafka-zk refuses RF>1 for now, so acks=-1 "
          "waits for the leader only); MB/s counts value bytes" % (args.records, VALUE_SIZE, args.replication_factor))
    by_target = {}
    for target in make_targets(args):
        print("starting %s ..." % target.name)
        target.start()
        try:
            by_target[target.name] = bench_target(target, args)
        finally:
            target.stop()
    print()
    ours, mock = by_target.get("kafka-zk", {}), by_target.get("mock", {})
    rows = []
    for label in (ours or mock):
        zk_rate, zk_mb, zk_note = ours.get(label, (0, 0, ""))
        mk_rate, mk_mb, mk_note = mock.get(label, (0, 0, ""))
        rows.append([label, "%.0f" % zk_rate, "%.1f" % zk_mb, "%.0f" % mk_rate, "%.1f" % mk_mb,
                     ratio(zk_rate, mk_rate), (zk_note + " " + mk_note).strip()])
    print_table(["case", "kafka-zk rec/s", "MB/s", "mock rec/s", "MB/s", "ratio kz/mock", "notes"], rows)


if __name__ == "__main__":
    main()
