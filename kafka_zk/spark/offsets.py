"""Driver side of the kafka_zk source: which partitions to read and their offsets, through our own client."""

import time

from kafka_zk.client.cluster import ClusterClient
from kafka_zk.client.consumer import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, Consumer
from kafka_zk.client.errors import KafkaConnectionError, KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.client_properties import split_security
from kafka_zk.spark.options import EARLIEST, LATEST


class KafkaZkSourceError(RuntimeError):
    """The source cannot go on: a missing topic, an unreachable cluster, data lost with failOnDataLoss=true."""


def offsets_to_json(offsets):
    """{(topic, partition): offset} -> Spark's offset JSON shape {"topic": {"0": 23}} (sorted, deterministic)."""
    result = {}
    for (topic, partition), offset in sorted(offsets.items()):
        result.setdefault(topic, {})[str(partition)] = int(offset)
    return result


def offsets_from_json(data):
    return {
        (topic, int(partition)): int(offset)
        for topic, parts in (data or {}).items()
        for partition, offset in parts.items()
    }


class PartitionOffsets:
    """Lists a subscription's partitions and their earliest/latest/timestamp offsets, retrying through failovers.

    ``retry_for_s`` bounds how long lost leaders and unreachable brokers are retried once the cluster has been
    reached at least once; the first contact fails at once so a wrong bootstrap address is reported quickly.
    """

    def __init__(
        self,
        bootstrap_servers,
        subscription,
        client_settings=None,
        retry_for_s=60.0,
        clock=time.monotonic,
        sleep=time.sleep,
    ):
        self.bootstrap_servers = bootstrap_servers
        self.subscription = subscription
        settings = client_settings or {}
        self._timeout_s = int(settings.get("request.timeout.ms", 30000)) / 1000.0
        self._security = split_security(settings)[1]  # kafka.security.protocol, kafka.sasl.*, kafka.ssl.*
        self.retry_for_s = retry_for_s
        self._clock = clock
        self._sleep = sleep
        self._cluster = None
        self._consumer = None
        self._reached = False

    def close(self):
        if self._consumer is not None:
            self._consumer.close()
        self._consumer = self._cluster = None

    def _client(self):
        if self._consumer is None:
            self._cluster = ClusterClient(
                self.bootstrap_servers,
                client_id="kafka-zk-spark-driver",
                timeout=self._timeout_s,
                retries=3,
                security=self._security or None,
            )
            self._consumer = Consumer(self.bootstrap_servers, cluster=self._cluster)
        return self._cluster, self._consumer

    def _call(self, what, fn):
        """fn() with retries while the cluster is in a failover; clear errors for the rest."""
        deadline = self._clock() + (self.retry_for_s if self._reached else 0.0)
        while True:
            try:
                result = fn()
                self._reached = True
                return result
            except KafkaConnectionError as exc:
                if self._clock() >= deadline:
                    self.close()
                    raise KafkaZkSourceError(
                        "Cannot reach the Kafka cluster at kafka.bootstrap.servers=%s "
                        "while %s: %s" % (self.bootstrap_servers, what, exc)
                    ) from None
                self.close()
            except KafkaResponseError as exc:
                if not exc.retriable or self._clock() >= deadline:
                    raise KafkaZkSourceError("Kafka error while %s: %s" % (what, exc)) from None
            self._sleep(0.5)

    def topic_partitions(self, missing_ok=False):
        """Sorted [(topic, partition)] of the subscription; a missing subscribed or assigned topic is an error."""
        return self._call("listing partitions", lambda: self._topic_partitions(missing_ok))

    def _topic_partitions(self, missing_ok):
        cluster, _ = self._client()
        sub = self.subscription
        if sub.kind == "subscribePattern":
            cluster.metadata(None)
            names = [t for t, info in cluster.topics.items() if not info.is_internal and sub.matches(t)]
        else:
            cluster.metadata(list(sub.topics))
            names = list(sub.topics)
        found = []
        for topic in names:
            info = cluster.topics.get(topic)
            if info is None:
                if missing_ok:
                    continue
                raise KafkaZkSourceError(
                    "Topic %s does not exist (kafka.bootstrap.servers=%s)" % (topic, self.bootstrap_servers)
                )
            if info.error != Errors.NONE or not info.partitions:
                raise KafkaResponseError(
                    info.error if info.error != Errors.NONE else Errors.LEADER_NOT_AVAILABLE, context=topic
                )
            found.extend((topic, p) for p in info.partitions)
        if sub.kind == "assign":
            existing = set(found)
            absent = [tp for tp in sub.partitions if tp not in existing]
            if absent and not missing_ok:
                raise KafkaZkSourceError(
                    "Assigned partitions do not exist: %s" % ", ".join("%s-%d" % tp for tp in absent)
                )
            found = [tp for tp in sub.partitions if tp in existing]
        return sorted(set(found))

    def _list(self, what, timestamps):
        if not timestamps:
            return {}
        return self._call(what, lambda: self._client()[1].list_offsets(timestamps))

    def earliest(self, partitions):
        return self._list("listing earliest offsets", {tp: EARLIEST_TIMESTAMP for tp in partitions})

    def latest(self, partitions):
        return self._list("listing latest offsets", {tp: LATEST_TIMESTAMP for tp in partitions})

    def for_timestamps(self, timestamps):
        """{tp: first offset with timestamp >= ts}; a partition without such a record is an error, as in Spark."""
        found = self._list("finding offsets by timestamp", timestamps)
        missing = sorted(tp for tp, offset in found.items() if offset is None or offset < 0)
        if missing:
            raise KafkaZkSourceError(
                "No offset matched the timestamp in startingOffsetsByTimestamp for %s"
                % ", ".join("%s-%d (%d)" % (tp[0], tp[1], timestamps[tp]) for tp in missing)
            )
        return found

    def resolve(self, spec, partitions, default_kind):
        """Concrete offsets for ``partitions`` from an OffsetSpec; partitions it does not name get ``default_kind``."""
        partitions = list(partitions)
        if spec.kind in ("earliest", "latest"):
            return self.earliest(partitions) if spec.kind == "earliest" else self.latest(partitions)
        chosen = {tp: spec.by_partition[tp] for tp in partitions if tp in spec.by_partition}
        named_topics = {t for t, _ in spec.by_partition}
        unknown = sorted(tp for tp in spec.by_partition if tp not in set(partitions))
        if unknown:
            raise KafkaZkSourceError(
                "Offsets given for partitions that are not read: %s" % ", ".join("%s-%d" % tp for tp in unknown)
            )
        missing = [tp for tp in partitions if tp not in chosen]
        if spec.kind == "offsets" and any(t in named_topics for t, _ in missing):
            raise KafkaZkSourceError(
                "Offsets JSON misses partitions %s of its topics"
                % ", ".join("%s-%d" % tp for tp in missing if tp[0] in named_topics)
            )
        if spec.kind == "timestamps":
            result = self.for_timestamps(chosen)
        else:
            result = dict(chosen)
            special = {tp: off for tp, off in chosen.items() if off in (EARLIEST, LATEST)}
            earliest = self.earliest([tp for tp, off in special.items() if off == EARLIEST])
            latest = self.latest([tp for tp, off in special.items() if off == LATEST])
            result.update(earliest)
            result.update(latest)
        if missing:
            fill = self.earliest(missing) if default_kind == "earliest" else self.latest(missing)
            result.update(fill)
        return result
