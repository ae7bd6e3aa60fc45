"""The controller's metrics under Kafka 2.5's names: the KafkaController gauges and the ControllerStats timers.

Kafka 2.5 recomputes its KafkaController counts after every controller event by scanning every partition, which
stalls the event queue of a large cluster; here they are computed at collection time, all in one pass over the
controller's context, and only on the active controller (the others report 0, as Kafka's do).
"""

from kafka_zk.common.metrics import MetricName
from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.events import ControllerState

GROUP = "kafka.controller"


class ControllerStats:
    """``kafka.controller:type=ControllerStats``: UncleanLeaderElectionsPerSec and one rate-and-time timer per
    controller state, all registered at once as Kafka does (every broker has them, counting 0 until it leads)."""

    def __init__(self, metrics):
        self.unclean_leader_elections = metrics.meter(GROUP, "ControllerStats", "UncleanLeaderElectionsPerSec")
        self.rate_and_time = {
            state: metrics.timer(GROUP, "ControllerStats", state.rate_and_time_metric_name)
            for state in ControllerState
            if state.rate_and_time_metric_name is not None
        }

    def timer_for(self, state):
        """The timer that times the events of a ControllerState, or None."""
        return self.rate_and_time.get(state)


COUNT_NAMES = (
    "OfflinePartitionsCount",
    "PreferredReplicaImbalanceCount",
    "GlobalTopicCount",
    "GlobalPartitionCount",
    "TopicsToDeleteCount",
    "ReplicasToDeleteCount",
    "TopicsIneligibleToDeleteCount",
    "ReplicasIneligibleToDeleteCount",
)


def controller_counts(context, adding_replicas=None):
    """Kafka 2.5's KafkaController counts of an active controller, in one pass over its context, as a dict by
    metric name. ``adding_replicas`` {tp: replicas being added} names the partitions being reassigned."""
    adding_replicas = adding_replicas or {}
    deleting = context.topics_to_delete
    leadership = context.leadership
    replica_states = context.replica_states
    offline = sum(
        1 for tp, state in context.partition_states.items() if state == sm.OFFLINE_PARTITION and tp[0] not in deleting
    )
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


def register_controller_metrics(metrics, is_active, controller_state, context, adding_replicas, channel_queues):
    """``kafka.controller:type=KafkaController`` gauges and ControllerChannelManager's TotalQueueSize.

    ``is_active()``: this broker is the controller; ``controller_state()``: the ControllerState of the event running;
    ``context()``: the controller's context; ``adding_replicas()``: {tp: replicas being added};
    ``channel_queues()``: the sizes of the channels' queues (none when not the controller)."""
    metrics.gauge(GROUP, "KafkaController", "ActiveControllerCount", lambda: 1 if is_active() else 0)
    metrics.gauge(GROUP, "KafkaController", "ControllerState", lambda: controller_state().value)
    metrics.gauge(GROUP, "ControllerChannelManager", "TotalQueueSize", lambda: sum(channel_queues()))
    names = {name: MetricName(GROUP, "KafkaController", name) for name in COUNT_NAMES}

    def collect():
        counts = controller_counts(context(), adding_replicas()) if is_active() else dict.fromkeys(COUNT_NAMES, 0)
        return [(names[name], counts[name]) for name in COUNT_NAMES]

    metrics.add_collector(collect)
