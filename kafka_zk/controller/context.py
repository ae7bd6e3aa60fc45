"""All controller state in one plain object: live brokers, assignments, leadership, state-machine states."""

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from kafka_zk.zk.znodes import BrokerInfo

TopicPartition: TypeAlias = tuple[str, int]


class LeaderIsr(NamedTuple):
    leader: int
    leader_epoch: int
    isr: list[int]
    controller_epoch: int
    zk_version: int


class LiveBroker(NamedTuple):
    broker_id: int
    epoch: int
    info: "BrokerInfo"


class ControllerContext:
    def __init__(self, controller_id: int = -1) -> None:
        self.controller_id = controller_id  # this broker: who the state-change log names as deciding
        self.epoch = 0
        self.epoch_zk_version = -1
        self.live_brokers: dict[int, LiveBroker] = {}  # id -> LiveBroker
        self.shutting_down: set[int] = set()
        self.assignments: dict[TopicPartition, list[int]] = {}  # (topic, partition) -> [replicas]
        self.leadership: dict[TopicPartition, LeaderIsr] = {}  # (topic, partition) -> LeaderIsr
        self.partition_states: dict[TopicPartition, str] = {}  # (topic, partition) -> state name
        self.replica_states: dict[tuple[str, int, int], str] = {}  # (topic, partition, broker) -> state name
        self.topic_configs: dict[str, dict[str, str]] = {}  # topic -> {name: value string}
        self.topics_to_delete: set[str] = set()
        # broker id -> {(topic, partition)} whose log dir there is offline
        self.replicas_on_offline_dirs: dict[int, set[TopicPartition]] = {}

    def reset(self) -> None:
        self.__init__(self.controller_id)  # type: ignore[misc]  # every attribute back to its start value

    @property
    def live_broker_ids(self) -> set[int]:
        return set(self.live_brokers) - self.shutting_down

    @property
    def live_or_shutting_down_broker_ids(self) -> set[int]:
        return set(self.live_brokers)

    def topics(self) -> set[str]:
        return {topic for topic, _ in self.assignments}

    def partitions_of(self, topic: str) -> list[TopicPartition]:
        return sorted(tp for tp in self.assignments if tp[0] == topic)

    def partitions_on_broker(self, broker_id: int) -> list[TopicPartition]:
        return [tp for tp, replicas in self.assignments.items() if broker_id in replicas]

    def partitions_led_by(self, broker_id: int) -> list[TopicPartition]:
        return [tp for tp, state in self.leadership.items() if state.leader == broker_id]

    def add_topic(self, topic: str, assignment: Mapping[int, Iterable[int]]) -> None:
        for partition, replicas in assignment.items():
            self.assignments[(topic, partition)] = list(replicas)

    def remove_topic(self, topic: str) -> None:
        for tp in self.partitions_of(topic):
            self.assignments.pop(tp, None)
            self.leadership.pop(tp, None)
            self.partition_states.pop(tp, None)
        for key in [key for key in self.replica_states if key[0] == topic]:
            del self.replica_states[key]
        self.topic_configs.pop(topic, None)
        self.topics_to_delete.discard(topic)

    def is_replica_online(self, broker_id: int, tp: TopicPartition) -> bool:
        return broker_id in self.live_brokers and tp not in self.replicas_on_offline_dirs.get(broker_id, ())

    def live_for(self, tp: TopicPartition, brokers: Collection[int]) -> Collection[int]:
        """``brokers`` less those whose replica of ``tp`` sits in an offline log dir."""
        offline = self.replicas_on_offline_dirs
        if not offline:
            return brokers
        return {broker for broker in brokers if tp not in offline.get(broker, ())}

    def record_replica_dirs(
        self, broker_id: int, offline: Iterable[TopicPartition], online: Iterable[TopicPartition]
    ) -> set[TopicPartition]:
        """A broker answered KAFKA_STORAGE_ERROR for ``offline`` and no error for ``online`` (a LeaderAndIsr):
        Kafka's rule for its replicas on offline dirs. Returns the replicas newly found offline."""
        previous = self.replicas_on_offline_dirs.get(broker_id, set())
        current = (previous - set(online)) | set(offline)
        if current:
            self.replicas_on_offline_dirs[broker_id] = current
        else:
            self.replicas_on_offline_dirs.pop(broker_id, None)
        return current - previous

    def forget_offline_dirs(self, broker_ids: Iterable[int]) -> None:
        """A broker that restarts or dies starts over: its dirs are checked again when it registers."""
        for broker_id in broker_ids:
            self.replicas_on_offline_dirs.pop(broker_id, None)
