"""All controller state in one plain object: live brokers, assignments, leadership, state-machine states."""

from collections import namedtuple

LeaderIsr = namedtuple("LeaderIsr", "leader leader_epoch isr controller_epoch zk_version")
LiveBroker = namedtuple("LiveBroker", "broker_id epoch info")  # info: zk BrokerInfo


class ControllerContext:
    def __init__(self, controller_id=-1):
        self.controller_id = controller_id  # this broker: who the state-change log names as deciding
        self.epoch = 0
        self.epoch_zk_version = -1
        self.live_brokers = {}  # id -> LiveBroker
        self.shutting_down = set()
        self.assignments = {}  # (topic, partition) -> [replicas]
        self.leadership = {}  # (topic, partition) -> LeaderIsr
        self.partition_states = {}  # (topic, partition) -> state name
        self.replica_states = {}  # (topic, partition, broker) -> state name
        self.topic_configs = {}  # topic -> {name: value string}
        self.topics_to_delete = set()
        self.replicas_on_offline_dirs = {}  # broker id -> {(topic, partition)} whose log dir there is offline

    def reset(self):
        self.__init__(self.controller_id)

    @property
    def live_broker_ids(self):
        return set(self.live_brokers) - self.shutting_down

    @property
    def live_or_shutting_down_broker_ids(self):
        return set(self.live_brokers)

    def topics(self):
        return {topic for topic, _ in self.assignments}

    def partitions_of(self, topic):
        return sorted(tp for tp in self.assignments if tp[0] == topic)

    def partitions_on_broker(self, broker_id):
        return [tp for tp, replicas in self.assignments.items() if broker_id in replicas]

    def partitions_led_by(self, broker_id):
        return [tp for tp, state in self.leadership.items() if state.leader == broker_id]

    def add_topic(self, topic, assignment):
        for partition, replicas in assignment.items():
            self.assignments[(topic, partition)] = list(replicas)

    def remove_topic(self, topic):
        for tp in self.partitions_of(topic):
            self.assignments.pop(tp, None)
            self.leadership.pop(tp, None)
            self.partition_states.pop(tp, None)
        for key in [key for key in self.replica_states if key[0] == topic]:
            del self.replica_states[key]
        self.topic_configs.pop(topic, None)
        self.topics_to_delete.discard(topic)

    def is_replica_online(self, broker_id, tp):
        return broker_id in self.live_brokers and tp not in self.replicas_on_offline_dirs.get(broker_id, ())

    def live_for(self, tp, brokers):
        """``brokers`` less those whose replica of ``tp`` sits in an offline log dir."""
        offline = self.replicas_on_offline_dirs
        if not offline:
            return brokers
        return {broker for broker in brokers if tp not in offline.get(broker, ())}

    def record_replica_dirs(self, broker_id, offline, online):
        """A broker answered KAFKA_STORAGE_ERROR for ``offline`` and no error for ``online`` (a LeaderAndIsr):
        Kafka's rule for its replicas on offline dirs. Returns the replicas newly found offline."""
        previous = self.replicas_on_offline_dirs.get(broker_id, set())
        current = (previous - set(online)) | set(offline)
        if current:
            self.replicas_on_offline_dirs[broker_id] = current
        else:
            self.replicas_on_offline_dirs.pop(broker_id, None)
        return current - previous

    def forget_offline_dirs(self, broker_ids):
        """A broker that restarts or dies starts over: its dirs are checked again when it registers."""
        for broker_id in broker_ids:
            self.replicas_on_offline_dirs.pop(broker_id, None)
