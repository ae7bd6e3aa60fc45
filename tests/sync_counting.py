"""A fixture that counts filesystem syncs (syncfs) and fsyncs while still doing them."""

import os

import pytest

from kafka_zk.log import checkpoints


@pytest.fixture
def counted_syncs(monkeypatch):
    """(syncfs calls, fsync calls): lists of the descriptors each was called with, from now on."""
    synced, fsynced = [], []
    real_syncfs, real_fsync = checkpoints._syncfs, os.fsync
    assert real_syncfs is not None  # Linux: the batch path is there to take

    def counting_syncfs(fd):
        synced.append(fd)
        return real_syncfs(fd)

    def counting_fsync(fd):
        fsynced.append(fd)
        return real_fsync(fd)

    monkeypatch.setattr(checkpoints, "_syncfs", counting_syncfs)
    monkeypatch.setattr(os, "fsync", counting_fsync)
    return synced, fsynced
