"""A consume-transform-produce copier for the exactly-once test: input topic to output topic in transactions
that carry the consumed offsets (send_offsets_to_transaction). Run as a process so tests can kill it with -9;
a static member, so that its restart takes its partitions back without waiting for the old session to end.

Usage: python -m tests.txn_copier BOOTSTRAP INPUT OUTPUT GROUP TRANSACTIONAL_ID
"""

import sys
import time

from confluent_kafka import Consumer, Producer


def main(bootstrap, source, target, group, transactional_id):
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000,
            "group.instance.id": transactional_id,
        }
    )
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "linger.ms": 5})
    producer.init_transactions(60)
    consumer.subscribe([source])
    print("ready", flush=True)
    while True:
        messages = [m for m in consumer.consume(50, 0.5) if not m.error()]
        if not messages:
            continue
        producer.begin_transaction()
        for message in messages:
            producer.produce(target, key=message.key(), value=message.value(), partition=message.partition())
        time.sleep(0.05)  # leave the kill a window inside the transaction
        producer.send_offsets_to_transaction(
            consumer.position(consumer.assignment()), consumer.consumer_group_metadata(), 60
        )
        producer.commit_transaction(60)
        print("committed %d" % len(messages), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:6])
