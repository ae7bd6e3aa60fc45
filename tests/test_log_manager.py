"""LogManager: placement, loading with and without a clean shutdown, checkpoints, retention, meta.properties."""

import os
import shutil

import pytest

from kafka_zk.log.checkpoints import OffsetCheckpointFile
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import (
    CLEAN_SHUTDOWN_FILE,
    InconsistentBrokerIdError,
    InconsistentClusterIdError,
    LogManager,
)
from kafka_zk.record.records import encode_batch
from tests.millisecond_clock import MillisecondClock


def append(log, count=1, timestamp=1000):
    base = log.log_end_offset
    data = encode_batch(
        [(None, b"x" * 20, (), timestamp + i) for i in range(count)], base_offset=base, partition_leader_epoch=0
    )
    log.append(data, base + count - 1, timestamp + count - 1, base + count - 1)


def manager(tmp_path, dirs=("d1", "d2"), clock=None, **config):
    config.setdefault("file_delete_delay_ms", 0)
    return LogManager([str(tmp_path / d) for d in dirs], LogConfig(**config), clock or MillisecondClock())


def test_new_logs_go_to_the_dir_with_fewest_partitions(tmp_path):
    mgr = manager(tmp_path)
    a = mgr.get_or_create_log("a", 0)
    b = mgr.get_or_create_log("a", 1)
    c = mgr.get_or_create_log("b", 0)
    assert os.path.dirname(a.dir) == str(tmp_path / "d1")
    assert os.path.dirname(b.dir) == str(tmp_path / "d2")
    assert os.path.dirname(c.dir) == str(tmp_path / "d1")
    assert mgr.get_or_create_log("a", 1) is b
    assert mgr.get_log("a", 1) is b and mgr.get_log("zz", 0) is None
    assert len(mgr.all_logs()) == 3
    mgr.shutdown()


def test_shutdown_then_clean_load(tmp_path):
    clock = MillisecondClock()
    mgr = manager(tmp_path, clock=clock)
    log = mgr.get_or_create_log("t", 0)
    append(log, count=5)
    log.maybe_increment_log_start_offset(2)
    other = mgr.get_or_create_log("t", 1)
    append(other, count=3)
    mgr.shutdown()
    d1, d2 = str(tmp_path / "d1"), str(tmp_path / "d2")
    assert os.path.exists(os.path.join(d1, CLEAN_SHUTDOWN_FILE))
    assert OffsetCheckpointFile(os.path.join(d1, "recovery-point-offset-checkpoint")).read() == {("t", 0): 5}
    assert OffsetCheckpointFile(os.path.join(d2, "recovery-point-offset-checkpoint")).read() == {("t", 1): 3}
    with open(os.path.join(d1, "log-start-offset-checkpoint")) as f:
        assert f.read() == "0\n1\nt 0 2\n"

    again = manager(tmp_path, clock=clock)
    assert again.load_logs() == {d1: True, d2: True}
    assert not os.path.exists(os.path.join(d1, CLEAN_SHUTDOWN_FILE))
    reloaded = again.get_log("t", 0)
    assert (reloaded.log_start_offset, reloaded.log_end_offset, reloaded.recovery_point) == (2, 5, 5)
    assert again.get_log("t", 1).log_end_offset == 3
    again.shutdown()


def test_unclean_load_recovers(tmp_path):
    clock = MillisecondClock()
    mgr = manager(tmp_path, dirs=("d1",), clock=clock, segment_bytes=400)
    log = mgr.get_or_create_log("t", 0)
    for _ in range(10):
        append(log)
    mgr.checkpoint_recovery_points()  # recovery point 0: nothing flushed yet
    # The process "dies" here: the dir as it is now, indexes untrimmed, no marker, a torn tail.
    shutil.copytree(tmp_path / "d1", tmp_path / "crashed")
    with open(tmp_path / "crashed" / "t-0" / os.path.basename(log.active_segment.log_path), "ab") as f:
        f.write(b"\x00" * 37)
    mgr.shutdown()
    again = manager(tmp_path, dirs=("crashed",), clock=clock, segment_bytes=400)
    assert again.load_logs() == {str(tmp_path / "crashed"): False}
    recovered = again.get_log("t", 0)
    assert recovered.log_end_offset == 10
    assert os.path.getsize(recovered.active_segment.log_path) == recovered.active_segment.size
    again.shutdown()


def test_malformed_recovery_checkpoint_means_full_recovery(tmp_path):
    mgr = manager(tmp_path, dirs=("d1",))
    append(mgr.get_or_create_log("t", 0), count=4)
    mgr.shutdown()
    (tmp_path / "d1" / "recovery-point-offset-checkpoint").write_text("garbage\n")
    os.remove(tmp_path / "d1" / CLEAN_SHUTDOWN_FILE)
    again = manager(tmp_path, dirs=("d1",))
    again.load_logs()
    assert again.get_log("t", 0).log_end_offset == 4
    again.shutdown()


def test_load_skips_foreign_dirs_and_removes_delete_dirs(tmp_path):
    mgr = manager(tmp_path, dirs=("d1",))
    os.makedirs(tmp_path / "d1" / "old-0.0123abcd-delete")
    os.makedirs(tmp_path / "d1" / "lost+found")
    mgr.load_logs(config_for=lambda topic: LogConfig(retention_ms=5))
    assert mgr.all_logs() == []
    assert sorted(os.listdir(tmp_path / "d1")) == ["lost+found"]
    log = mgr.get_or_create_log("x", 0, LogConfig(segment_bytes=1234))
    assert log.config.segment_bytes == 1234
    mgr.shutdown()


def test_cleanup_and_flush_dirty_logs(tmp_path):
    clock = MillisecondClock()
    mgr = manager(tmp_path, dirs=("d1",), clock=clock, segment_bytes=200, retention_ms=10_000)
    log = mgr.get_or_create_log("t", 0)
    for i in range(10):
        append(log, timestamp=i)
    segments = len(log.segments)
    assert log.recovery_point == 0
    mgr.flush_dirty_logs(clock.now)  # rolled segments get flushed
    assert log.recovery_point == log.active_segment.base_offset
    assert mgr.cleanup_logs(20_000, max_offsets={("t", 0): log.segments[1].base_offset}) == 1
    assert mgr.cleanup_logs(20_000) == segments - 2
    assert len(log.segments) == 1
    mgr.shutdown()


def test_async_delete(tmp_path):
    mgr = manager(tmp_path, dirs=("d1",))
    log = mgr.get_or_create_log("gone", 0)
    append(log)
    mgr.get_or_create_log("kept", 0)
    assert mgr.async_delete("gone", 0)
    assert not mgr.async_delete("gone", 0)
    assert mgr.get_log("gone", 0) is None
    assert sorted(os.listdir(tmp_path / "d1")) == [
        "kept-0",
        "log-start-offset-checkpoint",
        "recovery-point-offset-checkpoint",
    ]
    assert OffsetCheckpointFile(str(tmp_path / "d1" / "recovery-point-offset-checkpoint")).read() == {("kept", 0): 0}
    mgr.shutdown()


def test_meta_properties_checks(tmp_path):
    mgr = manager(tmp_path)
    assert mgr.stored_broker_id() is None
    mgr.check_meta(1, "cluster-A")
    assert mgr.stored_broker_id() == 1
    mgr.check_meta(1, "cluster-A")
    with pytest.raises(InconsistentClusterIdError):
        mgr.check_meta(1, "cluster-B")
    with pytest.raises(InconsistentBrokerIdError):
        mgr.check_meta(2, "cluster-A")
    (tmp_path / "d2" / "meta.properties").write_text("version=0\nbroker.id=9\n")
    with pytest.raises(InconsistentBrokerIdError):
        mgr.stored_broker_id()
    (tmp_path / "d2" / "meta.properties").write_text("version=0\nbroker.id=1\n")
    mgr.check_meta(1, "cluster-A")  # fills in the missing cluster id
    assert "cluster.id=cluster-A" in (tmp_path / "d2" / "meta.properties").read_text()


def test_shutdown_with_many_unflushed_logs_syncs_the_filesystem_once_instead_of_each_file(tmp_path, counted_syncs):
    mgr = manager(tmp_path, dirs=("d1",))
    logs = [mgr.get_or_create_log("t", p) for p in range(20)]
    for p, log in enumerate(logs):
        append(log, count=p + 1)
    untouched = mgr.get_or_create_log("idle", 0)
    synced, fsynced = counted_syncs
    del synced[:], fsynced[:]  # count the shutdown's only
    mgr.shutdown()
    # one syncfs for the logs' files; the checkpoints and the marker are written as before (their own fsyncs)
    assert len(synced) == 1
    assert len(fsynced) < len(logs)

    reloaded = manager(tmp_path, dirs=("d1",))
    assert reloaded.load_logs() == {str(tmp_path / "d1"): True}  # a clean shutdown
    for p in range(20):
        log = reloaded.get_log("t", p)
        assert (log.log_end_offset, log.recovery_point) == (p + 1, p + 1)
    assert reloaded.get_log("idle", 0).log_end_offset == 0 and untouched.log_end_offset == 0
    reloaded.shutdown()


def test_shutdown_with_few_unflushed_logs_fsyncs_their_files(tmp_path, counted_syncs):
    mgr = manager(tmp_path, dirs=("d1",))
    log = mgr.get_or_create_log("t", 0)
    append(log, count=3)
    synced, fsynced = counted_syncs
    del synced[:], fsynced[:]  # count the shutdown's only
    mgr.shutdown()
    assert synced == [] and len(fsynced) >= 3  # the segment and both indexes, then checkpoints and the marker
