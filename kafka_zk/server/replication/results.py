"""What a replica manager is asked and answers per partition: a fetch's FetchInfo, and the results of an append,
a read and a delete-records."""

from collections import namedtuple

from kafka_zk.protocol.errors import Errors

FetchInfo = namedtuple("FetchInfo", "tp fetch_offset max_bytes current_leader_epoch log_start_offset")
READ_UNCOMMITTED = 0
READ_COMMITTED = 1
# The partitions of one fetch whose records a response may send from their segment files (sendfile); each holds
# its file open until sent, so a fetch of more partitions than this copies the records of the rest as before.
MAX_REGIONS_PER_FETCH = 16


class ProduceResult:
    __slots__ = (
        "error",
        "message",
        "base_offset",
        "last_offset",
        "log_append_time",
        "log_start_offset",
        "min_isr",
        "converted",
        "record_errors",
        "missing_keys",
    )

    def __init__(
        self,
        error=Errors.NONE,
        message=None,
        base_offset=-1,
        last_offset=-1,
        log_append_time=-1,
        log_start_offset=-1,
        min_isr=1,
        record_errors=(),
        missing_keys=0,
    ):
        self.error = error
        self.message = message
        self.record_errors = record_errors  # [(index in the batch, message)] of the records that failed its checks
        self.missing_keys = missing_keys  # how many of those lack the key a compacted topic needs
        self.base_offset = base_offset
        self.last_offset = last_offset
        self.log_append_time = log_append_time
        self.log_start_offset = log_start_offset
        self.min_isr = min_isr
        self.converted = 0  # records whose format the append converted


class FetchResult:
    __slots__ = (
        "error",
        "records",
        "high_watermark",
        "log_start_offset",
        "log_end_offset",
        "last_stable_offset",
        "aborted_transactions",
        "preferred_read_replica",
    )

    def __init__(
        self,
        error=Errors.NONE,
        records=b"",
        high_watermark=-1,
        log_start_offset=-1,
        log_end_offset=-1,
        last_stable_offset=-1,
        aborted_transactions=None,
        preferred_read_replica=-1,
    ):
        self.error = error
        self.records = records
        self.high_watermark = high_watermark
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset
        self.last_stable_offset = last_stable_offset
        self.aborted_transactions = aborted_transactions  # [(producer_id, first_offset)] for read_committed
        self.preferred_read_replica = preferred_read_replica  # KIP-392: another replica to read from, or -1


class DeleteRecordsResult:
    __slots__ = ("error", "message", "requested_offset", "low_watermark")

    def __init__(self, error=Errors.NONE, message=None, requested_offset=-1, low_watermark=-1):
        self.error = error
        self.message = message
        self.requested_offset = requested_offset
        self.low_watermark = low_watermark
