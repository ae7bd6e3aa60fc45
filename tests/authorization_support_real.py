"""Real-broker authorization tests' shared parts: a SASL_PLAINTEXT cluster with AclAuthorizer, principals'
connections, ACL grants that wait until every broker's cache holds them, the error codes in an answer, request
bodies, and ZooKeeper facts (broker epochs, ACL change times)."""

import uuid

from kazoo.client import KazooClient

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.connection import BrokerConnection
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch, iter_records
from kafka_zk.security.acls import (
    AclBinding,
    AclBindingFilter,
    AclEntry,
    AclEntryFilter,
    ResourcePattern,
    ResourcePatternFilter,
)
from kafka_zk.security.authorizer import CLUSTER_NAME, AclOperation, PatternType, PermissionType, ResourceType
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.ports import free_port
from tests.zk_support import create_chroot

PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
PLAIN_JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
    'password="admin-secret" ' + " ".join('user_%s="%s"' % item for item in PASSWORDS.items()) + ";"
)
# Inter-broker traffic logs in over SASL as User:admin, the brokers' own super user: a PLAINTEXT inter-broker
# listener would make User:ANONYMOUS a super user, so anyone reaching that port would bypass every ACL.
SECURE_OVERRIDES = {
    "listeners": "SASL_PLAINTEXT://127.0.0.1:{port}",
    "security.inter.broker.protocol": "SASL_PLAINTEXT",
    "sasl.enabled.mechanisms": "PLAIN",
    "sasl.mechanism.inter.broker.protocol": "PLAIN",
    "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    "allow.everyone.if.no.acl.found": "false",
    "super.users": "User:admin",
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.num.partitions": "3",
    "transaction.state.log.min.isr": "2",
    "delegation.token.master.key": "matrix-master-key",
}


def login(user):
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": user,
        "sasl.password": PASSWORDS[user],
    }


ADMIN = login("admin")


def start_secure_cluster(directory, zookeeper_server, brokers, **extra):
    cluster = LocalCluster(
        directory,
        brokers=brokers,
        zk_connect=create_chroot(zookeeper_server),
        broker_ports=[free_port() for _ in range(brokers)],
        overrides={**TEST_DEFAULTS, **SECURE_OVERRIDES, **extra},
    )
    for broker in cluster.brokers:
        broker.client_properties = dict(ADMIN)
    try:
        cluster.start(timeout=60)
    except Exception:
        cluster.kill()
        raise
    return cluster


def errors_in(value):
    """The error codes anywhere in a decoded answer (any key ending in ``error_code``) other than NONE, as
    Errors members; {NONE} when every one is NONE."""
    return (_all_errors(value) - {Errors.NONE}) or {Errors.NONE}


def _all_errors(value):
    found = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("error_code") and isinstance(item, int):
                found.add(Errors.from_code(item))
            else:
                found |= _all_errors(item)
    elif isinstance(value, list):
        for item in value:
            found |= _all_errors(item)
    return found


def binding(
    resource_type,
    name,
    operation,
    principal="User:alice",
    host="*",
    permission=PermissionType.ALLOW,
    pattern=PatternType.LITERAL,
):
    return AclBinding(ResourcePattern(resource_type, name, pattern), AclEntry(principal, host, operation, permission))


def cluster_binding(operation, principal="User:alice"):
    return binding(ResourceType.CLUSTER, CLUSTER_NAME, operation, principal)


def unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:6])


class AuthorizationCluster:
    """A running secure cluster seen by its admin (a super user) and by other principals' connections."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.brokers = cluster.brokers
        self.admin = AdminClient(cluster.bootstrap_servers, security=ADMIN)
        self._connections = {}

    def close(self):
        for connection in self._connections.values():
            connection.close()
        self.admin.close()

    def broker(self, broker_id):
        return next(b for b in self.brokers if b.broker_id == broker_id)

    def connection(self, user, broker_id):
        key = (user, broker_id)
        if key not in self._connections:
            broker = self.broker(broker_id)
            self._connections[key] = BrokerConnection(
                broker.host, broker.port, client_id=user, timeout=20, security=login(user)
            )
        return self._connections[key]

    def request(self, user, broker_id, api_key, body, version=None):
        return self.connection(user, broker_id).request(api_key, body, version=version)

    # -- topics, leaders, coordinators -------------------------------------------------------------------

    def create_topic(self, prefix, partitions=1, replication=3, configs=None):
        name = unique(prefix)
        result = self.admin.create_topics([NewTopic(name, partitions, replication, configs=configs)])
        assert result[name][0] == Errors.NONE, result
        wait_for(
            lambda: all(self.partition_state(name, b.broker_id) for b in self.brokers),
            message="topic %s on every broker" % name,
        )
        return name

    def partition_state(self, topic, broker_id, partition=0):
        """(leader, sorted isr, sorted replicas) of a partition in ``broker_id``'s metadata, None if unknown."""
        response = self.request("admin", broker_id, 3, {"topics": [{"name": topic}]}, version=1)
        for entry in response["topics"]:
            for state in entry["partitions"]:
                if state["partition_index"] == partition and state["leader_id"] >= 0:
                    return state["leader_id"], tuple(sorted(state["isr_nodes"])), tuple(sorted(state["replica_nodes"]))
        return None

    def leader(self, topic, partition=0):
        return self.partition_state(topic, self.brokers[0].broker_id, partition)[0]

    def controller(self):
        return self.request("admin", self.brokers[0].broker_id, 3, {"topics": []}, version=1)["controller_id"]

    def coordinator(self, key, key_type=0):
        def found():
            response = self.request(
                "admin", self.brokers[0].broker_id, 10, {"key": key, "key_type": key_type}, version=1
            )
            return response if response["error_code"] == Errors.NONE else None

        return wait_for(found, message="coordinator of %s" % key)["node_id"]

    # -- ACLs ------------------------------------------------------------------------------------------------

    def _everywhere(self, bindings, present):
        for b in self.brokers:
            for item in bindings:
                pattern_filter = ResourcePatternFilter(
                    item.pattern.resource_type, item.pattern.name, item.pattern.pattern_type
                )
                seen = self.admin.describe_acls(AclBindingFilter(pattern_filter), node_id=b.broker_id)
                if (item in seen) != present:
                    return False
        return True

    def grant(self, *bindings, node_id=None):
        """Create ACLs (through ``node_id``, else any broker) and wait until every broker holds them."""
        results = self.admin.create_acls(list(bindings), node_id=node_id)
        assert all(error == Errors.NONE for error, _ in results), results
        wait_for(lambda: self._everywhere(bindings, True), timeout=5, message="ACLs on every broker")

    def revoke(self, *bindings):
        filters = [
            AclBindingFilter(
                ResourcePatternFilter(b.pattern.resource_type, b.pattern.name, b.pattern.pattern_type),
                entry_filter_of(b.entry),
            )
            for b in bindings
        ]
        self.admin.delete_acls(filters)
        wait_for(lambda: self._everywhere(bindings, False), timeout=5, message="ACLs gone from every broker")


def entry_filter_of(entry):
    return AclEntryFilter(entry.principal, entry.host, entry.operation, entry.permission)


class Granted:
    """``with Granted(secure, *bindings):`` ACLs that hold inside the block and are removed after it."""

    def __init__(self, secure, *bindings):
        self.secure, self.bindings = secure, bindings

    def __enter__(self):
        self.secure.grant(*self.bindings)
        return self

    def __exit__(self, *exc_info):
        self.secure.revoke(*self.bindings)


# -- request bodies and ZooKeeper facts ------------------------------------------------------------------------


def batch(*values, **kwargs):
    return encode_batch([(None, v) for v in values], **kwargs)


def fetch_body(topic, replica_id=-1, offset=0):
    return {
        "replica_id": replica_id,
        "max_wait_ms": 0,
        "min_bytes": 0,
        "max_bytes": 1 << 20,
        "isolation_level": 0,
        "session_id": 0,
        "session_epoch": -1,
        "topics": [
            {
                "topic": topic,
                "partitions": [
                    {
                        "partition": 0,
                        "current_leader_epoch": -1,
                        "fetch_offset": offset,
                        "log_start_offset": -1,
                        "partition_max_bytes": 1 << 20,
                    }
                ],
            }
        ],
    }


def fetched_values(response):
    return [r.value for t in response["responses"] for p in t["partitions"] for r in iter_records(p["records"] or b"")]


def commit_body(group, topic, offset, generation=-1, member=""):
    return {
        "group_id": group,
        "generation_id": generation,
        "member_id": member,
        "group_instance_id": None,
        "topics": [
            {
                "name": topic,
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": offset,
                        "committed_leader_epoch": -1,
                        "committed_metadata": "",
                    }
                ],
            }
        ],
    }


def txn_body(txn_id, pid, epoch, **extra):
    return dict({"transactional_id": txn_id, "producer_id": pid, "producer_epoch": epoch}, **extra)


def acl_filter(**extra):
    return dict(
        {
            "resource_type_filter": 2,
            "resource_name_filter": None,
            "pattern_type_filter": 1,
            "principal_filter": None,
            "host_filter": None,
            "operation": 1,
            "permission_type": 1,
        },
        **extra,
    )


def stale_control_requests(topic, leader, replicas, broker_id):
    """Control requests of controller epoch 0 (the cluster is at 1 or later): authorized, they are fenced."""
    state = {
        "partition_index": 0,
        "controller_epoch": 0,
        "leader": leader,
        "leader_epoch": 99,
        "isr": list(replicas),
        "zk_version": 99,
        "replicas": list(replicas),
        "offline_replicas": [],
    }
    return {
        4: {
            "controller_id": broker_id,
            "controller_epoch": 0,
            "broker_epoch": -1,
            "topic_states": [{"topic_name": topic, "partition_states": [state]}],
            "live_leaders": [],
        },
        5: {
            "controller_id": broker_id,
            "controller_epoch": 0,
            "broker_epoch": -1,
            "delete_partitions": True,
            "topics": [{"name": topic, "partition_indexes": [0]}],
        },
        6: {
            "controller_id": broker_id,
            "controller_epoch": 0,
            "broker_epoch": -1,
            "topic_states": [{"topic_name": topic, "partition_states": [state]}],
            "live_brokers": [],
        },
    }


def latest_change_ms(zk_connect):
    """The ZooKeeper creation time (ms, this machine's clock) of the newest literal ACL change notification."""
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        children = zk.get_children("/kafka-acl-changes")
        return max(zk.get("/kafka-acl-changes/" + child)[1].ctime for child in children)
    finally:
        zk.stop()
        zk.close()


def broker_epoch(zk_connect, broker_id):
    """Kafka's broker epoch: the czxid of the broker's registration znode."""
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        return zk.get("/brokers/ids/%d" % broker_id)[1].czxid
    finally:
        zk.stop()
        zk.close()


__all__ = ["AclOperation", "ResourceType", "PatternType", "PermissionType"]
