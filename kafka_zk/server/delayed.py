"""DelayedProduce (acks=-1 waits for the ISR) and DelayedFetch (waits for min_bytes or max_wait)."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.purgatory import DelayedOperation


class DelayedProduce(DelayedOperation):
    def __init__(self, timeout_ms, replica_manager, results, done):
        super().__init__(timeout_ms)
        self.replica_manager = replica_manager
        self.results = results
        self.done = done
        self.pending = {tp for tp, result in results.items() if result.error == Errors.NONE}

    def try_complete(self):
        for tp in list(self.pending):
            partition = self.replica_manager.get_partition(*tp)
            result = self.results[tp]
            if partition is None or not partition.is_leader:
                result.error = Errors.NOT_LEADER_FOR_PARTITION
                self.pending.discard(tp)
            elif partition.high_watermark > result.last_offset:
                if len(partition.isr) < result.min_isr:
                    result.error = Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                self.pending.discard(tp)
        if not self.pending:
            return self.force_complete()
        return False

    def on_expiration(self):
        for tp in self.pending:
            self.results[tp].error = Errors.REQUEST_TIMED_OUT

    def on_complete(self):
        self.done.callback(self.results)


class DelayedFetch(DelayedOperation):
    def __init__(self, max_wait_ms, replica_manager, fetch_infos, replica_id, min_bytes, max_bytes, done):
        super().__init__(max_wait_ms)
        self.replica_manager = replica_manager
        self.fetch_infos = fetch_infos
        self.replica_id = replica_id
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.done = done

    def _available_bytes(self):
        total = 0
        partitions = self.replica_manager.partitions
        for info in self.fetch_infos:
            fetch_offset = info.fetch_offset
            partition = partitions.get(info.tp)
            if partition is None or not partition.is_leader or partition.log is None:
                return None  # leadership moved: answer now with the error
            end = partition.log.log_end_offset if self.replica_id >= 0 else partition.high_watermark
            if end < fetch_offset:
                return None
            if end > fetch_offset and not (self.replica_id >= 0 and
                                           self.replica_manager.should_leader_throttle(partition, self.replica_id)):
                total += partition.log.bytes_between(fetch_offset, end)
        return total

    def try_complete(self):
        available = self._available_bytes()
        if available is None or available >= self.min_bytes:
            return self.force_complete()
        return False

    def on_complete(self):
        results, _ = self.replica_manager.read_partitions(self.fetch_infos, self.replica_id, self.max_bytes)
        self.done.callback(results)
