"""The replication, log and group metrics of real brokers, scraped from their Prometheus endpoints: a killed
follower shows up as an under-replicated partition and an ISR shrink on its leader, and goes away (with an ISR
expansion) once it is back; the per-partition log gauges match the partition's files; a consumer group's commit
shows up in the coordinator's group gauges."""

import math
import uuid

import pytest
from confluent_kafka import Consumer

from kafka_zk.record.records import encode_batch
from tests.cluster_support import scrape_metrics, wait_for
from tests.raw_wire import produce
from tests.replication_support import fast_overrides, module_replication_cluster, produce_when_led

pytestmark = pytest.mark.timeout(120)


# the leader drops a dead follower from the ISR (2-3 s) well before the controller (6 s session timeout)
cluster = module_replication_cluster(
    overrides=fast_overrides(
        replica_lag_time_max_ms=2000, group_initial_rebalance_delay_ms=0, offsets_topic_num_partitions=3
    ),
    metrics=True,
)


scrape = scrape_metrics


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted((key, str(v)) for key, v in labels.items()))))


REPLICA_MANAGER = "kafka_server_replicamanager_"


def test_a_killed_follower_is_under_replicated_on_its_leader_until_it_is_back(cluster):
    controller = cluster.wait_controller()
    leader_id, follower_id = [b.broker_id for b in cluster.brokers if b.broker_id != controller]
    leader, follower = cluster.broker(leader_id), cluster.broker(follower_id)
    topic = cluster.new_topic("urp", assignments={0: [leader_id, follower_id]}, configs={"min.insync.replicas": "2"})
    cluster.wait_full_isr(topic, [0], [leader_id, follower_id])
    assert produce_when_led(leader.bootstrap, topic, encode_batch([(None, b"x")] * 3), -1) == (0, 0)

    before = wait_for(
        lambda: (lambda s: s if value(s, REPLICA_MANAGER + "underreplicatedpartitions") == 0 else None)(scrape(leader)),
        10,
        message="no under-replicated partition on the leader",
    )
    assert value(before, REPLICA_MANAGER + "leadercount") >= 1
    assert value(before, REPLICA_MANAGER + "atminisrpartitioncount") >= 1  # ISR of 2 at min.insync.replicas=2
    assert value(before, REPLICA_MANAGER + "underminisrpartitioncount") == 0
    assert value(before, REPLICA_MANAGER + "offlinereplicacount") == 0
    assert value(before, "kafka_server_fetchsessioncache_numincrementalfetchsessions") >= 1  # the followers'
    shrinks = value(before, REPLICA_MANAGER + "isrshrinks_total")
    expands = value(before, REPLICA_MANAGER + "isrexpands_total")

    follower.kill()
    during = wait_for(
        lambda: (lambda s: s if value(s, REPLICA_MANAGER + "underreplicatedpartitions") == 1 else None)(scrape(leader)),
        20,
        message="the leader to count one under-replicated partition",
    )
    assert value(during, REPLICA_MANAGER + "isrshrinks_total") >= shrinks + 1
    assert value(during, REPLICA_MANAGER + "underminisrpartitioncount") == 1

    cluster.restart_killed(follower)
    after = wait_for(
        lambda: (lambda s: s if value(s, REPLICA_MANAGER + "underreplicatedpartitions") == 0 else None)(scrape(leader)),
        20,
        message="the leader back to no under-replicated partition",
    )
    assert value(after, REPLICA_MANAGER + "isrexpands_total") >= expands + 1
    assert value(after, REPLICA_MANAGER + "underminisrpartitioncount") == 0

    # the restarted follower fetches from the leader again, caught up
    followed = wait_for(
        lambda: (
            lambda s: s if value(s, "kafka_server_replicafetchermanager_maxlag", clientId="Replica") == 0 else None
        )(scrape(follower)),
        10,
        message="the follower's MaxLag at 0",
    )
    assert value(followed, "kafka_server_replicafetchermanager_minfetchrate", clientId="Replica") is not None
    assert value(followed, "kafka_server_kafkaserver_brokerstate") == 3  # RunningAsBroker
    assert value(followed, "kafka_server_sessionexpirelistener_zookeepersyncconnects_total") == 1
    assert value(followed, "kafka_server_sessionexpirelistener_sessionstate", state="CONNECTED") == 1
    assert value(followed, "kafka_server_sessionexpirelistener_sessionstate", state="CLOSED") == 0
    assert value(followed, "kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count") > 0
    for purgatory in ("Produce", "Fetch", "DeleteRecords", "Rebalance", "Heartbeat"):
        assert (
            value(followed, "kafka_server_delayedoperationpurgatory_purgatorysize", delayedOperation=purgatory)
            is not None
        )


def test_per_partition_log_gauges_match_the_partition_files(cluster):
    leader = cluster.brokers[0]
    topic = cluster.new_topic("logs", assignments={0: [leader.broker_id]}, configs={"segment.bytes": "1024"})
    for round_ in range(5):
        batch = encode_batch([(None, b"record-%d-%d" % (round_, i) + b"." * 100) for i in range(4)])
        assert produce(leader.bootstrap, topic, 0, batch, acks=1)[0] == 0
    partition_dir = leader.log_dir / ("%s-0" % topic)
    segments = sorted(partition_dir.glob("*.log"))
    samples = scrape(leader)
    tags = {"topic": topic, "partition": 0}
    assert value(samples, "kafka_log_log_logendoffset", **tags) == 20
    assert value(samples, "kafka_log_log_logstartoffset", **tags) == 0
    assert value(samples, "kafka_log_log_numlogsegments", **tags) == len(segments) > 1
    assert value(samples, "kafka_log_log_size", **tags) == sum(path.stat().st_size for path in segments)
    assert value(samples, "kafka_log_logmanager_offlinelogdirectorycount") == 0
    assert value(samples, "kafka_log_logmanager_logdirectoryoffline", logDirectory=str(leader.log_dir)) == 0
    assert value(samples, "kafka_log_logflushstats_logflushrateandtimems_count") is not None
    assert value(samples, "kafka_log_logcleanermanager_max_dirty_percent") is not None


def test_group_gauges_count_a_committing_consumer_group(cluster):
    topic = cluster.new_topic("group", partitions=2, replication_factor=2)
    for partition in (0, 1):
        leader = cluster.broker(cluster.wait_state(topic, lambda s: s["leader"] >= 0, partition=partition)["leader"])
        wait_for(
            lambda: produce(leader.bootstrap, topic, partition, encode_batch([(None, b"v")] * 2))[0] == 0,
            10,
            message="records in partition %d" % partition,
        )
    group = "metrics-" + uuid.uuid4().hex[:6]
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": 6000,
        }
    )
    prefix = "kafka_coordinator_group_groupmetadatamanager_"

    def totals():
        scrapes = [scrape(broker) for broker in cluster.brokers]
        return scrapes, {
            name: sum(value(s, prefix + name) or 0 for s in scrapes)
            for name in ("numgroups", "numgroupsstable", "numgroupsempty", "numoffsets")
        }

    try:
        consumer.subscribe([topic])
        consumed = []
        wait_for(
            lambda: (
                consumed.extend(m for m in [consumer.poll(0.2)] if m is not None and not m.error())
                or len(consumed) == 4
            ),
            30,
            message="the consumer to read the 4 records",
        )
        consumer.commit(asynchronous=False)
        _, stable = wait_for(
            lambda: (lambda t: t if t[1]["numoffsets"] == 2 else None)(totals()),
            10,
            message="the committed offsets in the group gauges",
        )
        assert stable == {"numgroups": 1, "numgroupsstable": 1, "numgroupsempty": 0, "numoffsets": 2}
    finally:
        consumer.close()
    scrapes, empty = wait_for(
        lambda: (lambda t: t if t[1]["numgroupsempty"] == 1 else None)(totals()),
        10,
        message="the group Empty once its member left",
    )
    assert empty == {"numgroups": 1, "numgroupsstable": 0, "numgroupsempty": 1, "numoffsets": 2}
    load_times = [value(s, "kafka_server_group_coordinator_metrics_partition_load_time_max") for s in scrapes]
    assert any(t is not None and not math.isnan(t) and t >= 0 for t in load_times)
    assert all(
        value(s, "kafka_server_transaction_coordinator_metrics_partition_load_time_avg") is not None for s in scrapes
    )
