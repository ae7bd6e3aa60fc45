"""DelayedDeleteRecords: a DeleteRecords answer waits until every live replica's log start offset has moved."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.purgatory import DelayedOperation


class DelayedDeleteRecords(DelayedOperation):
    """Waits until every replica's log start offset has reached the requested offset (Kafka's
    DelayedDeleteRecords). results: {tp: DeleteRecordsResult}; pending ones time out with REQUEST_TIMED_OUT."""

    def __init__(self, timeout_ms, replica_manager, results, done):
        super().__init__(timeout_ms)
        self.replica_manager = replica_manager
        self.results = results
        self.done = done
        self.pending = {tp for tp, result in results.items() if result.error == Errors.NONE}

    def try_complete(self):
        for tp in list(self.pending):
            result = self.results[tp]
            partition = self.replica_manager.get_partition(*tp)
            if partition is None:
                result.error = Errors.UNKNOWN_TOPIC_OR_PARTITION
                result.low_watermark = -1
                self.pending.discard(tp)
            elif not partition.is_leader or partition.log is None:
                result.error = Errors.NOT_LEADER_FOR_PARTITION
                result.low_watermark = -1
                self.pending.discard(tp)
            else:
                low_watermark = partition.low_watermark(self.replica_manager.is_broker_alive)
                if low_watermark >= result.requested_offset:
                    result.low_watermark = low_watermark
                    self.pending.discard(tp)
        if not self.pending:
            return self.force_complete()
        return False

    def on_expiration(self):
        for tp in self.pending:
            self.results[tp].error = Errors.REQUEST_TIMED_OUT

    def on_complete(self):
        self.done.callback(self.results)
