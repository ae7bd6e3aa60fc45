"""The embedded consumer protocol: topics of a ConsumerProtocol subscription, an assignment's partitions."""

from kafka_zk.protocol.primitives import ProtocolDecodeError, Reader
from kafka_zk.record.buffers import ReadableBuffer


def subscribed_topics(subscription: ReadableBuffer) -> set[str] | None:
    """Topic names of a consumer subscription (version int16, topics array of strings, ...), or None."""
    try:
        r = Reader(subscription)
        version = r.read_int16()
        if version < 0:
            return None
        count = r.array_length(True, False)
        return {r.read_string() for _ in range(count or 0)}
    except (ProtocolDecodeError, TypeError):
        return None


def assigned_partitions(assignment: ReadableBuffer) -> dict[str, list[int]] | None:
    """{topic: [partitions]} of a consumer assignment (version int16, array of topic + int32 array), or None."""
    try:
        r = Reader(assignment)
        version = r.read_int16()
        if version < 0:
            return None
        result: dict[str, list[int]] = {}
        for _ in range(r.array_length(True, False) or 0):
            topic = r.read_string()
            count = r.array_length(True, False) or 0
            result.setdefault(topic, []).extend(r.read_int32_array_items(count))
        return result
    except (ProtocolDecodeError, TypeError):
        return None
