"""Kafka's log files on real brokers: config/log4j.properties's files and line format, a controller failover in
controller.log and state-change.log, and kafka-request.log switched on at runtime through broker-loggers."""

import re
import signal

import pytest
from kazoo.client import KazooClient

from kafka_zk.protocol.errors import Errors
from tests.cluster_support import start_cluster, wait_for
from tests.raw_wire import create_topic, partition_leaders, request
from tests.test_real_tools import tool
from tests.zk_support import controller_id

LOG_FILES = (
    "server.log",
    "controller.log",
    "state-change.log",
    "log-cleaner.log",
    "kafka-request.log",
    "kafka-authorizer.log",
)
# log4j's "[%d] %p %m (%c)%n" with %d as ISO8601: a record is "[date] LEVEL message (logger)", its message may
# span lines (Kafka's cleaner stats do), and a traceback may follow it
RECORD = re.compile(
    r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*?) "
    r"\(([\w.$]+)\)$",
    re.MULTILINE | re.DOTALL,
)
RECORD_START = re.compile(r"^\[\d{4}-", re.MULTILINE)
TOPIC = "logged"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    running = start_cluster(
        tmp_path_factory.mktemp("log-files"), zookeeper_server, overrides={"zookeeper.session.timeout.ms": "6000"}
    )
    bootstrap = running.brokers[0].bootstrap
    assert create_topic(bootstrap, TOPIC, partitions=3, replication_factor=3) == Errors.NONE
    wait_for(lambda: len(partition_leaders(bootstrap, TOPIC)) == 3, 30, message="the topic's leaders")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def zk(cluster):
    client = KazooClient(hosts=cluster.zk_connect)
    client.start(30)
    yield client
    client.stop()
    client.close()


def epoch(zk):
    return int(zk.get("/controller_epoch")[0])


def text(broker, name, offset=0):
    with open(broker.log_path(name), "rb") as handle:
        handle.seek(offset)
        return handle.read().decode(errors="replace")


def formatted_lines(content):
    """(level, message, logger) of each record; every record start must parse as Kafka's line format."""
    records = [(match.start(), match.groups()) for match in RECORD.finditer(content)]
    starts = [match.start() for match in RECORD_START.finditer(content)]
    assert [start for start, _ in records] == starts, "not all in Kafka's line format:\n%s" % content[-3000:]
    return [groups for _, groups in records]


def configs(cluster, *args):
    return tool(
        "kafka-configs.sh", "--bootstrap-server", cluster.brokers[0].bootstrap, "--entity-type", "broker-loggers", *args
    )


def test_each_broker_writes_kafkas_files_in_kafkas_format(cluster, zk):
    active = controller_id(zk)
    for broker in cluster.brokers:
        for name in LOG_FILES:
            assert broker.log_path(name).exists(), "%s of broker %d" % (name, broker.broker_id)
        server = formatted_lines(text(broker, "server.log"))
        # once: the local cluster sends stdout to server.log, and the file appender does not write it again
        assert [
            message
            for _, message, logger in server
            if message.endswith("started") and logger == "kafka_zk.server.kafka_server"
        ] == ["[KafkaServer id=%d] started" % broker.broker_id]
        # additivity=false, as in Kafka's file: controller and state-change lines only in their own files
        assert not [
            record
            for record in server
            if record[2].startswith("kafka_zk.controller") or record[2] == "state.change.logger"
        ]
        state_changes = formatted_lines(text(broker, "state-change.log"))
        assert state_changes and {logger for _, _, logger in state_changes} == {"state.change.logger"}
        # the topic's partitions as this broker cached them; INFO by default, so no per-partition line
        assert any(
            level == "INFO"
            and re.match(
                r"\[Broker id=%d\] Add \d+ partitions and deleted 0 partitions from "
                r"metadata cache in response to UpdateMetadata request sent by "
                r"controller %d epoch \d+ with correlation id \d+" % (broker.broker_id, active),
                message,
            )
            for level, message, _ in state_changes
        )
        assert {level for level, _, _ in state_changes} == {"INFO"}
        assert broker.log_path("kafka-request.log").stat().st_size == 0  # kafka.request.logger is at WARN
    controller_changes = [
        message for _, message, _ in formatted_lines(text(cluster.broker(active), "state-change.log"))
    ]
    for broker in cluster.brokers:  # the topic's creation: each replica's LeaderAndIsr, from the controller
        assert any(
            re.match(
                r"\[Controller id=%d epoch=\d+\] Sending LeaderAndIsr request to broker %d with 1 "
                r"become-leader and 2 become-follower partitions" % (active, broker.broker_id),
                message,
            )
            for message in controller_changes
        )
    lines = formatted_lines(text(cluster.broker(active), "controller.log"))
    assert {logger for _, _, logger in lines} <= {
        "kafka_zk.controller.%s" % module
        for module in (
            "controller",
            "state_changes",
            "channel_manager",
            "request_sender",
            "leader_elections",
            "leadership_writer",
            "reassignment",
            "topic_deletion",
            "controlled_shutdown",
            "event_manager",
        )
    }
    assert any("%d successfully elected as the controller" % active in message for _, message, _ in lines)


def test_kafka_request_log_is_switched_on_at_runtime_through_broker_loggers(cluster):
    broker = cluster.brokers[1]
    described = configs(cluster, "--entity-name", "1", "--describe")
    assert described.returncode == 0, described.stderr
    assert "  kafka.request.logger=WARN " in described.stdout and "  state.change.logger=INFO " in described.stdout
    request(broker.bootstrap, 3, 1, {"topics": []})
    assert broker.log_path("kafka-request.log").stat().st_size == 0

    altered = configs(cluster, "--entity-name", "1", "--alter", "--add-config", "kafka.request.logger=DEBUG")
    assert altered.returncode == 0, altered.stderr
    request(broker.bootstrap, 3, 1, {"topics": [{"name": TOPIC}]})
    lines = wait_for(
        lambda: [
            record
            for record in formatted_lines(text(broker, "kafka-request.log"))
            if "apiKey=METADATA, apiVersion=1" in record[1]
        ],
        10,
        message="the Metadata request's line",
    )
    level, message, logger = lines[0]
    assert (level, logger) == ("DEBUG", "kafka.request.logger")
    assert re.match(
        r"Completed request:RequestHeader\(apiKey=METADATA, apiVersion=1, clientId=\S*, "
        r"correlationId=\d+\) -- \{topics=\[\{name=logged\}\].*\},response:\{.*\} from connection "
        r"127\.0\.0\.1:%d-127\.0\.0\.1:\d+-\d+;totalTime:[\d.]+,requestQueueTime:[\d.]+,localTime:[\d.]+,"
        r"remoteTime:[\d.]+,throttleTime:\d+,responseQueueTime:[\d.]+,sendTime:[\d.]+,"
        r"securityProtocol:PLAINTEXT,principal:User:ANONYMOUS,listener:PLAINTEXT,"
        r"clientInformation:ClientInformation\(.*\)$" % broker.port,
        message,
    ), message
    assert cluster.brokers[0].log_path("kafka-request.log").stat().st_size == 0  # broker 0 is still at WARN

    reset = configs(cluster, "--entity-name", "1", "--alter", "--add-config", "kafka.request.logger=WARN")
    assert reset.returncode == 0, reset.stderr
    size = broker.log_path("kafka-request.log").stat().st_size
    request(broker.bootstrap, 3, 1, {"topics": []})
    assert broker.log_path("kafka-request.log").stat().st_size == size


def test_a_controller_failover_shows_in_controller_log_and_state_change_log(cluster, zk):
    old_id = controller_id(zk)
    old_epoch = epoch(zk)
    survivors = [broker for broker in cluster.brokers if broker.broker_id != old_id]
    for broker in cluster.brokers:  # Kafka's per-partition lines, switched on at runtime
        traced = configs(
            cluster, "--entity-name", str(broker.broker_id), "--alter", "--add-config", "state.change.logger=TRACE"
        )
        assert traced.returncode == 0, traced.stderr
    offsets = {
        (b.broker_id, name): b.log_path(name).stat().st_size
        for b in survivors
        for name in ("controller.log", "state-change.log")
    }

    cluster.broker(old_id).signal(signal.SIGKILL)
    wait_for(lambda: controller_id(zk) not in (None, old_id), 30, message="a new controller")  # broker 0 is falsy
    new_id = controller_id(zk)
    new_epoch = epoch(zk)
    assert new_epoch > old_epoch
    new = cluster.broker(new_id)
    other = [b for b in survivors if b.broker_id != new_id][0]

    elected = "%d successfully elected as the controller. Epoch incremented to %d" % (new_id, new_epoch)
    wait_for(
        lambda: elected in text(new, "controller.log", offsets[(new_id, "controller.log")]),
        20,
        message="the new controller's election in its controller.log",
    )
    epochs = wait_for(
        lambda: re.search(
            r"\[Controller id=%d\] Initialized broker epochs cache: Map\((.*)\)" % new_id,
            text(new, "controller.log", offsets[(new_id, "controller.log")]),
        ),
        20,
        message="the new controller's live brokers in its controller.log",
    )
    assert sorted(int(entry.split(" -> ")[0]) for entry in epochs.group(1).split(", ")) == sorted(
        b.broker_id for b in survivors
    )
    prefix = "[Controller id=%d epoch=%d] " % (new_id, new_epoch)
    wait_for(
        lambda: re.search(
            re.escape(prefix) + r"Changed partition %s-\d from OfflinePartition to OnlinePartition "
            r"with state LeaderAndIsr\(leader=\d, leaderEpoch=\d+, isr=List\([\d, ]+\), "
            r"zkVersion=\d+\)" % TOPIC,
            text(new, "state-change.log", offsets[(new_id, "state-change.log")]),
        ),
        20,
        message="the new controller's elections in its state-change.log",
    )
    controller_side = text(new, "state-change.log", offsets[(new_id, "state-change.log")])
    assert re.search(
        re.escape(prefix) + r"Sending LeaderAndIsr request to broker %d with \d+ become-leader and \d+ "
        r"become-follower partitions" % other.broker_id,
        controller_side,
    )
    assert (
        prefix
        + "Changed state of replica %d for partition %s-0 from OfflineReplica to OfflineReplica" % (old_id, TOPIC)
        in controller_side
    )

    def broker_side():
        return text(other, "state-change.log", offsets[(other.broker_id, "state-change.log")])

    wait_for(
        lambda: re.search(
            r"\[Broker id=%d\] Handling LeaderAndIsr request correlationId \d+ from controller %d "
            r"epoch %d starting the become-(leader|follower) transition for partition %s-"
            % (other.broker_id, new_id, new_epoch, TOPIC),
            broker_side(),
        ),
        20,
        message="the other survivor's LeaderAndIsr lines from the new controller",
    )
    # The UpdateMetadata follows the LeaderAndIsr: wait for its lines too, not only for the first request's.
    wait_for(
        lambda: re.search(
            r"\[Broker id=%d\] Cached leader info UpdateMetadataPartitionState\(topicName='%s', "
            r".*\) for partition %s-\d in response to UpdateMetadata request sent by controller %d "
            r"epoch %d with correlation id \d+" % (other.broker_id, TOPIC, TOPIC, new_id, new_epoch),
            broker_side(),
        ),
        20,
        message="the other survivor's UpdateMetadata lines from the new controller",
    )
    assert re.search(
        r"\[Broker id=%d\] Add 3 partitions and deleted 0 partitions from metadata cache in response "
        r"to UpdateMetadata request sent by controller %d epoch %d" % (other.broker_id, new_id, new_epoch),
        broker_side(),
    )
    for broker in survivors:
        for name in ("controller.log", "state-change.log"):
            formatted_lines(text(broker, name, offsets[(broker.broker_id, name)]))
