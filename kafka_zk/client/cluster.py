"""ClusterClient: bootstrap, the cluster's metadata, one connection per broker, and bounded retries."""

import time
from collections import namedtuple

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import KafkaClientError, KafkaConnectionError, KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import metadata as metadata_api

PartitionInfo = namedtuple("PartitionInfo", "topic partition leader replicas isr offline_replicas error leader_epoch")
PartitionInfo.__doc__ = "One partition from Metadata; leader is -1 when there is none."
TopicInfo = namedtuple("TopicInfo", "name error is_internal partitions")
TopicInfo.__doc__ = "One topic from Metadata; partitions is {partition id: PartitionInfo}."
BrokerAddress = namedtuple("BrokerAddress", "node_id host port rack")

# Errors after which fresh metadata may route the request somewhere that succeeds.
METADATA_REFRESH_ERRORS = frozenset(
    {
        Errors.NOT_LEADER_FOR_PARTITION,
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.LEADER_NOT_AVAILABLE,
        Errors.NOT_CONTROLLER,
        Errors.FENCED_LEADER_EPOCH,
        Errors.UNKNOWN_LEADER_EPOCH,
        Errors.REPLICA_NOT_AVAILABLE,
        Errors.KAFKA_STORAGE_ERROR,
        Errors.NOT_ENOUGH_REPLICAS,
        Errors.REQUEST_TIMED_OUT,
        Errors.NETWORK_EXCEPTION,
        Errors.OFFSET_NOT_AVAILABLE,
    }
)

DEFAULT_PORT = 9092


def parse_bootstrap_servers(servers):
    """'h1:p1,h2:p2' (IPv6 as [::1]:p) -> [(host, port)]; ValueError for an entry without a usable port."""
    result = []
    for entry in servers.split(",") if isinstance(servers, str) else servers:
        entry = entry.strip()
        if not entry:
            continue
        host, sep, port = entry.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError("Invalid url in bootstrap.servers: %s" % entry)
        result.append((host.strip("[]"), int(port)))
    if not result:
        raise ValueError("No resolvable bootstrap urls given in bootstrap.servers")
    return result


class ClusterClient:
    """Everything a client needs to find brokers: metadata cache, connections, and retrying around them.

    Retries are bounded: ``retries`` attempts after the first, with a backoff that starts at
    ``retry_backoff_ms`` and doubles up to one second. ``sleep`` is injectable for tests.
    """

    def __init__(
        self,
        bootstrap_servers,
        client_id="kafka-zk-client",
        timeout=30.0,
        retries=10,
        retry_backoff_ms=100,
        sleep=time.sleep,
        connection_factory=BrokerConnection,
        security=None,
    ):
        """``security``: Kafka client properties for every connection (security.protocol, ssl.*, sasl.*)."""
        self.bootstrap = parse_bootstrap_servers(bootstrap_servers)
        self.client_id = client_id
        self.timeout = timeout
        self.retries = retries
        self.retry_backoff_ms = retry_backoff_ms
        self._sleep = sleep
        self._connection_factory = connection_factory
        self.security = security
        self.brokers = {}
        self.controller_id = -1
        self.cluster_id = None
        self.topics = {}
        self._connections = {}
        self._bootstrap_connections = {}

    # -- connections -------------------------------------------------------------------------

    def _new_connection(self, host, port):
        if self.security:
            return self._connection_factory(host, port, self.client_id, self.timeout, security=self.security)
        return self._connection_factory(host, port, self.client_id, self.timeout)

    def connection(self, node_id):
        """The connection to broker ``node_id`` (opened lazily); refreshes metadata for unknown ids."""
        conn = self._connections.get(node_id)
        if conn is not None:
            return conn
        if node_id not in self.brokers:
            self.metadata([])
        address = self.brokers.get(node_id)
        if address is None:
            raise KafkaClientError("broker %d is not in the cluster metadata" % node_id)
        conn = self._connections[node_id] = self._new_connection(address.host, address.port)
        return conn

    def _candidates(self):
        """Connections to try for cluster-wide requests: open ones first, then known brokers, then bootstrap."""
        known = [self.connection(node_id) for node_id in sorted(self.brokers)]
        bootstrap = []
        for host, port in self.bootstrap:
            conn = self._bootstrap_connections.get((host, port))
            if conn is None:
                conn = self._bootstrap_connections[(host, port)] = self._new_connection(host, port)
            bootstrap.append(conn)
        ordered = known + bootstrap
        return [c for c in ordered if c.connected] + [c for c in ordered if not c.connected]

    def any_request(self, api_key, body_for_version, timeout=None):
        """Send to any reachable broker; returns (version, response). KafkaConnectionError if none answers."""
        failures = []
        for conn in self._candidates():
            try:
                return conn.request_with_version(api_key, body_for_version, timeout)
            except KafkaConnectionError as exc:
                failures.append(str(exc))
        raise KafkaConnectionError("no broker reachable: %s" % "; ".join(failures))

    def request(self, node_id, api_key, body, version=None, timeout=None):
        return self.connection(node_id).request(api_key, body, version, timeout)

    def close(self):
        for conn in list(self._connections.values()) + list(self._bootstrap_connections.values()):
            conn.close()
        self._connections.clear()
        self._bootstrap_connections.clear()

    # -- metadata ----------------------------------------------------------------------------

    def metadata(self, topics=None, allow_auto_create=False):
        """Fetch metadata (all topics when ``topics`` is None) and update the cache; returns the raw response."""

        def body(version):
            if topics is None:
                requested = None if version >= 1 else []
            else:
                requested = [{"name": t} for t in topics]
            return {"topics": requested, "allow_auto_topic_creation": allow_auto_create}

        _, response = self.any_request(metadata_api.API_KEY, body)
        self._update(response, replace_all=topics is None)
        return response

    def _update(self, response, replace_all):
        self.brokers = {
            b["node_id"]: BrokerAddress(b["node_id"], b["host"], b["port"], b.get("rack")) for b in response["brokers"]
        }
        for node_id in [
            n
            for n in self._connections
            if n not in self.brokers
            or (self._connections[n].host, self._connections[n].port) != (self.brokers[n].host, self.brokers[n].port)
        ]:
            self._connections.pop(node_id).close()
        self.controller_id = response.get("controller_id", -1)
        self.cluster_id = response.get("cluster_id")
        if replace_all:
            self.topics = {}
        for topic in response["topics"]:
            partitions = {
                p["partition_index"]: PartitionInfo(
                    topic["name"],
                    p["partition_index"],
                    p["leader_id"],
                    list(p["replica_nodes"]),
                    list(p["isr_nodes"]),
                    list(p.get("offline_replicas", [])),
                    Errors.from_code(p["error_code"]),
                    p.get("leader_epoch", -1),
                )
                for p in topic["partitions"]
            }
            info = TopicInfo(
                topic["name"], Errors.from_code(topic["error_code"]), topic.get("is_internal", False), partitions
            )
            if info.error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.INVALID_TOPIC_EXCEPTION):
                self.topics.pop(info.name, None)
            else:
                self.topics[info.name] = info

    def _backoff(self, attempt):
        self._sleep(min(self.retry_backoff_ms * (2**attempt), 1000) / 1000.0)

    def with_retries(self, attempt_fn, refresh_topics=None, retriable=METADATA_REFRESH_ERRORS):
        """Call ``attempt_fn()``; on an error in ``retriable`` or a lost connection back off, refresh metadata
        (of ``refresh_topics``; None = all) and call it again, at most ``retries`` more times."""
        for attempt in range(self.retries + 1):
            try:
                return attempt_fn()
            except KafkaResponseError as exc:
                if exc.error not in retriable or attempt == self.retries:
                    raise
            except KafkaConnectionError:
                if attempt == self.retries:
                    raise
            self._backoff(attempt)
            try:
                self.metadata(refresh_topics)
            except KafkaConnectionError:
                if attempt == self.retries:
                    raise

    def topic(self, topic, allow_auto_create=False):
        """TopicInfo with every partition's leader known, waiting (bounded) for a new topic's leaders."""

        def attempt():
            info = self.topics.get(topic)
            if info is None:
                raise KafkaResponseError(Errors.UNKNOWN_TOPIC_OR_PARTITION, context=topic)
            if info.error != Errors.NONE:
                raise KafkaResponseError(info.error, context=topic)
            if not info.partitions:
                raise KafkaResponseError(Errors.LEADER_NOT_AVAILABLE, context=topic)
            return info

        if topic not in self.topics:
            self.metadata([topic], allow_auto_create)
        return self.with_retries(attempt, [topic])

    def partitions_for(self, topic, allow_auto_create=False):
        """Sorted partition ids of ``topic``."""
        return sorted(self.topic(topic, allow_auto_create).partitions)

    def available_partitions(self, topic):
        """Partition ids of ``topic`` that currently have a leader."""
        info = self.topics.get(topic)
        return sorted(p for p, part in info.partitions.items() if part.leader >= 0) if info else []

    def leader_for(self, topic, partition):
        """Node id of the partition's leader, refreshing metadata (bounded) while it has none."""

        def attempt():
            info = self.topics.get(topic)
            part = info.partitions.get(partition) if info else None
            if part is None:
                raise KafkaResponseError(Errors.UNKNOWN_TOPIC_OR_PARTITION, context="%s-%d" % (topic, partition))
            if part.leader < 0:
                raise KafkaResponseError(Errors.LEADER_NOT_AVAILABLE, context="%s-%d" % (topic, partition))
            return part.leader

        if topic not in self.topics:
            self.metadata([topic])
        return self.with_retries(attempt, [topic])

    def invalidate(self, topic):
        """Forget ``topic``'s cached metadata (after an error that says it is stale)."""
        self.topics.pop(topic, None)

    def controller(self):
        """Node id of the active controller, refreshing metadata until one is known (bounded)."""

        def attempt():
            if self.controller_id < 0:
                raise KafkaResponseError(Errors.NOT_CONTROLLER, context="no active controller")
            return self.controller_id

        if self.controller_id < 0:
            self.metadata([])
        return self.with_retries(attempt, [])
