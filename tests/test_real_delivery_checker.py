"""The delivery checker on real brokers: every acked record read back once and in order across a leader's kill -9."""

import time

import pytest

from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.delivery_checker import DeliveryChecker
from tests.raw_wire import partition_leaders, produce
from tests.replication_support import fast_overrides, make_cluster  # noqa: F401

PARTITIONS = 3
REPLICAS = [0, 1, 2]
DRILL_TOPIC_CONFIGS = {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}


@pytest.mark.timeout(120)
def test_kill9_of_a_leader_loses_duplicates_and_reorders_no_acked_record(make_cluster):
    cluster = make_cluster(fast_overrides())
    topic = cluster.new_topic("checked", partitions=PARTITIONS, replication_factor=3, configs=DRILL_TOPIC_CONFIGS)
    cluster.wait_full_isr(topic, range(PARTITIONS), REPLICAS)
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: len(partition_leaders(b.bootstrap, topic)) == PARTITIONS,
            30,
            message="broker %d to know %s's leaders" % (broker.broker_id, topic),
        )

    checker = DeliveryChecker(cluster.bootstrap_servers, topic, PARTITIONS, rate=200, name="leader kill -9")
    checker.start()
    try:
        checker.wait_acked(200, timeout=20)
        # The leader of a partition the controller does not lead: one fault, not a controller failover as well.
        controller = cluster.wait_controller()
        leaders = {p: cluster.state(topic, p)["leader"] for p in range(PARTITIONS)}
        partition, victim_id = next((p, leader) for p, leader in sorted(leaders.items()) if leader != controller)
        victim = cluster.broker(victim_id)
        fault_at = time.monotonic()
        victim.kill()
        cluster.wait_state(
            topic,
            lambda s: s["leader"] not in (-1, victim_id),
            30,
            partition,
            "a new leader after broker %d's kill" % victim_id,
        )
        cluster.restart_killed(victim)
        cluster.wait_full_isr(topic, range(PARTITIONS), REPLICAS)
        healed_at = time.monotonic()
        checker.wait_acked(100, timeout=30, partition=partition)
        checker.wait_acked(300, timeout=30)
    finally:
        checker.stop(timeout=60)

    report = checker.verify(timeout=30, window=(fault_at, healed_at))
    print(report.line())
    report.assert_intact()
    assert report.acked > 1000, report.line()
    assert report.read_back >= report.acked
    assert report.failed == [], report.failed

    # The real read path catches a defect too: a copy of an acked record appended behind the run.
    copied = checker.acked[0]
    leader = cluster.broker(cluster.state(topic, copied.partition)["leader"])
    assert produce(leader.bootstrap, topic, copied.partition, encode_batch([(None, copied.value)]), acks=-1)[0] == 0
    planted = checker.verify(timeout=30)
    assert [value for value, _ in planted.duplicated] == [copied.value], planted.line()
    assert planted.out_of_order == [] and planted.lost == [], planted.line()  # a later copy is only a duplicate
    with pytest.raises(AssertionError, match="1 duplicated"):
        planted.assert_intact()
