"""KafkaZkClient: Kafka 2.5's reads and writes of its ZooKeeper layout (KAFKA_FACTS §1).

Built on ZkSession (kafka_zk/zk/session.py), which documents the threading, batching, retry,
fencing and watch semantics shared by every method here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from kazoo.exceptions import BadVersionError, ConnectionLoss, KazooException, NodeExistsError, NoNodeError

from kafka_zk.zk.notification_sequence import Notification
from kafka_zk.zk.security_znodes import (
    ACL_PATHS,
    ACL_PATTERN_TYPES,
    DELEGATION_TOKEN_PATHS,
    AclChangeNotificationZNode,
    AclZNode,
    AclZNodes,
    DelegationTokenChangeNotificationSequenceZNode,
    DelegationTokenInfoZNode,
    DelegationTokensZNode,
    StoredDelegationToken,
)
from kafka_zk.zk.session import (  # noqa: F401  (re-exported: callers import these from here)
    CONNECTED,
    LOST,
    SUSPENDED,
    TRANSIENT_ERRORS,
    CheckOp,
    ControllerMovedError,
    CreateOp,
    DeleteOp,
    SetDataOp,
    Watch,
    ZkSession,
    first_failure,
)
from kafka_zk.zk.znodes import (
    PERSISTENT_PATHS,
    BrokerIdsZNode,
    BrokerIdZNode,
    BrokerInfo,
    BrokerSequenceIdZNode,
    ClusterIdZNode,
    ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityZNode,
    ConsumerOffsetZNode,
    ControllerEpochZNode,
    ControllerZNode,
    DeleteTopicsZNode,
    DeleteTopicZNode,
    IsrChangeNotificationSequenceZNode,
    IsrChangeNotificationZNode,
    LeaderIsrAndControllerEpoch,
    LogDirEventNotificationSequenceZNode,
    LogDirEventNotificationZNode,
    PreferredReplicaElectionZNode,
    ProducerIdBlockZNode,
    ReassignPartitionsZNode,
    TopicAssignment,
    TopicPartition,
    TopicPartitionStateZNode,
    TopicPartitionsZNode,
    TopicPartitionZNode,
    TopicsZNode,
    TopicZNode,
    generate_cluster_id,
)


class TopicExistsError(Exception):
    """The topic already exists (or is still marked for deletion)."""


class KafkaZkClient(ZkSession):
    """Kafka's view of ZooKeeper for one broker."""

    # -- cluster ---------------------------------------------------------------------------------

    def create_persistent_paths(self) -> None:
        """The paths every broker creates at start (KAFKA_FACTS §1), if missing."""
        self._ensure_paths(PERSISTENT_PATHS)

    def get_or_create_cluster_id(self, proposed: str | None = None) -> str:
        existing = self.get_data(ClusterIdZNode.PATH)
        if existing is not None:
            return ClusterIdZNode.decode(existing[0])
        cluster_id = proposed or generate_cluster_id()
        try:
            self._retry(self._zk.create, ClusterIdZNode.PATH, ClusterIdZNode.encode(cluster_id), makepath=True)
            return cluster_id
        except NodeExistsError:
            return ClusterIdZNode.decode(self._retry(self._zk.get, ClusterIdZNode.PATH)[0])

    # -- brokers ---------------------------------------------------------------------------------

    def register_broker(self, info: BrokerInfo, timestamp_ms: int, jmx_port: int = -1) -> int:
        """Create the ephemeral /brokers/ids/<id>; returns its czxid, the broker epoch.

        A znode left by this same session (a retried create) is accepted; one owned by another
        session raises NodeExistsError.
        """
        path = BrokerIdZNode.path(info.id)
        data = BrokerIdZNode.encode(info, timestamp_ms, jmx_port)

        def attempt() -> int:
            try:
                _, stat = self._zk.create(path, data, ephemeral=True, makepath=True, include_data=True)
                return stat.czxid
            except NodeExistsError:
                stat = self._zk.exists(path)
                if stat is None:
                    raise ConnectionLoss("registration vanished; retrying") from None
                if stat.ephemeralOwner == self.session_id:
                    return stat.czxid
                raise NodeExistsError(
                    f"broker id {info.id} is already registered at {path} by session "
                    f"0x{stat.ephemeralOwner:x}, not ours (0x{self.session_id or 0:x})"
                ) from None

        return self._retry(attempt)

    def generate_broker_id(self, reserved_max: int = 1000) -> int:
        """A fresh broker id above reserved.broker.max.id, from /brokers/seqid's version."""
        try:
            stat = self._retry(self._zk.set, BrokerSequenceIdZNode.PATH, b"")
        except NoNodeError:
            self._ensure_paths([BrokerSequenceIdZNode.PATH])
            stat = self._retry(self._zk.set, BrokerSequenceIdZNode.PATH, b"")
        return stat.version + reserved_max

    def get_broker_ids(self) -> list[int]:
        return sorted(int(child) for child in self.get_children(BrokerIdsZNode.PATH))

    def get_brokers(self, broker_ids: Iterable[int]) -> dict[int, BrokerInfo]:
        """Registrations of the given brokers that exist, with `epoch` set from each znode's czxid."""
        paths = {BrokerIdZNode.path(b): b for b in broker_ids}
        return {
            paths[p]: BrokerIdZNode.decode(paths[p], data, epoch=stat.czxid)
            for p, found in self.get_many(paths).items()
            if found is not None
            for data, stat in [found]
        }

    def get_all_brokers(self) -> list[BrokerInfo]:
        return [info for _, info in sorted(self.get_brokers(self.get_broker_ids()).items())]

    def get_broker(self, broker_id: int) -> BrokerInfo | None:
        return self.get_brokers([broker_id]).get(broker_id)

    # -- controller ------------------------------------------------------------------------------

    def get_controller_id(self) -> int | None:
        found = self.get_data(ControllerZNode.PATH)
        return None if found is None else ControllerZNode.decode(found[0])

    def get_controller_epoch(self) -> tuple[int, int] | None:
        """(epoch, zk_version) of /controller_epoch, or None before any election."""
        found = self.get_data(ControllerEpochZNode.PATH)
        return None if found is None else (ControllerEpochZNode.decode(found[0]), found[1].version)

    def try_elect_controller(self, broker_id: int, timestamp_ms: int) -> tuple[bool, int, int]:
        """Try to become controller: one multi creates ephemeral /controller and bumps the epoch.

        Returns (won, epoch, epoch_zk_version); the winner fences its writes with epoch_zk_version.
        A loser gets the epoch as it stands. /controller_epoch is created with 0 if missing, so the
        first controller writes 1.
        """
        current = self.get_controller_epoch()
        if current is None:
            try:
                self._retry(self._zk.create, ControllerEpochZNode.PATH, ControllerEpochZNode.encode(0))
            except NodeExistsError:
                pass
            current = self.get_controller_epoch()
        epoch, version = current
        transaction = self._zk.transaction()
        transaction.create(ControllerZNode.PATH, ControllerZNode.encode(broker_id, timestamp_ms), ephemeral=True)
        transaction.set_data(ControllerEpochZNode.PATH, ControllerEpochZNode.encode(epoch + 1), version=version)
        try:
            results = transaction.commit()
            if first_failure(results) is None:
                return True, epoch + 1, results[1].version
        except TRANSIENT_ERRORS:
            pass  # the multi may have been applied: check below who holds /controller
        found = self.get_data(ControllerZNode.PATH)
        epoch, version = self.get_controller_epoch()
        if (
            found is not None
            and found[1].ephemeralOwner == self.session_id
            and ControllerZNode.decode(found[0]) == broker_id
        ):
            return True, epoch, version
        return False, epoch, version

    def resign_controller(self, epoch_zk_version: int) -> None:
        """Delete /controller if this controller still holds the epoch (fenced)."""
        try:
            self.fenced_multi([DeleteOp(ControllerZNode.PATH)], epoch_zk_version)
        except (ControllerMovedError, NoNodeError):
            pass

    # -- topics ----------------------------------------------------------------------------------

    def get_topics(self) -> list[str]:
        return sorted(self.get_children(TopicsZNode.PATH))

    def get_full_topic_assignments(self, topics: Iterable[str]) -> dict[str, TopicAssignment]:
        """Batched: topic -> TopicAssignment (with adding/removing replicas); missing topics left out."""
        paths = {TopicZNode.path(t): t for t in topics}
        return {paths[p]: TopicZNode.decode(found[0]) for p, found in self.get_many(paths).items() if found}

    def get_topic_assignments(self, topics: Iterable[str]) -> dict[str, dict[int, list[int]]]:
        """Batched: topic -> {partition: replicas}; missing topics left out."""
        return {t: a.partitions for t, a in self.get_full_topic_assignments(topics).items()}

    def get_topic_assignment(self, topic: str) -> dict[int, list[int]]:
        """{partition: replicas}; {} if the topic does not exist."""
        return self.get_topic_assignments([topic]).get(topic, {})

    def create_topic_assignment(
        self, topic: str, assignment: Mapping[int, Sequence[int]], config: Mapping[str, Any] | None = None
    ) -> None:
        """Create a topic as Kafka's admin path does: its config znode first, then its assignment."""
        if self.exists(TopicZNode.path(topic)) is not None:
            raise TopicExistsError(f"Topic '{topic}' already exists.")
        if self.exists(DeleteTopicZNode.path(topic)) is not None:
            raise TopicExistsError(f"Topic '{topic}' is marked for deletion.")
        self.set_entity_config("topics", topic, config or {}, notify=False)
        try:
            self._retry(self._zk.create, TopicZNode.path(topic), TopicZNode.encode(assignment), makepath=True)
        except NodeExistsError:
            raise TopicExistsError(f"Topic '{topic}' already exists.") from None

    def set_topic_assignment(
        self,
        topic: str,
        assignment: Mapping[int, Sequence[int]],
        adding_replicas: Mapping[int, Sequence[int]] | None = None,
        removing_replicas: Mapping[int, Sequence[int]] | None = None,
        epoch_zk_version: int | None = None,
    ) -> int:
        """Overwrite /brokers/topics/<t> (fenced if epoch_zk_version is given); returns its new zk version."""
        data = TopicZNode.encode(assignment, adding_replicas, removing_replicas)
        if epoch_zk_version is None:
            return self._retry(self._zk.set, TopicZNode.path(topic), data).version
        return self.fenced_multi([SetDataOp(TopicZNode.path(topic), data)], epoch_zk_version)[0].version

    def mark_topics_for_deletion(self, topics: Iterable[str]) -> None:
        """Create /admin/delete_topics/<t>; topics already marked stay marked."""
        for result in self._create_ignoring_existing(DeleteTopicZNode.path(t) for t in topics).values():
            if isinstance(result, Exception):
                raise result

    mark_topic_for_deletion = mark_topics_for_deletion

    def get_topic_deletions(self) -> list[str]:
        return sorted(self.get_children(DeleteTopicsZNode.PATH))

    def delete_topic_deletions(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        """Fenced removal of /admin/delete_topics/<t> markers (missing ones ignored)."""
        self._multi_batch(topics, lambda t: [DeleteOp(DeleteTopicZNode.path(t))], epoch_zk_version)

    def delete_topic_znodes(self, topic: str, epoch_zk_version: int) -> None:
        """Fenced end of a topic deletion: its assignment subtree, its config, then its deletion marker."""
        self.delete_recursive(TopicZNode.path(topic), epoch_zk_version)
        self.delete_recursive(ConfigEntityZNode.path("topics", topic), epoch_zk_version)
        self.delete_topic_deletions([topic], epoch_zk_version)

    # -- partition states ------------------------------------------------------------------------

    def get_partition_states(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, LeaderIsrAndControllerEpoch]:
        """Batched: (topic, partition) -> state with its zk_version; partitions without a state left out."""
        paths = {TopicPartitionStateZNode.path(t, p): (t, p) for t, p in partitions}
        return {
            paths[path]: TopicPartitionStateZNode.decode(found[0], found[1].version)
            for path, found in self.get_many(paths).items()
            if found is not None
        }

    def create_partition_states(
        self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch], controller_epoch: int, epoch_zk_version: int
    ) -> dict[TopicPartition, LeaderIsrAndControllerEpoch | KazooException]:
        """Create state znodes (and their parents), one fenced multi per partition, pipelined.

        Returns per partition the written state (zk_version 0, controller_epoch set) or the
        exception (NodeExistsError, NoNodeError if the topic is gone). Raises ControllerMovedError.
        """
        topics = {t for t, _ in states}
        self._create_ignoring_existing(TopicPartitionsZNode.path(t) for t in topics)
        written = {tp: replace(s, controller_epoch=controller_epoch, zk_version=0) for tp, s in states.items()}

        def state_op(tp: TopicPartition) -> CreateOp:
            return CreateOp(TopicPartitionStateZNode.path(*tp), TopicPartitionStateZNode.encode(written[tp]))

        # The partition znode and its state in one go; where the partition znode exists already, the state alone.
        results = self._multi_batch(
            written, lambda tp: [CreateOp(TopicPartitionZNode.path(*tp)), state_op(tp)], epoch_zk_version
        )
        parent_existed = [
            tp for tp, r in results.items() if isinstance(r, NodeExistsError) and getattr(r, "op_index", None) == 0
        ]
        results.update(self._multi_batch(parent_existed, lambda tp: [state_op(tp)], epoch_zk_version))
        return {tp: r if isinstance(r, Exception) else written[tp] for tp, r in results.items()}

    def update_partition_states(
        self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch], controller_epoch: int, epoch_zk_version: int
    ) -> dict[TopicPartition, LeaderIsrAndControllerEpoch | KazooException]:
        """Conditional set of each state znode on its `zk_version`, one fenced multi per partition.

        Returns per partition the new state (with its new zk_version) or the exception:
        BadVersionError means re-read and retry. Raises ControllerMovedError.
        """
        encoded = {tp: replace(s, controller_epoch=controller_epoch) for tp, s in states.items()}
        results = self._multi_batch(
            encoded,
            lambda tp: [
                SetDataOp(
                    TopicPartitionStateZNode.path(*tp),
                    TopicPartitionStateZNode.encode(encoded[tp]),
                    encoded[tp].zk_version,
                )
            ],
            epoch_zk_version,
        )
        return {
            tp: r if isinstance(r, Exception) else replace(encoded[tp], zk_version=r[0].version)
            for tp, r in results.items()
        }

    def conditional_update_partition_state(
        self, topic: str, partition: int, state: LeaderIsrAndControllerEpoch
    ) -> tuple[bool, int]:
        """One partition leader's ISR write; see conditional_update_partition_states."""
        return self.conditional_update_partition_states({(topic, partition): state})[(topic, partition)]

    def conditional_update_partition_states(
        self, states: Mapping[TopicPartition, LeaderIsrAndControllerEpoch]
    ) -> dict[TopicPartition, tuple[bool, int]]:
        """Partition leaders' ISR writes (not fenced), in pipelined multis: each set on its state's zk_version.

        tp -> (True, new_zk_version), or (False, -1) on a version conflict or a deleted partition. A conflict
        whose stored state equals the one written counts as success: our own write whose reply was lost.
        """
        paths = {tp: TopicPartitionStateZNode.path(*tp) for tp in states}
        results = self._multi_batch(
            states,
            lambda tp: [SetDataOp(paths[tp], TopicPartitionStateZNode.encode(states[tp]), states[tp].zk_version)],
            None,
        )
        written: dict[TopicPartition, tuple[bool, int]] = {}
        conflicts = []
        for tp, result in results.items():
            if isinstance(result, BadVersionError):
                conflicts.append(tp)
            elif isinstance(result, NoNodeError):
                written[tp] = (False, -1)
            elif isinstance(result, Exception):
                raise result
            else:
                written[tp] = (True, result[0].version)
        found = self.get_many([paths[tp] for tp in conflicts]) if conflicts else {}
        for tp in conflicts:
            stored = found.get(paths[tp])
            same = stored is not None and replace(TopicPartitionStateZNode.decode(stored[0]), zk_version=-1) == replace(
                states[tp], zk_version=-1
            )
            written[tp] = (True, stored[1].version) if same else (False, -1)
        return written

    # -- admin requests --------------------------------------------------------------------------

    def get_partition_reassignment(self) -> dict[TopicPartition, list[int]]:
        found = self.get_data(ReassignPartitionsZNode.PATH)
        return {} if found is None else ReassignPartitionsZNode.decode(found[0])

    def create_partition_reassignment(self, reassignment: Mapping[TopicPartition, Sequence[int]]) -> None:
        """Create /admin/reassign_partitions as Kafka's tool does; NodeExistsError if one is in progress."""
        self._retry(
            self._zk.create, ReassignPartitionsZNode.PATH, ReassignPartitionsZNode.encode(reassignment), makepath=True
        )

    def delete_partition_reassignment(self, epoch_zk_version: int) -> None:
        self._multi_batch([ReassignPartitionsZNode.PATH], lambda p: [DeleteOp(p)], epoch_zk_version)

    def get_preferred_replica_election(self) -> list[TopicPartition]:
        found = self.get_data(PreferredReplicaElectionZNode.PATH)
        return [] if found is None else PreferredReplicaElectionZNode.decode(found[0])

    def create_preferred_replica_election(self, partitions: Iterable[TopicPartition]) -> None:
        """Create /admin/preferred_replica_election as Kafka's tool does; NodeExistsError if one is in progress."""
        self._retry(
            self._zk.create,
            PreferredReplicaElectionZNode.PATH,
            PreferredReplicaElectionZNode.encode(partitions),
            makepath=True,
        )

    def delete_preferred_replica_election(self, epoch_zk_version: int) -> None:
        self._multi_batch([PreferredReplicaElectionZNode.PATH], lambda p: [DeleteOp(p)], epoch_zk_version)

    # -- dynamic configs -------------------------------------------------------------------------

    def get_entity_configs(self, entity_type: str, names: Iterable[str]) -> dict[str, dict[str, str]]:
        """Batched: name -> config overrides ({} when none are stored)."""
        paths = {ConfigEntityZNode.path(entity_type, n): n for n in names}
        return {
            paths[p]: ConfigEntityZNode.decode(found[0] if found else None) for p, found in self.get_many(paths).items()
        }

    def get_entity_config(self, entity_type: str, name: str) -> dict[str, str]:
        return self.get_entity_configs(entity_type, [name])[name]

    def set_entity_config(self, entity_type: str, name: str, config: Mapping[str, Any], notify: bool = True) -> None:
        """Write /config/<type>/<name> (create or overwrite), then announce it under /config/changes."""
        path = ConfigEntityZNode.path(entity_type, name)
        data = ConfigEntityZNode.encode(config)
        self._set_or_create(path, data)
        if notify:
            self.create_config_change_notification(f"{entity_type}/{name}")

    def _set_or_create(self, path: str, data: bytes) -> None:
        """Write ``path``, creating it (and its parents) when absent."""

        def attempt() -> None:
            try:
                self._zk.set(path, data)
            except NoNodeError:
                try:
                    self._zk.create(path, data, makepath=True)
                except NodeExistsError:
                    self._zk.set(path, data)

        self._retry(attempt)

    # -- old consumer offsets (OffsetCommit/OffsetFetch v0) -----------------------------------------

    def set_or_create_consumer_offset(self, group: str, topic: str, partition: int, offset: int) -> None:
        path = ConsumerOffsetZNode.path(group, topic, partition)
        data = ConsumerOffsetZNode.encode(offset)
        self._set_or_create(path, data)

    def get_consumer_offsets(
        self, group: str, partitions: Iterable[tuple[str, int]]
    ) -> dict[tuple[str, int], int | None]:
        """(topic, partition) -> committed offset, or None without a znode."""
        paths = {tp: ConsumerOffsetZNode.path(group, *tp) for tp in partitions}
        found = self.get_many(paths.values())
        return {
            tp: None if found[path] is None else ConsumerOffsetZNode.decode(found[path][0])
            for tp, path in paths.items()
        }

    def create_config_change_notification(self, entity_path: str) -> str:
        """Create config_change_<seq> naming "<type>/<name>"; returns the znode name."""
        return self.create_notification(
            ConfigEntityChangeNotificationSequenceZNode.path(),
            ConfigEntityChangeNotificationSequenceZNode.encode(entity_path),
        )

    # -- ACLs (AclAuthorizer's store) -------------------------------------------------------------

    def create_acl_paths(self) -> None:
        """The ACL stores' roots, their resource types and the change paths, if missing."""
        self._ensure_paths(ACL_PATHS)

    def get_acl_patterns(self) -> list[tuple[str, str, str]]:
        """(pattern type, resource type, name) of every stored ACL znode."""
        type_paths = {}
        for pattern_type in ACL_PATTERN_TYPES:
            root = AclZNodes.root(pattern_type)
            for resource_type in self.get_children(root):
                type_paths[(pattern_type, resource_type)] = f"{root}/{resource_type}"
        children = self._batch(type_paths.values(), self._zk.get_children_async)
        patterns = []
        for (pattern_type, resource_type), path in type_paths.items():
            names = children[path]
            if isinstance(names, NoNodeError):
                continue
            if isinstance(names, Exception):
                raise names
            patterns.extend((pattern_type, resource_type, name) for name in sorted(names))
        return patterns

    def get_resource_acls(self, patterns: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[dict]]:
        """Batched: (pattern type, resource type, name) -> its ACL entries ([] when it has no znode)."""
        paths = {AclZNode.path(rt, name, pt): (pt, rt, name) for pt, rt, name in patterns}
        return {
            paths[path]: AclZNode.decode(found[0] if found else None) for path, found in self.get_many(paths).items()
        }

    def get_all_acls(self) -> dict[tuple[str, str, str], list[dict]]:
        return self.get_resource_acls(self.get_acl_patterns())

    def update_resource_acls(
        self, pattern_type: str, resource_type: str, name: str, update: Any
    ) -> tuple[list[dict], list[dict]]:
        """Replace a pattern's entries by ``update(current entries)`` with a conditional write on the znode's
        version, re-reading and retrying when another writer came first; an empty result deletes the znode.
        Returns (entries before, entries written)."""
        path = AclZNode.path(resource_type, name, pattern_type)
        while True:
            found = self.get_data(path)
            current = AclZNode.decode(found[0]) if found else []
            new = list(update(current))
            try:
                if found is None:
                    if new:
                        self._retry(self._zk.create, path, AclZNode.encode(new), makepath=True)
                elif not new:
                    self._retry(self._zk.delete, path, found[1].version)
                elif new != current:
                    self._retry(self._zk.set, path, AclZNode.encode(new), found[1].version)
                return current, new
            except (BadVersionError, NodeExistsError, NoNodeError):
                continue

    def create_acl_change_notification(self, pattern_type: str, resource_type: str, name: str) -> str:
        """acl_changes_<seq> under the pattern type's change path; returns the znode name."""
        return self.create_notification(
            AclChangeNotificationZNode.path(pattern_type),
            AclChangeNotificationZNode.encode(resource_type, name, pattern_type),
        )

    # -- producer ids ----------------------------------------------------------------------------

    def allocate_producer_id_block(self, broker_id: int) -> tuple[int, int]:
        """Claim the next block of 1000 producer ids; (first, last), both inclusive."""
        path = ProducerIdBlockZNode.PATH
        while True:
            found = self.get_data(path)
            if found is None:
                self._ensure_paths([path])
                continue
            data, stat = found
            block = ProducerIdBlockZNode.next_block(ProducerIdBlockZNode.decode(data), broker_id)
            try:
                self._retry(self._zk.set, path, ProducerIdBlockZNode.encode(block), stat.version)
                return block.block_start, block.block_end
            except BadVersionError:
                continue  # another broker claimed a block in between

    # -- notifications ---------------------------------------------------------------------------

    def create_notification(self, path_prefix: str, data: bytes) -> str:
        """Create the persistent sequential znode <path_prefix><sequence> (and its parents) holding ``data``;
        returns its name."""
        created = self._retry(self._zk.create, path_prefix, data, sequence=True, makepath=True)
        return created.rsplit("/", 1)[1]

    def get_notifications(self, parent: str) -> list[Notification]:
        """Batched: every notification znode under ``parent`` with its data and ctime, in name order (those
        deleted between listing and reading skipped)."""
        paths = {f"{parent}/{name}": name for name in sorted(self.get_children(parent))}
        return [
            Notification(paths[path], found[0], found[1].ctime)
            for path, found in self.get_many(paths).items()
            if found is not None
        ]

    def delete_notifications(self, parent: str, names: Iterable[str], epoch_zk_version: int | None = None) -> None:
        """Delete these children of ``parent`` (missing ones are no error); fenced by the controller epoch's
        version when one is given."""
        paths = [f"{parent}/{name}" for name in names]
        if epoch_zk_version is not None:
            self._multi_batch(paths, lambda p: [DeleteOp(p)], epoch_zk_version)
            return
        for result in self._batch(paths, self._zk.delete_async).values():
            if isinstance(result, Exception) and not isinstance(result, NoNodeError):
                raise result

    def create_isr_change_notification(self, partitions: Iterable[TopicPartition]) -> str:
        """Create isr_change_<seq> listing the partitions whose ISR changed; returns the znode name."""
        return self.create_notification(
            IsrChangeNotificationSequenceZNode.path(), IsrChangeNotificationSequenceZNode.encode(partitions)
        )

    def get_isr_change_notifications(self) -> list[str]:
        """Names of pending notifications (isr_change_<seq>), oldest first."""
        return sorted(self.get_children(IsrChangeNotificationZNode.PATH))

    def read_isr_change_notifications(self, names: Iterable[str]) -> list[TopicPartition]:
        """Batched: the union of the partitions named by these notifications (vanished ones skipped)."""
        paths = [f"{IsrChangeNotificationZNode.PATH}/{n}" for n in names]
        partitions: dict[TopicPartition, None] = {}
        for found in self.get_many(paths).values():
            if found is not None:
                partitions.update(dict.fromkeys(IsrChangeNotificationSequenceZNode.decode(found[0])))
        return list(partitions)

    def create_log_dir_event_notification(self, broker_id: int) -> str:
        return self.create_notification(
            LogDirEventNotificationSequenceZNode.path(), LogDirEventNotificationSequenceZNode.encode(broker_id)
        )

    def get_log_dir_event_notifications(self) -> list[str]:
        return sorted(self.get_children(LogDirEventNotificationZNode.PATH))

    def read_log_dir_event_notifications(self, names: Iterable[str]) -> list[int]:
        """Batched: broker ids named by these notifications, in order, duplicates dropped."""
        paths = [f"{LogDirEventNotificationZNode.PATH}/{n}" for n in names]
        brokers = [LogDirEventNotificationSequenceZNode.decode(f[0]) for f in self.get_many(paths).values() if f]
        return list(dict.fromkeys(brokers))

    # -- delegation tokens -----------------------------------------------------------------------

    def create_delegation_token_paths(self) -> None:
        """/delegation_token/tokens and /delegation_token/token_changes, if missing."""
        self._ensure_paths(DELEGATION_TOKEN_PATHS)

    def get_delegation_token_ids(self) -> list[str]:
        return sorted(self.get_children(DelegationTokensZNode.PATH))

    def get_delegation_tokens(self, token_ids: Iterable[str]) -> dict[str, StoredDelegationToken | None]:
        """Batched: token id -> its stored information, or None when it has no znode."""
        paths = {DelegationTokenInfoZNode.path(token_id): token_id for token_id in token_ids}
        return {
            paths[path]: DelegationTokenInfoZNode.decode(found[0]) if found else None
            for path, found in self.get_many(paths).items()
        }

    def set_or_create_delegation_token(self, token: StoredDelegationToken) -> None:
        self._set_or_create(DelegationTokenInfoZNode.path(token.token_id), DelegationTokenInfoZNode.encode(token))

    def delete_delegation_token(self, token_id: str) -> None:
        """Remove a token's znode; a missing one is no error."""
        try:
            self._retry(self._zk.delete, DelegationTokenInfoZNode.path(token_id))
        except NoNodeError:
            pass

    def create_token_change_notification(self, token_id: str) -> str:
        """Create token_change_<seq> holding the token id; returns the znode name."""
        return self.create_notification(
            DelegationTokenChangeNotificationSequenceZNode.path(),
            DelegationTokenChangeNotificationSequenceZNode.encode(token_id),
        )
