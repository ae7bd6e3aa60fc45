"""The log4j subset (common/log4j) read from the shipped config/log4j.properties, its layouts and appenders, and the
wording of the state-change and request logs."""

import io
import logging
import os
import time
from pathlib import Path

import pytest

from kafka_zk.common import log4j, state_change_log
from kafka_zk.net import request_log
from kafka_zk.server.config import broker_loggers
from kafka_zk.server.main import configure_logging

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = (ROOT / "config" / "log4j.properties").read_text()
FILES = {
    "kafkaAppender": "server.log",
    "stateChangeAppender": "state-change.log",
    "requestAppender": "kafka-request.log",
    "cleanerAppender": "log-cleaner.log",
    "controllerAppender": "controller.log",
    "authorizerAppender": "kafka-authorizer.log",
}
MANAGED = [
    "kafka_zk",
    "kafka_zk.controller",
    "kafka_zk.log.cleaner",
    "kafka_zk.log.cleaner_transactions",
    "kafka_zk.server.log_cleaner_service",
    "kazoo",
    "state.change.logger",
    "kafka.request.logger",
    "kafka.authorizer.logger",
]


def record(name, level, message, *args, created=None):
    entry = logging.LogRecord(name, level, "f.py", 7, message, args, None)
    if created is not None:
        entry.created = created
    return entry


@pytest.fixture
def restore_logging():
    """configure() rewires the process's loggers: put back what pytest had."""
    root = logging.getLogger()
    saved = {
        name: (logging.getLogger(name).level, logging.getLogger(name).propagate, list(logging.getLogger(name).handlers))
        for name in MANAGED
    }
    root_saved = (root.level, list(root.handlers))
    yield
    for name, (level, propagate, handlers) in saved.items():
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level)
        logger.propagate = propagate
        for handler in handlers:
            logger.addHandler(handler)
    for handler in list(root.handlers):
        if handler not in root_saved[1]:
            root.removeHandler(handler)
            handler.close()
    for handler in root_saved[1]:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(root_saved[0])


def test_the_shipped_file_is_kafkas_layout_of_files_levels_and_additivity():
    config = log4j.parse(SHIPPED, {"kafka.logs.dir": "/var/log/kafka"})
    assert config.root.level == logging.INFO and config.root.appenders == ["stdout", "kafkaAppender"]
    assert {name: os.path.basename(a.file) for name, a in config.appenders.items() if a.kind == "file"} == FILES
    assert config.appenders["kafkaAppender"].file == "/var/log/kafka/server.log"
    assert {a.date_pattern for a in config.appenders.values() if a.kind == "file"} == {"'.'yyyy-MM-dd-HH"}
    assert {a.pattern for a in config.appenders.values()} == {"[%d] %p %m (%c)%n"}
    expected = {
        "kafka.request.logger": ("WARN", ["requestAppender"]),
        "kafka.controller": ("TRACE", ["controllerAppender"]),
        "kafka.log.LogCleaner": ("INFO", ["cleanerAppender"]),
        "state.change.logger": ("INFO", ["stateChangeAppender"]),  # TRACE in Kafka's: see the file
        "kafka.authorizer.logger": ("INFO", ["authorizerAppender"]),
    }
    for name, (level, appenders) in expected.items():
        setting = config.loggers[name]
        assert (log4j.level_name(setting.level), setting.appenders, setting.additive) == (level, appenders, False)
    assert config.loggers["kafka"].additive and config.loggers["kafka"].appenders == []


def test_kafkas_logger_names_apply_to_our_packages():
    assert log4j.python_logger_names("kafka") == ("kafka_zk",)
    assert log4j.python_logger_names("kafka.controller") == ("kafka_zk.controller",)
    assert "kafka_zk.server.log_cleaner_service" in log4j.python_logger_names("kafka.log.LogCleaner")
    assert log4j.python_logger_names("state.change.logger") == ("state.change.logger",)
    assert log4j.python_logger_names("kafka.request.logger") == ("kafka.request.logger",)
    assert log4j.python_logger_names("kafka.server.ReplicaManager") == ("kafka_zk.server.ReplicaManager",)
    assert log4j.python_logger_names("org.apache.zookeeper") == ("kazoo",)


def test_parser_handles_substitution_continuations_and_errors():
    text = (
        "log4j.rootLogger=WARN, a\nlog4j.appender.a=org.apache.log4j.FileAppender\n"
        "log4j.appender.a.File=${dir}/x.log\nlog4j.appender.a.layout.ConversionPattern=%p \\\n  %m%n\n"
        "log4j.logger.foo.bar=DEBUG\nlog4j.additivity.foo.bar=false\n"
    )
    config = log4j.parse(text, {"dir": "/tmp/d"})
    assert config.appenders["a"].file == "/tmp/d/x.log" and config.appenders["a"].date_pattern is None
    assert config.appenders["a"].pattern == "%p %m%n"
    assert (config.loggers["foo.bar"].level, config.loggers["foo.bar"].additive) == (logging.DEBUG, False)
    assert (
        log4j.parse("log4j.appender.a=org.apache.log4j.FileAppender\nlog4j.appender.a.File=${missing}/y\n", {})
        .appenders["a"]
        .file
        == "/y"
    )  # log4j: an unknown property is empty
    with pytest.raises(log4j.Log4jError, match="not defined"):
        log4j.parse("log4j.rootLogger=INFO, nowhere\n")
    with pytest.raises(log4j.Log4jError, match="unsupported appender class"):
        log4j.parse("log4j.appender.x=org.apache.log4j.net.SocketAppender\n")
    with pytest.raises(log4j.Log4jError, match="unknown log4j level"):
        log4j.parse("log4j.rootLogger=LOUD\n")


def test_system_properties_follow_kafka_run_class():
    path, props = log4j.system_properties({"LOG_DIR": "/data/logs"}, "/opt/kafka/logs")
    assert (path, props["kafka.logs.dir"]) == (None, "/data/logs")
    path, props = log4j.system_properties(
        {"KAFKA_LOG4J_OPTS": "-Dlog4j.configuration=file:/etc/kafka/log4j.properties -Dkafka.logs.dir=/x"},
        "/opt/kafka/logs",
    )
    assert (path, props["kafka.logs.dir"]) == ("/etc/kafka/log4j.properties", "/x")
    assert log4j.system_properties({}, "/opt/kafka/logs")[1]["kafka.logs.dir"] == "/opt/kafka/logs"


def test_pattern_layout_prints_kafkas_line():
    created = time.mktime((2026, 11, 26, 16, 0, 0, 0, 0, -1)) + 0.123
    line = log4j.PatternFormatter("[%d] %p %m (%c)%n").format(
        record("kafka_zk.server.kafka_server", logging.INFO, "[KafkaServer id=%d] started", 1, created=created)
    )
    assert line == "[2026-11-26 16:00:00,123] INFO [KafkaServer id=1] started (kafka_zk.server.kafka_server)\n"
    levels = [
        log4j.PatternFormatter("%p").format(record("x", level, "m"))
        for level in (5, logging.DEBUG, logging.WARNING, logging.ERROR, logging.CRITICAL)
    ]
    assert levels == ["TRACE", "DEBUG", "WARN", "ERROR", "FATAL"]
    assert (
        log4j.PatternFormatter("%-5p|%c{1}|%d{HH:mm:ss}|%%").format(record("a.b.c", logging.INFO, "m", created=created))
        == "INFO |c|16:00:00|%"
    )


def test_pattern_layout_puts_a_traceback_after_its_line():
    try:
        raise ValueError("boom")
    except ValueError:
        entry = logging.LogRecord("x", logging.ERROR, "f.py", 1, "failed", (), __import__("sys").exc_info())
    text = log4j.PatternFormatter("%p %m (%c)%n").format(entry)
    assert text.startswith("ERROR failed (x)\nTraceback (most recent call last):") and text.endswith("boom\n")


def test_daily_rolling_file_rolls_at_a_new_period(tmp_path):
    path = tmp_path / "server.log"
    handler = log4j.DailyRollingFileHandler(str(path), "'.'yyyy-MM-dd-HH")
    handler.setFormatter(log4j.PatternFormatter("%m%n"))
    hour = time.mktime((2026, 11, 26, 15, 30, 0, 0, 0, -1))
    handler._period = time.strftime(handler.suffix_format, time.localtime(hour))
    handler.emit(record("x", logging.INFO, "at half past three", created=hour))
    handler.emit(record("x", logging.INFO, "at four", created=hour + 1800))
    handler.close()
    assert (tmp_path / "server.log.2026-11-26-15").read_text() == "at half past three\n"
    assert path.read_text() == "at four\n"


def test_configure_routes_each_logger_to_its_file(tmp_path, restore_logging):
    out = io.StringIO()
    config = log4j.parse(SHIPPED, {"kafka.logs.dir": str(tmp_path)})
    log4j.configure(config, out, managed=MANAGED)
    logging.getLogger("kafka_zk.server.kafka_server").info("server line")
    logging.getLogger("kafka_zk.controller.controller").info("controller line")
    logging.getLogger("kafka_zk.controller.controller").debug("controller debug")  # kafka.controller is TRACE
    state_change_log.trace("[Broker id=1] ", "traced %s", "change")  # INFO: not written
    state_change_log.info("[Broker id=1] ", "Add %d partitions", 3)
    logging.getLogger("kafka_zk.server.log_cleaner_service").info("cleaner line")
    logging.getLogger("kafka.request.logger").debug("request line")  # WARN: off
    logging.getLogger("kafka_zk.server.kafka_server").debug("server debug")  # kafka is INFO
    contents = {name: (tmp_path / name).read_text() for name in FILES.values()}
    assert [line.split("] ", 1)[1] for line in contents["server.log"].splitlines()] == [
        "INFO server line (kafka_zk.server.kafka_server)"
    ]
    assert out.getvalue() == contents["server.log"]  # stdout has what server.log has
    assert [line.split("] ", 1)[1] for line in contents["controller.log"].splitlines()] == [
        "INFO controller line (kafka_zk.controller.controller)",
        "DEBUG controller debug (kafka_zk.controller.controller)",
    ]
    assert [line.split("] ", 1)[1] for line in contents["state-change.log"].splitlines()] == [
        "INFO [Broker id=1] Add 3 partitions (state.change.logger)"
    ]
    assert contents["log-cleaner.log"].endswith(" INFO cleaner line (kafka_zk.server.log_cleaner_service)\n")
    assert contents["kafka-request.log"] == contents["kafka-authorizer.log"] == ""


def test_a_file_that_stdout_already_writes_is_written_once(tmp_path, restore_logging):
    with open(tmp_path / "server.log", "a") as stdout:  # the local cluster's redirect
        log4j.configure(log4j.parse(SHIPPED, {"kafka.logs.dir": str(tmp_path)}), stdout, managed=MANAGED)
        logging.getLogger("kafka_zk.server.kafka_server").warning("once")
        stdout.flush()
    assert (tmp_path / "server.log").read_text().count("once") == 1


def test_broker_main_reads_the_file_named_by_kafka_log4j_opts(tmp_path, restore_logging):
    custom = tmp_path / "custom.properties"
    custom.write_text(
        SHIPPED.replace("log4j.logger.kafka.request.logger=WARN", "log4j.logger.kafka.request.logger=DEBUG")
    )
    configure_logging(
        {
            "LOG_DIR": str(tmp_path / "a"),
            "KAFKA_LOG4J_OPTS": "-Dlog4j.configuration=file:%s -Dkafka.logs.dir=%s" % (custom, tmp_path / "b"),
        }
    )
    assert (tmp_path / "b" / "kafka-request.log").exists() and not (tmp_path / "a").exists()
    assert logging.getLogger("kafka.request.logger").isEnabledFor(logging.DEBUG)


def test_broker_loggers_list_and_change_kafkas_named_loggers(restore_logging):
    logging.getLogger("kafka.request.logger").setLevel(logging.WARNING)
    levels = broker_loggers.logger_levels()
    assert {"state.change.logger", "kafka.request.logger", "kafka.authorizer.logger"} <= set(levels)
    assert levels["kafka.request.logger"] == "WARN"
    assert broker_loggers.alter_logger_levels(
        [{"name": "kafka.request.logger", "config_operation": 0, "value": "DEBUG"}], False
    ) == (0, None)
    assert request_log.enabled()
    assert broker_loggers.alter_logger_levels(
        [{"name": "kafka.request.logger", "config_operation": 0, "value": "WARN"}], False
    ) == (0, None)
    assert not request_log.enabled()


def test_state_change_wording_is_kafkas():
    assert (
        state_change_log.leader_and_isr_text(1, 2, [1, 2], 3)
        == "LeaderAndIsr(leader=1, leaderEpoch=2, isr=List(1, 2), zkVersion=3)"
    )
    state = {
        "partition_index": 0,
        "controller_epoch": 3,
        "leader": 1,
        "leader_epoch": 2,
        "isr": [1, 2],
        "zk_version": 3,
        "replicas": [1, 2],
        "adding_replicas": [],
        "removing_replicas": [],
        "is_new": False,
        "offline_replicas": [2],
    }
    assert state_change_log.leader_and_isr_partition_text("t", state) == (
        "LeaderAndIsrPartitionState(topicName='t', partitionIndex=0, controllerEpoch=3, leader=1, leaderEpoch=2, "
        "isr=[1, 2], zkVersion=3, replicas=[1, 2], addingReplicas=[], removingReplicas=[], isNew=false)"
    )
    assert state_change_log.update_metadata_partition_text("t", state) == (
        "UpdateMetadataPartitionState(topicName='t', partitionIndex=0, controllerEpoch=3, leader=1, leaderEpoch=2, "
        "isr=[1, 2], zkVersion=3, replicas=[1, 2], offlineReplicas=[2])"
    )


def test_controller_batch_lines(caplog):
    state = {
        "partition_index": 0,
        "controller_epoch": 3,
        "leader": 1,
        "leader_epoch": 2,
        "isr": [1, 2],
        "zk_version": 3,
        "replicas": [1, 2],
    }
    follower = dict(state, partition_index=1, leader=2)
    requests = [
        (1, (4, 4), {"topic_states": [{"topic_name": "t", "partition_states": [state, follower]}]}),
        (1, (6, 6), {"topic_states": [{"topic_name": "t", "partition_states": [state]}]}),
        (2, (6, 6), {"topic_states": [{"topic_name": "t", "partition_states": [state]}]}),
        (2, (5, 2), {"delete_partitions": True, "topics": [{"name": "t", "partition_indexes": [0, 1]}]}),
    ]
    with caplog.at_level(5, logger="state.change.logger"):
        state_change_log.log_controller_requests(0, 3, requests)
    lines = [(entry.levelno, entry.getMessage()) for entry in caplog.records]
    assert (
        20,
        "[Controller id=0 epoch=3] Sending LeaderAndIsr request to broker 1 with 1 become-leader and 1 "
        "become-follower partitions",
    ) in lines
    assert (
        5,
        "[Controller id=0 epoch=3] Sending become-follower LeaderAndIsr request LeaderAndIsrPartitionState("
        "topicName='t', partitionIndex=1, controllerEpoch=3, leader=2, leaderEpoch=2, isr=[1, 2], zkVersion=3, "
        "replicas=[1, 2], addingReplicas=[], removingReplicas=[], isNew=false) to broker 1 for partition t-1",
    ) in lines
    assert [message for _, message in lines if "UpdateMetadata" in message] == [
        "[Controller id=0 epoch=3] Sending UpdateMetadata request UpdateMetadataPartitionState(topicName='t', "
        "partitionIndex=0, controllerEpoch=3, leader=1, leaderEpoch=2, isr=[1, 2], zkVersion=3, replicas=[1, 2], "
        "offlineReplicas=[]) to brokers Set(1, 2) for partition t-0"
    ]
    assert (
        20,
        "[Controller id=0 epoch=3] Sending a stop replica request (delete = true) for 2 replicas to broker 2",
    ) in lines


def test_per_partition_lines_are_not_formatted_below_trace(caplog, monkeypatch):
    formatted = []
    monkeypatch.setattr(state_change_log, "leader_and_isr_partition_text", lambda *a: formatted.append(a) or "")
    state = {
        "partition_index": 0,
        "controller_epoch": 3,
        "leader": 1,
        "leader_epoch": 2,
        "isr": [1],
        "zk_version": 3,
        "replicas": [1],
    }
    with caplog.at_level(logging.INFO, logger="state.change.logger"):
        state_change_log.log_controller_requests(
            0, 3, [(1, (4, 4), {"topic_states": [{"topic_name": "t", "partition_states": [state]}]})]
        )
        state_change_log.log_leader_and_isr_received(1, 5, 0, 3, [("t", state)])
    assert formatted == [] and [entry.levelno for entry in caplog.records] == [logging.INFO]


def test_broker_side_lines(caplog):
    leader = {
        "partition_index": 0,
        "controller_epoch": 3,
        "leader": 1,
        "leader_epoch": 2,
        "isr": [1, 2],
        "zk_version": 3,
        "replicas": [1, 2],
    }
    follower = dict(leader, partition_index=1, leader=2)
    with caplog.at_level(5, logger="state.change.logger"):
        state_change_log.log_leader_and_isr_applied(1, 5, 0, 3, [("t", leader), ("t", follower)], {})
        state_change_log.log_update_metadata(1, 6, 0, 3, [("t", leader), ("t", dict(follower, leader=-2))])
        state_change_log.log_stop_replica(1, [("t", 0)], False, [0])
    messages = [entry.getMessage() for entry in caplog.records]
    assert (
        "[Broker id=1] Handling LeaderAndIsr request correlationId 5 from controller 0 epoch 3 starting the "
        "become-leader transition for partition t-0"
    ) in messages
    assert (
        "[Broker id=1] Completed LeaderAndIsr request correlationId 5 from controller 0 epoch 3 for the "
        "become-follower transition for partition t-1 with leader 2"
    ) in messages
    assert (
        "[Broker id=1] Cached leader info UpdateMetadataPartitionState(topicName='t', partitionIndex=0, "
        "controllerEpoch=3, leader=1, leaderEpoch=2, isr=[1, 2], zkVersion=3, replicas=[1, 2], offlineReplicas=[]) "
        "for partition t-0 in response to UpdateMetadata request sent by controller 0 epoch 3 with correlation id "
        "6"
    ) in messages
    assert (
        "[Broker id=1] Deleted partition t-1 from metadata cache in response to UpdateMetadata request sent by "
        "controller 0 epoch 3 with correlation id 6"
    ) in messages
    assert (
        "[Broker id=1] Add 1 partitions and deleted 1 partitions from metadata cache in response to "
        "UpdateMetadata request sent by controller 0 epoch 3 with correlation id 6"
    ) in messages
    assert "[Broker id=1] Finished handling stop replica (delete=false) for partition t-0" in messages


def test_request_rendering():
    assert request_log.api_key_name("LeaderAndIsr") == "LEADER_AND_ISR"
    assert request_log.api_key_name("ApiVersions") == "API_VERSIONS"
    assert (
        request_log.render({"a": [1, 2], "b": None, "c": True, "d": b"xyz"})
        == "{a=[1,2],b=null,c=true,d=java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]}"
    )
    assert request_log.render({"a": list(range(1000))}, 20) == "{a=[0,1,2,3,4,5,6,7,..."


def test_authorizer_audit_lines(caplog):
    from types import SimpleNamespace

    from kafka_zk.security.authorizer import AclOperation, ResourceType, is_authorized
    from kafka_zk.security.principal import user

    authorizer = SimpleNamespace(authorize=lambda principal, host, operation, kind, name: name == "open")
    request = SimpleNamespace(principal=user("alice"), client_host="10.0.0.5", api_key=1)
    with caplog.at_level(logging.INFO, logger="kafka.authorizer.logger"):
        assert not is_authorized(authorizer, request, AclOperation.READ, ResourceType.TOPIC, "secret")
        assert is_authorized(authorizer, request, AclOperation.READ, ResourceType.TOPIC, "open")  # DEBUG: not kept
        assert not is_authorized(
            authorizer, request, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, "kafka-cluster", audit=False
        )  # TRACE: not kept
    assert [(entry.levelno, entry.getMessage()) for entry in caplog.records] == [
        (
            logging.INFO,
            "Principal = User:alice is Denied Operation = Read from host = 10.0.0.5 on resource = "
            "Topic:LITERAL:secret for request = FETCH with resourceRefCount = 1",
        )
    ]
