"""Log directory failure without processes: the failure channel, the log manager's offline dirs, the replica
manager's answers, and the controller's record of replicas on offline dirs."""

import errno
import os

import pytest
from twisted.internet import task

from kafka_zk.controller.context import ControllerContext, LeaderIsr, LiveBroker
from kafka_zk.controller.leadership import elect, initial_leadership
from kafka_zk.controller.requests import ControllerRequestBatch
from kafka_zk.coordinator.group.group_metadata_manager import GroupMetadataManager
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.log import log_manager as log_manager_module
from kafka_zk.log.dir_failure import KafkaStorageError, LogDirFailureChannel
from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager, NoLogDirError
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.replication.results import FetchInfo
from tests.replica_manager_support import replica_manager


def failing_for(failing_log, method, error_number):
    """``method`` of Log, raising OSError(``error_number``) for ``failing_log`` alone (a Log has slots: its methods
    are patched on the class)."""

    def patched(self, *args, **kwargs):
        if self is failing_log:
            raise OSError(error_number, os.strerror(error_number))
        return method(self, *args, **kwargs)

    return patched


CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})


# -- the channel ----------------------------------------------------------------------------------


def test_a_dir_goes_offline_once_and_every_listener_hears_it_once():
    channel = LogDirFailureChannel()
    heard = []
    channel.add_listener(heard.append)
    error = channel.report("/d/a", "Error while appending", OSError(errno.ENOSPC, "No space left on device"))
    again = channel.report("/d/a", "Error while flushing", OSError(errno.EIO, "I/O error"))
    assert isinstance(error, KafkaStorageError) and error.code == Errors.KAFKA_STORAGE_ERROR.value
    assert isinstance(again, KafkaStorageError)
    assert heard == ["/d/a"] and channel.offline_dirs == ["/d/a"]
    late = []
    channel.add_listener(late.append)  # a listener that subscribes later hears of what is already offline
    assert late == ["/d/a"]


def test_check_log_refuses_a_log_in_an_offline_dir(tmp_path):
    channel = LogDirFailureChannel()

    class Log:
        dir, topic, partition = str(tmp_path / "a" / "t-0"), "t", 0

    channel.check_log(Log, "read")  # nothing offline: nothing raised
    channel.report(str(tmp_path / "b"), "other dir")
    channel.check_log(Log, "read")
    channel.report(str(tmp_path / "a"), "this dir")
    with pytest.raises(KafkaStorageError):
        channel.check_log(Log, "read")


# -- the log manager ------------------------------------------------------------------------------


def manager_of(tmp_path, *names):
    return LogManager([str(tmp_path / name) for name in names], LogConfig(), task.Clock())


def test_a_dir_that_cannot_be_created_is_offline_from_the_start_and_new_logs_go_elsewhere(tmp_path):
    (tmp_path / "blocked").write_text("a file where a dir should be")
    manager = manager_of(tmp_path, "blocked", "ok")
    assert manager.failures.offline_dirs == [str(tmp_path / "blocked")]
    assert manager.live_log_dirs == [str(tmp_path / "ok")]
    manager.load_logs()
    assert [manager.log_dir_of("t", p) for p in range(3) if manager.get_or_create_log("t", p)] == [
        str(tmp_path / "ok")
    ] * 3
    # A replica that is not new may have lived in the offline dir: it is not created again elsewhere.
    with pytest.raises(KafkaStorageError):
        manager.get_or_create_log("t", 9, is_new=False)
    assert manager.get_log("t", 9) is None


def test_with_no_dir_left_the_manager_refuses_to_start(tmp_path):
    (tmp_path / "x").write_text("")
    with pytest.raises(NoLogDirError, match="None of the specified log dirs"):
        manager_of(tmp_path, "x")


def test_an_offline_dir_drops_its_logs_and_is_never_written_again(tmp_path, monkeypatch):
    manager = manager_of(tmp_path, "a", "b")
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    manager.get_or_create_log("t", 0).append(encode_batch([(None, b"v")]), 0, 0, 0)
    manager.get_or_create_log("t", 1)
    assert {manager.log_dir_of("t", 0), manager.log_dir_of("t", 1)} == {a, b}
    lost = 0 if manager.log_dir_of("t", 0) == a else 1
    written = []
    real_write = log_manager_module.OffsetCheckpointFile.write

    def failing_in_a(checkpoint, offsets):
        if os.path.dirname(checkpoint.path) == a:
            raise OSError(errno.EIO, "Input/output error")
        written.append(checkpoint.path)
        return real_write(checkpoint, offsets)

    monkeypatch.setattr(log_manager_module.OffsetCheckpointFile, "write", failing_in_a)
    manager.checkpoint_recovery_points()
    assert manager.failures.offline_dirs == [a]
    assert manager.handle_dir_failure(a) == [("t", lost)]
    assert manager.get_log("t", lost) is None and manager.get_log("t", 1 - lost) is not None
    written.clear()
    manager.checkpoint_recovery_points()
    manager.checkpoint_log_start_offsets()
    manager.shutdown()
    assert all(os.path.dirname(path) == b for path in written)
    assert os.path.exists(os.path.join(b, ".kafka_cleanshutdown"))
    assert not os.path.exists(os.path.join(a, ".kafka_cleanshutdown"))  # recovered at the next start


# -- the replica manager --------------------------------------------------------------------------


@pytest.fixture
def replicas(tmp_path):
    clock = task.Clock()
    logs = LogManager([str(tmp_path / "a"), str(tmp_path / "b")], LogConfig(), clock)
    manager = replica_manager(1, logs, lambda topic: dict(CONFIG), clock)
    states = [
        {
            "topic": "t",
            "partition": p,
            "leader": 1,
            "leader_epoch": 0,
            "isr": [1],
            "replicas": [1],
            "zk_version": 0,
            "controller_epoch": 1,
            "is_new": True,
        }
        for p in (0, 1)
    ]
    assert manager.become_leader_or_follower(states, {}) == {("t", 0): Errors.NONE, ("t", 1): Errors.NONE}
    manager.states = states
    return manager


def produce(manager, partition):
    results = []
    manager.append_records(1000, 1, {("t", partition): encode_batch([(None, b"v")])}).addCallback(results.append)
    return results[0][("t", partition)].error


def test_a_failed_append_takes_the_dir_offline_and_its_replicas_answer_storage_errors(replicas, monkeypatch):
    heard = []
    replicas.failures.add_listener(heard.append)
    lost_dir = replicas.log_manager.log_dir_of("t", 0)
    log = replicas.get_partition("t", 0).log

    monkeypatch.setattr(Log, "append_as_leader", failing_for(log, Log.append_as_leader, errno.ENOSPC))
    assert produce(replicas, 0) == Errors.KAFKA_STORAGE_ERROR
    assert heard == [lost_dir]
    assert produce(replicas, 0) == Errors.KAFKA_STORAGE_ERROR  # refused before the handler runs: no write
    assert replicas.handle_log_dir_failure(lost_dir) == [("t", 0)]
    assert produce(replicas, 0) == Errors.KAFKA_STORAGE_ERROR
    assert produce(replicas, 1) == Errors.NONE  # the other dir keeps serving
    fetched, _ = replicas.read_partitions([FetchInfo(("t", p), 0, 1 << 20, -1, 0) for p in (0, 1)], -1, 1 << 20)
    assert fetched[("t", 0)].error == Errors.KAFKA_STORAGE_ERROR and fetched[("t", 1)].error == Errors.NONE
    again = [dict(state, leader_epoch=1, is_new=False) for state in replicas.states]
    assert replicas.become_leader_or_follower(again, {}) == {
        ("t", 0): Errors.KAFKA_STORAGE_ERROR,
        ("t", 1): Errors.NONE,
    }
    assert replicas.stop_replica("t", 0, delete=False) == Errors.KAFKA_STORAGE_ERROR
    # A replica this broker never had, not new: it may have lived in the offline dir.
    unknown = dict(replicas.states[0], partition=7, is_new=False)
    assert replicas.become_leader_or_follower([unknown], {}) == {("t", 7): Errors.KAFKA_STORAGE_ERROR}
    assert replicas.become_leader_or_follower([dict(unknown, is_new=True)], {}) == {("t", 7): Errors.NONE}


# -- the controller -------------------------------------------------------------------------------


def context_of(live=(1, 2, 3)):
    context = ControllerContext()
    context.epoch = 4
    for broker in live:
        context.live_brokers[broker] = LiveBroker(broker, 100 + broker, None)
    context.assignments = {("t", 0): [1, 2, 3], ("t", 1): [1, 2, 3]}
    context.leadership = {tp: LeaderIsr(1, 5, [1, 2, 3], 4, 7) for tp in context.assignments}
    return context


def test_the_controller_keeps_kafkas_record_of_replicas_on_offline_dirs():
    context = context_of()
    assert context.record_replica_dirs(1, [("t", 0)], [("t", 1)]) == {("t", 0)}
    assert context.record_replica_dirs(1, [("t", 0)], []) == set()  # already known
    assert not context.is_replica_online(1, ("t", 0)) and context.is_replica_online(1, ("t", 1))
    assert context.record_replica_dirs(1, [], [("t", 0)]) == set()  # served again (after a restart)
    assert context.replicas_on_offline_dirs == {}
    context.record_replica_dirs(2, [("t", 1)], [])
    context.forget_offline_dirs([2])
    assert context.is_replica_online(2, ("t", 1))


def test_elections_pass_over_a_replica_on_an_offline_dir():
    context = context_of()
    context.record_replica_dirs(1, [("t", 0)], [])
    decided, failed = elect(context, [("t", 0), ("t", 1)], "offline")
    assert decided[("t", 0)] == LeaderIsr(2, 6, [2, 3], 4, 7) and failed == []
    assert decided[("t", 1)].leader == 1
    decided, failed = elect(context, [("t", 0)], "preferred")
    assert failed == [("t", 0)]
    context.assignments[("t", 2)] = [1, 3]
    context.record_replica_dirs(1, [("t", 0), ("t", 2)], [])
    assert initial_leadership(context, [("t", 2)])[0][("t", 2)] == LeaderIsr(3, 0, [3], 4, -1)


def test_update_metadata_names_replicas_on_offline_dirs_offline():
    context = context_of()
    context.record_replica_dirs(3, [("t", 1)], [])
    batch = ControllerRequestBatch(context, 1)
    assert batch._metadata_state(("t", 1), context.live_brokers)["offline_replicas"] == [3]
    assert batch._metadata_state(("t", 0), context.live_brokers)["offline_replicas"] == []


def test_a_coordinator_that_cannot_read_its_partition_takes_the_dir_offline_and_owns_nothing(tmp_path, monkeypatch):
    clock = task.Clock()
    logs = LogManager([str(tmp_path / "a")], LogConfig(), clock)
    replicas = replica_manager(1, logs, lambda topic: dict(CONFIG), clock)
    state = {
        "topic": OFFSETS_TOPIC,
        "partition": 3,
        "leader": 1,
        "leader_epoch": 0,
        "isr": [1],
        "replicas": [1],
        "zk_version": 0,
        "controller_epoch": 1,
        "is_new": True,
    }
    assert replicas.become_leader_or_follower([state], {}) == {(OFFSETS_TOPIC, 3): Errors.NONE}

    log = replicas.get_partition(OFFSETS_TOPIC, 3).log
    monkeypatch.setattr(Log, "iter_batches_to_end", failing_for(log, Log.iter_batches_to_end, errno.EIO))
    groups = GroupMetadataManager(1, KafkaConfig({"zookeeper.connect": "z"}), replicas, clock)
    groups.schedule_load(3)
    clock.advance(0)
    assert logs.failures.offline_dirs == [str(tmp_path / "a")]
    assert 3 not in groups.owned and 3 not in groups.loading


def test_a_replica_stopped_without_delete_keeps_its_high_watermark_in_the_checkpoint(replicas):
    # Kafka 2.5's StopReplica without delete (a follower at a controlled shutdown) only stops the fetcher: the
    # replica stays with its log, so its high watermark is in the checkpoint written at shutdown, which the next
    # broker on this log dir (of either kind) starts from.
    for _ in range(3):
        assert produce(replicas, 0) is Errors.NONE
    assert replicas.high_watermark_snapshot()[("t", 0)] == 3
    assert replicas.stop_replica("t", 0, delete=False) is Errors.NONE
    assert replicas.get_partition("t", 0) is None
    assert replicas.high_watermark_snapshot() == {("t", 0): 3, ("t", 1): 0}
    assert replicas.stop_replica("t", 0, delete=True) is Errors.NONE
    assert replicas.high_watermark_snapshot() == {("t", 1): 0}
