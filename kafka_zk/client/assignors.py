"""Kafka's ConsumerProtocol encoding (subscription, assignment; v0/v1) and the range and roundrobin assignors."""

from collections import namedtuple

from kafka_zk.protocol.primitives import Reader, Writer

# The 2.5 Java consumer sends version 1 (adds owned partitions); it reads any version >= 0.
CONSUMER_PROTOCOL_VERSION = 1
PROTOCOL_TYPE = "consumer"

Subscription = namedtuple("Subscription", "topics user_data owned_partitions")
Subscription.__doc__ = "A member's subscription: sorted topics, user data (bytes or None), owned [(topic, p)]."


def _write_partitions(w, partitions):
    by_topic = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    w.write_array_length(len(by_topic), False)
    for topic in sorted(by_topic):
        w.write_string(topic)
        w.write_array_length(len(by_topic[topic]), False)
        for partition in sorted(by_topic[topic]):
            w.write_int32(partition)


def _read_partitions(r):
    result = []
    for _ in range(r.array_length(True, False) or 0):
        topic = r.read_string()
        count = r.array_length(True, False) or 0
        result.extend((topic, p) for p in r.read_int32_array_items(count))
    return result


def encode_subscription(topics, user_data=None, owned_partitions=(), version=CONSUMER_PROTOCOL_VERSION):
    w = Writer()
    w.write_int16(version)
    w.write_array_length(len(topics), False)
    for topic in sorted(topics):
        w.write_string(topic)
    w.write_nullable_bytes(user_data)
    if version >= 1:
        _write_partitions(w, owned_partitions)
    return w.getvalue()


def decode_subscription(data):
    """Subscription of any version >= 0 (fields of later versions beyond v1 are ignored)."""
    r = Reader(data)
    version = r.read_int16()
    if version < 0:
        raise ValueError("Unsupported subscription version: %d" % version)
    topics = [r.read_string() for _ in range(r.array_length(True, False) or 0)]
    user_data = r.read_nullable_bytes() if r.remaining() else None
    owned = _read_partitions(r) if version >= 1 and r.remaining() else []
    return Subscription(sorted(topics), None if user_data is None else bytes(user_data), owned)


def encode_assignment(partitions, user_data=None, version=CONSUMER_PROTOCOL_VERSION):
    w = Writer()
    w.write_int16(version)
    _write_partitions(w, partitions)
    w.write_nullable_bytes(user_data)
    return w.getvalue()


def decode_assignment(data):
    """[(topic, partition)] of an assignment; an empty byte string (no assignment) gives []."""
    if not data:
        return []
    r = Reader(data)
    if r.read_int16() < 0:
        raise ValueError("Unsupported assignment version")
    return _read_partitions(r)


def range_assign(partitions_per_topic, subscriptions):
    """Kafka's RangeAssignor: per topic, consecutive ranges to the subscribed members sorted by member id,
    the first (partitions % members) members getting one extra. Returns {member id: [(topic, partition)]}."""
    result = {member: [] for member in subscriptions}
    by_topic = {}
    for member, topics in subscriptions.items():
        for topic in topics:
            by_topic.setdefault(topic, []).append(member)
    for topic, members in sorted(by_topic.items()):
        count = partitions_per_topic.get(topic)
        if not count:
            continue
        members = sorted(members)
        each, extra = divmod(count, len(members))
        for index, member in enumerate(members):
            start = each * index + min(index, extra)
            length = each + (1 if index < extra else 0)
            result[member].extend((topic, p) for p in range(start, start + length))
    return result


def roundrobin_assign(partitions_per_topic, subscriptions):
    """Kafka's RoundRobinAssignor: every partition of every subscribed topic (sorted by topic, partition) dealt
    in turn to the members sorted by id, skipping members not subscribed to that partition's topic."""
    result = {member: [] for member in subscriptions}
    members = sorted(subscriptions)
    if not members:
        return result
    topics = sorted({t for ts in subscriptions.values() for t in ts if partitions_per_topic.get(t)})
    position = 0
    for topic in topics:
        for partition in range(partitions_per_topic[topic]):
            while topic not in subscriptions[members[position % len(members)]]:
                position += 1
            result[members[position % len(members)]].append((topic, partition))
            position += 1
    return result


ASSIGNORS = {"range": range_assign, "roundrobin": roundrobin_assign}
# Java class names accepted in partition.assignment.strategy, as the console consumer's properties may give them.
ASSIGNOR_CLASSES = {
    "org.apache.kafka.clients.consumer.RangeAssignor": "range",
    "org.apache.kafka.clients.consumer.RoundRobinAssignor": "roundrobin",
}
