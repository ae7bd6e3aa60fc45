"""DelayedDeleteRecords: a DeleteRecords answer waits until every live replica's log start offset has moved."""

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.replication.delayed import DelayedPartitionResults


class DelayedDeleteRecords(DelayedPartitionResults):
    """Waits until every replica's log start offset has reached the requested offset (Kafka's
    DelayedDeleteRecords). results: {tp: DeleteRecordsResult}."""

    def settle(self, partition, result):
        if partition is None:
            result.error, result.low_watermark = Errors.UNKNOWN_TOPIC_OR_PARTITION, -1
            return True
        if not partition.is_leader or partition.log is None:
            result.error, result.low_watermark = Errors.NOT_LEADER_FOR_PARTITION, -1
            return True
        low_watermark = partition.low_watermark(self.replica_manager.is_broker_alive)
        if low_watermark >= result.requested_offset:
            result.low_watermark = low_watermark
            return True
        return False
