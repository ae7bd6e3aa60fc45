"""The controller's events, one class per kind of work it queues, and Kafka 2.5's ControllerState each runs as."""

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from kafka_zk.controller.context import TopicPartition
from kafka_zk.protocol.errors import Errors


class ControllerState(enum.Enum):
    """Kafka 2.5's controller states, valued as its ControllerState gauge reports them. The members keep Kafka's
    spelling: a state's name is the stem of its ControllerStats timer."""

    Idle = 0
    ControllerChange = 1
    BrokerChange = 2
    TopicChange = 3
    TopicDeletion = 4
    AlterPartitionReassignment = 5
    AutoLeaderBalance = 6
    ManualLeaderBalance = 7
    ControlledShutdown = 8
    IsrChange = 9
    LeaderAndIsrResponseReceived = 10
    LogDirChange = 11
    ControllerShutdown = 12
    UncleanLeaderElectionEnable = 13
    TopicUncleanLeaderElectionEnable = 14
    ListPartitionReassignment = 15
    UpdateMetadataResponseReceived = 16

    @property
    def rate_and_time_metric_name(self) -> str | None:
        """The state's ControllerStats timer (Kafka's ControllerState.rateAndTimeMetricName), or None."""
        if self in (ControllerState.Idle, ControllerState.UpdateMetadataResponseReceived):
            return None
        if self is ControllerState.BrokerChange:  # the name from before ControllerState existed, kept by Kafka
            return "LeaderElectionRateAndTimeMs"
        if self is ControllerState.AlterPartitionReassignment:
            return "PartitionReassignmentRateAndTimeMs"
        return self.name + "RateAndTimeMs"


@dataclass(frozen=True)
class ControllerEvent:
    """Work for the controller's queue. Its fields, in order, are what its handler is called with; ``state`` is what
    the ControllerState gauge and the ControllerStats timers count it as; it prints as its name, as the logs say it."""

    state: ClassVar[ControllerState]
    on_every_broker: ClassVar[bool] = False  # runs whether or not this broker is the controller

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def arguments(self) -> tuple[Any, ...]:
        return tuple(getattr(self, each.name) for each in dataclasses.fields(self) if not each.kw_only)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ControllerRequest(ControllerEvent):
    """An event a broker or an admin client waits on: ``reply`` (a Deferred) gets its handler's result, or
    ``answer_if_not_controller()`` when this broker is not the controller by the time it runs."""

    reply: Any = field(kw_only=True, compare=False, repr=False)  # a twisted Deferred (pure code imports no twisted)

    def answer_if_not_controller(self) -> object:
        raise NotImplementedError


# -- the controller election: these run on every broker ---------------------------------------------------------


@dataclass(frozen=True)
class Startup(ControllerEvent):
    state = ControllerState.ControllerChange
    on_every_broker = True


@dataclass(frozen=True)
class ControllerChange(ControllerEvent):
    """/controller was created, changed or deleted."""

    state = ControllerState.ControllerChange
    on_every_broker = True


@dataclass(frozen=True)
class Reelect(ControllerEvent):
    """A new ZooKeeper session: stand for election again."""

    state = ControllerState.ControllerChange
    on_every_broker = True


@dataclass(frozen=True)
class Expire(ControllerEvent):
    """The ZooKeeper session expired, and our /controller with it."""

    state = ControllerState.ControllerChange


@dataclass(frozen=True)
class Shutdown(ControllerEvent):
    state = ControllerState.ControllerShutdown


# -- what the controller watches in ZooKeeper ---------------------------------------------------------------------


@dataclass(frozen=True)
class BrokerChange(ControllerEvent):
    state = ControllerState.BrokerChange


@dataclass(frozen=True)
class TopicChange(ControllerEvent):
    state = ControllerState.TopicChange


@dataclass(frozen=True)
class PartitionModifications(ControllerEvent):
    """A topic's znode changed: partitions may have been added to it."""

    topic: str
    state = ControllerState.TopicChange


@dataclass(frozen=True)
class TopicDeletion(ControllerEvent):
    state = ControllerState.TopicDeletion


@dataclass(frozen=True)
class PartitionReassignment(ControllerEvent):
    """/admin/reassign_partitions was created."""

    state = ControllerState.AlterPartitionReassignment


@dataclass(frozen=True)
class PreferredReplicaLeaderElection(ControllerEvent):
    """/admin/preferred_replica_election was created."""

    state = ControllerState.ManualLeaderBalance


@dataclass(frozen=True)
class IsrChangeNotification(ControllerEvent):
    state = ControllerState.IsrChange


@dataclass(frozen=True)
class LogDirEventNotification(ControllerEvent):
    state = ControllerState.LogDirChange


# -- the controller's own timer and the broker's dynamic config ---------------------------------------------------


@dataclass(frozen=True)
class AutoPreferredReplicaLeaderElection(ControllerEvent):
    state = ControllerState.AutoLeaderBalance


@dataclass(frozen=True)
class UncleanLeaderElectionEnable(ControllerEvent):
    state = ControllerState.UncleanLeaderElectionEnable


# -- answers from brokers -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StopReplicaResponse(ControllerEvent):
    """A broker answered a StopReplica of a topic being deleted."""

    broker: int
    response: dict[str, Any]  # the decoded StopReplica response
    state = ControllerState.TopicDeletion


@dataclass(frozen=True)
class LeaderAndIsrResponseReceived(ControllerEvent):
    """A broker's LeaderAndIsr answer named replicas on offline log dirs (``offline``), or, of a broker known to
    have some, replicas it serves (``online``)."""

    broker: int
    offline: list[TopicPartition]
    online: list[TopicPartition]
    state = ControllerState.LeaderAndIsrResponseReceived


# -- requests from brokers and admin clients, answered through their reply -------------------------------------------


@dataclass(frozen=True)
class ControlledShutdown(ControllerRequest):
    """Answered with (error, the replicated partitions the broker still leads)."""

    broker_id: int
    broker_epoch: int
    state = ControllerState.ControlledShutdown

    def answer_if_not_controller(self) -> tuple[Errors, list[TopicPartition]]:
        return Errors.NOT_CONTROLLER, []


@dataclass(frozen=True)
class ReplicaLeaderElection(ControllerRequest):
    """ElectLeaders, answered with {tp: error code}; ``partitions`` None means every partition."""

    election_type: int
    partitions: Optional[list[TopicPartition]]
    state = ControllerState.ManualLeaderBalance

    def answer_if_not_controller(self) -> dict[TopicPartition, Errors]:
        return {tp: Errors.NOT_CONTROLLER for tp in self.partitions or []}


@dataclass(frozen=True)
class AlterPartitionReassignments(ControllerRequest):
    """Answered with {tp: error code}; ``targets`` is {tp: replicas, or None to cancel}."""

    targets: dict[TopicPartition, Optional[list[int]]]
    state = ControllerState.AlterPartitionReassignment

    def answer_if_not_controller(self) -> dict[TopicPartition, Errors]:
        return {tp: Errors.NOT_CONTROLLER for tp in self.targets}


@dataclass(frozen=True)
class ListPartitionReassignments(ControllerRequest):
    """Answered with the moves in progress (of ``partitions``, or all when None)."""

    partitions: Optional[list[TopicPartition]]
    state = ControllerState.ListPartitionReassignment

    def answer_if_not_controller(self) -> None:
        return None
