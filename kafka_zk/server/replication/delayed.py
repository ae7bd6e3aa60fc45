"""Delayed operations of the replica manager: DelayedProduce (acks=-1 waits for the ISR) and the waiting list
that orders them by offset, DelayedFetch (waits for min_bytes or max_wait), and the per-partition base that
DelayedDeleteRecords shares."""

from collections import deque

from kafka_zk.common.purgatory import DelayedOperation
from kafka_zk.protocol.errors import NO_ERROR, Errors
from kafka_zk.record.batch_header import BATCH_HEADER_SIZE


class DelayedPartitionResults(DelayedOperation):
    """Waits until every partition whose result has no error yet is settled; ``results``: {tp: result with
    an ``error``}, handed to ``done`` on completion. Those still pending at the timeout get REQUEST_TIMED_OUT."""

    def __init__(self, timeout_ms, replica_manager, results, done):
        super().__init__(timeout_ms)
        self.replica_manager = replica_manager
        self.results = results
        self.done = done
        self.pending = {tp for tp, result in results.items() if result.error == NO_ERROR}

    def settle(self, partition, result):
        """True once ``result`` is final (filling it in); ``partition`` is None when this broker has none."""
        raise NotImplementedError

    def try_complete(self):
        for tp in list(self.pending):
            if self.settle(self.replica_manager.get_partition(*tp), self.results[tp]):
                self.pending.discard(tp)
        if not self.pending:
            return self.force_complete()
        return False

    def on_expiration(self):
        for tp in self.pending:
            self.results[tp].error = Errors.REQUEST_TIMED_OUT

    def on_complete(self):
        # A completed operation may stay in watch lists until they are swept: it keeps nothing of the request.
        done, results = self.done, self.results
        self.done = self.results = self.replica_manager = None
        self.pending = ()
        done.callback(results)


class DelayedProduce(DelayedPartitionResults):
    """acks=-1: each partition waits until its high watermark passes the appended records."""

    def settle(self, partition, result):
        if partition is None or not partition.is_leader:
            result.error = Errors.NOT_LEADER_FOR_PARTITION
            return True
        if partition.high_watermark > result.last_offset:
            if len(partition.isr) < result.min_isr:
                result.error = Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
            return True
        return False


class ProduceWaiters:
    """The acks=-1 produces waiting on each partition, in the order of the offsets they wait for: a high watermark
    move tries only the produces whose records it passed, each once, instead of every produce still waiting.

    The produce purgatory still holds them (their timeouts, its gauges, and the leadership changes that answer
    them NOT_LEADER_FOR_PARTITION); a produce answered that way or timed out leaves here when the high watermark
    passes it, when ``forget_completed`` is told of its partition, or in a sweep of a list that doubled."""

    SWEEP_SLACK = 1000

    def __init__(self):
        self._waiting = {}  # (topic, partition) -> deque of (last offset, DelayedProduce), offsets ascending
        self._sweep_at = {}  # (topic, partition) -> the length at which its list is swept of completed produces

    def __len__(self):
        return sum(map(len, self._waiting.values()))

    def watch(self, operation):
        results = operation.results
        for tp in operation.pending:
            entry = (results[tp].last_offset, operation)
            waiting = self._waiting.get(tp)
            if waiting is None:
                self._waiting[tp] = deque((entry,))
                self._sweep_at[tp] = self.SWEEP_SLACK
                continue
            if not waiting or waiting[-1][0] <= entry[0]:  # empty while ``passed`` works through it
                waiting.append(entry)
            else:  # an idempotent retry answered with an earlier append's offsets
                self._waiting[tp] = waiting = deque(sorted((*waiting, entry), key=_offset))
            if len(waiting) > self._sweep_at[tp]:
                self._sweep(tp)

    def passed(self, tp, high_watermark):
        """The high watermark of ``tp`` moved: try the produces waiting for records below it."""
        waiting = self._waiting.get(tp)
        if waiting is None:
            return
        while waiting and waiting[0][0] < high_watermark:
            operation = waiting.popleft()[1]
            if not operation.completed:
                operation.try_complete()  # its answer may append and watch again, even on this partition
        if not waiting and self._waiting.get(tp) is waiting:
            del self._waiting[tp]
            del self._sweep_at[tp]

    def forget_completed(self, tps):
        """Drop the completed produces of these partitions (after a leadership change answered them)."""
        for tp in tps:
            if tp in self._waiting:
                self._sweep(tp)

    def _sweep(self, tp):
        left = deque(entry for entry in self._waiting[tp] if not entry[1].completed)
        if left:
            self._waiting[tp] = left
            self._sweep_at[tp] = 2 * len(left) + self.SWEEP_SLACK
        else:
            del self._waiting[tp]
            del self._sweep_at[tp]


def _offset(entry):
    return entry[0]


class DelayedFetch(DelayedOperation):
    def __init__(
        self,
        max_wait_ms,
        replica_manager,
        fetch_infos,
        replica_id,
        min_bytes,
        max_bytes,
        done=None,
        isolation_level=0,
        parked_results=None,
        changed_since=None,
        client_rack=None,
    ):
        """``parked_results``: what the fetch read when it was parked; the answer on expiry unless a partition
        it watches changed meanwhile (an idle long poll then costs one read of its partitions, not two).
        ``changed_since(known tps)``: for a fetch session that tracks changes, the session's partitions that
        changed since and are not yet among ``fetch_infos``; they are read too. ``client_rack``: a consumer's
        Fetch v11+ rack_id, which lets a follower serve it (see ReplicaManager.read_partitions). ``done(results)``
        gets the answer; while it is None (an operation completed as it was parked) the answer stays in
        ``results``."""
        super().__init__(max_wait_ms)
        self.client_rack = client_rack
        self.leader_only = replica_id >= 0 or client_rack is None
        self._changed_since = changed_since
        self._parked_results = parked_results
        self._tried = False
        self.read_committed = replica_id < 0 and isolation_level == 1
        self.replica_manager = replica_manager
        self.fetch_infos = fetch_infos
        self.replica_id = replica_id
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.done = done
        self.results = None

    def _available_bytes(self):
        """Bytes readable now, counted until min_bytes is reached; None when the fetch must answer at once."""
        total = 0
        min_bytes = self.min_bytes
        partitions = self.replica_manager.partitions
        for info in self.fetch_infos:
            fetch_offset = info.fetch_offset
            partition = partitions.get(info.tp)
            if partition is None or partition.log is None or (self.leader_only and not partition.is_leader):
                return None  # leadership moved: answer now with the error
            log_end_offset = partition.log.log_end_offset
            if fetch_offset > log_end_offset:
                return None  # out of range, or the log was truncated under a follower: answer now
            if self.replica_id >= 0:
                end = log_end_offset
            else:  # a consumer beyond the high watermark waits for it (a follower's may lag the leader's)
                end = partition.last_stable_offset if self.read_committed else partition.high_watermark
            if end > fetch_offset and not (
                self.replica_id >= 0 and self.replica_manager.should_leader_throttle(partition, self.replica_id)
            ):
                if total + BATCH_HEADER_SIZE >= min_bytes:  # any batch is at least a header: enough already
                    return total + BATCH_HEADER_SIZE
                total += partition.log.bytes_between(fetch_offset, end)
                if total >= min_bytes:
                    return total
        return total

    def try_complete(self):
        if self._tried:  # tried again: a partition it watches changed, so the parked answer is stale
            self._parked_results = None
            if self._changed_since is not None:
                self.fetch_infos.extend(info for _, info in self._changed_since({i.tp for i in self.fetch_infos}))
        self._tried = True
        available = self._available_bytes()
        if available is None or available >= self.min_bytes:
            return self.force_complete()
        return False

    def on_complete(self):
        results = self._parked_results
        if results is None:
            results, _ = self.replica_manager.read_partitions(
                self.fetch_infos, self.replica_id, self.max_bytes, 1 if self.read_committed else 0, self.client_rack
            )
        done = self.done
        if done is None:
            self.results = results
        else:
            self.done = None
            done(results)
