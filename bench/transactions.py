"""Transactional produce throughput, as a ratio of the idempotent producer's in the same run, on kafka-zk and
librdkafka's mock cluster (which implements transactions), with confluent-kafka.

Per case, --records records of 100 bytes are produced to every partition of one topic (round robin by the
client): idempotent (enable.idempotence, acks=all), then transactional with 100-record and 1000-record
transactions (begin, produce, commit_transaction). The median of --repeat runs is reported.
"""

import argparse
import time
import uuid

from confluent_kafka import Producer
from targets import add_common_args, client_config, print_table, ratio, run_on_targets, unique_topic

VALUE_SIZE = 100
TIMEOUT = 300.0


def idempotent_run(bootstrap, topic, records):
    producer = Producer(client_config(bootstrap, **{"enable.idempotence": True, "linger.ms": 5}))
    producer.list_topics(topic, timeout=30)  # connections and metadata outside the timing
    value = b"v" * VALUE_SIZE
    start = time.perf_counter()
    for _ in range(records):
        _produce(producer, topic, value)
    left = producer.flush(TIMEOUT)
    return time.perf_counter() - start, left


def transactional_run(bootstrap, topic, records, per_transaction):
    producer = Producer(client_config(bootstrap, **{"transactional.id": "bench-" + uuid.uuid4().hex, "linger.ms": 5}))
    producer.init_transactions(60)
    producer.list_topics(topic, timeout=30)
    value = b"v" * VALUE_SIZE
    start = time.perf_counter()
    sent = 0
    while sent < records:
        producer.begin_transaction()
        for _ in range(min(per_transaction, records - sent)):
            _produce(producer, topic, value)
        producer.commit_transaction(TIMEOUT)
        sent += per_transaction
    return time.perf_counter() - start, 0


def _produce(producer, topic, value):
    while True:
        try:
            producer.produce(topic, value)
            return
        except BufferError:
            producer.poll(0.005)


def bench_target(target, args):
    topic = unique_topic("bench-tx")
    target.create_topic(topic, args.partitions, args.replication_factor)
    cases = [("idempotent", lambda: idempotent_run(target.bootstrap_servers, topic, args.records))]
    for size in (100, 1000):
        cases.append(
            (
                "txn of %d" % size,
                lambda size=size: transactional_run(target.bootstrap_servers, topic, args.records, size),
            )
        )
    rates = {}
    for label, run in cases:
        runs = sorted(run() for _ in range(args.repeat))
        seconds, left = runs[len(runs) // 2]
        rates[label] = (args.records - left) / seconds
        print(
            "  %s %-12s %9.0f rec/s%s"
            % (target.name, label, rates[label], "" if not left else "  (%d undelivered)" % left)
        )
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50000, help="records per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the median is reported")
    add_common_args(parser)
    args = parser.parse_args()
    by_target = run_on_targets(args, lambda target: bench_target(target, args))
    rows = []
    for name, rates in by_target.items():
        base = rates["idempotent"]
        rows.append(
            [name, "%.0f" % base]
            + ["%.0f (%s)" % (rates[label], ratio(rates[label], base)) for label in ("txn of 100", "txn of 1000")]
        )
    print_table(["target", "idempotent rec/s", "txn of 100 rec/s (ratio)", "txn of 1000 rec/s (ratio)"], rows)


if __name__ == "__main__":
    main()
