"""How long a burst of records takes from the first produce() to the last acknowledgement, kafka-zk next to
librdkafka's mock cluster (or against brokers run from a baseline tree): the replication round trips of acks=-1
show here as they do not in a throughput figure, where the next records hide them."""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from confluent_kafka import Producer  # noqa: E402
from targets import (  # noqa: E402
    KafkaZkTarget,
    MockTarget,
    is_checkout,
    percentile,
    print_table,
    quiet_logger,
    ratio,
    unique_topic,
)

VALUE = b"v" * 100
CASES = [("1", 1), ("1", 3), ("all", 3)]  # (acks, replication factor)


def burst_milliseconds(target, acks, replication_factor, burst, rounds, args):
    """Milliseconds from the first produce() of ``burst`` records to flush() returning, sorted, one per round (after
    five unmeasured bursts), on a fresh topic of ``args.partitions`` partitions."""
    topic = unique_topic("burst")
    target.create_topic(
        topic, args.partitions, replication_factor, {"min.insync.replicas": str(min(2, replication_factor))}
    )
    producer = Producer(
        {
            "bootstrap.servers": target.bootstrap_servers,
            "acks": acks,
            "linger.ms": args.linger,
            "queue.buffering.max.messages": max(100000, 2 * burst),
            "log_level": 3,
        },
        logger=quiet_logger(),
    )
    producer.list_topics(topic, timeout=10)
    took = []
    for index in range(rounds + 5):
        start = time.perf_counter()
        for _ in range(burst):
            producer.produce(topic, VALUE)
        left = producer.flush(30)
        if left:
            raise RuntimeError("%s: %d records of a burst not acknowledged within 30 s" % (target.name, left))
        if index >= 5:
            took.append((time.perf_counter() - start) * 1000)
    return sorted(took)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bursts", default="1,20000", help="comma-separated burst sizes (records)")
    parser.add_argument("--rounds", type=int, default=30, help="measured bursts per case")
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--linger", type=int, default=5, help="the producer's linger.ms")
    parser.add_argument("--baseline", help="compare with brokers run from this kafka-zk checkout, not the mock")
    args = parser.parse_args()
    if args.baseline and not is_checkout(args.baseline):
        parser.error("--baseline %s is not a kafka-zk checkout" % args.baseline)
    bursts = [int(item) for item in args.bursts.split(",")]
    this_tree = str(Path(__file__).resolve().parent.parent)
    targets = [KafkaZkTarget(environment={"PYTHONPATH": this_tree})]
    targets.append(
        KafkaZkTarget(environment={"PYTHONPATH": os.path.abspath(args.baseline)}) if args.baseline else MockTarget()
    )
    names = ["kafka-zk", "baseline" if args.baseline else "mock"]
    results = {}
    try:
        for target in targets:
            target.start()
        for acks, replication_factor in CASES:
            for burst in bursts:
                for name, target in zip(names, targets):
                    took = burst_milliseconds(target, acks, replication_factor, burst, args.rounds, args)
                    results[(acks, replication_factor, burst, name)] = took
                    print(
                        "  %-8s acks=%-3s RF %d burst %6d: p50 %8.2f ms  p90 %8.2f ms"
                        % (name, acks, replication_factor, burst, percentile(took, 0.5), percentile(took, 0.9)),
                        flush=True,
                    )
    finally:
        for target in targets:
            target.stop()
    rows = []
    for acks, replication_factor in CASES:
        for burst in bursts:
            ours, theirs = (results[(acks, replication_factor, burst, name)] for name in names)
            rows.append(
                [
                    "acks=%s RF %d" % (acks, replication_factor),
                    burst,
                    "%.2f" % percentile(ours, 0.5),
                    "%.2f" % percentile(ours, 0.9),
                    "%.2f" % percentile(theirs, 0.5),
                    "%.2f" % percentile(theirs, 0.9),
                    ratio(percentile(ours, 0.5), percentile(theirs, 0.5)),
                ]
            )
    print(
        "\n%d bursts per case, linger.ms %d, %d partitions (the mock auto-creates 4, RF 3, and answers acks=-1 at "
        "once)" % (args.rounds, args.linger, args.partitions)
    )
    print_table(
        ["case", "records", "kafka-zk p50 ms", "p90", "%s p50 ms" % names[1], "p90", "p50 kafka-zk/%s" % names[1]], rows
    )


if __name__ == "__main__":
    main()
