"""Producer state from a log's batches: applying one batch, and loading from snapshots plus the log tail.

Used by Log on append, start-up, truncation and recovery; recovered segments get their `.txnindex`
rebuilt here from the aborted transactions the replay finds in them.
"""

import logging
import os
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from kafka_zk.log.producer_snapshot import (
    SNAPSHOT_SUFFIX,
    CorruptSnapshotError,
    delete_snapshot,
    list_snapshots,
    read_snapshot,
    snapshot_file_name,
    write_snapshot,
)
from kafka_zk.log.producer_state import ProducerStateEntry, ProducerStateManager
from kafka_zk.log.segment import LogSegment
from kafka_zk.log.transaction_index import AbortedTxn
from kafka_zk.record.batch_header import NO_PRODUCER_ID, BatchHeader, InvalidRecordError
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.records import CONTROL_ABORT, CONTROL_COMMIT, decode_batch, parse_control_key, parse_end_txn_marker

if TYPE_CHECKING:
    from kafka_zk.log.log import Log

logger = logging.getLogger(__name__)


def end_txn_marker(batch: ReadableBuffer) -> tuple[bool, int, int] | None:
    """(is_commit, coordinator_epoch, timestamp) of a control batch's marker; None for an empty batch
    or a control type that is no transaction marker."""
    _, records = decode_batch(batch, verify_crc=False)
    if not records:
        return None
    _, control_type = parse_control_key(records[0].key)
    if control_type not in (CONTROL_ABORT, CONTROL_COMMIT):
        return None
    _, coordinator_epoch = parse_end_txn_marker(records[0].value)
    return control_type == CONTROL_COMMIT, coordinator_epoch, records[0].timestamp


def apply_batch(state: ProducerStateManager, header: BatchHeader, read_batch: Callable[[], bytes]) -> AbortedTxn | None:
    """Apply one batch to ``state``; ``read_batch()`` returns its bytes (read only for control batches).
    Returns an AbortedTxn for the transaction index when the batch is an abort marker ending a
    transaction with data, else None."""
    if header.producer_id == NO_PRODUCER_ID:
        return None
    if not header.is_control:
        state.record(
            header.producer_id,
            header.producer_epoch,
            header.base_sequence,
            header.last_sequence,
            header.base_offset,
            header.last_offset,
            header.max_timestamp,
            header.is_transactional,
        )
        return None
    try:
        marker = end_txn_marker(read_batch())
    except InvalidRecordError as error:  # a control record that is no transaction marker
        logger.warning("ignoring control batch at offset %d: %s", header.base_offset, error)
        return None
    if marker is None:
        return None
    is_commit, coordinator_epoch, timestamp = marker
    completed, last_stable = state.record_marker(
        header.producer_id, header.producer_epoch, is_commit, coordinator_epoch, header.base_offset, timestamp
    )
    if completed is None or last_stable is None or not completed.is_aborted:  # both None or neither
        return None
    return AbortedTxn(completed.producer_id, completed.first_offset, completed.last_offset, last_stable)


def _segment_batch_reader(segment: LogSegment, position: int, size: int) -> Callable[[], bytes]:
    return lambda: segment.pread(size, position)


def load_producer_state(log: "Log", now_ms: int, rebuild_txn_index: Collection[int] = ()) -> None:
    """Rebuild ``log.producer_state`` up to the log end from the newest usable snapshot and the batches
    after it. Snapshots past the log end or below the log start are deleted; producers of the snapshot
    idle at ``now_ms`` for ``log.max_producer_idle_ms`` are not loaded.

    The snapshot used is at or below the first segment in ``rebuild_txn_index`` (base offsets whose
    .txnindex recovery emptied), else at or below the active segment's base or the log start, whichever
    is later: replaying the active segment restores the last five batches of each producer for duplicate
    detection (a snapshot keeps only the last one), while batches below the log start are gone. A newer
    snapshot is used only when no older one exists and the log has more than one segment, so start-up
    never rescans the whole log.
    """
    state = log.producer_state
    end = log.log_end_offset
    for name in os.listdir(log.dir):
        if name.endswith(SNAPSHOT_SUFFIX + ".tmp"):  # a write a crash interrupted
            os.remove(os.path.join(log.dir, name))
    for offset in list_snapshots(log.dir):
        if offset > end or offset < log.log_start_offset:
            delete_snapshot(log.dir, offset)
    limit = min(rebuild_txn_index) if rebuild_txn_index else min(end, log.active_segment.base_offset)
    limit = max(limit, log.log_start_offset)
    candidates = [offset for offset in list_snapshots(log.dir) if offset <= limit]
    if not candidates and len(log.segments) > 1:
        candidates = list_snapshots(log.dir)
    start = log.log_start_offset
    entries: list[ProducerStateEntry] = []
    for offset in reversed(candidates):
        try:
            entries = read_snapshot(os.path.join(log.dir, snapshot_file_name(offset)))
            start = offset
            break
        except (CorruptSnapshotError, OSError) as error:
            logger.warning("%s: failed to load producer snapshot %d: %s", log.dir, offset, error)
            delete_snapshot(log.dir, offset)
    state.truncate(start)
    for entry in entries:
        state.load_entry(entry)
    state.remove_expired(now_ms, log.max_producer_idle_ms)
    if start < end:
        replay(log, start, rebuild_txn_index)
    state.map_end_offset = end


def replay(log: "Log", start: int, rebuild_txn_index: Collection[int] = ()) -> None:
    """Apply every batch from ``start`` to the log end to the producer state."""
    state = log.producer_state
    for segment in log.segments:
        if segment.next_offset() <= start:
            continue
        for position, header in segment._iter_headers(0):
            if header.last_offset < start:
                continue
            aborted = apply_batch(state, header, _segment_batch_reader(segment, position, header.size))
            if aborted is not None and segment.base_offset in rebuild_txn_index:
                segment.txn_index.append(aborted)


def take_snapshot(log: "Log", sync: bool = True) -> str | None:
    """Write a snapshot at the producer state's map end offset when it is past every snapshot there is
    and past the log start offset; at the log start only when it holds producers (whose batches are all
    gone from the log, so only the snapshot keeps them across a restart)."""
    state = log.producer_state
    offset = state.map_end_offset
    if offset < log.log_start_offset or (offset == log.log_start_offset and not state.producers):
        return None
    if any(existing >= offset for existing in list_snapshots(log.dir)):
        return None
    return write_snapshot(log.dir, offset, state.producers.values(), sync)


def delete_snapshots_before(log: "Log", offset: int) -> None:
    for snapshot in list_snapshots(log.dir):
        if snapshot < offset:
            delete_snapshot(log.dir, snapshot)
