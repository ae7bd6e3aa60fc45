"""ClusterReader: the console's blocking reads of the cluster (ZooKeeper as CMAK reads it, the admin client and a
group-less consumer for groups, lag and reassignments); called on a worker thread, never on the reactor."""

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.consumer import Consumer
from kafka_zk.client.errors import KafkaClientError, UnsupportedVersionError
from kafka_zk.client.zk_admin import ZkAdmin, tool_zk_client
from kafka_zk.console import views
from kafka_zk.tools.consumer_groups import group_offset_rows
from kafka_zk.zk.znodes import BrokerIdsZNode


class ClusterReader:
    """One ZooKeeper session (kazoo's client is thread-safe) and one admin client. The ZooKeeper reads
    (cluster_state) and the broker reads (broker_view, topic_configs) run on two different worker threads, so a
    broker that hangs never holds up what ZooKeeper says; the admin client is only used by the second."""

    def __init__(self, zk_connect, bootstrap, admin_options, zk_client=None, admin=None, zk_tls_settings=None):
        self.zk = zk_client or tool_zk_client(
            zk_connect, session_timeout_ms=30000, connect_timeout=30.0, tls_settings=zk_tls_settings
        )
        self.admin = admin or AdminClient(bootstrap, **dict({"timeout": 10.0, "retries": 2}, **admin_options))
        self._consumer = None
        self._known_brokers = {}

    def close(self):
        if self._consumer is not None:
            self._consumer.close()
        self.admin.close()
        self.zk.close()

    @property
    def consumer(self):
        if self._consumer is None:
            self._consumer = Consumer(None, client_id="kafka-zk-console", cluster=self.admin.cluster)
        return self._consumer

    def watch_brokers(self, callback):
        """callback() (on a kazoo thread) whenever a broker registers or goes away."""
        return self.zk.watch_children(BrokerIdsZNode.PATH, lambda children: callback())

    # -- the cluster state (brokers, controller, topics, reassignments) ---------------------------------

    def cluster_state(self, listed=None):
        """Brokers, controller, topics and reassignments from ZooKeeper; ``listed``: the controller's
        ListPartitionReassignments answer last read by broker_view ({tp: (replicas, adding, removing)})."""
        zk = self.zk
        registrations = {}
        for info in zk.get_all_brokers():
            registrations[info.id] = {"listeners": [e.connection_string for e in info.endpoints], "rack": info.rack}
        self._known_brokers.update(registrations)
        controller_id = zk.get_controller_id()
        epoch = zk.get_controller_epoch()
        names = zk.get_topics()
        full = zk.get_full_topic_assignments(names)
        assignments = {
            topic: {
                p: {
                    "replicas": list(replicas),
                    "adding": list(a.adding_replicas.get(p, [])),
                    "removing": list(a.removing_replicas.get(p, [])),
                }
                for p, replicas in a.partitions.items()
            }
            for topic, a in full.items()
        }
        raw_states = zk.get_partition_states([(t, p) for t, parts in assignments.items() for p in parts])
        states = {tp: (s.leader, s.leader_epoch, list(s.isr)) for tp, s in raw_states.items() if s is not None}
        live = set(registrations)
        assigned_ids = {r for parts in assignments.values() for placed in parts.values() for r in placed["replicas"]}
        requested = {tuple(tp): list(r) for tp, r in zk.get_partition_reassignment().items()}
        topics = views.topic_rows(assignments, states, live, set(zk.get_topic_deletions()))
        brokers = views.broker_rows(registrations, self._known_brokers, controller_id, assigned_ids)
        return {
            "brokers": views.count_replicas(brokers, topics),
            "controller": {"id": controller_id, "epoch": epoch[0] if epoch else None},
            "topics": topics,
            "reassignments": views.reassignment_rows(requested, listed or {}, assignments, states),
            "preferred_election": ["%s-%d" % tp for tp in zk.get_preferred_replica_election()],
        }

    # -- through the brokers: reassignments the controller lists, consumer groups and lag ------------------

    def broker_view(self):
        """{"listed": {tp: (replicas, adding, removing)}, "groups": [...]} with "listed_error" and "groups_error"
        saying why a part could not be read (None when it was)."""
        view = {"listed": {}, "listed_error": None, "groups": None, "groups_error": None}
        try:
            view["listed"] = {
                tp: (list(r.replicas), list(r.adding_replicas), list(r.removing_replicas))
                for tp, r in self.admin.list_partition_reassignments(timeout_ms=5000).items()
            }
        except (KafkaClientError, UnsupportedVersionError) as error:
            view["listed_error"] = "ListPartitionReassignments: %s" % error
        try:
            view["groups"] = self.groups()
        except KafkaClientError as error:
            view["groups_error"] = "%s: %s" % (type(error).__name__, error)
        return view

    def groups(self):
        """Every consumer group (and offsets-only group) with members and lag per partition."""
        rows = []
        for group_id in sorted(g for g, protocol in self.admin.list_groups().items() if protocol in ("consumer", "")):
            try:
                description = self.admin.describe_group(group_id)
                offsets = group_offset_rows(self.admin, self._end_offsets, description)
                rows.append(views.group_row(description, offsets))
            except KafkaClientError as error:
                rows.append(
                    {
                        "group": group_id,
                        "state": "Unknown",
                        "error": str(error),
                        "members": [],
                        "partitions": [],
                        "total_lag": None,
                    }
                )
        return rows

    def _end_offsets(self, partitions):
        return self.consumer.end_offsets(partitions) if partitions else {}

    # -- one topic ------------------------------------------------------------------------------------

    def topic_configs(self, topic):
        """(overrides from /config/topics/<topic>, [every config the broker reports: name, value, default?])."""
        overrides = ZkAdmin(None, zk_client=self.zk).get_topic_config(topic)
        try:
            entries = self.admin.describe_configs([topic]).get(topic, [])
        except KafkaClientError:
            entries = []
        return overrides, [
            {"name": e.name, "value": e.value, "default": bool(e.is_default), "sensitive": bool(e.is_sensitive)}
            for e in sorted(entries, key=lambda e: e.name)
        ]
