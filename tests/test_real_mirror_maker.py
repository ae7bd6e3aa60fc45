"""MirrorMaker 2 between a 3-broker Apache Kafka 2.5.1 cluster (A) and a 3-broker kafka-zk cluster (B), both ways:
topics come across with their records, partitions and configs (and later config changes), and consumer groups'
committed offsets come across translated, in the A.checkpoints.internal (B.checkpoints.internal) topic and as the
group's own offsets on the target (sync.group.offsets.enabled).

MirrorMaker 2 runs at 2.7.2 (the oldest connect-mirror this project's Maven Central serves), its clients talking to
2.5 brokers on both sides, as a dedicated connect-mirror-maker.sh process (kafka_zk/tools/connect_worker.py)."""

import struct
import uuid

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions

from kafka_zk.tools.connect_worker import ConnectJarsMissing, MirrorMakerProcess, jars_dir
from tests.cluster_support import make_topic, start_cluster, wait_for

RECORDS_PER_PARTITION = 300
PARTITIONS = 3
# The group has read this far into each partition when MirrorMaker starts, and this far later.
COMMITTED = {0: 120, 1: 45, 2: 300}
COMMITTED_LATER = {0: 250, 1: 299, 2: 300}
TOPIC_CONFIGS = {"retention.ms": "86400000", "max.message.bytes": "200000", "segment.bytes": "10485760"}
BROKER_OVERRIDES = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "6",
    "group.initial.rebalance.delay.ms": "0",
    # Only MirrorMaker creates the remote topics (a metadata request for one not there yet must not create it).
    "auto.create.topics.enable": "false",
}


@pytest.fixture(scope="module")
def mirrored(request, tmp_path_factory, zookeeper_server, broker_processes):
    """Cluster A (Kafka's brokers) and B (kafka-zk's), each on a chroot of its own, a topic and a group on each, and
    MirrorMaker 2 replicating A->B and B->A; yields (clusters by alias, {alias: (topic, group)}, MirrorMaker)."""
    probe = MirrorMakerProcess(".", {})
    try:
        jars_dir(probe.libs, probe.marker_jar)
    except ConnectJarsMissing as error:
        pytest.skip(str(error))
    folder = tmp_path_factory.mktemp("mirror_maker")
    clusters, mirror_maker = {}, None
    try:
        clusters["A"] = start_cluster(folder / "A", zookeeper_server, overrides=BROKER_OVERRIDES, kafka_brokers=3)
        clusters["B"] = start_cluster(folder / "B", zookeeper_server, overrides=BROKER_OVERRIDES)
        sources = {}
        for alias, cluster in clusters.items():
            topic = make_topic(
                cluster,
                "mm-%s" % alias.lower(),
                partitions=PARTITIONS,
                configs=TOPIC_CONFIGS,
                records_per_partition=RECORDS_PER_PARTITION,
            )
            group = "mm-group-%s-%s" % (alias.lower(), uuid.uuid4().hex[:8])
            commit_offsets(cluster, group, topic, COMMITTED)
            sources[alias] = (topic, group)
        mirror_maker = MirrorMakerProcess(folder / "mirror-maker", mm2_properties(clusters))
        mirror_maker.start(timeout=120)
        yield clusters, sources, mirror_maker
    finally:
        if mirror_maker is not None:
            mirror_maker.kill()
        for cluster in clusters.values():
            cluster.stop()


def mm2_properties(clusters):
    """An mm2.properties of clusters A and B, each replicating its mm-* topics and their groups to the other, with
    short intervals so that a test sees topics, configs, groups and checkpoints within seconds."""
    properties = {"clusters": ", ".join(clusters)}
    for alias, cluster in clusters.items():
        properties["%s.bootstrap.servers" % alias] = cluster.bootstrap_servers
    for source, target in (("A", "B"), ("B", "A")):
        flow = "%s->%s" % (source, target)
        properties["%s.enabled" % flow] = "true"
        properties["%s.topics" % flow] = "mm-.*"
        properties["%s.groups" % flow] = "mm-group-.*"
    for name in ("replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor"):
        properties[name] = "3"
    for name in ("offset-syncs.topic.replication.factor", "offset.storage.replication.factor"):
        properties[name] = "3"
    for name in ("status.storage.replication.factor", "config.storage.replication.factor"):
        properties[name] = "3"
    properties.update(
        {
            "refresh.topics.interval.seconds": "2",
            "refresh.groups.interval.seconds": "2",
            "sync.topic.configs.interval.seconds": "2",
            "emit.checkpoints.interval.seconds": "1",
            "emit.heartbeats.interval.seconds": "1",
            "sync.group.offsets.enabled": "true",
            "sync.group.offsets.interval.seconds": "1",
            "offset.flush.interval.ms": "1000",
        }
    )
    return properties


def commit_offsets(cluster, group, topic, offsets):
    """Commit ``offsets`` {partition: offset} for ``group`` as a subscribed consumer that read that far. A group
    that has joined, not one that only commits (a "simple" group, protocol type ""), which MirrorMaker 2 skips."""
    consumer = Consumer(
        {"bootstrap.servers": cluster.bootstrap_servers, "group.id": group, "enable.auto.commit": False}
    )
    try:
        consumer.subscribe([topic])
        wait_for(lambda: consumer.poll(0.2) is None and consumer.assignment(), 60, 0.0, "%s's assignment" % group)
        consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    finally:
        consumer.close()


def read_all(cluster, topic, partitions):
    """{partition: [values]} of every record of ``topic`` up to its end offsets."""
    consumer = Consumer(
        {"bootstrap.servers": cluster.bootstrap_servers, "group.id": "reader-%s" % uuid.uuid4().hex[:8]}
    )
    try:
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=20)[1] for p in range(partitions)}
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        values = {p: [] for p in range(partitions)}
        wait_for(
            lambda: _poll_into(consumer, values) or all(len(values[p]) >= ends[p] for p in values),
            60,
            0.0,
            "records of %s up to %s" % (topic, ends),
        )
        return values
    finally:
        consumer.close()


def _poll_into(consumer, values):
    for message in consumer.consume(500, 0.5):
        if message.error() is None:
            values[message.partition()].append(message.value())
    return False


def topic_partitions(cluster, topic):
    metadata = AdminClient({"bootstrap.servers": cluster.bootstrap_servers}).list_topics(topic, timeout=20)
    found = metadata.topics.get(topic)
    return None if found is None or found.error is not None else len(found.partitions)


def topic_configs(cluster, topic):
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    entries = admin.describe_configs([resource])[resource].result(20)
    return {name: entry.value for name, entry in entries.items()}


def group_offsets(cluster, group, topic):
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(PARTITIONS)])
    result = admin.list_consumer_group_offsets([request])[group].result(20)
    return {tp.partition: tp.offset for tp in result.topic_partitions if tp.offset >= 0}


def decode_checkpoint(key, value):
    """(group, topic, partition, upstream offset, downstream offset) of a record of a checkpoints topic: the key is
    group (int16-length string), topic (string), partition (int32); the value a version (int16), then upstream and
    downstream offsets (int64) and metadata (string)."""
    (length,) = struct.unpack_from(">h", key, 0)
    group = key[2 : 2 + length].decode()
    position = 2 + length
    (length,) = struct.unpack_from(">h", key, position)
    topic = key[position + 2 : position + 2 + length].decode()
    (partition,) = struct.unpack_from(">i", key, position + 2 + length)
    version, upstream, downstream = struct.unpack_from(">hqq", value, 0)
    assert version == 0
    return group, topic, partition, upstream, downstream


def latest_checkpoints(cluster, checkpoints_topic, group):
    """{(topic, partition): (upstream, downstream)} of the last checkpoint of ``group`` per partition."""
    if topic_partitions(cluster, checkpoints_topic) is None:
        return {}
    latest = {}
    for records in read_all_with_keys(cluster, checkpoints_topic).values():
        for key, value in records:
            checkpoint_group, topic, partition, upstream, downstream = decode_checkpoint(key, value)
            if checkpoint_group == group:
                latest[(topic, partition)] = (upstream, downstream)
    return latest


def read_all_with_keys(cluster, topic):
    consumer = Consumer(
        {"bootstrap.servers": cluster.bootstrap_servers, "group.id": "reader-%s" % uuid.uuid4().hex[:8]}
    )
    try:
        partitions = topic_partitions(cluster, topic)
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=20)[1] for p in range(partitions)}
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        records = {p: [] for p in range(partitions)}

        def caught_up():
            for message in consumer.consume(500, 0.5):
                if message.error() is None:
                    records[message.partition()].append((message.key(), message.value()))
            return all(len(records[p]) >= ends[p] for p in records)

        wait_for(caught_up, 60, 0.0, "records of %s up to %s" % (topic, ends))
        return records
    finally:
        consumer.close()


FLOWS = [("A", "B"), ("B", "A")]
FLOW_IDS = ["kafka-2.5.1 to kafka-zk", "kafka-zk to kafka-2.5.1"]


@pytest.mark.parametrize("source, target", FLOWS, ids=FLOW_IDS)
def test_topics_come_across_with_records_partitions_and_configs(mirrored, source, target):
    clusters, sources, _ = mirrored
    topic, _ = sources[source]
    remote = "%s.%s" % (source, topic)
    wait_for(
        lambda: topic_partitions(clusters[target], remote) == PARTITIONS,
        90,
        0.5,
        "%s on %s with %d partitions" % (remote, target, PARTITIONS),
    )
    wait_for(
        lambda: all(high_watermark(clusters[target], remote, p) >= RECORDS_PER_PARTITION for p in range(PARTITIONS)),
        90,
        0.5,
        "every record of %s on %s" % (remote, target),
    )
    assert read_all(clusters[target], remote, PARTITIONS) == read_all(clusters[source], topic, PARTITIONS)

    def configs_mirrored():
        configs = topic_configs(clusters[target], remote)
        return all(configs[name] == value for name, value in TOPIC_CONFIGS.items())

    wait_for(configs_mirrored, 60, 0.5, "%s's configs on %s: %s" % (remote, target, TOPIC_CONFIGS))


def high_watermark(cluster, topic, partition):
    """The high watermark of one partition; 0 while it or its leader is not known yet."""
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "watermarks"})
    try:
        return (consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10) or (0, 0))[1]
    except KafkaException:
        return 0
    finally:
        consumer.close()


@pytest.mark.parametrize("source, target", FLOWS, ids=FLOW_IDS)
def test_a_config_changed_at_the_source_follows_on_the_target(mirrored, source, target):
    clusters, sources, _ = mirrored
    topic, _ = sources[source]
    remote = "%s.%s" % (source, topic)
    wait_for(lambda: topic_partitions(clusters[target], remote), 90, 0.5, "%s on %s" % (remote, target))
    admin = AdminClient({"bootstrap.servers": clusters[source].bootstrap_servers})
    change = ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[change])
    admin.incremental_alter_configs([resource])[resource].result(20)
    wait_for(
        lambda: topic_configs(clusters[target], remote)["retention.ms"] == "3600000",
        60,
        0.5,
        "retention.ms of %s on %s" % (remote, target),
    )


@pytest.mark.parametrize("source, target", FLOWS, ids=FLOW_IDS)
def test_group_offsets_come_across_translated(mirrored, source, target):
    clusters, sources, _ = mirrored
    topic, group = sources[source]
    remote = "%s.%s" % (source, topic)
    checkpoints_topic = "%s.checkpoints.internal" % source
    # A checkpoint names the remote partition, the group's offset upstream and its translation downstream.
    expected = {(remote, p): offset for p, offset in COMMITTED.items()}

    # A replica of the same records from offset 0: each offset translates to itself.
    seen = {}

    def checkpointed(wanted, timeout):
        def caught_up():
            seen.update(latest_checkpoints(clusters[target], checkpoints_topic, group))
            return {key: upstream for key, (upstream, _) in seen.items()} == wanted and dict(seen)

        try:
            return wait_for(caught_up, timeout, 1.0, "checkpoints of %s on %s" % (group, target))
        except AssertionError as error:
            raise AssertionError("%s: have %s" % (error, seen)) from None

    latest = checkpointed(expected, 90)
    assert {key: downstream for key, (_, downstream) in latest.items()} == expected
    wait_for(
        lambda: group_offsets(clusters[target], group, remote) == COMMITTED,
        60,
        0.5,
        "%s's offsets of %s on %s" % (group, remote, target),
    )

    # The group reads on at the source; its new offsets come across too.
    commit_offsets(clusters[source], group, topic, COMMITTED_LATER)
    later = {(remote, p): offset for p, offset in COMMITTED_LATER.items()}
    latest = checkpointed(later, 60)
    assert {key: downstream for key, (_, downstream) in latest.items()} == later
    wait_for(
        lambda: group_offsets(clusters[target], group, remote) == COMMITTED_LATER,
        60,
        0.5,
        "%s's later offsets of %s on %s" % (group, remote, target),
    )


@pytest.mark.parametrize("source, target", FLOWS, ids=FLOW_IDS)
def test_partitions_added_at_the_source_are_added_on_the_target(mirrored, source, target):
    clusters, sources, _ = mirrored
    topic, _ = sources[source]
    remote = "%s.%s" % (source, topic)
    wait_for(lambda: topic_partitions(clusters[target], remote) == PARTITIONS, 90, 0.5, "%s on %s" % (remote, target))
    admin = AdminClient({"bootstrap.servers": clusters[source].bootstrap_servers})
    admin.create_partitions([NewPartitions(topic, PARTITIONS + 2)])[topic].result(20)
    wait_for(
        lambda: topic_partitions(clusters[target], remote) == PARTITIONS + 2,
        60,
        0.5,
        "%d partitions of %s on %s" % (PARTITIONS + 2, remote, target),
    )


@pytest.mark.parametrize("source, target", FLOWS, ids=FLOW_IDS)
def test_heartbeats_come_across(mirrored, source, target):
    clusters, _, _ = mirrored
    remote = "%s.heartbeats" % source
    wait_for(lambda: topic_partitions(clusters[target], remote), 60, 0.5, "%s on %s" % (remote, target))
    wait_for(lambda: high_watermark(clusters[target], remote, 0) > 0, 60, 0.5, "records of %s on %s" % (remote, target))
