"""ZkAdmin: topic administration written straight to ZooKeeper, like Kafka 2.5's AdminZkClient (--zookeeper mode)."""

from kazoo.exceptions import NodeExistsError

from kafka_zk.client.topic_names import (
    INTERNAL_TOPICS,
    InvalidTopicName,
    collides,
    has_collision_chars,
    validate_topic_name,
)
from kafka_zk.controller.assignment import (
    InvalidPartitionsError,
    InvalidReplicationFactorError,
    RackAwareMode,
    assign_replicas,
    growth_start_index,
    racks_under,
)
from kafka_zk.security.zk_login import tool_zk_security
from kafka_zk.zk.client import KafkaZkClient, TopicExistsError
from kafka_zk.zk.znodes import DeleteTopicZNode


class InvalidReplicaAssignmentError(ValueError):
    """A manual replica assignment Kafka would reject."""


class AdminOperationError(Exception):
    """An admin request that is not allowed (e.g. deleting an internal topic)."""


class ReassignmentInProgressError(AdminOperationError):
    """/admin/reassign_partitions already exists."""


def _check_assignment_shape(assignment):
    if len({len(replicas) for replicas in assignment.values()}) > 1:
        raise InvalidReplicaAssignmentError("All partitions should have the same number of replicas")
    for replicas in assignment.values():
        if len(set(replicas)) != len(replicas):
            raise InvalidReplicaAssignmentError("Duplicate replica assignment found: %s" % _format_map(assignment))
    if sorted(assignment) != list(range(len(assignment))):
        raise InvalidReplicaAssignmentError("partitions should be a consecutive 0-based integer sequence")


def _format_map(assignment):
    return "Map(%s)" % ", ".join("%d -> List(%s)" % (p, ", ".join(map(str, r))) for p, r in sorted(assignment.items()))


def tool_zk_client(zk_connect, session_timeout_ms=30000, connect_timeout=30.0, environ=None, tls_settings=None):
    """A started KafkaZkClient for a tool (--zookeeper, --authorizer-properties zookeeper.connect=...): it logs in
    with the JAAS file's `Client` section named in KAFKA_OPTS and speaks TLS as `tls_settings` (zookeeper.ssl.*, from
    --zk-tls-config-file) say, and when either authenticates creates znodes with Kafka's secure ACLs, as Kafka's
    tools do."""
    zk_client = KafkaZkClient(
        zk_connect, session_timeout_ms=session_timeout_ms, security=tool_zk_security(environ, tls_settings)
    )
    zk_client.start(timeout=connect_timeout)
    return zk_client


class ZkAdmin:
    """Creates, deletes, grows and describes topics by editing the znodes the controller watches."""

    def __init__(self, zk_connect, session_timeout_ms=30000, zk_client=None, connect_timeout=30.0, tls_settings=None):
        if zk_client is None:
            zk_client = tool_zk_client(zk_connect, session_timeout_ms, connect_timeout, tls_settings=tls_settings)
        self.zk = zk_client

    def close(self):
        self.zk.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # -- reads -----------------------------------------------------------------------------

    def live_broker_ids(self):
        return sorted(self.zk.get_broker_ids())

    def list_topics(self):
        """Sorted names of every topic with an assignment znode (including those marked for deletion)."""
        return self.zk.get_topics()

    def is_marked_for_deletion(self, topic):
        return self.zk.exists(DeleteTopicZNode.path(topic)) is not None

    def topics_marked_for_deletion(self):
        return set(self.zk.get_topic_deletions())

    def describe_topic(self, topic):
        """None if the topic does not exist, else a dict: name, configs {k: v}, marked_for_deletion and
        partitions {p: {replicas, leader (None if none), isr, adding_replicas, removing_replicas}}."""
        assignment = self.zk.get_full_topic_assignments([topic]).get(topic)
        if assignment is None:
            return None
        states = self.zk.get_partition_states([(topic, p) for p in assignment.partitions])
        partitions = {}
        for partition, replicas in sorted(assignment.partitions.items()):
            state = states.get((topic, partition))
            leader = state.leader if state is not None and state.leader >= 0 else None
            partitions[partition] = {
                "replicas": list(replicas),
                "leader": leader,
                "isr": list(state.isr) if state else [],
                "adding_replicas": list(assignment.adding_replicas.get(partition, [])),
                "removing_replicas": list(assignment.removing_replicas.get(partition, [])),
            }
        return {
            "name": topic,
            "partitions": partitions,
            "configs": self.zk.get_entity_config("topics", topic),
            "marked_for_deletion": self.is_marked_for_deletion(topic),
        }

    # -- writes ----------------------------------------------------------------------------

    def _validate_create(self, topic, assignment):
        validate_topic_name(topic)
        if self.is_marked_for_deletion(topic):
            raise TopicExistsError("Topic '%s' is marked for deletion." % topic)
        if has_collision_chars(topic):
            colliding = collides(topic, self.zk.get_topics())
            if colliding is not None:
                raise InvalidTopicName("Topic '%s' collides with existing topics: %s" % (topic, colliding))
        if self.zk.get_topic_assignment(topic):
            raise TopicExistsError("Topic '%s' already exists." % topic)
        _check_assignment_shape(assignment)

    def create_topic(self, topic, partitions, replication_factor, configs=None, rack_aware_mode=RackAwareMode.ENFORCED):
        """Create with Kafka's assignment over the live brokers and their racks under ``rack_aware_mode``;
        returns the assignment."""
        assignment = assign_replicas(partitions, replication_factor, racks_under(rack_aware_mode, self.brokers()))
        return self.create_topic_with_assignment(topic, assignment, configs)

    def create_topic_with_assignment(self, topic, assignment, configs=None):
        """Write /config/topics/<t>, then /brokers/topics/<t>; the controller does the rest."""
        self._validate_create(topic, assignment)
        self.zk.create_topic_assignment(topic, assignment, dict(configs or {}))
        return assignment

    def delete_topic(self, topic):
        """Mark the topic for deletion; False if it already was."""
        if topic in INTERNAL_TOPICS:
            raise AdminOperationError(
                "Topic %s is a kafka internal topic and is not allowed to be marked for deletion." % topic
            )
        if self.is_marked_for_deletion(topic):
            return False
        self.zk.mark_topic_for_deletion([topic])
        return True

    def change_topic_config(self, topic, configs):
        """Replace the topic's config overrides and notify the brokers."""
        self.zk.set_entity_config("topics", topic, dict(configs))

    def get_topic_config(self, topic):
        return self.zk.get_entity_config("topics", topic)

    # -- reassignment (Kafka 2.5's ReassignPartitionsCommand over ZooKeeper) ----------------------

    def partition_reassignment(self):
        """{(topic, partition): target replicas} of /admin/reassign_partitions; {} when none is in progress."""
        return self.zk.get_partition_reassignment()

    def start_partition_reassignment(self, reassignment):
        """Create /admin/reassign_partitions; ReassignmentInProgressError when one is already there."""
        try:
            self.zk.create_partition_reassignment(reassignment)
        except NodeExistsError:
            raise ReassignmentInProgressError("Partition reassignment currently in progress") from None

    def start_preferred_replica_election(self, partitions):
        """Create /admin/preferred_replica_election; AdminOperationError naming the partitions of the election
        in progress when there is one."""
        try:
            self.zk.create_preferred_replica_election(partitions)
        except NodeExistsError:
            current = ",".join("%s-%d" % tp for tp in self.zk.get_preferred_replica_election())
            raise AdminOperationError(
                "Preferred replica leader election currently in progress for %s. Aborting operation" % current
            ) from None

    def topic_assignments(self, topics):
        """{topic: {partition: replicas}} of the topics that exist."""
        return self.zk.get_topic_assignments(topics)

    def brokers(self):
        """{broker id: rack or None} of the live brokers."""
        return {info.id: info.rack for info in self.zk.get_all_brokers()}

    def get_broker_config(self, broker_id):
        return self.zk.get_entity_config("brokers", str(broker_id))

    def change_broker_config(self, broker_id, configs):
        """Replace /config/brokers/<id> and notify the brokers."""
        self.zk.set_entity_config("brokers", str(broker_id), dict(configs))

    def add_partitions(self, topic, total_partitions, replica_assignment=None):
        """Grow ``topic`` to ``total_partitions``; ``replica_assignment`` ({p: replicas}, covering all or only
        the new partitions) places the new ones, else Kafka's assignment continues from partition 0's leader.
        As Kafka's, the brokers' racks are taken under ENFORCED either way."""
        existing = self.zk.get_topic_assignment(topic)
        if not existing:
            raise InvalidTopicName("The topic %s does not exist" % topic)
        to_add = total_partitions - len(existing)
        if to_add <= 0:
            raise InvalidPartitionsError(
                "The number of partitions for a topic can only be increased. Topic %s currently has %d partitions, "
                "%d would not be an increase." % (topic, len(existing), total_partitions)
            )
        replication_factor = len(existing[0])
        racks = racks_under(RackAwareMode.ENFORCED, self.brokers())
        brokers = sorted(racks)
        if replica_assignment:
            new = {p: list(r) for p, r in replica_assignment.items() if p >= len(existing)}
            if len(new) != to_add:
                raise InvalidReplicaAssignmentError(
                    "Increasing the number of partitions by %d but %d assignments provided." % (to_add, len(new))
                )
            self._validate_new_replicas(new, replication_factor, brokers)
        else:
            new = assign_replicas(
                to_add,
                replication_factor,
                racks,
                start_index=growth_start_index(brokers, existing[0][0]),
                start_partition=len(existing),
            )
        merged = dict(existing)
        merged.update(new)
        self.zk.set_topic_assignment(topic, merged)
        return new

    @staticmethod
    def _validate_new_replicas(new, replication_factor, brokers):
        for partition, replicas in sorted(new.items()):
            if not replicas:
                raise InvalidReplicaAssignmentError(
                    "Cannot have replication factor of 0 for partition id %d." % partition
                )
            if len(set(replicas)) != len(replicas):
                raise InvalidReplicaAssignmentError(
                    "Duplicate brokers not allowed in replica assignment: %s for partition id %d."
                    % (", ".join(map(str, replicas)), partition)
                )
            unknown = sorted(set(replicas) - set(brokers))
            if unknown:
                raise InvalidReplicaAssignmentError(
                    "Unknown broker(s) in replica assignment: %s for partition id %d."
                    % (", ".join(map(str, unknown)), partition)
                )
            if len(replicas) != replication_factor:
                raise InvalidReplicationFactorError(
                    "Inconsistent replication factor between partitions, partition 0 has %d while partition %d "
                    "has replication factor %d." % (replication_factor, partition, len(replicas))
                )
