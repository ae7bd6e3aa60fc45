"""The record parsers of kafka-dump-log: StringDecoder, and the __consumer_offsets (--offsets-decoder) and
__transaction_state (--transaction-log-decoder) decoders, printing what Kafka 2.5's DumpLogSegments prints."""

import json
import struct

STRING_DECODER = "kafka.serializer.StringDecoder"
CONSUMER_PROTOCOL_TYPE = "consumer"
TXN_STATES = {
    0: "Empty",
    1: "Ongoing",
    2: "PrepareCommit",
    3: "PrepareAbort",
    4: "CompleteCommit",
    5: "CompleteAbort",
    6: "Dead",
    7: "PrepareEpochFence",
}


class DecodeError(ValueError):
    """The bytes are not in the format the decoder expects."""


class _Reader:
    """Big-endian reads of Kafka's classic (non-flexible) schema types."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def _unpack(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise DecodeError("ran out of bytes")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def int8(self):
        return self._unpack(">b")

    def int16(self):
        return self._unpack(">h")

    def int32(self):
        return self._unpack(">i")

    def int64(self):
        return self._unpack(">q")

    def bytes(self, nullable=True):
        size = self.int32()
        if size < 0:
            if not nullable:
                raise DecodeError("null bytes")
            return None
        if self.pos + size > len(self.data):
            raise DecodeError("ran out of bytes")
        value = self.data[self.pos : self.pos + size]
        self.pos += size
        return value

    def string(self, nullable=False):
        size = self.int16()
        if size < 0:
            if not nullable:
                raise DecodeError("null string")
            return None
        if self.pos + size > len(self.data):
            raise DecodeError("ran out of bytes")
        value = self.data[self.pos : self.pos + size].decode("utf-8")
        self.pos += size
        return value

    def array(self, read_item):
        count = self.int32()
        return [] if count < 0 else [read_item() for _ in range(count)]


def string_decoder(data):
    """kafka.serializer.StringDecoder: UTF-8 text (invalid sequences replaced)."""
    return bytes(data).decode("utf-8", errors="replace")


def _hex(data):
    """Scala's ``"%X".format(BigInt(1, bytes))``: upper-case hex without leading zeros, "" when empty."""
    return "" if not data else "%X" % int.from_bytes(bytes(data), "big")


def _java_map(entries):
    """A Jackson-encoded map in the given order (compact JSON)."""
    return json.dumps(dict(entries), separators=(",", ":"), ensure_ascii=False)


def _consumer_assignment(data):
    """(["topic-partition", ...], user data bytes or None) of a ConsumerProtocol assignment."""
    reader = _Reader(data)
    reader.int16()
    partitions = []
    for topic, ids in reader.array(lambda: (reader.string(), reader.array(reader.int32))):
        partitions.extend("%s-%d" % (topic, partition) for partition in ids)
    user_data = reader.bytes() if reader.pos < len(reader.data) else None
    return partitions, user_data


def _group_value(reader):
    """(protocol_type, generation, protocol, [(member id, assignment bytes)]) of a group metadata value v0-v3."""
    version = reader.int16()
    if not 0 <= version <= 3:
        raise DecodeError("unknown group metadata value version %d" % version)
    protocol_type = reader.string()
    generation = reader.int32()
    protocol = reader.string(nullable=True)
    reader.string(nullable=True)  # leader
    if version >= 2:
        reader.int64()  # current state timestamp
    members = []
    for _ in range(reader.int32()):
        member_id = reader.string()
        if version >= 3:
            reader.string(nullable=True)  # group instance id
        reader.string()  # client id
        reader.string()  # client host
        if version >= 1:
            reader.int32()  # rebalance timeout
        reader.int32()  # session timeout
        reader.bytes()  # subscription
        members.append((member_id, reader.bytes()))
    return protocol_type, generation, protocol, members


def _offset_value(reader):
    """(offset, metadata) of an offset commit value v0-v3."""
    version = reader.int16()
    if not 0 <= version <= 3:
        raise DecodeError("unknown offset commit value version %d" % version)
    offset = reader.int64()
    if version == 3:
        reader.int32()  # leader epoch
    return offset, reader.string()


def offsets_decoder(key, value):
    """(key text, value text) of a __consumer_offsets record as Kafka 2.5 prints it; (None, None) for a
    tombstone. DecodeError for bytes of another format."""
    if value is None:
        return None, None
    if key is None:
        raise DecodeError("Failed to decode message using offset topic decoder (message had a missing key)")
    reader = _Reader(key)
    version = reader.int16()
    if version in (0, 1):
        group, topic, partition = reader.string(), reader.string(), reader.int32()
        offset, metadata = _offset_value(_Reader(value))
        return (
            "offset::%s:%s:%d" % (group, topic, partition),
            str(offset) if not metadata else "%d:%s" % (offset, metadata),
        )
    if version == 2:
        group = reader.string()
        protocol_type, generation, protocol, members = _group_value(_Reader(value))
        assignments = []
        for member_id, assignment in members:
            if protocol_type == CONSUMER_PROTOCOL_TYPE:
                partitions, user_data = _consumer_assignment(assignment or b"")
                text = "%s=[%s]" % (member_id, ", ".join(partitions))
                assignments.append(text + (":%s" % _hex(user_data) if _hex(user_data) else ""))
            else:
                assignments.append("%s=%s" % (member_id, _hex(assignment)))
        return (
            _java_map([("metadata", group)]),
            _java_map(
                [
                    ("protocolType", protocol_type),
                    ("protocol", protocol),
                    ("generationId", generation),
                    ("assignment", "{%s}" % ",".join(assignments)),
                ]
            ),
        )
    raise DecodeError("Failed to decode message using offset topic decoder (message had an invalid key)")


def transaction_log_decoder(key, value):
    """(key text, value text) of a __transaction_state record as Kafka 2.5 prints it."""
    if key is None:
        raise DecodeError("missing key")
    reader = _Reader(key)
    version = reader.int16()
    if version != 0:
        raise DecodeError("unknown transaction log key version %d" % version)
    transactional_id = reader.string()
    key_text = "transaction_metadata::transactionalId=%s" % transactional_id
    if value is None:
        return key_text, "<DELETE>"
    reader = _Reader(value)
    if reader.int16() != 0:
        raise DecodeError("unknown transaction log value version")
    producer_id, producer_epoch, timeout_ms, status = reader.int64(), reader.int16(), reader.int32(), reader.int8()
    if status not in TXN_STATES:
        raise DecodeError("unknown transaction state %d" % status)
    partitions = []
    for topic, ids in reader.array(lambda: (reader.string(), reader.array(reader.int32))):
        partitions.extend("%s-%d" % (topic, partition) for partition in ids)
    last_update = reader.int64()
    reader.int64()  # start timestamp
    return key_text, (
        "producerId:%d,producerEpoch:%d,state=%s,partitions=[%s],txnLastUpdateTimestamp=%d,"
        "txnTimeoutMs=%d"
        % (producer_id, producer_epoch, TXN_STATES[status], ",".join(partitions), last_update, timeout_ms)
    )


def string_parser(key, value):
    """The default parser: key and value through StringDecoder (absent ones not printed)."""
    return (None if key is None else string_decoder(key)), (None if value is None else string_decoder(value))


def parse_record(parser, key, value):
    """(key text, value text) of one record; bytes the decoder cannot read are printed raw (as StringDecoder)."""
    try:
        return parser(key, value)
    except (DecodeError, UnicodeDecodeError):
        return string_parser(key, value)
