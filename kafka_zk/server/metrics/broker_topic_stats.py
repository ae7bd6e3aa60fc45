"""Kafka's BrokerTopicMetrics: per-topic and all-topics meters of what the broker appends, serves and refuses.

As Kafka 2.5 marks them: the replica manager marks TotalProduceRequestsPerSec for every partition a produce (or a
coordinator's write) appends to as leader, BytesInPerSec (the request's record bytes) and MessagesInPerSec (the
records of the appended batch, from its offsets) when the append succeeds, BytesRejectedPerSec when a batch exceeds
max.message.bytes, FailedProduceRequestsPerSec for the failures Kafka calls unexpected (not for a missing or moved
partition, a batch too large, a corrupt batch, a bad timestamp or a storage error), and the same for fetches:
TotalFetchRequestsPerSec for every partition read (consumers' and followers'), FailedFetchRequestsPerSec for
unexpected failures. The fetch handler marks BytesOutPerSec for what a response carries to a consumer, and
ReplicationBytesOutPerSec (all topics only) to a follower; followers mark ReplicationBytesInPerSec (all topics
only) for what they append. ProduceMessageConversionsPerSec / FetchMessageConversionsPerSec count records whose
format was converted (up-converted or recompressed on produce; down-converted for old fetchers).

A deleted topic's meters go away with its last partition here (``remove_topic``).
"""

from kafka_zk.protocol.errors import Errors

GROUP = "kafka.server"
TYPE = "BrokerTopicMetrics"

# Meter names of every BrokerTopicMetrics, per topic and for all topics (attribute, Kafka's name).
TOPIC_METERS = (
    ("messages_in", "MessagesInPerSec"),
    ("bytes_in", "BytesInPerSec"),
    ("bytes_out", "BytesOutPerSec"),
    ("bytes_rejected", "BytesRejectedPerSec"),
    ("failed_produce_requests", "FailedProduceRequestsPerSec"),
    ("failed_fetch_requests", "FailedFetchRequestsPerSec"),
    ("total_produce_requests", "TotalProduceRequestsPerSec"),
    ("total_fetch_requests", "TotalFetchRequestsPerSec"),
    ("fetch_message_conversions", "FetchMessageConversionsPerSec"),
    ("produce_message_conversions", "ProduceMessageConversionsPerSec"),
)
# Only the all-topics BrokerTopicMetrics has these (as Kafka 2.5 marks them).
ALL_TOPICS_METERS = (
    ("replication_bytes_in", "ReplicationBytesInPerSec"),
    ("replication_bytes_out", "ReplicationBytesOutPerSec"),
    ("no_key_compacted_topic_records", "NoKeyCompactedTopicRecordsPerSec"),
)

# Errors Kafka's appendToLocalLog / readFromLocalLog answer without counting the request as failed (a bad timestamp
# comes among a batch's record errors, which count).
EXPECTED_PRODUCE_ERRORS = frozenset(
    [
        Errors.NONE,
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_LEADER_FOR_PARTITION,
        Errors.MESSAGE_TOO_LARGE,
        Errors.RECORD_LIST_TOO_LARGE,
        Errors.CORRUPT_MESSAGE,
        Errors.KAFKA_STORAGE_ERROR,
    ]
)
EXPECTED_FETCH_ERRORS = frozenset(
    [
        Errors.NONE,
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NOT_LEADER_FOR_PARTITION,
        Errors.UNKNOWN_LEADER_EPOCH,
        Errors.FENCED_LEADER_EPOCH,
        Errors.REPLICA_NOT_AVAILABLE,
        Errors.KAFKA_STORAGE_ERROR,
        Errors.OFFSET_OUT_OF_RANGE,
    ]
)


class BrokerTopicMetrics:
    """The counts of one topic (``topic`` a name) or of all topics (None): plain integers the hot path adds to (an
    attribute per meter), which the registry's meters of the same names take up at each collection (``publish``)."""

    __slots__ = tuple(attribute for attribute, _ in TOPIC_METERS + ALL_TOPICS_METERS) + ("topic", "_meters")

    def __init__(self, registry, topic=None):
        self.topic = topic
        tags = () if topic is None else (("topic", topic),)
        meters = TOPIC_METERS + ALL_TOPICS_METERS if topic is None else TOPIC_METERS
        for attribute, _ in TOPIC_METERS + ALL_TOPICS_METERS:
            setattr(self, attribute, 0)
        self._meters = [(attribute, registry.meter(GROUP, TYPE, name, tags)) for attribute, name in meters]

    def publish(self):
        for attribute, meter in self._meters:
            meter.count = getattr(self, attribute)


class BrokerTopicStats:
    """Every topic's BrokerTopicMetrics and the all-topics one. The hot path counts into the topic's; the
    all-topics counts of the same names are their sums (with those of removed topics), taken at the start of each
    collection, when every count reaches its meter."""

    def __init__(self, registry):
        self.registry = registry
        self.enabled = registry.enabled
        registry.before_collect(self.publish)
        self.all_topics = BrokerTopicMetrics(registry)
        self._topics = {}
        self._removed = dict.fromkeys((attribute for attribute, _ in TOPIC_METERS), 0)

    def topic(self, name):
        metrics = self._topics.get(name)
        if metrics is None:
            metrics = self._topics[name] = BrokerTopicMetrics(self.registry, name)
        return metrics

    def topics(self):
        return sorted(self._topics)

    def has_topic(self, name):
        return name in self._topics

    def publish(self):
        """Bring every meter up to date, the all-topics ones as sums."""
        if not self.enabled:
            return None
        every, topics = self.all_topics, list(self._topics.values())
        for attribute, removed in self._removed.items():
            setattr(every, attribute, removed + sum(getattr(metrics, attribute) for metrics in topics))
        for metrics in topics:
            metrics.publish()
        every.publish()
        return None

    def remove_topic(self, name):
        """Drop a topic's meters (its last partition on this broker was deleted); the all-topics sums keep them."""
        metrics = self._topics.pop(name, None)
        if metrics is None:
            return
        for attribute in self._removed:
            self._removed[attribute] += getattr(metrics, attribute)
        tag = ("topic", name)
        self.registry.remove_where(lambda metric: metric.group == GROUP and metric.type == TYPE and tag in metric.tags)

    # -- produce ------------------------------------------------------------------------------

    def appended(self, topic, request_bytes, result):
        """One partition of a produce (or a coordinator's write) as leader: ``request_bytes`` the records' size as
        the request carried them; ``result`` its outcome (error, base_offset, last_offset: the records appended,
        as Kafka counts them from the batch's offsets; converted: the records whose format was converted).
        Callers check ``enabled``: this is the produce path's."""
        metrics = self._topics.get(topic) or self.topic(topic)
        metrics.total_produce_requests += 1
        if result.error:
            self._append_failed(metrics, request_bytes, result)
            return
        metrics.bytes_in += request_bytes
        metrics.messages_in += result.last_offset - result.base_offset + 1
        if result.converted:
            metrics.produce_message_conversions += result.converted

    def _append_failed(self, metrics, request_bytes, result):
        error = result.error
        if error == Errors.MESSAGE_TOO_LARGE:
            metrics.bytes_rejected += request_bytes
        elif error not in EXPECTED_PRODUCE_ERRORS:
            metrics.failed_produce_requests += 1
            self.all_topics.no_key_compacted_topic_records += result.missing_keys

    # -- fetch --------------------------------------------------------------------------------

    def read(self, results):
        """The partitions read for one fetch, a consumer's or a follower's: {tp: result with its error} (a parked
        fetch reads again when it completes, and counts again, as Kafka's DelayedFetch does)."""
        if not self.enabled:
            return
        topics = self._topics
        for tp, result in results.items():
            metrics = topics.get(tp[0]) or self.topic(tp[0])
            metrics.total_fetch_requests += 1
            if result.error and result.error not in EXPECTED_FETCH_ERRORS:
                metrics.failed_fetch_requests += 1

    def sent(self, topic, size, to_follower):
        """``size`` record bytes of ``topic`` in a fetch response (Kafka's updateBytesOut)."""
        if not self.enabled or not size:
            return
        if to_follower:
            self.all_topics.replication_bytes_out += size
        else:
            (self._topics.get(topic) or self.topic(topic)).bytes_out += size

    def fetch_converted(self, topic, records):
        if self.enabled and records:
            self.topic(topic).fetch_message_conversions += records

    def replicated(self, size):
        """A follower appended ``size`` bytes fetched from its leader."""
        if self.enabled:
            self.all_topics.replication_bytes_in += size
