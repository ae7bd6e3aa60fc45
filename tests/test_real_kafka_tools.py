"""Apache Kafka 2.5.1's own test tools (kafka-tools-2.5.1.jar) against real brokers: ClientCompatibilityTest with the
feature flags Kafka's client_compatibility_features_test passes for a 2.5 broker, on three brokers with the ACL
authorizer and over SASL_SSL; VerifiableProducer and VerifiableConsumer across a clean and a hard broker bounce; and two
TransactionalMessageCopiers (each on its own input partition, as Kafka's transactions_test runs them, then both in one
group) copying a seeded topic while their transaction coordinators bounce, read back with read_committed."""

import json
import signal
import subprocess
import threading
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.coordinator.group.records import partition_for as group_partition
from kafka_zk.coordinator.transaction.records import partition_for as transaction_partition
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import AclBinding, AclEntry, ResourcePattern
from kafka_zk.security.authorizer import AclOperation, PermissionType, ResourceType
from kafka_zk.tools.local_cluster import LocalCluster, internal_topic_settings
from tests.cluster_support import wait_for
from tests.java_clients import KAFKA_2_5_CLIENTS, JavaClientsUnavailable, classpath, java_command, run_java
from tests.ports import free_port
from tests.replication_support import fast_overrides, module_replication_cluster

TOOLS = "org.apache.kafka.tools."
# What client_compatibility_features_test passes for a 2.5 broker, as far as 2.5.1's tool has the flags.
KAFKA_2_5_FEATURES = {
    "--offsets-for-times-supported": "true",
    "--cluster-id-supported": "true",
    "--expect-record-too-large-exception": "false",
    "--create-topics-supported": "true",
    "--describe-acls-supported": "true",
}
AUTHORIZER = {
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    "allow.everyone.if.no.acl.found": "true",
}
INTERNAL_TOPICS = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "6",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "transaction.state.log.num.partitions": "6",
    "group.initial.rebalance.delay.ms": "0",
}

TOPIC_CONFIGS = {"min.insync.replicas": "2"}
# The producer of Kafka's replication and transactions tests: idempotent, acks=all, retrying for as long as it takes
# (VerifiableProducer sets retries=0 before it reads this file).
IDEMPOTENT_PRODUCER = {"enable.idempotence": "true", "acks": "all", "retries": "2147483647"}
READ_COMMITTED = {"isolation.level": "read_committed"}

cluster = module_replication_cluster(overrides=dict(fast_overrides(), **AUTHORIZER, **INTERNAL_TOPICS))


@pytest.fixture(scope="module")
def tools_classpath():
    try:
        return classpath(KAFKA_2_5_CLIENTS)
    except JavaClientsUnavailable as exc:
        pytest.skip("Kafka 2.5.1's jars are not available here: %s" % exc)


@pytest.fixture(scope="module")
def secure_broker(tmp_path_factory):
    """One broker as `local-cluster --secure` makes it: SASL_SSL for clients, ACLs, SCRAM users admin and alice."""
    secure = LocalCluster(
        tmp_path_factory.mktemp("tools-secure"),
        brokers=1,
        zk_port=free_port(),
        broker_ports=[free_port()],
        internal_ports=[free_port()],
        overrides=internal_topic_settings(1),
        secure=True,
    )
    try:
        secure.start(timeout=90)
    except Exception:
        secure.kill()
        raise
    yield secure
    secure.stop()


def compatibility_test(bootstrap, topic, nodes):
    args = [TOOLS + "ClientCompatibilityTest", "--bootstrap-server", bootstrap, "--topic", topic]
    args += ["--num-cluster-nodes", str(nodes)]
    for name, value in KAFKA_2_5_FEATURES.items():
        args += [name, value]
    return args


def assert_success(result):
    assert result.returncode == 0 and result.stdout.rstrip().endswith("SUCCESS."), (
        "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (result.returncode, result.stdout, result.stderr[-6000:])
    )


@pytest.mark.timeout(180)
def test_client_compatibility_test_passes_with_the_acl_authorizer(tools_classpath, cluster):
    bootstrap = cluster.bootstrap_servers
    topic = "client-compatibility-test"
    with AdminClient(bootstrap) as admin:
        assert admin.create_topics([NewTopic(topic, 1, 3)]) == {topic: (Errors.NONE, None)}
        # An ACL on a topic nobody uses, so that describeAcls has a binding to return.
        probe = AclBinding(
            ResourcePattern(ResourceType.TOPIC, "tools-acl-probe"),
            AclEntry("User:alice", "*", AclOperation.READ, PermissionType.ALLOW),
        )
        assert admin.create_acls([probe]) == [(Errors.NONE, None)]
    assert_success(run_java(*compatibility_test(bootstrap, topic, 3)))


@pytest.mark.timeout(180)
def test_client_compatibility_test_passes_over_sasl_ssl(tools_classpath, secure_broker):
    admin_properties = secure_broker.security.material.properties_file("admin")
    result = run_java(
        "WithClientProperties",
        str(admin_properties),
        *compatibility_test(secure_broker.bootstrap_servers, "secure-compatibility-test", 1),
    )
    assert_success(result)


class ToolProcess:
    """One of Kafka's tools running in the background, the JSON objects of its stdout parsed as they come."""

    def __init__(self, folder, name, main_class, *args):
        self.name = name
        self.objects = []
        self.other_lines = []
        self._lock = threading.Lock()
        self.stderr_path = folder / ("%s.stderr" % name)
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                java_command(TOOLS + main_class, *args),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                start_new_session=True,
            )
        self._reader = threading.Thread(target=self._read, name="read-%s" % name, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            try:
                parsed = json.loads(line)
            except ValueError:
                parsed = None
            with self._lock:
                if isinstance(parsed, dict):
                    self.objects.append(parsed)
                else:
                    self.other_lines.append(line.rstrip())

    def named(self, name):
        """The events whose "name" is ``name`` (VerifiableProducer's and VerifiableConsumer's), in output order."""
        with self._lock:
            return [event for event in self.objects if event.get("name") == name]

    def having(self, key):
        """The objects with a ``key`` (TransactionalMessageCopier's "progress" and "shutdown_complete")."""
        with self._lock:
            return [found for found in self.objects if key in found]

    def describe(self):
        try:
            stderr = self.stderr_path.read_text(errors="replace")[-4000:]
        except OSError:
            stderr = ""
        with self._lock:
            last = self.objects[-3:]
            other = self.other_lines[-10:]
        return "%s: exit %s, last objects %s, other lines %s\n--- stderr\n%s" % (
            self.name,
            self.process.poll(),
            last,
            other,
            stderr,
        )

    def wait_until(self, condition, timeout, message):
        """Wait until condition() holds; fail at once, with the tool's output, when the tool exits first."""

        def holds():
            if condition():
                return True
            if self.process.poll() is not None:
                raise AssertionError("%s exited before %s\n%s" % (self.name, message, self.describe()))
            return False

        try:
            wait_for(holds, timeout, interval=0.1, message=message)
        except AssertionError as exc:
            raise AssertionError("%s\n%s" % (exc, self.describe())) from None

    def wait_exit(self, timeout):
        try:
            returncode = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError("%s still running after %.0fs\n%s" % (self.name, timeout, self.describe())) from None
        self._reader.join(10)
        return returncode

    def stop(self, timeout=60):
        """SIGTERM: the tool's shutdown hook closes its clients and prints its summary; the JVM then exits with
        128 + SIGTERM."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        returncode = self.wait_exit(timeout)
        assert returncode in (0, 128 + signal.SIGTERM), self.describe()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def run_tool(tools_classpath, tmp_path):
    """run_tool(name, main class under org.apache.kafka.tools, *args) -> ToolProcess; leftovers are killed."""
    started = []

    def run(name, main_class, *args):
        started.append(ToolProcess(tmp_path, name, main_class, *args))
        return started[-1]

    yield run
    for tool in started:
        tool.kill()


def properties_file(path, settings):
    path.write_text("".join("%s=%s\n" % item for item in settings.items()))
    return str(path)


def broker_ids(cluster):
    return sorted(broker.broker_id for broker in cluster.brokers)


def leader_of(cluster, topic, partition):
    return cluster.broker(cluster.state(topic, partition)["leader"])


def bounce(cluster, broker, hard, topics):
    """Stop a broker (SIGTERM, a controlled shutdown; or kill -9), start it again and wait until it is back in the
    ISR of every partition of ``topics`` ({topic: partitions})."""
    if hard:
        broker.kill()
        cluster.restart_killed(broker)
    else:
        broker.stop()
        broker.start(timeout=60)
    for topic, partitions in topics.items():
        cluster.wait_full_isr(topic, range(partitions), broker_ids(cluster), timeout=60)


def acked_per_partition(producer):
    counts = {}
    for event in producer.named("producer_send_success"):
        counts[event["partition"]] = counts.get(event["partition"], 0) + 1
    return counts


@pytest.mark.timeout(300)
def test_verifiable_producer_and_consumer_lose_and_repeat_nothing_across_broker_bounces(cluster, run_tool, tmp_path):
    partitions = 3
    topic = cluster.new_topic("verifiable", partitions=partitions, configs=TOPIC_CONFIGS)
    cluster.wait_full_isr(topic, range(partitions), broker_ids(cluster))
    bootstrap = cluster.bootstrap_servers
    group = "verifiable-consumer-group"
    consumer = run_tool(
        "consumer", "VerifiableConsumer", "--bootstrap-server", bootstrap, "--topic", topic, "--group-id", group,
        "--verbose",
    )  # fmt: skip
    consumer.wait_until(
        lambda: any(len(event["partitions"]) == partitions for event in consumer.named("partitions_assigned")),
        60,
        "the consumer's assignment of every partition",
    )
    producer = run_tool(
        "producer", "VerifiableProducer", "--bootstrap-server", bootstrap, "--topic", topic, "--acks", "-1",
        "--throughput", "500", "--producer.config", properties_file(tmp_path / "idempotent", IDEMPOTENT_PRODUCER),
    )  # fmt: skip

    def progress(more):
        """Wait until every partition has ``more`` acknowledged records more than now."""
        now = acked_per_partition(producer)
        producer.wait_until(
            lambda: all(acked_per_partition(producer).get(p, 0) >= now.get(p, 0) + more for p in range(partitions)),
            60,
            "%d more acknowledged records in every partition" % more,
        )

    progress(100)
    started = time.monotonic()
    bounce(cluster, leader_of(cluster, topic, 0), False, {topic: partitions})
    progress(100)
    coordinator = leader_of(cluster, "__consumer_offsets", group_partition(group, 6))
    bounce(cluster, coordinator, True, {topic: partitions, "__consumer_offsets": 6})
    progress(100)
    bounced_for = time.monotonic() - started
    producer.stop()

    assert producer.named("shutdown_complete")
    assert producer.named("producer_send_error") == []
    acked = {(event["partition"], event["offset"]): event["value"] for event in producer.named("producer_send_success")}
    summary = producer.named("tool_data")[-1]
    assert summary["sent"] == summary["acked"] == len(acked), summary
    consumer.wait_until(
        lambda: len({(r["partition"], r["offset"]) for r in consumer.named("record_data")}) >= len(acked),
        60,
        "the consumer reading the %d acknowledged records" % len(acked),
    )
    consumer.stop()

    assert consumer.named("shutdown_complete")
    read = [(r["partition"], r["offset"], r["value"]) for r in consumer.named("record_data")]
    assert len(read) == len(acked), "%d records read, %d acknowledged" % (len(read), len(acked))
    assert {(p, offset): value for p, offset, value in read} == acked  # each acked record, once, at its offset
    for partition in range(partitions):
        offsets = [offset for p, offset, _ in read if p == partition]
        values = [int(value) for p, _, value in read if p == partition]
        assert offsets == list(range(len(offsets))), "partition %d read out of order or with gaps" % partition
        assert values == sorted(values), "partition %d: values out of send order" % partition
    assert sorted(int(value) for value in acked.values()) == list(range(len(acked)))
    commits = consumer.named("offsets_committed")
    assert commits and commits[-1]["success"], commits[-3:]
    ends = {p: sum(1 for q, _ in acked if q == p) for p in range(partitions)}
    assert committed_offsets(bootstrap, group, topic, partitions) == ends
    print(
        "verifiable: %d records acked and read once in order across a clean and a hard bounce (%.1fs), %d commits"
        % (len(acked), bounced_for, len(commits))
    )


def committed_offsets(bootstrap, group, topic, partitions):
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        stored = reader.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
    finally:
        reader.close()
    return {tp.partition: tp.offset for tp in stored}


SEED_RECORDS = 16000
TRANSACTION_SIZE = 100
END_MARK = "end"


def seed(run_tool, bootstrap, topic, count, config):
    """``count`` records of increasing integers through an idempotent VerifiableProducer; {partition: [values in
    offset order]}."""
    producer = run_tool(
        "seed", "VerifiableProducer", "--bootstrap-server", bootstrap, "--topic", topic, "--max-messages", str(count),
        "--producer.config", config,
    )  # fmt: skip
    assert producer.wait_exit(120) == 0, producer.describe()
    assert producer.named("producer_send_error") == []
    acked = sorted(
        (event["partition"], event["offset"], event["value"]) for event in producer.named("producer_send_success")
    )
    assert len(acked) == count, producer.describe()
    values = {}
    for partition, _, value in acked:
        values.setdefault(partition, []).append(value)
    return values


def copier_status(copier):
    """The copier's last progress line: {"totalProcessed", "remaining", "stage", ...}, or {}."""
    found = copier.having("progress")
    return found[-1] if found else {}


def left_to_copy(copier):
    """What a running copier last said it had left to copy; 0 once it has exited."""
    return copier_status(copier).get("remaining", 0) if copier.process.poll() is None else 0


def assignments(copier):
    """The copier's status lines after each assignment of partitions (group mode only)."""
    return [status for status in copier.having("progress") if status["stage"] == "RebalanceComplete"]


def read_committed_to_the_end(bootstrap, topic, partitions):
    """{partition: [values]} of every committed record, read with confluent-kafka in read_committed up to an end mark
    produced (outside any transaction) after the copiers were done: everything committed before it is behind it."""
    marker = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for partition in range(partitions):
        marker.produce(topic, value=END_MARK.encode(), partition=partition)
    assert marker.flush(60) == 0
    reader = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "read-committed-check",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    values = {partition: [] for partition in range(partitions)}
    ended = set()
    try:
        reader.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        deadline = time.monotonic() + 90
        while len(ended) < partitions and time.monotonic() < deadline:
            for message in reader.consume(1000, timeout=1):
                assert message.error() is None, message.error()
                if message.partition() in ended:
                    continue
                value = message.value().decode()
                if value == END_MARK:
                    ended.add(message.partition())
                else:
                    values[message.partition()].append(value)
    finally:
        reader.close()
    assert len(ended) == partitions, "end marks read in partitions %s only" % sorted(ended)
    return values


@pytest.mark.timeout(360)
@pytest.mark.parametrize("mode", ["assign", "group"])
def test_transactional_message_copiers_copy_each_record_once_across_broker_bounces(cluster, run_tool, tmp_path, mode):
    """``assign``: each copier copies its own input partition, as transactions_test runs them; ``group``: both
    subscribe in one group (--group-mode), share the partitions, and the one left takes over the other's when it is
    done, so that offsets committed in transactions carry the group's generation (KIP-447)."""
    input_partitions, output_partitions = 2, 3
    input_topic = cluster.new_topic("copier-input", partitions=input_partitions, configs=TOPIC_CONFIGS)
    output_topic = cluster.new_topic("copier-output", partitions=output_partitions, configs=TOPIC_CONFIGS)
    for topic, partitions in ((input_topic, input_partitions), (output_topic, output_partitions)):
        cluster.wait_full_isr(topic, range(partitions), broker_ids(cluster))
    bootstrap = cluster.bootstrap_servers
    seeded = seed(
        run_tool, bootstrap, input_topic, SEED_RECORDS, properties_file(tmp_path / "idempotent", IDEMPOTENT_PRODUCER)
    )
    assert sorted(seeded) == list(range(input_partitions))

    group = "transactions-test-consumer-group-%s" % mode
    transactional_ids = ["copier-%s-%d" % (mode, i) for i in range(input_partitions)]
    copiers = []
    for partition, transactional_id in enumerate(transactional_ids):
        args = ["--broker-list", bootstrap, "--input-topic", input_topic, "--input-partition", str(partition)]
        args += ["--output-topic", output_topic, "--transactional-id", transactional_id, "--consumer-group", group]
        args += ["--transaction-size", str(TRANSACTION_SIZE), "--transaction-timeout", "40000", "--use-group-metadata"]
        if mode == "group":
            args.append("--group-mode")
        copiers.append(run_tool(transactional_id, "TransactionalMessageCopier", *args))
    concurrent = run_tool(
        "concurrent-consumer", "VerifiableConsumer", "--bootstrap-server", bootstrap, "--topic", output_topic,
        "--group-id", "concurrent-consumer", "--verbose",
        "--consumer.config", properties_file(tmp_path / "read-committed", READ_COMMITTED),
    )  # fmt: skip
    for copier in copiers:
        copier.wait_until(lambda c=copier: copier_status(c).get("totalProcessed", 0) > 0, 60, "a first copy")

    # Every partition the copies go through is back in full ISR after each bounce.
    topics = {input_topic: input_partitions, output_topic: output_partitions, "__transaction_state": 6}
    topics["__consumer_offsets"] = 6
    started = time.monotonic()
    faults = []
    # A clean bounce of copier-0's transaction coordinator, then a hard one of copier-1's (wherever it is by then).
    for transactional_id, hard in zip(transactional_ids, (False, True)):
        coordinator = leader_of(cluster, "__transaction_state", transaction_partition(transactional_id, 6))
        faults.append([left_to_copy(copier) for copier in copiers])
        bounce(cluster, coordinator, hard, topics)
    bounced_for = time.monotonic() - started
    for copier in copiers:
        assert copier.wait_exit(180) == 0, copier.describe()
    copied_for = time.monotonic() - started

    # Each bounce began while records were left to copy (in group mode, one copier may be done and gone).
    assert all(any(remaining > 0 for remaining in at_fault) for at_fault in faults), faults
    assert all(remaining > 0 for remaining in faults[0]), faults
    done = [copier.having("shutdown_complete")[-1] for copier in copiers]
    assert all(summary["remaining"] == 0 for summary in done), done
    assert sum(summary["totalProcessed"] for summary in done) >= SEED_RECORDS, done

    concurrent.wait_until(
        lambda: len(concurrent.named("record_data")) >= SEED_RECORDS,
        90,
        "the read_committed consumer reading %d copies" % SEED_RECORDS,
    )
    concurrent.stop()
    concurrently = [r["value"] for r in concurrent.named("record_data")]
    assert len(concurrently) == len(set(concurrently)) == SEED_RECORDS
    assert set(concurrently) == {value for values in seeded.values() for value in values}

    # A copier writes a record to the output partition numbered as its input partition, in input order.
    output = read_committed_to_the_end(bootstrap, output_topic, output_partitions)
    for partition in range(input_partitions):
        assert output[partition] == seeded[partition], "output partition %d is not a copy of its input" % partition
    assert output[2] == []
    ends = {partition: len(values) for partition, values in seeded.items()}
    assert committed_offsets(bootstrap, group, input_topic, input_partitions) == ends
    print(
        "transactions (%s): %d records copied once by 2 copiers in %.1fs across a clean and a hard bounce (%.1fs); "
        "records left to copy at each fault: %s; assignments: %s"
        % (mode, SEED_RECORDS, copied_for, bounced_for, faults, [len(assignments(copier)) for copier in copiers])
    )
