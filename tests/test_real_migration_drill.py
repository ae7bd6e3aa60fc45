"""A rolling migration under load (issue 32): a cluster of three Apache Kafka 2.5.1 brokers holding topics of three
replicas (min.insync.replicas=2), committed group offsets and transactions is replaced one broker at a time by
kafka-zk brokers on the same id, port and log dir, then back to Kafka, while an idempotent acks=all producer writes
throughout. Every acknowledged record is read back exactly once and in order, every group's offsets and every
committed transaction survive, and each swap's longest stretch without an acknowledged write is printed."""

import time
import uuid

import pytest
from confluent_kafka import KafkaException

from tests.cluster_support import make_topic
from tests.delivery_checker import DeliveryChecker, longest_gap
from tests.mixed_support import (
    INTERNAL_TOPICS,
    BrokerProcess,
    ReferenceBrokerProcess,
    commit_offsets,
    committed_offsets,
    kafka_load_complaints,
    kind_name,
    read_partitions,
    swap_kind,
)
from tests.replication_support import module_replication_cluster
from tests.txn_support import retry_while_retriable, transactional_producer

PARTITIONS = 3
LOAD_RATE = 250  # records a second, round robin over the load topic's partitions
INTERNAL_PARTITIONS = int(INTERNAL_TOPICS["offsets.topic.num.partitions"])
BROKERS = [0, 1, 2]
OVERRIDES = {
    **INTERNAL_TOPICS,
    "min.insync.replicas": "2",
    # A swapped-in broker takes its preferred leaderships back within seconds, so each kind leads partitions the
    # other kind wrote.
    "leader.imbalance.check.interval.seconds": "3",
    "replica.fetch.wait.max.ms": "200",
}
TOPIC_CONFIGS = {"min.insync.replicas": "2"}

cluster = module_replication_cluster(overrides=OVERRIDES, kafka_brokers=3)


def settle(cluster, topics):
    """Every partition of ``topics`` and of the internal topics fully in sync and led by its preferred replica."""
    every = [(topic, PARTITIONS) for topic in topics]
    every += [("__consumer_offsets", INTERNAL_PARTITIONS), ("__transaction_state", INTERNAL_PARTITIONS)]
    for topic, count in every:
        cluster.wait_full_isr(topic, range(count), BROKERS, timeout=90)
    for topic, count in every:
        for partition in range(count):
            replicas = cluster.json_at("/brokers/topics/%s" % topic)["partitions"][str(partition)]
            cluster.wait_state(
                topic,
                lambda state, preferred=replicas[0]: state["leader"] == preferred,
                timeout=60,
                partition=partition,
                message="led by its preferred replica",
            )


class TransactionalWriter:
    """One transactional id committing (and aborting) batches of values to a topic; what it committed."""

    def __init__(self, cluster, topic):
        self.topic = topic
        self.producer = transactional_producer(cluster, "drill-" + uuid.uuid4().hex[:6], **{"acks": "all"})
        self.producer.init_transactions(60)
        self.committed = {partition: [] for partition in range(PARTITIONS)}
        self.batches = 0

    def transaction(self, commit=True, records=9):
        values = [b"txn-%03d-%d" % (self.batches, index) for index in range(records)]
        self.batches += 1
        self.producer.begin_transaction()
        for index, value in enumerate(values):
            self.producer.produce(self.topic, value=value, partition=index % PARTITIONS)
        self.producer.flush(60)
        if commit:
            retry_while_retriable(self.producer.commit_transaction)
            for index, value in enumerate(values):
                self.committed[index % PARTITIONS].append(value)
        else:
            retry_while_retriable(self.producer.abort_transaction)


def test_rolling_kafka_to_kafka_zk_and_back_loses_and_duplicates_nothing(cluster):
    assert [kind_name(broker) for broker in cluster.brokers] == ["kafka"] * 3
    began = time.monotonic()
    load_topic = make_topic(cluster, "drill-load", PARTITIONS, 3, TOPIC_CONFIGS)
    data_topic = make_topic(cluster, "drill-data", PARTITIONS, 3, TOPIC_CONFIGS, records_per_partition=200)
    txn_topic = make_topic(cluster, "drill-txn", PARTITIONS, 3, TOPIC_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    groups = {}
    for number, offsets in enumerate(({0: 10, 1: 20, 2: 30}, {0: 200, 1: 150, 2: 0})):
        group = "drill-group-%d-%s" % (number, uuid.uuid4().hex[:6])
        commit_offsets(bootstrap, group, data_topic, offsets)
        groups[group] = offsets
    writer = TransactionalWriter(cluster, txn_topic)
    writer.transaction()
    writer.transaction(commit=False)
    writer.transaction()
    settle(cluster, [load_topic, data_topic, txn_topic])

    load = DeliveryChecker(bootstrap, load_topic, PARTITIONS, rate=LOAD_RATE, name="migration").start()
    load.wait_acked(200, timeout=60)
    swaps, complaints = [], []
    try:
        for target in (BrokerProcess, ReferenceBrokerProcess):
            for broker_id in BROKERS:
                start = time.monotonic()
                swapped, log_offset = swap_kind(cluster, broker_id, target)
                if target is ReferenceBrokerProcess:  # Kafka on the log dir kafka-zk left: nothing to recover
                    complaints.extend(kafka_load_complaints(swapped, log_offset))
                settle(cluster, [load_topic, data_topic, txn_topic])
                load.wait_until(lambda checker: checker.acked_since(start) > 100, 60, "acknowledgements after the swap")
                end = time.monotonic()
                gap, _ = longest_gap([record.acked_at for record in load.acked], (start, end))
                swaps.append((broker_id, kind_name(cluster.broker(broker_id)), end - start, gap))
                for group, offsets in groups.items():
                    assert committed_offsets(bootstrap, group, data_topic, PARTITIONS) == offsets, group
                group = "drill-after-%d-%d-%s" % (len(swaps), broker_id, uuid.uuid4().hex[:4])
                groups[group] = {p: len(swaps) * 7 + p for p in range(PARTITIONS)}
                commit_offsets(bootstrap, group, data_topic, groups[group])
                try:
                    writer.transaction()
                except KafkaException as failure:
                    pytest.fail("a transaction after swap %d (broker %d): %s" % (len(swaps), broker_id, failure))
    finally:
        load.stop(timeout=120)
    for broker_id, kind, seconds, gap in swaps:
        print(
            "swap broker %d -> %-8s: %5.1f s until in sync and led, longest gap without an ack %.2f s"
            % (broker_id, kind, seconds, gap)
        )
    assert [kind_name(broker) for broker in cluster.brokers] == ["kafka"] * 3
    assert not complaints, "\n".join(complaints[:20])
    assert not load.failed, load.failed[:5]
    report = load.verify(timeout=120)
    print("%s; %.0f s in all" % (report.line(), time.monotonic() - began))
    assert report.acked > 1000
    report.assert_intact()
    for group, offsets in groups.items():
        assert committed_offsets(bootstrap, group, data_topic, PARTITIONS) == offsets, group
    committed = read_partitions(bootstrap, txn_topic, PARTITIONS, "read_committed")
    assert {p: [value for _, value in committed[p]] for p in committed} == writer.committed
    data = read_partitions(bootstrap, data_topic, PARTITIONS, "read_uncommitted")
    assert {p: [value for _, value in data[p]] for p in data} == {
        p: [b"%d-%d" % (p, index) for index in range(200)] for p in range(PARTITIONS)
    }
