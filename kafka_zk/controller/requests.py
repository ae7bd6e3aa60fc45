"""Builds the controller's batched LeaderAndIsr / UpdateMetadata / StopReplica request bodies."""

from collections.abc import Iterable, Mapping
from typing import TypeAlias

from kafka_zk.controller.context import ControllerContext, LeaderIsr, LiveBroker, TopicPartition
from kafka_zk.protocol.schema import Body

# A request for one broker: (broker id, (api key, version), body).
BrokerRequest: TypeAlias = tuple[int, tuple[int, int], Body]

LEADER_AND_ISR = (4, 4)  # (api key, version) for inter.broker.protocol.version 2.5
STOP_REPLICA = (5, 2)
UPDATE_METADATA = (6, 6)

LEADER_DURING_DELETE = -2

SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}


def _grouped(partition_states: Mapping[TopicPartition, Body]) -> list[Body]:
    topics: dict[str, list[Body]] = {}
    for (topic, _), state in sorted(partition_states.items()):
        topics.setdefault(topic, []).append(state)
    return [{"topic_name": topic, "partition_states": states} for topic, states in topics.items()]


class ControllerRequestBatch:
    """Collects per-broker partition states during one event, then emits one request per broker and kind."""

    def __init__(
        self, context: ControllerContext, controller_id: int, inter_broker_listener: str | None = None
    ) -> None:
        """``inter_broker_listener``: the listener whose endpoints LeaderAndIsr names as leaders (followers fetch
        there); the first endpoint when None."""
        self.context = context
        self.controller_id = controller_id
        self.inter_broker_listener = inter_broker_listener
        self.leader_and_isr: dict[int, dict[TopicPartition, Body]] = {}  # broker -> {tp: state}
        self.update_metadata_brokers: set[int] = set()
        # their states are read from the context when the batch is sent
        self.update_metadata_partitions: set[TopicPartition] = set()
        self.stop_replica: dict[tuple[int, bool], set[TopicPartition]] = {}  # (broker, delete) -> partitions

    def add_leader_and_isr(self, brokers: Iterable[int], tp: TopicPartition, is_new: bool = False) -> None:
        leadership = self.context.leadership[tp]
        state = {
            "partition_index": tp[1],
            "controller_epoch": leadership.controller_epoch,
            "leader": leadership.leader,
            "leader_epoch": leadership.leader_epoch,
            "isr": list(leadership.isr),
            "zk_version": leadership.zk_version,
            "replicas": list(self.context.assignments[tp]),
            "adding_replicas": [],
            "removing_replicas": [],
            "is_new": is_new,
        }
        live = self.context.live_brokers
        for broker in brokers:
            if broker in live and broker not in self.context.shutting_down:
                self.leader_and_isr.setdefault(broker, {})[tp] = state
        self.update_metadata_brokers.update(live)
        self.update_metadata_partitions.add(tp)

    def add_update_metadata(self, brokers: Iterable[int], partitions: Iterable[TopicPartition] | None = None) -> None:
        self.update_metadata_brokers.update(b for b in brokers if b in self.context.live_brokers)
        self.update_metadata_partitions.update(self.context.leadership if partitions is None else partitions)

    def _metadata_state(self, tp: TopicPartition, live: Mapping[int, LiveBroker]) -> Body:
        leadership = self.context.leadership.get(tp) or LeaderIsr(-1, -1, [], self.context.epoch, -1)
        replicas = self.context.assignments[tp]
        # Partitions of a topic being deleted go out with leader -2: brokers drop them from their metadata.
        deleting = tp[0] in self.context.topics_to_delete
        offline_dirs = self.context.replicas_on_offline_dirs
        return {
            "partition_index": tp[1],
            "controller_epoch": leadership.controller_epoch,
            "leader": LEADER_DURING_DELETE if deleting else leadership.leader,
            "leader_epoch": leadership.leader_epoch,
            "isr": list(leadership.isr),
            "zk_version": leadership.zk_version,
            "replicas": list(replicas),
            "offline_replicas": [r for r in replicas if r not in live or tp in offline_dirs.get(r, ())],
        }

    def add_stop_replica(self, broker: int, tp: TopicPartition, delete: bool) -> None:
        entry = self.stop_replica.setdefault((broker, delete), set())
        entry.add(tp)

    def _live_brokers_body(self) -> list[Body]:
        brokers = []
        for broker_id, live in sorted(self.context.live_brokers.items()):
            brokers.append(
                {
                    "id": broker_id,
                    "rack": live.info.rack,
                    "endpoints": [
                        {
                            "port": endpoint.port,
                            "host": endpoint.host,
                            "listener": endpoint.listener_name,
                            "security_protocol": SECURITY_PROTOCOL_IDS.get(endpoint.security_protocol, 0),
                        }
                        for endpoint in live.info.endpoints
                    ],
                }
            )
        return brokers

    def requests(self) -> list[BrokerRequest]:
        """[(broker, (api_key, version), body)] in the order Kafka sends them."""
        out: list[BrokerRequest] = []
        epoch = self.context.epoch
        live_leaders = []
        for broker_id, live in sorted(self.context.live_brokers.items()):
            # no listener (None) matches no endpoint: the first one
            endpoint = live.info.endpoint(self.inter_broker_listener) or live.info.endpoints[0]  # type: ignore[arg-type]
            live_leaders.append({"broker_id": broker_id, "host_name": endpoint.host, "port": endpoint.port})
        for broker, states in sorted(self.leader_and_isr.items()):
            leaders = {state["leader"] for state in states.values()}
            out.append(
                (
                    broker,
                    LEADER_AND_ISR,
                    {
                        "controller_id": self.controller_id,
                        "controller_epoch": epoch,
                        "broker_epoch": self.context.live_brokers[broker].epoch,
                        "topic_states": _grouped(states),
                        "live_leaders": [leader for leader in live_leaders if leader["broker_id"] in leaders],
                    },
                )
            )
        if self.update_metadata_brokers:
            live_by_id = self.context.live_brokers
            topic_states = _grouped(
                {
                    tp: self._metadata_state(tp, live_by_id)
                    for tp in self.update_metadata_partitions
                    if tp in self.context.assignments
                }
            )
            live_brokers = self._live_brokers_body()
            for broker in sorted(self.update_metadata_brokers):
                out.append(
                    (
                        broker,
                        UPDATE_METADATA,
                        {
                            "controller_id": self.controller_id,
                            "controller_epoch": epoch,
                            "broker_epoch": self.context.live_brokers[broker].epoch,
                            "topic_states": topic_states,
                            "live_brokers": live_brokers,
                        },
                    )
                )
        for (broker, delete), partitions in sorted(self.stop_replica.items()):
            if broker not in self.context.live_brokers:
                continue
            topics: dict[str, list[int]] = {}
            for topic, partition in sorted(partitions):
                topics.setdefault(topic, []).append(partition)
            out.append(
                (
                    broker,
                    STOP_REPLICA,
                    {
                        "controller_id": self.controller_id,
                        "controller_epoch": epoch,
                        "broker_epoch": self.context.live_brokers[broker].epoch,
                        "delete_partitions": delete,
                        "topics": [{"name": topic, "partition_indexes": indexes} for topic, indexes in topics.items()],
                    },
                )
            )
        return out
