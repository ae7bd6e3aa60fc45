"""The controller's metrics under Kafka 2.5's names: the KafkaController gauges and the ControllerStats timers.

Kafka 2.5 recomputes its KafkaController counts after every controller event by scanning every partition, which
stalls the event queue of a large cluster; here they are computed at collection time, all in one pass over the
controller's context, and only on the active controller (the others report 0, as Kafka's do).
"""

from kafka_zk.common.metrics import MetricName
from kafka_zk.controller import state_machines as sm

GROUP = "kafka.controller"

# Kafka 2.5's ControllerState values, read through the ControllerState gauge while an event of that state runs.
CONTROLLER_STATES = {
    "Idle": 0, "ControllerChange": 1, "BrokerChange": 2, "TopicChange": 3, "TopicDeletion": 4,
    "AlterPartitionReassignment": 5, "AutoLeaderBalance": 6, "ManualLeaderBalance": 7, "ControlledShutdown": 8,
    "IsrChange": 9, "LeaderAndIsrResponseReceived": 10, "LogDirChange": 11, "ControllerShutdown": 12,
    "UncleanLeaderElectionEnable": 13, "TopicUncleanLeaderElectionEnable": 14, "ListPartitionReassignment": 15,
    "UpdateMetadataResponseReceived": 16,
}

# Kafka's ControllerEvent -> ControllerState, for the events our controller queues (by the names it queues them).
EVENT_STATES = {
    "Startup": "ControllerChange", "ControllerChange": "ControllerChange", "Reelect": "ControllerChange",
    "Expire": "ControllerChange",
    "Shutdown": "ControllerShutdown",
    "BrokerChange": "BrokerChange",
    "TopicChange": "TopicChange", "PartitionModifications": "TopicChange",
    "TopicDeletion": "TopicDeletion", "StopReplicaResponse": "TopicDeletion",
    "PartitionReassignment": "AlterPartitionReassignment", "AlterPartitionReassignments": "AlterPartitionReassignment",
    "ListPartitionReassignments": "ListPartitionReassignment",
    "AutoPreferredReplicaLeaderElection": "AutoLeaderBalance",
    "PreferredReplicaLeaderElection": "ManualLeaderBalance", "ReplicaLeaderElection": "ManualLeaderBalance",
    "ControlledShutdown": "ControlledShutdown",
    "IsrChangeNotification": "IsrChange",
    "LeaderAndIsrResponseReceived": "LeaderAndIsrResponseReceived",
    "LogDirEventNotification": "LogDirChange",
    "UncleanLeaderElectionEnable": "UncleanLeaderElectionEnable",
}


def rate_and_time_metric_name(state):
    """The ControllerStats timer of a state (Kafka's ControllerState.rateAndTimeMetricName), or None."""
    if state in ("Idle", "UpdateMetadataResponseReceived"):
        return None
    if state == "BrokerChange":  # the name from before ControllerState existed, kept by Kafka
        return "LeaderElectionRateAndTimeMs"
    if state == "AlterPartitionReassignment":
        return "PartitionReassignmentRateAndTimeMs"
    return state + "RateAndTimeMs"


def state_value(event_name):
    """The ControllerState gauge's value while the named event runs (Idle, 0, when none does)."""
    return CONTROLLER_STATES.get(EVENT_STATES.get(event_name, "Idle"), 0) if event_name is not None else 0


class ControllerStats:
    """``kafka.controller:type=ControllerStats``: UncleanLeaderElectionsPerSec and one rate-and-time timer per
    controller state, all registered at once as Kafka does (every broker has them, counting 0 until it leads)."""

    def __init__(self, metrics):
        self.unclean_leader_elections = metrics.meter(GROUP, "ControllerStats", "UncleanLeaderElectionsPerSec")
        self.rate_and_time = {}
        for state in CONTROLLER_STATES:
            name = rate_and_time_metric_name(state)
            if name is not None:
                self.rate_and_time[state] = metrics.timer(GROUP, "ControllerStats", name)

    def timer_for_event(self, event_name):
        """The timer that times the named event, or None."""
        state = EVENT_STATES.get(event_name)
        return self.rate_and_time.get(state) if state is not None else None


COUNT_NAMES = ("OfflinePartitionsCount", "PreferredReplicaImbalanceCount", "GlobalTopicCount",
               "GlobalPartitionCount", "TopicsToDeleteCount", "ReplicasToDeleteCount", "TopicsIneligibleToDeleteCount",
               "ReplicasIneligibleToDeleteCount")


def controller_counts(context, adding_replicas=None):
    """Kafka 2.5's KafkaController counts of an active controller, in one pass over its context, as a dict by
    metric name. ``adding_replicas`` {tp: replicas being added} names the partitions being reassigned."""
    adding_replicas = adding_replicas or {}
    deleting = context.topics_to_delete
    leadership = context.leadership
    replica_states = context.replica_states
    offline = sum(1 for tp, state in context.partition_states.items()
                  if state == sm.OFFLINE_PARTITION and tp[0] not in deleting)
    topics = set()
    imbalanced = replicas_to_delete = replicas_ineligible = 0
    ineligible_topics = set()
    for tp, replicas in context.assignments.items():
        topic = tp[0]
        topics.add(topic)
        if topic in deleting:
            for broker in replicas:
                state = replica_states.get((topic, tp[1], broker))
                if state != sm.REPLICA_DELETION_SUCCESSFUL:
                    replicas_to_delete += 1
                    if state == sm.REPLICA_DELETION_INELIGIBLE:
                        replicas_ineligible += 1
                        ineligible_topics.add(topic)
            continue
        current = leadership.get(tp)
        if current is None or not replicas:
            continue
        preferred = replicas[0]
        if preferred in adding_replicas.get(tp, ()):
            # A move's new preferred replica counts as imbalanced only once it has joined the ISR (as Kafka).
            imbalanced += preferred in current.isr
        else:
            imbalanced += current.leader != preferred
    return {
        "OfflinePartitionsCount": offline,
        "PreferredReplicaImbalanceCount": imbalanced,
        "GlobalTopicCount": len(topics),
        "GlobalPartitionCount": len(leadership),
        "TopicsToDeleteCount": len(deleting),
        "ReplicasToDeleteCount": replicas_to_delete,
        "TopicsIneligibleToDeleteCount": len(ineligible_topics),
        "ReplicasIneligibleToDeleteCount": replicas_ineligible,
    }


def register_controller_metrics(metrics, is_active, event_in_progress, context, adding_replicas, channel_queues):
    """``kafka.controller:type=KafkaController`` gauges and ControllerChannelManager's TotalQueueSize.

    ``is_active()``: this broker is the controller; ``event_in_progress()``: the name of the event running or None;
    ``context()``: the controller's context; ``adding_replicas()``: {tp: replicas being added};
    ``channel_queues()``: the sizes of the channels' queues (none when not the controller)."""
    metrics.gauge(GROUP, "KafkaController", "ActiveControllerCount", lambda: 1 if is_active() else 0)
    metrics.gauge(GROUP, "KafkaController", "ControllerState", lambda: state_value(event_in_progress()))
    metrics.gauge(GROUP, "ControllerChannelManager", "TotalQueueSize", lambda: sum(channel_queues()))
    names = {name: MetricName(GROUP, "KafkaController", name) for name in COUNT_NAMES}

    def collect():
        counts = controller_counts(context(), adding_replicas()) if is_active() else dict.fromkeys(COUNT_NAMES, 0)
        return [(names[name], counts[name]) for name in COUNT_NAMES]

    metrics.add_collector(collect)
