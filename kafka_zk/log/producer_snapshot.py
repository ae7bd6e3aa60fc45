"""Producer state snapshots, `<offset>.snapshot` in a partition dir, in Kafka's format (version 1).

Layout: version int16, crc uint32 (CRC-32C of everything after it), then an int32-counted array of
entries: producerId int64, producerEpoch int16, lastSequence int32, lastOffset int64,
offsetDelta int32, timestamp int64, coordinatorEpoch int32, currentTxnFirstOffset int64 (-1: none).
"""

import os
import struct
from collections.abc import Iterable

import crc32c

from kafka_zk.log.producer_state import INT32_MAX, NO_SEQUENCE, BatchMetadata, ProducerStateEntry
from kafka_zk.record.buffers import ReadableBuffer

SNAPSHOT_SUFFIX = ".snapshot"
SNAPSHOT_VERSION = 1
_HEADER = struct.Struct(">hIi")
_ENTRY = struct.Struct(">qhiqiqiq")
_CRC_START = 6


class CorruptSnapshotError(Exception):
    """A snapshot whose version, CRC or length is wrong."""


def snapshot_file_name(offset: int) -> str:
    return "%020d%s" % (offset, SNAPSHOT_SUFFIX)


def snapshot_offset(name: str) -> int | None:
    """The offset a ``<20 digits>.snapshot`` name holds, or None for other names."""
    stem = name[: -len(SNAPSHOT_SUFFIX)]
    if name.endswith(SNAPSHOT_SUFFIX) and len(stem) == 20 and stem.isdigit():
        return int(stem)
    return None


def list_snapshots(dir_path: str) -> list[int]:
    """Sorted offsets of the snapshot files in ``dir_path``."""
    return sorted(o for o in (snapshot_offset(n) for n in os.listdir(dir_path)) if o is not None)


def encode_snapshot(entries: Iterable[ProducerStateEntry]) -> bytes:
    body = bytearray()
    count = 0
    for entry in entries:
        if entry.batches:
            last = entry.batches[-1]
            last_seq, last_offset, offset_delta = last.last_seq, last.last_offset, last.last_offset - last.first_offset
        else:
            last_seq, last_offset, offset_delta = NO_SEQUENCE, -1, 0
        first = entry.current_txn_first_offset
        body += _ENTRY.pack(
            entry.producer_id,
            entry.producer_epoch,
            last_seq,
            last_offset,
            offset_delta,
            entry.last_timestamp,
            entry.coordinator_epoch,
            -1 if first is None else first,
        )
        count += 1
    out = bytearray(_HEADER.pack(SNAPSHOT_VERSION, 0, count)) + body
    struct.pack_into(">I", out, 2, crc32c.crc32c(bytes(out[_CRC_START:])))
    return bytes(out)


def decode_snapshot(data: ReadableBuffer) -> list[ProducerStateEntry]:
    """[ProducerStateEntry] from a snapshot's bytes; CorruptSnapshotError when they do not check out."""
    if len(data) < _HEADER.size:
        raise CorruptSnapshotError("snapshot of %d bytes is too short" % len(data))
    version, crc, count = _HEADER.unpack_from(data, 0)
    if version != SNAPSHOT_VERSION:
        raise CorruptSnapshotError("Snapshot contained an unknown file version %d" % version)
    computed = crc32c.crc32c(bytes(data[_CRC_START:]))
    if crc != computed:
        raise CorruptSnapshotError(
            "Snapshot is corrupt (CRC is no longer valid). Stored crc: %d. Computed crc: %d" % (crc, computed)
        )
    if count < 0 or len(data) != _HEADER.size + count * _ENTRY.size:
        raise CorruptSnapshotError("Snapshot failed schema validation: %d entries in %d bytes" % (count, len(data)))
    entries: list[ProducerStateEntry] = []
    for index in range(count):
        (producer_id, epoch, last_seq, last_offset, offset_delta, timestamp, coordinator_epoch, txn_first) = (
            _ENTRY.unpack_from(data, _HEADER.size + index * _ENTRY.size)
        )
        entry = ProducerStateEntry(producer_id, epoch)
        if last_offset >= 0:
            first_seq = last_seq - offset_delta
            if first_seq < 0:
                first_seq += INT32_MAX + 1
            entry.batches.append(BatchMetadata(first_seq, last_seq, last_offset - offset_delta, last_offset, timestamp))
        entry.last_timestamp = timestamp
        entry.coordinator_epoch = coordinator_epoch
        entry.current_txn_first_offset = None if txn_first < 0 else txn_first
        entries.append(entry)
    return entries


def write_snapshot(dir_path: str, offset: int, entries: Iterable[ProducerStateEntry], sync: bool = True) -> str:
    """Write ``<offset>.snapshot`` (fsynced unless ``sync`` is False, via a temporary name so a crash leaves no
    half file)."""
    path = os.path.join(dir_path, snapshot_file_name(offset))
    temp = path + ".tmp"
    with open(temp, "wb") as f:
        f.write(encode_snapshot(entries))
        f.flush()
        if sync:
            os.fsync(f.fileno())
    os.replace(temp, path)
    return path


def read_snapshot(path: str) -> list[ProducerStateEntry]:
    with open(path, "rb") as f:
        return decode_snapshot(f.read())


def delete_snapshot(dir_path: str, offset: int) -> None:
    try:
        os.remove(os.path.join(dir_path, snapshot_file_name(offset)))
    except FileNotFoundError:
        pass
