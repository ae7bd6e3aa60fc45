"""The broker's check of a partition's produce records, and offset assignment done in place."""

import struct
from collections.abc import Iterable, Sequence

import crc32c

from kafka_zk.record.batch_header import (
    ATTRIBUTES_POS,
    BATCH_HEADER_SIZE,
    COMPRESSION_MASK,
    CONTROL_MASK,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    MAGIC_POS,
    MIN_BATCH_LENGTH,
    NO_PRODUCER_ID,
    TIMESTAMP_TYPE_MASK,
    BatchHeader,
    InvalidRecordError,
    check_crc,
    new_batch_header,
    read_batch_header,
    set_max_timestamp,
)
from kafka_zk.record.buffers import ReadableBuffer
from kafka_zk.record.compression import DEFAULT_MAX_DECOMPRESSED, NONE, codec_from_name
from kafka_zk.record.legacy import down_convert, iter_messages, up_convert
from kafka_zk.record.records import (
    CREATE_TIME,
    NO_TIMESTAMP,
    Record,
    batch_records_data,
    decode_records,
    encode_batch,
    read_full_header,
    scan_records,
)

__all__ = [
    "InvalidBatchError",
    "MissingKeyError",
    "RecordTooLargeError",
    "InvalidTimestampError",
    "RejectedRecordsError",
    "ValidatedRecords",
    "validate_produce_records",
    "down_convert",
]

DEFAULT_MAX_MESSAGE_BYTES = 1048588
# baseOffset, batchLength and partitionLeaderEpoch: the fields before the CRC-covered part that the leader stamps
_OFFSET_LENGTH_EPOCH = struct.Struct(">qii")
_unpack_header = HEADER_STRUCT.unpack_from
_crc32c = crc32c.crc32c


class RecordTooLargeError(ValueError):
    """A batch (or legacy message) larger than max.message.bytes (MESSAGE_TOO_LARGE)."""


class InvalidBatchError(InvalidRecordError):
    """A well-formed batch refused whole: a record count at odds with its offsets, a client's control batch, a
    producer id without a sequence, more than one batch (INVALID_RECORD, where a corrupt batch is CORRUPT_MESSAGE)."""


class RejectedRecordsError(ValueError):
    """Records of a batch that fail Kafka's per-record checks (its RecordValidationException): ``record_errors`` is
    [(index in the batch, message)] for Produce v8's record_errors; the batch fails whole."""

    def __init__(self, message: str, record_errors: Iterable[tuple[int, str]] = (), missing_keys: int = 0) -> None:
        super().__init__(message)
        self.record_errors = list(record_errors)
        self.missing_keys = missing_keys  # records without the key a compacted topic needs, among them


class MissingKeyError(RejectedRecordsError, InvalidRecordError):
    """Records without a key for a compacted topic, and none with a bad timestamp (INVALID_RECORD)."""


class InvalidTimestampError(RejectedRecordsError):
    """Records with a producer-set LogAppendTime or a CreateTime too far from now (INVALID_TIMESTAMP)."""


class ValidatedRecords:
    """A produce request's records for one partition, checked, as one v2 batch ready to append.

    ``buffer`` is a bytearray copy the caller owns; assign_offsets patches it in place. ``header`` is the
    batch's BatchHeader (as of the last assign_offsets once that has run).
    """

    __slots__ = (
        "buffer",
        "header",
        "record_count",
        "max_timestamp",
        "producer_id",
        "converted",
        "_log_append_time",
        "_now_ms",
        "_max_timestamp_stale",
    )

    def __init__(
        self,
        buffer: bytearray,
        header: BatchHeader,
        max_timestamp: int,
        log_append_time: bool,
        now_ms: int,
        max_timestamp_stale: bool,
        converted: bool = False,
    ) -> None:
        self.buffer = buffer
        self.header = header
        self.converted = converted  # up-converted from a legacy message set, or recompressed: Kafka's conversions
        self.record_count = header.record_count
        self.max_timestamp = max_timestamp
        self.producer_id = header.producer_id
        self._log_append_time = log_append_time
        self._now_ms = now_ms
        self._max_timestamp_stale = max_timestamp_stale

    @property
    def shallow_count(self) -> int:
        return 1

    @property
    def size(self) -> int:
        return len(self.buffer)

    @property
    def producer_epoch(self) -> int:
        return self.header.producer_epoch

    @property
    def base_sequence(self) -> int:
        return self.header.base_sequence

    @property
    def is_transactional(self) -> bool:
        return self.header.is_transactional

    @property
    def last_sequence(self) -> int:
        return self.header.last_sequence

    def assign_offsets(
        self, base_offset: int, partition_leader_epoch: int, log_append_time_ms: int | None = None
    ) -> int:
        """Stamp baseOffset and partitionLeaderEpoch into the buffer; return the last offset.

        With LogAppendTime the batch's maxTimestamp becomes ``log_append_time_ms`` (default: the
        now_ms given to validation) and the CRC is recomputed; with CreateTime the CRC-covered
        bytes are left alone unless a compressed batch declared a wrong maxTimestamp.
        """
        buffer = self.buffer
        header = self.header
        _OFFSET_LENGTH_EPOCH.pack_into(buffer, 0, base_offset, header.batch_length, partition_leader_epoch)
        if self._log_append_time or self._max_timestamp_stale:
            if self._log_append_time:
                self.max_timestamp = self._now_ms if log_append_time_ms is None else log_append_time_ms
            set_max_timestamp(buffer, 0, self.max_timestamp, self._log_append_time)
            stamped = new_batch_header(_unpack_header(buffer))
        else:  # only the two stamped fields changed: the header's other fields, CRC included, are the same
            stamped = new_batch_header((base_offset, header[1], partition_leader_epoch) + header[3:])
        self.header = stamped
        return base_offset + header.last_offset_delta


def validate_produce_records(
    buf: ReadableBuffer,
    now_ms: int,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    timestamp_type: str = "CreateTime",
    codec_for_topic: str | int | None = None,
    compacted: bool = False,
    timestamp_diff_max_ms: int | None = None,
    from_client: bool = True,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
    topic_partition: tuple[str, int] = ("?", -1),
) -> ValidatedRecords:
    """Check one partition's produce records as Kafka's broker does; return ValidatedRecords.

    ``buf`` is one v2 batch (Kafka requires exactly one per partition for magic 2) or a legacy
    magic 0/1 message set, which is up-converted to one v2 batch. An uncompressed v2 batch is only
    checked through its header and CRC: its records are read only when the topic is compacted
    (keys required), ``timestamp_diff_max_ms`` is set, or ``codec_for_topic`` (a codec id or
    compression.type name; None or "producer" keeps the producer's codec) asks for recompression.
    A batch kept in its codec is walked without building its records (records.scan_records, as
    Kafka's skip-key-value iterator); only recompression, a compressed batch whose offset deltas are
    not 0, 1, 2, ... (rebuilt, as Kafka rebuilds old clients' batches) or a failed record check decode them.
    Raises InvalidRecordError (CORRUPT_MESSAGE), InvalidBatchError or MissingKeyError (INVALID_RECORD),
    RecordTooLargeError (MESSAGE_TOO_LARGE), InvalidTimestampError (INVALID_TIMESTAMP) or
    compression.UnsupportedCodecError; the record checks report every failing record, with
    ``topic_partition`` (topic, partition) in the messages as Kafka's.
    ``from_client`` False (coordinator writes) allows control batches and skips producer checks.
    """
    length = len(buf)
    if length <= MAGIC_POS:
        raise InvalidRecordError("produce records of %d bytes hold no batch" % length)
    # Fast path, a client's one uncompressed v2 batch kept as it is (Kafka's in-place path: only the header and
    # CRC are looked at); every other case, and every failed check, goes the general way below.
    if (
        from_client
        and length >= BATCH_HEADER_SIZE
        and buf[MAGIC_POS] == 2
        and not buf[ATTRIBUTES_POS + 1] & (COMPRESSION_MASK | TIMESTAMP_TYPE_MASK | CONTROL_MASK)
        and not compacted
        and (timestamp_diff_max_ms is None or timestamp_type != "CreateTime")
        and (codec_for_topic is None or codec_for_topic == "producer" or codec_for_topic == NONE)
    ):
        fields = _unpack_header(buf)
        # batch_length, record_count, last_offset_delta, producer_id, base_sequence
        if (
            fields[1] + LOG_OVERHEAD == length <= max_message_bytes
            and fields[1] >= MIN_BATCH_LENGTH
            and fields[12] > 0
            and fields[6] + 1 == fields[12]
            and (fields[9] == NO_PRODUCER_ID or fields[11] >= 0)
            and _crc32c(memoryview(buf)[ATTRIBUTES_POS:]) == fields[4]
        ):
            return ValidatedRecords(
                bytearray(buf),
                new_batch_header(fields),
                fields[8],
                timestamp_type != "CreateTime",
                now_ms,
                False,
            )
    converted = buf[MAGIC_POS] < 2
    if converted:
        _check_legacy(buf, max_message_bytes)
        data = bytearray(up_convert(buf, max_decompressed))
    else:
        data = bytearray(buf)
    header = read_full_header(data)
    size = header.size
    if size != len(data):
        raise InvalidBatchError(
            "produce records must be exactly one batch (%d bytes after a batch of %d)" % (len(data) - size, size)
        )
    if size > max_message_bytes:
        raise RecordTooLargeError("batch of %d bytes exceeds max.message.bytes %d" % (size, max_message_bytes))
    check_crc(data, 0, header)
    attributes = header.attributes
    if from_client:
        _check_client_batch(header)

    source_codec = attributes & COMPRESSION_MASK
    create_time = timestamp_type == "CreateTime"
    timestamp_diff_max_ms = timestamp_diff_max_ms if create_time else None
    target_codec = source_codec
    topic_codec = codec_from_name(codec_for_topic)  # None for None or "producer": the producer's codec is kept
    if topic_codec is not None and not attributes & CONTROL_MASK:
        target_codec = topic_codec
    log_append_time_set = attributes & TIMESTAMP_TYPE_MASK
    if (
        source_codec == NONE
        and target_codec == NONE
        and not compacted
        and timestamp_diff_max_ms is None
        and not log_append_time_set
    ):
        # Kafka's in-place path: nothing in the batch but its header and CRC is looked at
        return ValidatedRecords(data, header, header.max_timestamp, not create_time, now_ms, False, converted)
    if target_codec == source_codec and not log_append_time_set:  # kept in its codec: walked, not decoded
        compressed = source_codec != NONE
        walked_max, problem = scan_records(
            header,
            batch_records_data(data, 0, header, max_decompressed),
            compressed,
            compacted,
            now_ms,
            timestamp_diff_max_ms,
        )
        if problem is None:
            max_timestamp = walked_max if compressed else header.max_timestamp
            return ValidatedRecords(
                data, header, max_timestamp, not create_time, now_ms, max_timestamp != header.max_timestamp, converted
            )
    records = decode_records(header, batch_records_data(data, 0, header, max_decompressed))
    _check_records(records, header, now_ms, compacted, timestamp_diff_max_ms, topic_partition)
    data = bytearray(_recompress(records, header, target_codec))
    header = read_batch_header(data)
    if header.size > max_message_bytes:
        raise RecordTooLargeError(
            "recompressed batch of %d bytes exceeds max.message.bytes %d" % (header.size, max_message_bytes)
        )
    return ValidatedRecords(data, header, header.max_timestamp, not create_time, now_ms, False, True)


def _check_legacy(buf: ReadableBuffer, max_message_bytes: int) -> None:
    for message in iter_messages(buf, verify_crc=False):
        if message.size > max_message_bytes:
            raise RecordTooLargeError(
                "message of %d bytes exceeds max.message.bytes %d" % (message.size, max_message_bytes)
            )
        if message.magic == 1 and message.attributes & TIMESTAMP_TYPE_MASK:
            raise InvalidTimestampError("producers must not set the LogAppendTime timestamp type")


def _check_client_batch(header: BatchHeader) -> None:
    record_count = header.record_count
    if record_count <= 0:
        raise InvalidBatchError("invalid record count %d" % record_count)
    if header.last_offset_delta + 1 != record_count:
        raise InvalidBatchError(
            "lastOffsetDelta %d inconsistent with record count %d" % (header.last_offset_delta, record_count)
        )
    if header.producer_id != NO_PRODUCER_ID and header.base_sequence < 0:
        raise InvalidBatchError("invalid sequence %d for producer id %d" % (header.base_sequence, header.producer_id))
    if header.attributes & CONTROL_MASK:
        raise InvalidBatchError("clients may not write control batches")


def _check_records(
    records: Sequence[Record],
    header: BatchHeader,
    now_ms: int,
    compacted: bool,
    timestamp_diff_max_ms: int | None,
    topic_partition: tuple[str, int],
) -> None:
    """Kafka's per-record checks over every record (a key, then the timestamp); raises with each failing record."""
    key_errors: list[tuple[int, str]] = []
    timestamp_errors: list[tuple[int, str]] = []
    for index, record in enumerate(records):
        if compacted and record.key is None:
            key_errors.append(
                (index, "Compacted topic cannot accept message without key in topic partition %s-%d." % topic_partition)
            )
        elif (
            timestamp_diff_max_ms is not None
            and record.timestamp != NO_TIMESTAMP
            and abs(record.timestamp - now_ms) > timestamp_diff_max_ms
        ):
            timestamp_errors.append(
                (
                    index,
                    "Timestamp %d of message with offset %d is out of range. The timestamp "
                    "should be within [%d, %d]"
                    % (record.timestamp, record.offset, now_ms - timestamp_diff_max_ms, now_ms + timestamp_diff_max_ms),
                )
            )
        elif header.is_log_append_time:
            timestamp_errors.append(
                (
                    index,
                    "Invalid timestamp type in message DefaultRecord(offset=%d, timestamp=%d, "
                    "key=%d bytes, value=%d bytes). Producer should not set timestamp type to "
                    "LogAppendTime."
                    % (record.offset, record.timestamp, len(record.key or b""), len(record.value or b"")),
                )
            )
    if timestamp_errors:
        raise InvalidTimestampError(
            "One or more records have been rejected due to invalid timestamp",
            sorted(key_errors + timestamp_errors),
            len(key_errors),
        )
    if key_errors:
        raise MissingKeyError("One or more records have been rejected", key_errors, len(key_errors))


def _recompress(records: Sequence[Record], header: BatchHeader, codec: int) -> bytes:
    return encode_batch(
        [(record.key, record.value, record.headers, record.timestamp) for record in records],
        compression=codec,
        timestamp_type=CREATE_TIME,
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
        is_transactional=header.is_transactional,
        is_control=header.is_control,
        first_timestamp=header.first_timestamp,
    )
