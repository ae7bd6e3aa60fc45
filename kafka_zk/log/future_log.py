"""Catching a future log (a replica moving to another log dir of this broker) up with the current log.

The steps mirror Kafka's ReplicaAlterLogDirsThread, which fetches from the local current log: copy
whole batches from the future log's end offset, follow the current log's start offset, and report
when both end at the same offset so the caller can swap them in one step.
"""

from kafka_zk.log.log import Log
from kafka_zk.record.batch_header import BatchHeader, iter_batch_headers


def align_start(current: Log, future: Log) -> None:
    """Follow the current log's start offset; an empty or stale future log restarts at it."""
    if future.log_end_offset < current.log_start_offset:
        future.truncate_fully_and_start_at(current.log_start_offset)
    elif current.log_start_offset > future.log_start_offset:
        if future.maybe_increment_log_start_offset(current.log_start_offset):
            future.delete_segments_below_log_start()


def copy_step(current: Log, future: Log, max_bytes: int) -> int:
    """Copy up to ``max_bytes`` of whole batches (at least one) from ``current`` to ``future``.

    Returns the number of bytes appended (0 when the future log has caught up).
    """
    if future.log_end_offset > current.log_end_offset:
        future.truncate_to(current.log_end_offset)
    align_start(current, future)
    start = future.log_end_offset
    if start >= current.log_end_offset:
        return 0
    data = current.read(start, max_bytes, min_one_message=True).read_bytes()
    if not data:
        return 0
    view = memoryview(data)
    first: int | None = None
    end = 0
    headers: list[BatchHeader] = []
    for position, header in iter_batch_headers(view):
        if header.last_offset < start:
            continue
        if first is None:
            first = position
        end = position + header.size
        headers.append(header)
    if first is None:  # no batch at or after start: ``headers`` is empty too
        return 0
    newest = max(headers, key=lambda header: header.max_timestamp)
    future.append_copied(
        bytes(view[first:end]),
        headers[0].base_offset,
        headers[-1].last_offset,
        newest.max_timestamp,
        newest.last_offset,
    )
    return end - first


def follow_truncation(future: Log, offset: int) -> None:
    """The current log was truncated to ``offset``: so is the future log (Kafka's truncation of the future replica)."""
    if future.log_end_offset > offset:
        future.truncate_to(offset)


def caught_up(current: Log, future: Log) -> bool:
    return future.log_end_offset == current.log_end_offset


def copy_leader_epochs(current: Log, future: Log) -> None:
    """Give the future log exactly the current log's leader epoch entries (set before any batch of an epoch)."""
    future.leader_epoch_cache.clear_and_flush()
    for entry in current.leader_epoch_cache.entries:
        future.leader_epoch_cache.assign(entry.epoch, entry.start_offset)
