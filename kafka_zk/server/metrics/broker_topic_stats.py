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

# Every BrokerTopicMetrics' meters (Kafka's names), per topic and, with three more, for all topics, in the order of
# their counts.
TOPIC_METERS = (
    "MessagesInPerSec",
    "BytesInPerSec",
    "BytesOutPerSec",
    "BytesRejectedPerSec",
    "FailedProduceRequestsPerSec",
    "FailedFetchRequestsPerSec",
    "TotalProduceRequestsPerSec",
    "TotalFetchRequestsPerSec",
    "FetchMessageConversionsPerSec",
    "ProduceMessageConversionsPerSec",
)
ALL_TOPICS_METERS = TOPIC_METERS + (
    "ReplicationBytesInPerSec",
    "ReplicationBytesOutPerSec",
    "NoKeyCompactedTopicRecordsPerSec",
)
# Where each meter's count is in a BrokerTopicMetrics' ``counts``.
(
    MESSAGES_IN,
    BYTES_IN,
    BYTES_OUT,
    BYTES_REJECTED,
    FAILED_PRODUCE_REQUESTS,
    FAILED_FETCH_REQUESTS,
    TOTAL_PRODUCE_REQUESTS,
    TOTAL_FETCH_REQUESTS,
    FETCH_MESSAGE_CONVERSIONS,
    PRODUCE_MESSAGE_CONVERSIONS,
    REPLICATION_BYTES_IN,
    REPLICATION_BYTES_OUT,
    NO_KEY_COMPACTED_TOPIC_RECORDS,
) = range(len(ALL_TOPICS_METERS))

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
    """The counts of one topic (``topic`` a name) or of all topics (None): ``counts``, a list of plain integers the
    hot path adds to (at the positions above), which the registry's meters take up at each collection
    (``publish``). A list rather than an attribute per meter: from a compiled module, a list item's read and write
    cost less than an instance attribute's."""

    __slots__ = ("topic", "counts", "_meters")

    def __init__(self, registry, topic=None):
        self.topic = topic
        tags = () if topic is None else (("topic", topic),)
        names = ALL_TOPICS_METERS if topic is None else TOPIC_METERS
        self.counts = [0] * len(names)
        self._meters = [registry.meter(GROUP, TYPE, name, tags) for name in names]

    def publish(self):
        for meter, count in zip(self._meters, self.counts):
            meter.count = count


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
        self._counts = {}  # topic -> its BrokerTopicMetrics' counts: the hot path's one look-up
        self._removed = [0] * len(TOPIC_METERS)

    def topic(self, name):
        metrics = self._topics.get(name)
        if metrics is None:
            metrics = self._topics[name] = BrokerTopicMetrics(self.registry, name)
            self._counts[name] = metrics.counts
        return metrics

    def _topic_counts(self, name):
        """The counts of ``name``'s BrokerTopicMetrics (made on first use), for the paths that count into it."""
        try:
            return self._counts[name]
        except KeyError:
            return self.topic(name).counts

    def topics(self):
        return sorted(self._topics)

    def has_topic(self, name):
        return name in self._topics

    def publish(self):
        """Bring every meter up to date, the all-topics ones as sums."""
        if not self.enabled:
            return None
        every, topics = self.all_topics.counts, list(self._counts.values())
        for index, removed in enumerate(self._removed):
            every[index] = removed + sum(counts[index] for counts in topics)
        for metrics in self._topics.values():
            metrics.publish()
        self.all_topics.publish()
        return None

    def remove_topic(self, name):
        """Drop a topic's meters (its last partition on this broker was deleted); the all-topics sums keep them."""
        metrics = self._topics.pop(name, None)
        if metrics is None:
            return
        del self._counts[name]
        self._removed = [removed + count for removed, count in zip(self._removed, metrics.counts)]
        tag = ("topic", name)
        self.registry.remove_where(lambda metric: metric.group == GROUP and metric.type == TYPE and tag in metric.tags)

    # -- produce ------------------------------------------------------------------------------

    def appended(self, topic, request_bytes, result):
        """One partition of a produce (or a coordinator's write) as leader: ``request_bytes`` the records' size as
        the request carried them; ``result`` its outcome (error, base_offset, last_offset: the records appended,
        as Kafka counts them from the batch's offsets; converted: the records whose format was converted).
        Callers check ``enabled``: this is the produce path's."""
        try:  # _topic_counts, without a call per append
            counts = self._counts[topic]
        except KeyError:
            counts = self.topic(topic).counts
        counts[TOTAL_PRODUCE_REQUESTS] += 1
        error = result.error
        if error:
            if error == Errors.MESSAGE_TOO_LARGE:
                counts[BYTES_REJECTED] += request_bytes
            elif error not in EXPECTED_PRODUCE_ERRORS:
                counts[FAILED_PRODUCE_REQUESTS] += 1
                self.all_topics.counts[NO_KEY_COMPACTED_TOPIC_RECORDS] += result.missing_keys
            return
        counts[BYTES_IN] += request_bytes
        counts[MESSAGES_IN] += result.last_offset - result.base_offset + 1
        converted = result.converted
        if converted:
            counts[PRODUCE_MESSAGE_CONVERSIONS] += converted

    # -- fetch --------------------------------------------------------------------------------

    def read(self, results):
        """The partitions read for one fetch, a consumer's or a follower's: {tp: result with its error} (a parked
        fetch reads again when it completes, and counts again, as Kafka's DelayedFetch does)."""
        if not self.enabled:
            return
        for tp, result in results.items():
            counts = self._topic_counts(tp[0])
            counts[TOTAL_FETCH_REQUESTS] += 1
            error = result.error
            if error and error not in EXPECTED_FETCH_ERRORS:
                counts[FAILED_FETCH_REQUESTS] += 1

    def sent(self, topic, size, to_follower):
        """``size`` record bytes of ``topic`` in a fetch response (Kafka's updateBytesOut)."""
        if not self.enabled or not size:
            return
        if to_follower:
            self.all_topics.counts[REPLICATION_BYTES_OUT] += size
        else:
            self._topic_counts(topic)[BYTES_OUT] += size

    def fetch_converted(self, topic, records):
        if self.enabled and records:
            self._topic_counts(topic)[FETCH_MESSAGE_CONVERSIONS] += records

    def replicated(self, size):
        """A follower appended ``size`` bytes fetched from its leader."""
        if self.enabled:
            self.all_topics.counts[REPLICATION_BYTES_IN] += size
