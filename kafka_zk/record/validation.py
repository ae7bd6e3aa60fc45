"""The broker's check of a partition's produce records, and offset assignment done in place."""

import struct

from kafka_zk.record.batch_header import (
    COMPRESSION_MASK, CONTROL_MASK, MAGIC_POS, NO_PRODUCER_ID, TIMESTAMP_TYPE_MASK, InvalidRecordError,
    check_crc, read_batch_header, set_max_timestamp)
from kafka_zk.record.compression import DEFAULT_MAX_DECOMPRESSED, NONE, codec_from_name
from kafka_zk.record.legacy import down_convert, iter_messages, up_convert
from kafka_zk.record.records import (
    CREATE_TIME, NO_TIMESTAMP, batch_records_data, decode_records, encode_batch, read_full_header, scan_records)

__all__ = ["MissingKeyError", "RecordTooLargeError", "InvalidTimestampError", "ValidatedRecords", "validate_produce_records",
           "down_convert"]

DEFAULT_MAX_MESSAGE_BYTES = 1048588
# baseOffset, batchLength and partitionLeaderEpoch: the fields before the CRC-covered part that the leader stamps
_OFFSET_LENGTH_EPOCH = struct.Struct(">qii")


class RecordTooLargeError(ValueError):
    """A batch (or legacy message) larger than max.message.bytes (MESSAGE_TOO_LARGE)."""


class MissingKeyError(InvalidRecordError):
    """A record without a key for a compacted topic (INVALID_RECORD, as Kafka 2.4+ answers)."""


class InvalidTimestampError(ValueError):
    """A producer-set LogAppendTime, or a CreateTime too far from now (INVALID_TIMESTAMP)."""


class ValidatedRecords:
    """A produce request's records for one partition, checked, as one v2 batch ready to append.

    ``buffer`` is a bytearray copy the caller owns; assign_offsets patches it in place. ``header`` is the
    batch's BatchHeader (as of the last assign_offsets once that has run).
    """
    __slots__ = ("buffer", "header", "record_count", "max_timestamp", "producer_id", "converted", "_log_append_time",
                 "_now_ms", "_max_timestamp_stale")

    def __init__(self, buffer, header, max_timestamp, log_append_time, now_ms, max_timestamp_stale, converted=False):
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
    def batches(self):
        """[(position, BatchHeader)] of the batches in ``buffer``: always the one."""
        return [(0, self.header)]

    @property
    def shallow_count(self):
        return 1

    @property
    def size(self):
        return len(self.buffer)

    @property
    def producer_epoch(self):
        return self.header.producer_epoch

    @property
    def base_sequence(self):
        return self.header.base_sequence

    @property
    def is_transactional(self):
        return self.header.is_transactional

    @property
    def last_sequence(self):
        return self.header.last_sequence

    def assign_offsets(self, base_offset, partition_leader_epoch, log_append_time_ms=None):
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
        self.header = read_batch_header(buffer, 0)
        return base_offset + header.last_offset_delta


def validate_produce_records(buf, now_ms, max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES, timestamp_type="CreateTime",
                             codec_for_topic=None, compacted=False, timestamp_diff_max_ms=None, from_client=True,
                             max_decompressed=DEFAULT_MAX_DECOMPRESSED):
    """Check one partition's produce records as Kafka's broker does; return ValidatedRecords.

    ``buf`` is one v2 batch (Kafka requires exactly one per partition for magic 2) or a legacy
    magic 0/1 message set, which is up-converted to one v2 batch. An uncompressed v2 batch is only
    checked through its header and CRC: its records are read only when the topic is compacted
    (keys required), ``timestamp_diff_max_ms`` is set, or ``codec_for_topic`` (a codec id or
    compression.type name; None or "producer" keeps the producer's codec) asks for recompression.
    A batch kept in its codec is walked without building its records (records.scan_records, as
    Kafka's skip-key-value iterator); only recompression decodes and re-encodes them.
    Raises InvalidRecordError (CORRUPT_MESSAGE), RecordTooLargeError (MESSAGE_TOO_LARGE),
    InvalidTimestampError (INVALID_TIMESTAMP) or compression.UnsupportedCodecError.
    ``from_client`` False (coordinator writes) allows control batches and skips producer checks.
    """
    if len(buf) <= MAGIC_POS:
        raise InvalidRecordError("produce records of %d bytes hold no batch" % len(buf))
    converted = buf[MAGIC_POS] < 2
    if converted:
        _check_legacy(buf, max_message_bytes)
        data = bytearray(up_convert(buf, max_decompressed))
    else:
        data = bytearray(buf)
    header = read_full_header(data)
    size = header.size
    if size != len(data):
        raise InvalidRecordError("produce records must be exactly one batch (%d bytes after a batch of %d)"
                                 % (len(data) - size, size))
    if size > max_message_bytes:
        raise RecordTooLargeError("batch of %d bytes exceeds max.message.bytes %d" % (size, max_message_bytes))
    check_crc(data, 0, header)
    attributes = header.attributes
    if from_client:
        _check_client_batch(header)
    if attributes & TIMESTAMP_TYPE_MASK:
        raise InvalidTimestampError("producers must not set the LogAppendTime timestamp type")

    source_codec = attributes & COMPRESSION_MASK
    create_time = timestamp_type == "CreateTime"
    target_codec = source_codec
    if codec_for_topic is not None and codec_for_topic != "producer":
        target_codec = codec_from_name(codec_for_topic)
        if attributes & CONTROL_MASK:
            target_codec = source_codec
    if (source_codec == NONE and target_codec == NONE and not compacted
            and (timestamp_diff_max_ms is None or not create_time)):
        # Kafka's in-place path: nothing in the batch but its header and CRC is looked at
        return ValidatedRecords(data, header, header.max_timestamp, not create_time, now_ms, False, converted)
    if target_codec == source_codec:  # kept in its codec: walked, not decoded
        max_timestamp, max_timestamp_stale = _check_in_place(
            data, header, now_ms, compacted, timestamp_diff_max_ms if create_time else None, max_decompressed)
        return ValidatedRecords(data, header, max_timestamp, not create_time, now_ms, max_timestamp_stale,
                                converted)
    records = decode_records(header, batch_records_data(data, 0, header, max_decompressed))
    _check_records(records, header, now_ms, compacted, timestamp_diff_max_ms if create_time else None)
    data = bytearray(_recompress(records, header, target_codec))
    header = read_batch_header(data)
    if header.size > max_message_bytes:
        raise RecordTooLargeError("recompressed batch of %d bytes exceeds max.message.bytes %d"
                                  % (header.size, max_message_bytes))
    return ValidatedRecords(data, header, header.max_timestamp, not create_time, now_ms, False, True)


def _check_legacy(buf, max_message_bytes):
    for message in iter_messages(buf, verify_crc=False):
        if message.size > max_message_bytes:
            raise RecordTooLargeError("message of %d bytes exceeds max.message.bytes %d"
                                      % (message.size, max_message_bytes))
        if message.magic == 1 and message.attributes & TIMESTAMP_TYPE_MASK:
            raise InvalidTimestampError("producers must not set the LogAppendTime timestamp type")


def _check_client_batch(header):
    record_count = header.record_count
    if record_count <= 0:
        raise InvalidRecordError("invalid record count %d" % record_count)
    if header.last_offset_delta + 1 != record_count:
        raise InvalidRecordError("lastOffsetDelta %d inconsistent with record count %d"
                                 % (header.last_offset_delta, record_count))
    if header.producer_id != NO_PRODUCER_ID and header.base_sequence < 0:
        raise InvalidRecordError("invalid sequence %d for producer id %d" % (header.base_sequence, header.producer_id))
    if header.attributes & CONTROL_MASK:
        raise InvalidRecordError("clients may not write control batches")


def _check_records(records, header, now_ms, compacted, timestamp_diff_max_ms):
    compressed = header.compression != NONE
    for index, record in enumerate(records):
        if compressed and record.offset - header.base_offset != index:
            raise InvalidRecordError("compressed batch has non-consecutive offset delta %d at record %d"
                                     % (record.offset - header.base_offset, index))
        if compacted and record.key is None:
            raise MissingKeyError("Compacted topic cannot accept message without key.")
        if (timestamp_diff_max_ms is not None and record.timestamp != NO_TIMESTAMP
                and abs(record.timestamp - now_ms) > timestamp_diff_max_ms):
            raise InvalidTimestampError("timestamp %d is more than %d ms from now %d"
                                        % (record.timestamp, timestamp_diff_max_ms, now_ms))


def _check_in_place(data, header, now_ms, compacted, timestamp_diff_max_ms, max_decompressed):
    """The checks of _check_records on a batch kept as it is, walking its records without decoding
    them (Kafka's skip-key-value iterator); returns (max_timestamp, whether the header's is wrong)."""
    compressed = header.compression != NONE
    walked_max, problem = scan_records(header, batch_records_data(data, 0, header, max_decompressed),
                                       compressed, compacted, now_ms, timestamp_diff_max_ms)
    if problem is not None:
        kind, index, value = problem
        if kind == "offset":
            raise InvalidRecordError("compressed batch has non-consecutive offset delta %d at record %d" % (value, index))
        if kind == "key":
            raise MissingKeyError("Compacted topic cannot accept message without key.")
        raise InvalidTimestampError("timestamp %d is more than %d ms from now %d" % (value, timestamp_diff_max_ms, now_ms))
    if not compressed:
        return header.max_timestamp, False
    return walked_max, walked_max != header.max_timestamp


def _recompress(records, header, codec):
    return encode_batch(
        [(record.key, record.value, record.headers, record.timestamp) for record in records],
        compression=codec, timestamp_type=CREATE_TIME, producer_id=header.producer_id,
        producer_epoch=header.producer_epoch, base_sequence=header.base_sequence,
        is_transactional=header.is_transactional, is_control=header.is_control,
        first_timestamp=header.first_timestamp)
