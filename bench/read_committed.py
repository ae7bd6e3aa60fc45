"""read_committed vs read_uncommitted consume throughput on kafka-zk, with confluent-kafka.

The data is written with raw transactional produces and WriteTxnMarkers (the transaction coordinator
does not exist yet): per partition, --transactions transactions of --per-transaction records of 100 bytes,
every third one aborted. A fresh consumer per run reads every partition from the beginning until it has
every record its isolation level shows (the median of --repeat runs). kafka-zk only: the mock cluster
would need a transactional producer to fill it.
"""

import argparse
import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from targets import client_config, make_targets, report_broker_problems, unique_topic

from kafka_zk.client.cluster import ClusterClient
from kafka_zk.record.records import encode_batch

VALUE_SIZE = 100
RUN_TIMEOUT = 300.0


def fill(bootstrap, topic, partitions, transactions, per_transaction):
    """Write the transactions; returns (committed records, all records)."""
    client = ClusterClient(bootstrap)
    try:
        _, answer = client.any_request(22, lambda version: {"transactional_id": None, "transaction_timeout_ms": 60000})
        producer_id = answer["producer_id"]
        value = b"v" * VALUE_SIZE
        committed = 0
        for partition in range(partitions):
            leader = client.leader_for(topic, partition)
            sequence = 0
            for index in range(transactions):
                batch = encode_batch(
                    [(None, value)] * per_transaction,
                    producer_id=producer_id,
                    producer_epoch=0,
                    base_sequence=sequence,
                    is_transactional=True,
                )
                sequence += per_transaction
                produced = client.request(
                    leader,
                    0,
                    {
                        "transactional_id": "bench",
                        "acks": -1,
                        "timeout_ms": 30000,
                        "topics": [{"name": topic, "partitions": [{"partition_index": partition, "records": batch}]}],
                    },
                )
                assert produced["responses"][0]["partitions"][0]["error_code"] == 0, produced
                commit = index % 3 != 2
                marked = client.request(
                    leader,
                    27,
                    {
                        "markers": [
                            {
                                "producer_id": producer_id,
                                "producer_epoch": 0,
                                "transaction_result": commit,
                                "topics": [{"name": topic, "partition_indexes": [partition]}],
                                "coordinator_epoch": 0,
                            }
                        ]
                    },
                )
                assert marked["markers"][0]["topics"][0]["partitions"][0]["error_code"] == 0, marked
                committed += per_transaction if commit else 0
        return committed, partitions * transactions * per_transaction
    finally:
        client.close()


def consume_run(bootstrap, topic, partitions, isolation_level, expected):
    consumer = Consumer(
        client_config(
            bootstrap,
            **{
                "group.id": "bench-" + uuid.uuid4().hex,
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "fetch.queue.backoff.ms": 10,
                "isolation.level": isolation_level,
            },
        )
    )
    try:
        consumer.list_topics(topic, timeout=10)
        start = time.perf_counter()
        deadline = start + RUN_TIMEOUT
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING) for partition in range(partitions)])
        count = 0
        while count < expected and time.perf_counter() < deadline:
            # A short timeout: consume() waits it out whenever fewer than num_messages are left to deliver.
            for message in consumer.consume(1000, timeout=0.01):
                if not message.error():
                    count += 1
        return time.perf_counter() - start, count
    finally:
        consumer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", help="use this running kafka-zk cluster instead of starting one")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--replication-factor", type=int, default=3)
    parser.add_argument("--transactions", type=int, default=300, help="transactions per partition")
    parser.add_argument("--per-transaction", type=int, default=100, help="records per transaction")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    args.only = "kafka-zk"
    target = make_targets(args)[0].start()
    try:
        topic = unique_topic("bench-txn")
        target.create_topic(topic, args.partitions, args.replication_factor)
        started = time.perf_counter()
        committed, total = fill(
            target.bootstrap_servers, topic, args.partitions, args.transactions, args.per_transaction
        )
        print(
            "  wrote %d records in %d transactions (%d committed records) in %.1fs"
            % (total, args.partitions * args.transactions, committed, time.perf_counter() - started)
        )
        rates = {}
        for level, expected in (("read_uncommitted", total), ("read_committed", committed)):
            runs = [
                consume_run(target.bootstrap_servers, topic, args.partitions, level, expected)
                for _ in range(args.repeat)
            ]
            seconds, count = sorted(runs)[len(runs) // 2]
            rates[level] = (count / seconds, total / seconds)
            print(
                "  %-16s %8d records delivered in %.2fs: %9.0f delivered rec/s, %9.0f log rec/s%s"
                % (
                    level,
                    count,
                    seconds,
                    count / seconds,
                    total / seconds,
                    "" if count == expected else "  (expected %d)" % expected,
                )
            )
        print(
            "  read_committed / read_uncommitted, log records per second: %.2f"
            % (rates["read_committed"][1] / rates["read_uncommitted"][1])
        )
    finally:
        if target.cluster is not None:
            target.cluster.stop()
            report_broker_problems(target)


if __name__ == "__main__":
    main()
