"""One class per Kafka 2.5 znode: its path, its byte encoding and its decoding (pure: no kazoo, no clock).

Layout and JSON follow KAFKA_FACTS §1. Encoders write compact JSON; decoders accept keys in any
order and the older versions Kafka itself still reads. A topic partition is a plain (topic, partition) tuple.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple, Sequence
from urllib.parse import quote, unquote_plus

TopicPartition = tuple[str, int]

MATCH_ANY_VERSION = -1  # a conditional set/delete with this version matches any version

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


def _encode_json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def _decode_json(data: bytes | None) -> Any:
    """The parsed JSON, or None for an absent or empty znode."""
    if not data:
        return None
    return json.loads(data.decode("utf-8"))


@functools.lru_cache(maxsize=1024)  # a quota's key, sanitized on every Produce and Fetch
def sanitize(name: str) -> str:
    """Kafka's Sanitizer.sanitize, for user principals, client ids and token owners in znode names: URL-encoding
    as Java's URLEncoder, with '*' as %2A and ' ' as %20."""
    return quote(name, safe="").replace("~", "%7E")


def desanitize(name: str) -> str:
    return unquote_plus(name)


def generate_cluster_id(uuid_bytes: bytes | None = None) -> str:
    """A cluster id: the 16 bytes of a random UUID as url-safe base64 without padding (22 chars)."""
    raw = uuid_bytes if uuid_bytes is not None else uuid.uuid4().bytes
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


# ---------------------------------------------------------------------------------------------
# Value types


class EndPoint(NamedTuple):
    """An advertised listener: ("PLAINTEXT", "h", 9092, "PLAINTEXT"); host None means all interfaces."""

    listener_name: str
    host: str | None
    port: int
    security_protocol: str

    @property
    def connection_string(self) -> str:
        host = self.host or ""
        if ":" in host:  # IPv6 literal
            host = f"[{host}]"
        return f"{self.listener_name}://{host}:{self.port}"

    @classmethod
    def parse(cls, text: str, protocol_map: Mapping[str, str] | None = None) -> "EndPoint":
        """Parse "NAME://host:port" (IPv6 hosts in brackets); the protocol comes from the map, else the name."""
        match = _ENDPOINT.match(text)
        if not match:
            raise ValueError(f"not a listener endpoint: {text!r}")
        name = match.group("name")
        host = match.group("host") or None
        protocol = protocol_map[name] if protocol_map and name in protocol_map else name
        if protocol not in SECURITY_PROTOCOLS:
            raise ValueError(f"no security protocol for listener {name!r}")
        return cls(name, host, int(match.group("port")), protocol)


_ENDPOINT = re.compile(r"^(?P<name>[^:/]+)://\[?(?P<host>[0-9A-Za-z\-%._:]*?)\]?:(?P<port>-?\d+)$")


@dataclass(frozen=True)
class BrokerInfo:
    """A broker registration; `epoch` is the czxid of its /brokers/ids/<id> znode (-1 if unknown)."""

    id: int
    endpoints: list[EndPoint]
    rack: str | None = None
    epoch: int = -1

    def endpoint(self, listener_name: str) -> EndPoint | None:
        return next((e for e in self.endpoints if e.listener_name == listener_name), None)


@dataclass(frozen=True)
class LeaderIsrAndControllerEpoch:
    """A partition's state znode; `zk_version` is the znode's stat.version (-1 when not read from ZooKeeper)."""

    leader: int
    leader_epoch: int
    isr: list[int]
    controller_epoch: int
    zk_version: int = -1


@dataclass(frozen=True)
class TopicAssignment:
    """Replica assignment of a topic; adding/removing replicas are set only during a reassignment."""

    partitions: dict[int, list[int]]
    adding_replicas: dict[int, list[int]] = field(default_factory=dict)
    removing_replicas: dict[int, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class ProducerIdBlock:
    """A block of producer ids, bounds inclusive."""

    broker_id: int
    block_start: int
    block_end: int


def _partitions_json(partitions: Iterable[TopicPartition]) -> list[dict[str, Any]]:
    return [{"topic": topic, "partition": partition} for topic, partition in partitions]


def _partitions_from_json(items: Iterable[Mapping[str, Any]]) -> list[TopicPartition]:
    seen: dict[TopicPartition, None] = {}
    for item in items:
        seen[(item["topic"], int(item["partition"]))] = None
    return list(seen)


def sequence_number(name: str, prefix: str) -> str:
    """The sequence part of a sequential znode name such as isr_change_0000000007."""
    return name[name.rindex(prefix) + len(prefix) :]


# ---------------------------------------------------------------------------------------------
# Controller


class ControllerZNode:
    PATH = "/controller"

    @staticmethod
    def path() -> str:
        return ControllerZNode.PATH

    @staticmethod
    def encode(broker_id: int, timestamp_ms: int) -> bytes:
        return _encode_json({"version": 1, "brokerid": broker_id, "timestamp": str(timestamp_ms)})

    @staticmethod
    def decode(data: bytes | None) -> int | None:
        """The controller's broker id (None if the znode is empty)."""
        parsed = _decode_json(data)
        if parsed is None:
            return None
        # Kafka 0.8 wrote the bare broker id.
        return int(parsed) if isinstance(parsed, int) else int(parsed["brokerid"])


class ControllerEpochZNode:
    PATH = "/controller_epoch"

    @staticmethod
    def path() -> str:
        return ControllerEpochZNode.PATH

    @staticmethod
    def encode(epoch: int) -> bytes:
        return str(epoch).encode("ascii")

    @staticmethod
    def decode(data: bytes) -> int:
        return int(data.decode("ascii").strip())


# ---------------------------------------------------------------------------------------------
# Brokers


class BrokerIdsZNode:
    PATH = "/brokers/ids"

    @staticmethod
    def path() -> str:
        return BrokerIdsZNode.PATH


class BrokerIdZNode:
    VERSION = 4

    @staticmethod
    def path(broker_id: int) -> str:
        return f"{BrokerIdsZNode.PATH}/{broker_id}"

    @staticmethod
    def encode(info: BrokerInfo, timestamp_ms: int, jmx_port: int = -1) -> bytes:
        # Old clients only read host/port, which name the first PLAINTEXT listener if there is one.
        plaintext = next((e for e in info.endpoints if e.security_protocol == "PLAINTEXT"), None)
        body: dict[str, Any] = {
            "version": BrokerIdZNode.VERSION,
            "host": plaintext.host if plaintext else None,
            "port": plaintext.port if plaintext else -1,
            "endpoints": [e.connection_string for e in info.endpoints],
            "jmx_port": jmx_port,
            "timestamp": str(timestamp_ms),
            "listener_security_protocol_map": {e.listener_name: e.security_protocol for e in info.endpoints},
        }
        if info.rack is not None:
            body["rack"] = info.rack
        return _encode_json(body)

    @staticmethod
    def decode(broker_id: int, data: bytes, epoch: int = -1) -> BrokerInfo:
        parsed = _decode_json(data)
        if parsed is None:
            raise ValueError(f"empty registration for broker {broker_id}")
        version = int(parsed["version"])
        if version < 1:
            raise ValueError(f"unsupported broker registration version {version} for broker {broker_id}")
        if version == 1 or "endpoints" not in parsed:
            endpoints = [EndPoint("PLAINTEXT", parsed["host"], int(parsed["port"]), "PLAINTEXT")]
        else:
            protocol_map = parsed.get("listener_security_protocol_map")
            endpoints = [EndPoint.parse(text, protocol_map) for text in parsed["endpoints"]]
        return BrokerInfo(broker_id, endpoints, parsed.get("rack"), epoch)


class BrokerSequenceIdZNode:
    """Its stat.version after an unconditional set, plus reserved.broker.max.id, is a fresh broker id."""

    PATH = "/brokers/seqid"

    @staticmethod
    def path() -> str:
        return BrokerSequenceIdZNode.PATH


# ---------------------------------------------------------------------------------------------
# Topics and partitions


class TopicsZNode:
    PATH = "/brokers/topics"

    @staticmethod
    def path() -> str:
        return TopicsZNode.PATH


class TopicZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicsZNode.PATH}/{topic}"

    @staticmethod
    def encode(
        partitions: Mapping[int, Sequence[int]],
        adding_replicas: Mapping[int, Sequence[int]] | None = None,
        removing_replicas: Mapping[int, Sequence[int]] | None = None,
    ) -> bytes:
        def as_json(assignment: Mapping[int, Sequence[int]] | None) -> dict[str, list[int]]:
            return {str(p): list(r) for p, r in sorted((assignment or {}).items()) if r}

        return _encode_json(
            {
                "version": 2,
                "partitions": {str(p): list(r) for p, r in sorted(partitions.items())},
                "adding_replicas": as_json(adding_replicas),
                "removing_replicas": as_json(removing_replicas),
            }
        )

    @staticmethod
    def decode(data: bytes | None) -> TopicAssignment:
        """Version 1 (no adding/removing replicas) and version 2 are both read."""
        parsed = _decode_json(data) or {}

        def as_dict(key: str) -> dict[int, list[int]]:
            return {int(p): [int(b) for b in r] for p, r in (parsed.get(key) or {}).items()}

        return TopicAssignment(as_dict("partitions"), as_dict("adding_replicas"), as_dict("removing_replicas"))


class TopicPartitionsZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicZNode.path(topic)}/partitions"


class TopicPartitionZNode:
    @staticmethod
    def path(topic: str, partition: int) -> str:
        return f"{TopicPartitionsZNode.path(topic)}/{partition}"


class TopicPartitionStateZNode:
    @staticmethod
    def path(topic: str, partition: int) -> str:
        return f"{TopicPartitionZNode.path(topic, partition)}/state"

    @staticmethod
    def encode(state: LeaderIsrAndControllerEpoch) -> bytes:
        return _encode_json(
            {
                "controller_epoch": state.controller_epoch,
                "leader": state.leader,
                "version": 1,
                "leader_epoch": state.leader_epoch,
                "isr": list(state.isr),
            }
        )

    @staticmethod
    def decode(data: bytes, zk_version: int = -1) -> LeaderIsrAndControllerEpoch:
        parsed = _decode_json(data)
        if parsed is None:
            raise ValueError("empty partition state znode")
        return LeaderIsrAndControllerEpoch(
            leader=int(parsed["leader"]),
            leader_epoch=int(parsed["leader_epoch"]),
            isr=[int(b) for b in parsed["isr"]],
            controller_epoch=int(parsed["controller_epoch"]),
            zk_version=zk_version,
        )


# ---------------------------------------------------------------------------------------------
# Admin requests


class AdminZNode:
    PATH = "/admin"

    @staticmethod
    def path() -> str:
        return AdminZNode.PATH


class DeleteTopicsZNode:
    PATH = "/admin/delete_topics"

    @staticmethod
    def path() -> str:
        return DeleteTopicsZNode.PATH


class DeleteTopicZNode:
    """Empty marker: the topic is queued for deletion."""

    @staticmethod
    def path(topic: str) -> str:
        return f"{DeleteTopicsZNode.PATH}/{topic}"


class ReassignPartitionsZNode:
    PATH = "/admin/reassign_partitions"

    @staticmethod
    def path() -> str:
        return ReassignPartitionsZNode.PATH

    @staticmethod
    def encode(reassignment: Mapping[TopicPartition, Sequence[int]]) -> bytes:
        return _encode_json(
            {
                "version": 1,
                "partitions": [
                    {"topic": topic, "partition": partition, "replicas": list(replicas)}
                    for (topic, partition), replicas in reassignment.items()
                ],
            }
        )

    @staticmethod
    def decode(data: bytes | None) -> dict[TopicPartition, list[int]]:
        parsed = _decode_json(data) or {}
        return {
            (item["topic"], int(item["partition"])): [int(b) for b in item["replicas"]]
            for item in parsed.get("partitions", [])
        }


class PreferredReplicaElectionZNode:
    PATH = "/admin/preferred_replica_election"

    @staticmethod
    def path() -> str:
        return PreferredReplicaElectionZNode.PATH

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _encode_json({"version": 1, "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> list[TopicPartition]:
        """The partitions in file order, duplicates dropped."""
        parsed = _decode_json(data) or {}
        return _partitions_from_json(parsed.get("partitions", []))


# ---------------------------------------------------------------------------------------------
# Notifications (persistent sequential children)


class IsrChangeNotificationZNode:
    PATH = "/isr_change_notification"

    @staticmethod
    def path() -> str:
        return IsrChangeNotificationZNode.PATH


class IsrChangeNotificationSequenceZNode:
    PREFIX = "isr_change_"

    @staticmethod
    def path(sequence: str = "") -> str:
        """With no sequence: the prefix path to create a sequential node at."""
        return f"{IsrChangeNotificationZNode.PATH}/{IsrChangeNotificationSequenceZNode.PREFIX}{sequence}"

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _encode_json({"version": 1, "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> list[TopicPartition]:
        parsed = _decode_json(data) or {}
        return _partitions_from_json(parsed.get("partitions", []))


class LogDirEventNotificationZNode:
    PATH = "/log_dir_event_notification"

    @staticmethod
    def path() -> str:
        return LogDirEventNotificationZNode.PATH


class LogDirEventNotificationSequenceZNode:
    PREFIX = "log_dir_event_"
    LOG_DIR_FAILURE = 1

    @staticmethod
    def path(sequence: str = "") -> str:
        return f"{LogDirEventNotificationZNode.PATH}/{LogDirEventNotificationSequenceZNode.PREFIX}{sequence}"

    @staticmethod
    def encode(broker_id: int) -> bytes:
        return _encode_json(
            {"version": 1, "broker": broker_id, "event": LogDirEventNotificationSequenceZNode.LOG_DIR_FAILURE}
        )

    @staticmethod
    def decode(data: bytes) -> int:
        """The broker id whose log dir failed."""
        return int(_decode_json(data)["broker"])


# ---------------------------------------------------------------------------------------------
# Dynamic configs


CONFIG_ENTITY_TYPES = ("topics", "clients", "users", "brokers")
DEFAULT_CONFIG_ENTITY = "<default>"


class ConfigZNode:
    PATH = "/config"

    @staticmethod
    def path() -> str:
        return ConfigZNode.PATH


class ConfigEntityTypeZNode:
    """The configs of one entity type: topics, clients, users, brokers, or one user's clients (users/<user>/clients)."""

    @staticmethod
    def path(entity_type: str) -> str:
        return f"{ConfigZNode.PATH}/{entity_type}"


def _config_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ConfigEntityZNode:
    @staticmethod
    def path(entity_type: str, entity_name: str) -> str:
        return f"{ConfigEntityTypeZNode.path(entity_type)}/{entity_name}"

    @staticmethod
    def encode(config: Mapping[str, Any]) -> bytes:
        """Values are stored as strings, as Kafka does (True -> "true")."""
        return _encode_json({"version": 1, "config": {k: _config_value(v) for k, v in config.items()}})

    @staticmethod
    def decode(data: bytes | None) -> dict[str, str]:
        parsed = _decode_json(data)
        if not isinstance(parsed, dict):
            return {}
        return {k: _config_value(v) for k, v in (parsed.get("config") or {}).items()}


class ConfigEntityChangeNotificationZNode:
    PATH = "/config/changes"

    @staticmethod
    def path() -> str:
        return ConfigEntityChangeNotificationZNode.PATH


class ConfigEntityChangeNotificationSequenceZNode:
    PREFIX = "config_change_"

    @staticmethod
    def path(sequence: str = "") -> str:
        return (
            f"{ConfigEntityChangeNotificationZNode.PATH}/{ConfigEntityChangeNotificationSequenceZNode.PREFIX}{sequence}"
        )

    @staticmethod
    def encode(entity_path: str) -> bytes:
        """`entity_path` is "<type>/<name>", e.g. "topics/t" or "users/alice/clients/c"."""
        return _encode_json({"version": 2, "entity_path": entity_path})

    @staticmethod
    def decode(data: bytes) -> str:
        """The changed entity's path; version 1 notifications name type and name separately."""
        parsed = _decode_json(data)
        if int(parsed["version"]) == 1:
            return f"{parsed['entity_type']}/{parsed['entity_name']}"
        return parsed["entity_path"]


# ---------------------------------------------------------------------------------------------
# Cluster-wide singletons


class ClusterIdZNode:
    PATH = "/cluster/id"

    @staticmethod
    def path() -> str:
        return ClusterIdZNode.PATH

    @staticmethod
    def encode(cluster_id: str) -> bytes:
        return _encode_json({"version": "1", "id": cluster_id})

    @staticmethod
    def decode(data: bytes) -> str:
        return str(_decode_json(data)["id"])


class ProducerIdBlockZNode:
    PATH = "/latest_producer_id_block"
    BLOCK_SIZE = 1000

    @staticmethod
    def path() -> str:
        return ProducerIdBlockZNode.PATH

    @staticmethod
    def encode(block: ProducerIdBlock) -> bytes:
        return _encode_json(
            {
                "version": 1,
                "broker": block.broker_id,
                "block_start": str(block.block_start),
                "block_end": str(block.block_end),
            }
        )

    @staticmethod
    def decode(data: bytes | None) -> ProducerIdBlock | None:
        """None while no block was ever handed out (the znode is created empty)."""
        parsed = _decode_json(data)
        if parsed is None:
            return None
        return ProducerIdBlock(int(parsed["broker"]), int(parsed["block_start"]), int(parsed["block_end"]))

    @staticmethod
    def next_block(previous: ProducerIdBlock | None, broker_id: int) -> ProducerIdBlock:
        start = 0 if previous is None else previous.block_end + 1
        return ProducerIdBlock(broker_id, start, start + ProducerIdBlockZNode.BLOCK_SIZE - 1)


class ConsumerPathZNode:
    """The old (pre-0.9) consumer root, still created at broker start."""

    PATH = "/consumers"

    @staticmethod
    def path() -> str:
        return ConsumerPathZNode.PATH


class ConsumerOffsetZNode:
    """/consumers/<group>/offsets/<topic>/<partition>: an OffsetCommit v0 offset, as its decimal string."""

    @staticmethod
    def path(group: str, topic: str, partition: int) -> str:
        return f"{ConsumerPathZNode.PATH}/{group}/offsets/{topic}/{partition}"

    @staticmethod
    def encode(offset: int) -> bytes:
        return str(offset).encode()

    @staticmethod
    def decode(data: bytes) -> int:
        return int(data.decode())


# Created (empty, if missing) by every broker at start-up.
PERSISTENT_PATHS = (
    ConsumerPathZNode.PATH,
    BrokerIdsZNode.PATH,
    TopicsZNode.PATH,
    ConfigEntityChangeNotificationZNode.PATH,
    DeleteTopicsZNode.PATH,
    BrokerSequenceIdZNode.PATH,
    IsrChangeNotificationZNode.PATH,
    ProducerIdBlockZNode.PATH,
    LogDirEventNotificationZNode.PATH,
    *(ConfigEntityTypeZNode.path(entity_type) for entity_type in CONFIG_ENTITY_TYPES),
)
