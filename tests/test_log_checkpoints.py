"""Checkpoint file formats, meta.properties, and the leader epoch cache."""

import os

import pytest

from kafka_zk.log.checkpoints import (
    LeaderEpochCheckpointFile,
    MalformedCheckpointError,
    OffsetCheckpointFile,
    parse_properties,
    read_meta_properties,
    write_meta_properties,
)
from kafka_zk.log.leader_epoch_cache import LeaderEpochFileCache


def test_offset_checkpoint_golden_text_and_round_trip(tmp_path):
    path = str(tmp_path / "recovery-point-offset-checkpoint")
    checkpoint = OffsetCheckpointFile(path)
    checkpoint.write({("orders", 1): 42, ("__consumer_offsets", 0): 7, ("orders", 0): 1000})
    with open(path) as f:
        assert f.read() == "0\n3\n__consumer_offsets 0 7\norders 0 1000\norders 1 42\n"
    assert checkpoint.read() == {("orders", 1): 42, ("__consumer_offsets", 0): 7, ("orders", 0): 1000}
    assert not os.path.exists(path + ".tmp")
    checkpoint.write({})
    with open(path) as f:
        assert f.read() == "0\n0\n"
    assert checkpoint.read() == {}


def test_missing_or_empty_checkpoint_reads_as_empty(tmp_path):
    assert OffsetCheckpointFile(str(tmp_path / "nope")).read() == {}
    (tmp_path / "empty").write_text("")
    assert OffsetCheckpointFile(str(tmp_path / "empty")).read() == {}


@pytest.mark.parametrize(
    "text",
    [
        "1\n0\n",  # unknown version
        "0\n2\nt 0 5\n",  # fewer entries than the count
        "0\n1\nt 0\n",  # too few fields
        "0\n1\nt zero 5\n",  # not a number
        "0\n",  # no count
        "x\n1\nt 0 1\n",
    ],
)
def test_malformed_offset_checkpoint_raises(tmp_path, text):
    path = tmp_path / "cp"
    path.write_text(text)
    with pytest.raises(MalformedCheckpointError):
        OffsetCheckpointFile(str(path)).read()


def test_leader_epoch_checkpoint_golden_text(tmp_path):
    path = str(tmp_path / "leader-epoch-checkpoint")
    LeaderEpochCheckpointFile(path).write([(0, 0), (3, 150)])
    with open(path) as f:
        assert f.read() == "0\n2\n0 0\n3 150\n"
    assert LeaderEpochCheckpointFile(path).read() == [(0, 0), (3, 150)]


def test_meta_properties_round_trip_and_format(tmp_path):
    path = str(tmp_path / "meta.properties")
    assert read_meta_properties(path) is None
    write_meta_properties(path, 3, "pTNgVc-xS-2Yh0f_6JQ6Ag", now_ms=1_600_000_000_000)
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == "#"
    assert lines[1] == "#Sun Sep 13 12:26:40 UTC 2020"
    assert sorted(lines[2:]) == ["broker.id=3", "cluster.id=pTNgVc-xS-2Yh0f_6JQ6Ag", "version=0"]
    assert read_meta_properties(path) == {"broker_id": 3, "cluster_id": "pTNgVc-xS-2Yh0f_6JQ6Ag"}


def test_meta_properties_written_by_java(tmp_path):
    path = tmp_path / "meta.properties"
    path.write_text("#\n#Tue May 12 10:00:00 UTC 2020\ncluster.id=abc\\=d\nversion=0\nbroker.id=1001\n")
    assert read_meta_properties(str(path)) == {"broker_id": 1001, "cluster_id": "abc=d"}
    path.write_text("version=1\nbroker.id=1\n")
    with pytest.raises(MalformedCheckpointError):
        read_meta_properties(str(path))
    assert parse_properties("! c\na : b\nkey=v=w\n") == {"a": "b", "key": "v=w"}


class MemoryCheckpoint:
    def __init__(self, entries=()):
        self.entries = list(entries)
        self.writes = 0

    def read(self):
        return list(self.entries)

    def write(self, entries):
        self.entries = [tuple(e) for e in entries]
        self.writes += 1


def test_epoch_cache_assign():
    store = MemoryCheckpoint()
    cache = LeaderEpochFileCache(store)
    assert cache.latest_epoch is None
    cache.assign(1, 0)
    cache.assign(1, 5)  # same epoch later: nothing changes
    cache.assign(3, 10)
    assert cache.entries == [(1, 0), (3, 10)] and store.entries == [(1, 0), (3, 10)]
    assert store.writes == 2
    cache.assign(2, 12)  # a lower epoch evicts the conflicting later entry
    assert cache.entries == [(1, 0), (2, 12)]
    cache.assign(4, 12)  # same start offset: the previous epoch had no data
    assert cache.entries == [(1, 0), (4, 12)]
    with pytest.raises(ValueError):
        cache.assign(-1, 3)
    assert LeaderEpochFileCache(store).entries == [(1, 0), (4, 12)]


def test_epoch_cache_end_offset_for():
    cache = LeaderEpochFileCache(MemoryCheckpoint([(2, 10), (4, 30), (7, 50)]))
    assert cache.end_offset_for(-1, 99) == (-1, -1)
    assert cache.end_offset_for(7, 99) == (7, 99)  # latest epoch: the log end offset
    assert cache.end_offset_for(4, 99) == (4, 50)
    assert cache.end_offset_for(5, 99) == (4, 50)  # unknown epoch between: the floor epoch
    assert cache.end_offset_for(1, 99) == (1, 10)  # older than all: first known start
    assert cache.end_offset_for(8, 99) == (-1, -1)
    assert LeaderEpochFileCache(MemoryCheckpoint()).end_offset_for(0, 5) == (-1, -1)


def test_epoch_cache_truncation():
    store = MemoryCheckpoint([(2, 10), (4, 30), (7, 50)])
    cache = LeaderEpochFileCache(store)
    cache.truncate_from_end(51)
    assert store.writes == 0
    cache.truncate_from_end(30)
    assert cache.entries == [(2, 10)] and store.entries == [(2, 10)]
    cache.assign(4, 30)
    cache.assign(7, 50)
    cache.truncate_from_start(35)
    assert cache.entries == [(4, 35), (7, 50)]
    cache.truncate_from_start(5)
    assert cache.entries == [(4, 35), (7, 50)]
    cache.clear_and_flush()
    assert cache.entries == [] and store.entries == []


def test_epoch_cache_file_backed(tmp_path):
    checkpoint = LeaderEpochCheckpointFile(str(tmp_path / "leader-epoch-checkpoint"))
    cache = LeaderEpochFileCache(checkpoint)
    cache.assign(0, 0)
    cache.assign(5, 77)
    assert (tmp_path / "leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n5 77\n"
    assert LeaderEpochFileCache(checkpoint).entries == [(0, 0), (5, 77)]


def test_deferred_epoch_checkpoints_are_written_together_with_the_latest_entries(tmp_path):
    from kafka_zk.log.checkpoints import LeaderEpochCheckpointFile
    from kafka_zk.log.leader_epoch_cache import DeferredCheckpoints, LeaderEpochFileCache

    deferred = DeferredCheckpoints()
    calls = []
    deferred.on_pending = lambda: calls.append("pending")
    paths = [tmp_path / ("t-%d" % n) for n in range(3)]
    caches = []
    for path in paths:
        path.mkdir()
        caches.append(LeaderEpochFileCache(LeaderEpochCheckpointFile(str(path / "leader-epoch-checkpoint")), deferred))
    for cache in caches:
        cache.assign(0, 0)
        cache.assign(1, 10)
    assert calls == ["pending"]  # one notice for the whole batch
    assert not any((path / "leader-epoch-checkpoint").exists() for path in paths)
    items = deferred.drain()
    assert len(items) == 3 and deferred.drain() == []
    (tmp_path / "t-2" / "leader-epoch-checkpoint").parent.rename(tmp_path / "gone")  # deleted meanwhile
    DeferredCheckpoints.write(items)
    for path in paths[:2]:
        assert LeaderEpochCheckpointFile(str(path / "leader-epoch-checkpoint")).read() == [(0, 0), (1, 10)]


def test_a_large_batch_of_checkpoints_is_made_durable_by_two_filesystem_syncs_not_two_fsyncs_each(
    tmp_path, counted_syncs
):
    from kafka_zk.log import checkpoints

    synced, fsynced = counted_syncs
    files = []
    for n in range(checkpoints.BATCH_SYNC_MIN_FILES):
        (tmp_path / ("t-%d" % n)).mkdir()
        files.append((str(tmp_path / ("t-%d" % n) / "leader-epoch-checkpoint"), "0\n1\n%d 0\n" % n))
    (tmp_path / "t-0" / "leader-epoch-checkpoint").write_text("0\n1\n0 0\n")  # replaced, not appended to
    last = len(files) - 1
    os.rmdir(tmp_path / ("t-%d" % last))  # a log deleted meanwhile
    checkpoints.write_all_atomically(files)
    assert len(synced) == 2 and fsynced == []
    for n in range(last):
        assert LeaderEpochCheckpointFile(files[n][0]).read() == [(n, 0)]
        assert os.listdir(tmp_path / ("t-%d" % n)) == ["leader-epoch-checkpoint"]  # no .tmp left
    assert not (tmp_path / ("t-%d" % last)).exists()

    checkpoints.write_all_atomically(files[:3])  # a small batch: write_atomically's two fsyncs per file
    assert len(synced) == 2 and len(fsynced) == 6
