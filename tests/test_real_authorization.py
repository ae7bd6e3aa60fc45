"""Authorization end to end on real brokers: a 3-broker SASL_PLAINTEXT cluster with AclAuthorizer
(allow.everyone.if.no.acl.found=false, super user admin) answers every API key it serves to alice with
Kafka 2.5's error code until the ACL exists, then serves her; real clients see the same; the ACL rules; ACLs
reaching every broker within a second; forged inter-broker requests refused without effect."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.errors import Errors
from tests.authorization_support_real import (
    AclOperation as Op,
)
from tests.authorization_support_real import (
    AuthorizationCluster,
    Granted,
    PatternType,
    PermissionType,
    acl_filter,
    batch,
    binding,
    broker_epoch,
    cluster_binding,
    commit_body,
    errors_in,
    fetch_body,
    fetched_values,
    latest_change_ms,
    login,
    stale_control_requests,
    start_secure_cluster,
    txn_body,
    unique,
)
from tests.authorization_support_real import (
    ResourceType as Rt,
)
from tests.cluster_support import wait_for
from tests.raw_wire import produce_body

ROOT = Path(__file__).resolve().parent.parent
DENIED_TOPIC, DENIED_GROUP = Errors.TOPIC_AUTHORIZATION_FAILED, Errors.GROUP_AUTHORIZATION_FAILED
DENIED_CLUSTER, DENIED_TXN = Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED

# api key -> (what alice got without the ACL, what she got with it): the report's table
MATRIX = {}


def record(api_key, denied, allowed):
    name = API_SPECS[api_key].name
    previous = MATRIX.get(api_key)
    if previous:
        denied, allowed = previous[0] + "; " + denied, previous[1] + "; " + allowed
    MATRIX[api_key] = (denied, allowed)
    assert name


@pytest.fixture(scope="module")
def secure(tmp_path_factory, zookeeper_server):
    cluster = start_secure_cluster(tmp_path_factory.mktemp("authz"), zookeeper_server, brokers=3)
    view = AuthorizationCluster(cluster)
    yield view
    view.close()
    cluster.stop()
    if MATRIX:
        print("\nAPI | denied (alice, no ACL) | allowed (with ACL)")
        for key, (denied, allowed) in sorted(MATRIX.items()):
            print("%d %s | %s | %s" % (key, API_SPECS[key].name, denied, allowed))


def topic_metadata(secure, user, broker_id, topics):
    body = {"topics": None if topics is None else [{"name": t} for t in topics], "allow_auto_topic_creation": False}
    return {
        t["name"]: Errors.from_code(t["error_code"])
        for t in secure.request(user, broker_id, 3, body, version=9)["topics"]
    }


# -- 1. the wire-level matrix ----------------------------------------------------------------------------------


def test_topic_data_apis(secure):
    topic = secure.create_topic("data")
    leader = secure.leader(topic)
    alice = lambda key, body, version=None: secure.request("alice", leader, key, body, version)  # noqa: E731

    produced = alice(0, produce_body(topic, 0, batch(b"one"), acks=-1))
    listed = alice(
        2,
        {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [
                {"name": topic, "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]}
            ],
        },
    )
    epochs = alice(
        23,
        {
            "replica_id": -1,
            "topics": [
                {"topic": topic, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]}
            ],
        },
    )
    fetched = alice(1, fetch_body(topic))
    deleted = alice(
        21, {"topics": [{"name": topic, "partitions": [{"partition_index": 0, "offset": 0}]}], "timeout_ms": 10000}
    )
    named = topic_metadata(secure, "alice", leader, [topic])
    every = topic_metadata(secure, "alice", leader, None)
    for response in (produced, listed, epochs, fetched, deleted):
        assert errors_in(response) == {DENIED_TOPIC}, response
    assert named == {topic: DENIED_TOPIC} and topic not in every

    with Granted(secure, binding(Rt.TOPIC, topic, Op.WRITE)):
        produced_ok = alice(0, produce_body(topic, 0, batch(b"one", b"two"), acks=-1))
        # Write implies Describe: ListOffsets and Metadata now answer, Read still refused
        listed_ok = alice(
            2,
            {
                "replica_id": -1,
                "isolation_level": 0,
                "topics": [
                    {"name": topic, "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]}
                ],
            },
        )
        epochs_ok = alice(
            23,
            {
                "replica_id": -1,
                "topics": [
                    {"topic": topic, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]}
                ],
            },
        )
        assert errors_in(alice(1, fetch_body(topic))) == {DENIED_TOPIC}
        assert topic_metadata(secure, "alice", leader, [topic]) == {topic: Errors.NONE}
        assert topic in topic_metadata(secure, "alice", leader, None)
        described = secure.request(
            "alice",
            leader,
            3,
            {
                "topics": [{"name": topic}],
                "allow_auto_topic_creation": False,
                "include_cluster_authorized_operations": True,
                "include_topic_authorized_operations": True,
            },
            version=9,
        )
        assert described["cluster_authorized_operations"] == 0
        assert described["topics"][0]["topic_authorized_operations"] == (1 << Op.WRITE) | (1 << Op.DESCRIBE)
        # Write on the topic is not enough for idempotent or transactional batches
        idempotent = batch(b"idem", producer_id=7, producer_epoch=0, base_sequence=0)
        assert errors_in(alice(0, produce_body(topic, 0, idempotent, acks=-1))) == {DENIED_CLUSTER}
        transactional = batch(b"txn", producer_id=7, producer_epoch=0, base_sequence=0, is_transactional=True)
        assert errors_in(alice(0, produce_body(topic, 0, transactional, acks=-1, transactional_id=unique("tx")))) == {
            DENIED_TXN
        }
    assert errors_in(produced_ok) == errors_in(listed_ok) == errors_in(epochs_ok) == {Errors.NONE}
    assert listed_ok["topics"][0]["partitions"][0]["offset"] == 2
    with Granted(secure, binding(Rt.TOPIC, topic, Op.READ), binding(Rt.TOPIC, topic, Op.DELETE)):
        fetched_ok = alice(1, fetch_body(topic))
        deleted_ok = alice(
            21, {"topics": [{"name": topic, "partitions": [{"partition_index": 0, "offset": 1}]}], "timeout_ms": 10000}
        )
    assert errors_in(fetched_ok) == {Errors.NONE} and fetched_values(fetched_ok) == [b"one", b"two"]
    assert errors_in(deleted_ok) == {Errors.NONE}
    assert deleted_ok["topics"][0]["partitions"][0]["low_watermark"] == 1
    record(
        0,
        DENIED_TOPIC.name + "; idempotent batch with Write: CLUSTER_AUTHORIZATION_FAILED; transactional batch "
        "with Write: TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
        "NONE (Write)",
    )
    record(1, DENIED_TOPIC.name + " (consumer)", "NONE, records (Read)")
    record(2, DENIED_TOPIC.name, "NONE, offset 2 (Write implies Describe)")
    record(
        3,
        "named topic: %s; all topics: topic hidden" % DENIED_TOPIC.name,
        "NONE, topic listed (Describe); v9 authorized operations: topic Write|Describe, cluster none",
    )
    record(21, DENIED_TOPIC.name, "NONE, low watermark 1 (Delete)")
    record(23, DENIED_TOPIC.name, "NONE (Describe, implied by Write)")


def test_undescribable_topics_look_the_same_whether_they_exist_or_not(secure):
    existing, absent = secure.create_topic("exists"), unique("absent")
    leader = secure.leader(existing)
    for topic in (existing, absent):
        alice = lambda key, body: errors_in(secure.request("alice", leader, key, body))  # noqa: E731
        assert alice(0, produce_body(topic, 0, batch(b"probe"), acks=-1)) == {DENIED_TOPIC}, topic
        assert alice(1, fetch_body(topic)) == {DENIED_TOPIC}, topic
        assert alice(
            2, {"replica_id": -1, "topics": [{"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}]}
        ) == {DENIED_TOPIC}, topic
        deleted = secure.request("alice", secure.controller(), 20, {"topic_names": [topic], "timeout_ms": 1000})
        assert errors_in(deleted) == {DENIED_TOPIC}, topic  # DeleteTopics goes to the controller
        assert topic_metadata(secure, "alice", leader, [topic]) == {topic: DENIED_TOPIC}
    # auto-creation through Metadata needs Describe and Create (on the cluster or the topic), as in Kafka
    body = {"topics": [{"name": absent}], "allow_auto_topic_creation": True}
    for operation in (Op.DESCRIBE, Op.CREATE):
        with Granted(secure, binding(Rt.TOPIC, absent, operation)):
            assert errors_in(secure.request("alice", leader, 3, body, version=9)) == {DENIED_TOPIC}
            assert absent not in topic_metadata(secure, "admin", leader, None)
    with Granted(secure, binding(Rt.TOPIC, absent, Op.DESCRIBE), binding(Rt.TOPIC, absent, Op.CREATE)):
        secure.request("alice", leader, 3, body, version=9)
        wait_for(lambda: absent in topic_metadata(secure, "admin", leader, None), message="auto-created topic")
    record(
        3,
        "auto-creation with Describe or Create alone: " + DENIED_TOPIC.name,
        "auto-created (Describe and Create on the topic)",
    )


def test_topic_admin_apis(secure):
    controller = secure.controller()
    alice = lambda key, body, version=None: secure.request("alice", controller, key, body, version)  # noqa: E731
    new_topic = unique("made")
    create = {"topics": [{"name": new_topic, "num_partitions": 1, "replication_factor": 3}], "timeout_ms": 10000}
    existing = secure.create_topic("admin")
    partitions = {
        "topics": [{"name": existing, "count": 2, "assignments": None}],
        "timeout_ms": 10000,
        "validate_only": False,
    }
    delete = {"topic_names": [existing], "timeout_ms": 10000}
    assert errors_in(alice(19, create)) == {DENIED_TOPIC}
    assert errors_in(alice(37, partitions)) == {DENIED_TOPIC}
    assert errors_in(alice(20, delete)) == {DENIED_TOPIC}

    with Granted(secure, binding(Rt.TOPIC, new_topic, Op.CREATE)):
        created = alice(19, create)["topics"][0]
    # the topic is made; its configs stay hidden without DescribeConfigs on it, as in Kafka
    assert (created["error_code"], created["topic_config_error_code"]) == (Errors.NONE, DENIED_TOPIC)
    with Granted(secure, binding(Rt.TOPIC, existing, Op.ALTER)):
        assert errors_in(alice(37, partitions)) == {Errors.NONE}
    with Granted(secure, binding(Rt.TOPIC, existing, Op.DELETE)):
        assert errors_in(alice(20, delete)) == {Errors.NONE}
    # Create on the cluster covers any topic name
    other = unique("made")
    create["topics"][0]["name"] = other
    with Granted(secure, cluster_binding(Op.CREATE), binding(Rt.TOPIC, other, Op.DESCRIBE_CONFIGS)):
        assert errors_in(alice(19, create)) == {Errors.NONE}
    record(
        19,
        DENIED_TOPIC.name,
        "NONE (Create on the topic, or on the cluster; topic_config_error_code "
        "TOPIC_AUTHORIZATION_FAILED until DescribeConfigs)",
    )
    record(20, DENIED_TOPIC.name, "NONE (Delete)")
    record(37, DENIED_TOPIC.name, "NONE (Alter)")


def test_config_apis(secure):
    topic = secure.create_topic("configs")
    broker_id = secure.brokers[0].broker_id
    alice = lambda key, body: secure.request("alice", broker_id, key, body)  # noqa: E731
    resources = [
        (2, topic, DENIED_TOPIC, Rt.TOPIC, topic),
        (4, str(broker_id), DENIED_CLUSTER, Rt.CLUSTER, "kafka-cluster"),
    ]
    for resource_type, name, denied, acl_type, acl_name in resources:
        describe = {
            "resources": [{"resource_type": resource_type, "resource_name": name, "configuration_keys": None}],
            "include_synonyms": False,
        }
        alter = {
            "resources": [{"resource_type": resource_type, "resource_name": name, "configs": []}],
            "validate_only": True,
        }
        incremental = {
            "resources": [{"resource_type": resource_type, "resource_name": name, "configs": []}],
            "validate_only": True,
        }
        assert errors_in(alice(32, describe)) == {denied}
        assert errors_in(alice(33, alter)) == {denied}
        assert errors_in(alice(44, incremental)) == {denied}
        with Granted(secure, binding(acl_type, acl_name, Op.ALTER_CONFIGS)):
            # AlterConfigs implies DescribeConfigs
            described = alice(32, describe)
            assert errors_in(alice(33, alter)) == {Errors.NONE}
            assert errors_in(alice(44, incremental)) == {Errors.NONE}
        assert errors_in(described) == {Errors.NONE} and described["results"][0]["configs"]
        kind = "topic" if resource_type == 2 else "broker"
        record(32, "%s: %s" % (kind, denied.name), "%s: NONE, configs (AlterConfigs implies DescribeConfigs)" % kind)
        record(33, "%s: %s" % (kind, denied.name), "%s: NONE (AlterConfigs)" % kind)
        record(44, "%s: %s" % (kind, denied.name), "%s: NONE (AlterConfigs)" % kind)


def listed_groups(secure, user, broker_id):
    return {g["group_id"] for g in secure.request(user, broker_id, 16, {}, version=3)["groups"]}


def test_group_apis(secure):
    topic, group = secure.create_topic("grouped"), unique("group")
    coordinator = secure.coordinator(group)
    hidden = secure.create_topic("hidden")
    for committed_topic in (topic, hidden):
        assert errors_in(secure.request("admin", coordinator, 8, commit_body(group, committed_topic, 0))) == {
            Errors.NONE
        }
    alice = lambda key, body, version=None: secure.request("alice", coordinator, key, body, version)  # noqa: E731
    join = {
        "group_id": group,
        "session_timeout_ms": 10000,
        "rebalance_timeout_ms": 10000,
        "member_id": "",
        "group_instance_id": None,
        "protocol_type": "consumer",
        "protocols": [{"name": "range", "metadata": b""}],
    }
    member = {"group_id": group, "generation_id": 1, "member_id": "m", "group_instance_id": None}
    sync = dict(member, protocol_type="consumer", protocol_name="range", assignments=[])
    leave = {"group_id": group, "members": [{"member_id": "m", "group_instance_id": None}]}
    fetch = {"group_id": group, "topics": None, "require_stable": False}
    offset_delete = {"group_id": group, "topics": [{"name": topic, "partitions": [{"partition_index": 0}]}]}
    denied = {
        10: alice(10, {"key": group, "key_type": 0}),
        11: alice(11, join),
        12: alice(12, member),
        13: alice(13, leave),
        14: alice(14, sync),
        8: alice(8, commit_body(group, topic, 1)),
        9: alice(9, fetch),
        15: alice(15, {"groups": [group], "include_authorized_operations": True}),
        42: alice(42, {"groups_names": [group]}),
        47: alice(47, offset_delete),
    }
    for key, response in denied.items():
        assert errors_in(response) == {DENIED_GROUP}, (key, response)
    assert group not in listed_groups(secure, "alice", coordinator)

    with Granted(secure, binding(Rt.GROUP, group, Op.READ), binding(Rt.TOPIC, topic, Op.READ)):
        assert errors_in(alice(10, {"key": group, "key_type": 0})) == {Errors.NONE}
        assert errors_in(alice(11, join)) == {Errors.MEMBER_ID_REQUIRED}
        member_id = alice(11, join)["member_id"]  # the coordinator remembers the id it handed out
        joined = alice(11, dict(join, member_id=member_id))
        assert (joined["error_code"], joined["leader"]) == (Errors.NONE, member_id)
        member.update(member_id=member_id, generation_id=joined["generation_id"])
        synced = alice(14, dict(sync, **member, assignments=[{"member_id": member_id, "assignment": b"a"}]))
        assert (synced["error_code"], synced["assignment"]) == (Errors.NONE, b"a")
        assert errors_in(alice(12, member)) == {Errors.NONE}
        committed = alice(8, commit_body(group, topic, 1, member["generation_id"], member_id))
        assert errors_in(committed) == {Errors.NONE}
        fetched = alice(9, fetch)
        assert errors_in(fetched) == {Errors.NONE}
        assert fetched["topics"][0]["partitions"][0]["committed_offset"] == 1
        assert [t["name"] for t in alice(9, fetch)["topics"]] == [topic]  # the undescribable topic left out
        named = alice(9, dict(fetch, topics=[{"name": hidden, "partition_indexes": [0]}]))
        assert errors_in(named) == {DENIED_TOPIC}
        described = alice(15, {"groups": [group], "include_authorized_operations": True})["groups"][0]
        assert (described["error_code"], described["group_state"]) == (Errors.NONE, "Stable")
        assert group in listed_groups(secure, "alice", coordinator)  # Read implies Describe
        leave["members"][0]["member_id"] = member_id
        assert errors_in(alice(13, leave)) == {Errors.NONE}
        # deletions need Delete on the group as well
        assert errors_in(alice(47, offset_delete)) == {DENIED_GROUP}
        with Granted(secure, binding(Rt.GROUP, group, Op.DELETE)):
            assert errors_in(alice(47, offset_delete)) == {Errors.NONE}
            # the last offset gone, the empty group went with it: commit one so there is a group to delete
            assert errors_in(alice(8, commit_body(group, topic, 1))) == {Errors.NONE}
            assert errors_in(alice(42, {"groups_names": [group]})) == {Errors.NONE}
    for key, allowed in (
        (10, "NONE, coordinator (Describe, implied by Read)"),
        (11, "MEMBER_ID_REQUIRED then NONE, leader (Read)"),
        (14, "NONE, assignment (Read)"),
        (12, "NONE (Read)"),
        (8, "NONE (Read on group and topic)"),
        (
            9,
            "NONE, committed offset (Describe on group, implied by Read); undescribable topics "
            "left out of all offsets, TOPIC_AUTHORIZATION_FAILED when named",
        ),
        (15, "NONE, Stable (Describe, implied by Read)"),
        (13, "NONE (Read)"),
        (47, "NONE (Delete on group, Read on topic)"),
        (42, "NONE (Delete)"),
    ):
        record(key, "group: " + DENIED_GROUP.name, allowed)

    other = unique("other-group")
    assert errors_in(secure.request("admin", secure.coordinator(other), 8, commit_body(other, topic, 0))) == {
        Errors.NONE
    }
    assert other not in listed_groups(secure, "alice", secure.coordinator(other))
    with Granted(secure, cluster_binding(Op.DESCRIBE)):
        assert other in listed_groups(secure, "alice", secure.coordinator(other))
    record(
        16,
        "NONE, undescribable groups left out (filtered)",
        "NONE, the group listed (Describe on it, or on the cluster for every group)",
    )


def test_transaction_apis(secure):
    topic, group, txn_id = secure.create_topic("txn"), unique("txn-group"), unique("txn-id")
    coordinator = secure.coordinator(txn_id, key_type=1)
    group_coordinator = secure.coordinator(group)
    alice = lambda key, body, broker=coordinator: secure.request("alice", broker, key, body)  # noqa: E731
    init = {"transactional_id": txn_id, "transaction_timeout_ms": 60000, "producer_id": -1, "producer_epoch": -1}
    add_partitions = txn_body(txn_id, 1, 0, topics=[{"name": topic, "partitions": [0]}])
    add_offsets = txn_body(txn_id, 1, 0, group_id=group)
    offset_commit = txn_body(
        txn_id,
        1,
        0,
        group_id=group,
        generation_id=-1,
        member_id="",
        group_instance_id=None,
        topics=[
            {
                "name": topic,
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": 0,
                        "committed_leader_epoch": -1,
                        "committed_metadata": "",
                    }
                ],
            }
        ],
    )
    end = txn_body(txn_id, 1, 0, committed=True)
    assert errors_in(alice(10, {"key": txn_id, "key_type": 1})) == {DENIED_TXN}
    for key, body in ((22, init), (24, add_partitions), (25, add_offsets), (26, end)):
        assert errors_in(alice(key, body)) == {DENIED_TXN}, key
    assert errors_in(alice(28, offset_commit, group_coordinator)) == {DENIED_TXN}

    with Granted(secure, binding(Rt.TRANSACTIONAL_ID, txn_id, Op.WRITE)):
        assert errors_in(alice(10, {"key": txn_id, "key_type": 1})) == {Errors.NONE}
        initialized = alice(22, init)
        assert initialized["error_code"] == Errors.NONE
        pid, epoch = initialized["producer_id"], initialized["producer_epoch"]
        for body in (add_partitions, add_offsets, offset_commit, end):
            body.update(producer_id=pid, producer_epoch=epoch)
        # the topic and the group are checked next
        assert errors_in(alice(24, add_partitions)) == {DENIED_TOPIC}
        assert errors_in(alice(25, add_offsets)) == {DENIED_GROUP}
        with Granted(secure, binding(Rt.TOPIC, topic, Op.WRITE), binding(Rt.GROUP, group, Op.READ)):
            assert errors_in(alice(24, add_partitions)) == {Errors.NONE}
            assert errors_in(
                secure.request(
                    "alice",
                    secure.leader(topic),
                    0,
                    produce_body(
                        topic,
                        0,
                        batch(b"in-txn", producer_id=pid, producer_epoch=epoch, base_sequence=0, is_transactional=True),
                        acks=-1,
                        transactional_id=txn_id,
                    ),
                )
            ) == {Errors.NONE}
            assert errors_in(alice(25, add_offsets)) == {Errors.NONE}
            assert errors_in(alice(28, offset_commit, group_coordinator)) == {DENIED_TOPIC}
            with Granted(secure, binding(Rt.TOPIC, topic, Op.READ)):
                assert errors_in(alice(28, offset_commit, group_coordinator)) == {Errors.NONE}
            assert errors_in(alice(26, end)) == {Errors.NONE}
    record(10, "transactional id: " + DENIED_TXN.name, "NONE (Describe, implied by Write)")
    record(22, "transactional: " + DENIED_TXN.name, "NONE, producer id (Write on the transactional id)")
    record(24, DENIED_TXN.name + ", then " + DENIED_TOPIC.name, "NONE (Write on transactional id and topic)")
    record(25, DENIED_TXN.name + ", then " + DENIED_GROUP.name, "NONE (Write on transactional id, Read on group)")
    record(26, DENIED_TXN.name, "NONE, committed (Write on the transactional id)")
    record(
        28, DENIED_TXN.name + ", then " + DENIED_TOPIC.name, "NONE (Write on transactional id, Read on group and topic)"
    )

    idempotent = {"transactional_id": None, "transaction_timeout_ms": 60000, "producer_id": -1, "producer_epoch": -1}
    assert errors_in(alice(22, idempotent)) == {DENIED_CLUSTER}
    with Granted(secure, cluster_binding(Op.IDEMPOTENT_WRITE)):
        assert errors_in(alice(22, idempotent)) == {Errors.NONE}
    record(22, "idempotent: " + DENIED_CLUSTER.name, "NONE, producer id (IdempotentWrite on the cluster)")


def test_cluster_apis(secure):
    topic = secure.create_topic("cluster")
    leader = secure.leader(topic)
    log_dir = str(secure.broker(leader).log_dir)
    alice = lambda key, body, broker=leader: secure.request("alice", broker, key, body)  # noqa: E731
    controller = secure.controller()
    acl = {
        "resource_type": 2,
        "resource_name": unique("acl-topic"),
        "resource_pattern_type": 3,
        "principal": "User:bob",
        "host": "*",
        "operation": 3,
        "permission_type": 3,
    }
    calls = {
        34: lambda: alice(34, {"dirs": [{"path": log_dir, "topics": [{"name": topic, "partitions": [0]}]}]}),
        43: lambda: alice(
            43,
            {"election_type": 0, "topic_partitions": [{"topic": topic, "partition_id": [0]}], "timeout_ms": 10000},
            controller,
        ),
        45: lambda: alice(
            45,
            {
                "timeout_ms": 10000,
                "topics": [{"name": topic, "partitions": [{"partition_index": 0, "replicas": None}]}],
            },
            controller,
        ),
        46: lambda: alice(46, {"timeout_ms": 10000, "topics": None}, controller),
        29: lambda: alice(29, acl_filter(principal_filter="User:bob")),
        30: lambda: alice(30, {"creations": [acl]}),
        31: lambda: alice(31, {"filters": [acl_filter(resource_name_filter=acl["resource_name"])]}),
    }
    for key, call in calls.items():
        assert errors_in(call()) == {DENIED_CLUSTER}, key
    assert alice(35, {"topics": None})["results"] == []

    with Granted(secure, cluster_binding(Op.ALTER)):
        assert errors_in(calls[34]()) == {Errors.NONE}
        assert errors_in(calls[43]()) == {Errors.ELECTION_NOT_NEEDED}
        assert errors_in(calls[45]()) == {Errors.NO_REASSIGNMENT_IN_PROGRESS}
        assert errors_in(calls[30]()) == {Errors.NONE}
        deleted = calls[31]()
        assert errors_in(deleted) == {Errors.NONE} and len(deleted["filter_results"][0]["matching_acls"]) == 1
        assert errors_in(calls[29]()) == {Errors.NONE}  # Alter implies Describe
    with Granted(secure, cluster_binding(Op.DESCRIBE)):
        assert errors_in(calls[46]()) == {Errors.NONE}
        described = alice(35, {"topics": None})["results"]
        assert errors_in(calls[29]()) == {Errors.NONE}
    assert [(r["error_code"], r["log_dir"]) for r in described] == [(Errors.NONE, log_dir)]
    record(34, DENIED_CLUSTER.name + " (each partition)", "NONE (Alter on the cluster)")
    record(35, "NONE, no log dirs (filtered)", "NONE, the broker's log dir (Describe on the cluster)")
    record(43, DENIED_CLUSTER.name, "ELECTION_NOT_NEEDED: the preferred leader leads (Alter on the cluster)")
    record(45, DENIED_CLUSTER.name, "NO_REASSIGNMENT_IN_PROGRESS for a cancellation (Alter on the cluster)")
    record(46, DENIED_CLUSTER.name, "NONE (Describe on the cluster)")
    record(29, DENIED_CLUSTER.name, "NONE (Describe on the cluster, or implied by Alter)")
    record(30, DENIED_CLUSTER.name, "NONE, ACL created (Alter on the cluster)")
    record(31, DENIED_CLUSTER.name, "NONE, 1 ACL deleted (Alter on the cluster)")


def test_inter_broker_apis_need_cluster_action(secure):
    topic = secure.create_topic("inter")
    leader, isr, replicas = secure.partition_state(topic, secure.brokers[0].broker_id)
    follower = next(r for r in replicas if r != leader)
    controller = secure.controller()
    alice = lambda key, body, broker: secure.request("alice", broker, key, body)  # noqa: E731
    requests = stale_control_requests(topic, follower, replicas, controller)
    markers = {
        "markers": [
            {
                "producer_id": 4242,
                "producer_epoch": 0,
                "transaction_result": False,
                "topics": [{"name": unique("absent"), "partition_indexes": [0]}],
                "coordinator_epoch": 0,
            }
        ]
    }
    shutdown = {"broker_id": follower, "broker_epoch": 0}
    for key, body in requests.items():
        assert errors_in(alice(key, body, follower)) == {DENIED_CLUSTER}, key
    assert errors_in(alice(27, markers, leader)) == {DENIED_CLUSTER}
    assert errors_in(alice(7, shutdown, controller)) == {DENIED_CLUSTER}
    # Kafka 2.5 answers a follower's fetch without ClusterAction per partition with TOPIC_AUTHORIZATION_FAILED
    assert errors_in(alice(1, fetch_body(topic, replica_id=follower), leader)) == {DENIED_TOPIC}

    with Granted(secure, cluster_binding(Op.CLUSTER_ACTION)):
        for key, body in requests.items():
            assert errors_in(alice(key, body, follower)) == {Errors.STALE_CONTROLLER_EPOCH}, key
        assert errors_in(alice(27, markers, leader)) == {Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert errors_in(alice(7, shutdown, controller)) == {Errors.STALE_BROKER_EPOCH}
        assert errors_in(alice(1, fetch_body(topic, replica_id=follower), leader)) == {Errors.NONE}
    assert secure.partition_state(topic, follower) == (leader, isr, replicas)
    for key in (4, 5, 6):
        record(key, DENIED_CLUSTER.name, "STALE_CONTROLLER_EPOCH: past authorization, fenced (ClusterAction)")
    record(
        27, DENIED_CLUSTER.name + " (each partition)", "UNKNOWN_TOPIC_OR_PARTITION for an absent topic (ClusterAction)"
    )
    record(7, DENIED_CLUSTER.name, "STALE_BROKER_EPOCH for epoch 0 (ClusterAction)")
    record(1, "follower (replica_id>=0): %s, as Kafka 2.5" % DENIED_TOPIC.name, "follower: NONE (ClusterAction)")


def test_delegation_token_apis(secure):
    broker_id = secure.brokers[0].broker_id
    admin = lambda key, body: secure.request("admin", broker_id, key, body)  # noqa: E731
    alice = lambda key, body: secure.request("alice", broker_id, key, body)  # noqa: E731
    mine = alice(38, {"renewers": [], "max_lifetime_ms": -1})
    assert mine["error_code"] == Errors.NONE and mine["principal_name"] == "alice"
    theirs = admin(38, {"renewers": [], "max_lifetime_ms": -1})
    renewable = admin(38, {"renewers": [{"principal_type": "User", "principal_name": "alice"}], "max_lifetime_ms": -1})
    visible = lambda: {t["token_id"] for t in alice(41, {"owners": None})["tokens"]}  # noqa: E731
    assert mine["token_id"] in visible() and theirs["token_id"] not in visible()
    assert errors_in(alice(39, {"hmac": theirs["hmac"], "renew_period_ms": -1})) == {
        Errors.DELEGATION_TOKEN_OWNER_MISMATCH
    }
    assert errors_in(alice(40, {"hmac": theirs["hmac"], "expiry_time_period_ms": -1})) == {
        Errors.DELEGATION_TOKEN_OWNER_MISMATCH
    }
    with Granted(secure, binding(Rt.DELEGATION_TOKEN, theirs["token_id"], Op.DESCRIBE)):
        assert theirs["token_id"] in visible()
    assert errors_in(alice(39, {"hmac": renewable["hmac"], "renew_period_ms": -1})) == {Errors.NONE}
    assert errors_in(alice(40, {"hmac": renewable["hmac"], "expiry_time_period_ms": -1})) == {Errors.NONE}
    record(38, "no ACL in Kafka 2.5: any SASL principal creates tokens it owns", "NONE, owner User:alice")
    record(39, "another's token: DELEGATION_TOKEN_OWNER_MISMATCH", "NONE as a named renewer (no ACL in Kafka)")
    record(40, "another's token: DELEGATION_TOKEN_OWNER_MISMATCH", "NONE as a named renewer (no ACL in Kafka)")
    record(41, "NONE, another's token left out (filtered)", "NONE, the token listed (Describe on DelegationToken)")


def test_every_served_api_is_in_the_matrix(secure):
    broker_id = secure.brokers[0].broker_id
    served = set(secure.connection("alice", broker_id).broker_versions())
    software = {"client_software_name": "authorization-matrix", "client_software_version": "1"}
    versions = secure.request("alice", broker_id, 18, software, version=3)
    assert versions["error_code"] == Errors.NONE
    record(18, "no ACL in Kafka (served before and after login)", "NONE, %d API keys" % len(served))
    record(17, "no ACL in Kafka (the login itself)", "NONE: alice's PLAIN handshake")
    record(36, "no ACL in Kafka (the login itself)", "NONE: alice's PLAIN authentication")
    assert served == set(API_SPECS)
    assert set(MATRIX) == served, "not covered: %s" % sorted(served - set(MATRIX))


# -- real clients ----------------------------------------------------------------------------------------------


def confluent_config(secure, user="alice", **extra):
    credentials = login(user)
    return dict(
        {
            "bootstrap.servers": secure.cluster.bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": user,
            "sasl.password": credentials["sasl.password"],
        },
        **extra,
    )


def confluent_produce(secure, topic, **extra):
    """The error of producing one message: a fatal one (the producer's error_cb), else its delivery report's
    (None once delivered)."""
    import confluent_kafka

    reports, errors = [], []
    producer = confluent_kafka.Producer(
        confluent_config(
            secure, **dict({"message.timeout.ms": 10000, "error_cb": lambda error: errors.append(error)}, **extra)
        )
    )
    producer.produce(topic, b"value", on_delivery=lambda error, _: reports.append(error))

    def answered():
        try:
            producer.poll(0.2)
        except confluent_kafka.KafkaException as raised:  # librdkafka raises a fatal error from poll
            errors.append(raised.args[0])
        except SystemError as raised:  # ... or raises it while the delivery callback runs
            errors.append(raised.__cause__.args[0])
        return reports or any(error.fatal() for error in errors)

    wait_for(answered, timeout=20, message="a delivery report or a fatal error")
    fatal = [error for error in errors if error.fatal()]
    return fatal[0] if fatal else reports[0]


def test_confluent_kafka_sees_the_authorization_errors(secure):
    import confluent_kafka
    from confluent_kafka import KafkaError, KafkaException

    topic, group, txn_id = secure.create_topic("ck"), unique("ck-group"), unique("ck-txn")
    assert confluent_produce(secure, topic).code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    with Granted(secure, binding(Rt.TOPIC, topic, Op.WRITE)):
        assert confluent_produce(secure, topic) is None
        idempotent = confluent_produce(secure, topic, **{"enable.idempotence": True})
        assert idempotent.code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED, idempotent
        with Granted(secure, cluster_binding(Op.IDEMPOTENT_WRITE)):
            assert confluent_produce(secure, topic, **{"enable.idempotence": True}) is None

        producer = confluent_kafka.Producer(confluent_config(secure, **{"transactional.id": txn_id}))
        with pytest.raises(KafkaException) as raised:
            producer.init_transactions(15)
        assert raised.value.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        with Granted(secure, binding(Rt.TRANSACTIONAL_ID, txn_id, Op.WRITE)):
            producer = confluent_kafka.Producer(confluent_config(secure, **{"transactional.id": txn_id}))
            producer.init_transactions(15)
            producer.begin_transaction()
            producer.produce(topic, b"in-txn")
            producer.commit_transaction(15)

    with Granted(secure, binding(Rt.TOPIC, topic, Op.READ)):
        consumer = confluent_kafka.Consumer(
            confluent_config(secure, **{"group.id": group, "auto.offset.reset": "earliest"})
        )
        consumer.subscribe([topic])
        try:
            message = wait_for(lambda: consumer.poll(0.5), message="an answer to the consumer")
            assert message.error().code() == KafkaError.GROUP_AUTHORIZATION_FAILED
        finally:
            consumer.close()
        with Granted(secure, binding(Rt.GROUP, group, Op.READ)):
            consumer = confluent_kafka.Consumer(
                confluent_config(secure, **{"group.id": group, "auto.offset.reset": "earliest"})
            )
            consumer.subscribe([topic])
            try:
                message = wait_for(lambda: consumer.poll(0.5), message="a record")
                assert message.error() is None and message.value() in (b"value", b"in-txn")
            finally:
                consumer.close()


def test_kafka_python_sees_the_authorization_errors(secure):
    import kafka
    from kafka.errors import GroupAuthorizationFailedError, TopicAuthorizationFailedError

    topic, group = secure.create_topic("kp"), unique("kp-group")
    common = dict(
        bootstrap_servers=secure.cluster.bootstrap_servers,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_plain_username="alice",
        sasl_plain_password="alice-secret",
    )
    with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE)):
        producer = kafka.KafkaProducer(acks="all", enable_idempotence=False, **common)
        try:
            with pytest.raises(TopicAuthorizationFailedError):
                producer.send(topic, b"refused").get(timeout=15)
        finally:
            producer.close()
    with Granted(secure, binding(Rt.TOPIC, topic, Op.WRITE), binding(Rt.TOPIC, topic, Op.READ)):
        producer = kafka.KafkaProducer(acks="all", enable_idempotence=True, **common)
        try:
            with pytest.raises(kafka.errors.KafkaError, match="ClusterAuthorizationFailed"):
                producer.send(topic, b"refused").get(timeout=15)
        finally:
            producer.close()
        producer = kafka.KafkaProducer(acks="all", enable_idempotence=False, **common)
        producer.send(topic, b"kept").get(timeout=15)
        producer.close()
        consumer = kafka.KafkaConsumer(topic, group_id=group, auto_offset_reset="earliest", **common)
        try:
            with pytest.raises(GroupAuthorizationFailedError):
                wait_for(lambda: consumer.poll(500), timeout=15, message="a group error")
        finally:
            consumer.close()
        with Granted(secure, binding(Rt.GROUP, group, Op.READ)):
            consumer = kafka.KafkaConsumer(topic, group_id=group, auto_offset_reset="earliest", **common)
            try:
                records = wait_for(lambda: consumer.poll(500), message="kafka-python consume")
                assert [r.value for batch in records.values() for r in batch] == [b"kept"]
            finally:
                consumer.close()


# -- 2. the rules ----------------------------------------------------------------------------------------------


def describable(secure, user, topic, broker_id=None):
    broker_id = secure.brokers[0].broker_id if broker_id is None else broker_id
    return topic_metadata(secure, user, broker_id, [topic])[topic] == Errors.NONE


def readable(secure, user, topic):
    return errors_in(secure.request(user, secure.leader(topic), 1, fetch_body(topic))) == {Errors.NONE}


def test_deny_wins_over_allow(secure):
    topic = secure.create_topic("deny")
    allow = binding(Rt.TOPIC, topic, Op.READ)
    with Granted(secure, allow):
        assert readable(secure, "alice", topic)
        with Granted(secure, binding(Rt.TOPIC, topic, Op.READ, permission=PermissionType.DENY)):
            assert not readable(secure, "alice", topic)
        # a Deny of Describe removes the Describe that Read implied, not Read itself (a Deny matches its own
        # operation or All, as in Kafka); a wildcard-principal Deny covers alice
        with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE, permission=PermissionType.DENY)):
            assert not describable(secure, "alice", topic) and readable(secure, "alice", topic)
        with Granted(secure, binding(Rt.TOPIC, "*", Op.ALL, principal="User:*", permission=PermissionType.DENY)):
            assert not readable(secure, "alice", topic)
        assert readable(secure, "alice", topic)


def test_literal_prefixed_and_wildcard_patterns(secure):
    prefix = unique("pfx") + "-"
    inside, outside = secure.create_topic(prefix + "in"), secure.create_topic("outside")
    with Granted(secure, binding(Rt.TOPIC, inside, Op.DESCRIBE)):
        assert describable(secure, "alice", inside) and not describable(secure, "alice", outside)
    with Granted(secure, binding(Rt.TOPIC, prefix, Op.DESCRIBE, pattern=PatternType.PREFIXED)):
        assert describable(secure, "alice", inside) and not describable(secure, "alice", outside)
        assert not describable(secure, "alice", prefix[:-1])
    with Granted(secure, binding(Rt.TOPIC, "*", Op.DESCRIBE)):
        assert describable(secure, "alice", inside) and describable(secure, "alice", outside)
        with Granted(
            secure, binding(Rt.TOPIC, prefix, Op.DESCRIBE, permission=PermissionType.DENY, pattern=PatternType.PREFIXED)
        ):
            assert not describable(secure, "alice", inside) and describable(secure, "alice", outside)


def test_wildcard_principal_and_hosts(secure):
    topic = secure.create_topic("who")
    assert not describable(secure, "alice", topic) and not describable(secure, "bob", topic)
    with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE, principal="User:*")):
        assert describable(secure, "alice", topic) and describable(secure, "bob", topic)
    # our clients connect from 127.0.0.1
    with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE, host="10.9.9.9")):
        assert not describable(secure, "alice", topic)
    with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE, host="127.0.0.1")):
        assert describable(secure, "alice", topic)
        with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE, host="10.9.9.9", permission=PermissionType.DENY)):
            assert describable(secure, "alice", topic)
        with Granted(secure, binding(Rt.TOPIC, topic, Op.DESCRIBE, host="127.0.0.1", permission=PermissionType.DENY)):
            assert not describable(secure, "alice", topic)


def test_super_users_pass_every_check_even_a_deny(secure):
    topic = secure.create_topic("super")
    leader = secure.leader(topic)
    with Granted(
        secure,
        binding(Rt.TOPIC, topic, Op.ALL, principal="User:admin", permission=PermissionType.DENY),
        binding(Rt.CLUSTER, "kafka-cluster", Op.ALL, principal="User:admin", permission=PermissionType.DENY),
    ):
        assert errors_in(secure.request("admin", leader, 0, produce_body(topic, 0, batch(b"x"), acks=-1))) == {
            Errors.NONE
        }
        assert errors_in(secure.request("admin", leader, 1, fetch_body(topic))) == {Errors.NONE}
        assert errors_in(secure.request("admin", leader, 29, acl_filter())) == {Errors.NONE}
        assert errors_in(secure.request("bob", leader, 0, produce_body(topic, 0, batch(b"x"), acks=-1))) == {
            DENIED_TOPIC
        }


@pytest.mark.parametrize(
    "operation, implied, not_implied",
    [
        (Op.READ, Op.DESCRIBE, Op.WRITE),
        (Op.WRITE, Op.DESCRIBE, Op.READ),
        (Op.DELETE, Op.DESCRIBE, Op.READ),
        (Op.ALTER, Op.DESCRIBE, Op.WRITE),
        (Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS, Op.DESCRIBE),
        (Op.ALL, Op.DESCRIBE_CONFIGS, None),
        (Op.DESCRIBE, None, Op.READ),
    ],
)
def test_implied_operations(secure, operation, implied, not_implied):
    topic = secure.create_topic("implied")
    leader = secure.leader(topic)

    def allowed(op):
        if op == Op.DESCRIBE:
            return describable(secure, "alice", topic)
        if op == Op.READ:
            return readable(secure, "alice", topic)
        if op == Op.WRITE:
            produced = secure.request("alice", leader, 0, produce_body(topic, 0, batch(b"x"), acks=-1))
            return errors_in(produced) == {Errors.NONE}
        assert op == Op.DESCRIBE_CONFIGS
        return errors_in(
            secure.request(
                "alice",
                leader,
                32,
                {"resources": [{"resource_type": 2, "resource_name": topic, "configuration_keys": None}]},
            )
        ) == {Errors.NONE}

    with Granted(secure, binding(Rt.TOPIC, topic, operation)):
        assert implied is None or allowed(implied)
        assert not_implied is None or not allowed(not_implied)


# -- 3. propagation --------------------------------------------------------------------------------------------


def seconds_until_everywhere(secure, topic, since_ms):
    """Poll alice's Describe of ``topic`` on every broker; seconds from ``since_ms`` until all allow it."""
    pending = {b.broker_id for b in secure.brokers}
    deadline = time.monotonic() + 5
    while pending and time.monotonic() < deadline:
        pending = {b for b in pending if not describable(secure, "alice", topic, b)}
    assert not pending, "brokers %s never applied the ACL" % sorted(pending)
    return time.time() - since_ms / 1000.0


def test_an_acl_created_through_one_broker_holds_on_every_broker_within_a_second(secure):
    topic = secure.create_topic("spread")
    assert not any(describable(secure, "alice", topic, b.broker_id) for b in secure.brokers)
    acl = binding(Rt.TOPIC, topic, Op.DESCRIBE)
    assert secure.admin.create_acls([acl], node_id=secure.brokers[-1].broker_id) == [(Errors.NONE, None)]
    elapsed = seconds_until_everywhere(secure, topic, latest_change_ms(secure.cluster.zk_connect))
    print("\nCreateAcls through one broker: on every broker %.3f s after its ZooKeeper change" % elapsed)
    assert elapsed < 1.0
    secure.revoke(acl)


def test_an_acl_written_to_zookeeper_holds_on_every_broker_within_a_second(secure):
    topic = secure.create_topic("from-zk")
    assert not any(describable(secure, "alice", topic, b.broker_id) for b in secure.brokers)
    written = subprocess.run(
        [
            str(ROOT / "scripts" / "kafka-acls.sh"),
            "--authorizer-properties",
            "zookeeper.connect=" + secure.cluster.zk_connect,
            "--add",
            "--allow-principal",
            "User:alice",
            "--operation",
            "Describe",
            "--topic",
            topic,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")),
    )
    assert written.returncode == 0, written.stdout + written.stderr
    elapsed = seconds_until_everywhere(secure, topic, latest_change_ms(secure.cluster.zk_connect))
    print("\nkafka-acls straight to ZooKeeper: on every broker %.3f s after its ZooKeeper change" % elapsed)
    assert elapsed < 1.0
    secure.revoke(binding(Rt.TOPIC, topic, Op.DESCRIBE))


# -- 4. forged inter-broker requests ---------------------------------------------------------------------------


def cluster_view(secure, topic):
    return {b.broker_id: secure.partition_state(topic, b.broker_id) for b in secure.brokers}


def test_forged_inter_broker_requests_are_refused_and_change_nothing(secure):
    topic = secure.create_topic("forged", configs={"min.insync.replicas": "2"})
    leader, isr, replicas = secure.partition_state(topic, secure.brokers[0].broker_id)
    follower = next(r for r in replicas if r != leader)
    controller = secure.controller()
    assert errors_in(secure.request("admin", leader, 0, produce_body(topic, 0, batch(b"a", b"b", b"c"), acks=-1))) == {
        Errors.NONE
    }
    before = cluster_view(secure, topic)
    assert set(before.values()) == {(leader, isr, replicas)} and len(isr) == 3
    alice = lambda key, body, broker: secure.request("alice", broker, key, body)  # noqa: E731

    # the forgeries carry a future controller epoch: accepted, they would also fence the real controller out
    takeover = {
        "partition_index": 0,
        "controller_epoch": 999,
        "leader": follower,
        "leader_epoch": 999,
        "isr": [follower],
        "zk_version": 999,
        "replicas": list(replicas),
        "offline_replicas": [],
        "is_new": False,
    }
    forged = [
        (
            "LeaderAndIsr",
            4,
            follower,
            {
                "controller_id": follower,
                "controller_epoch": 999,
                "broker_epoch": -1,
                "topic_states": [{"topic_name": topic, "partition_states": [takeover]}],
                "live_leaders": [],
            },
        ),
        (
            "LeaderAndIsr",
            4,
            leader,
            {
                "controller_id": follower,
                "controller_epoch": 999,
                "broker_epoch": -1,
                "topic_states": [{"topic_name": topic, "partition_states": [takeover]}],
                "live_leaders": [],
            },
        ),
        (
            "UpdateMetadata",
            6,
            leader,
            {
                "controller_id": follower,
                "controller_epoch": 999,
                "broker_epoch": -1,
                "topic_states": [{"topic_name": topic, "partition_states": [takeover]}],
                "live_brokers": [],
            },
        ),
        (
            "StopReplica",
            5,
            leader,
            {
                "controller_id": follower,
                "controller_epoch": 999,
                "broker_epoch": -1,
                "delete_partitions": True,
                "topics": [{"name": topic, "partition_indexes": [0]}],
            },
        ),
        (
            "WriteTxnMarkers",
            27,
            leader,
            {
                "markers": [
                    {
                        "producer_id": 4242,
                        "producer_epoch": 0,
                        "transaction_result": False,
                        "coordinator_epoch": 999,
                        "topics": [{"name": topic, "partition_indexes": [0]}],
                    }
                ]
            },
        ),
        (
            "ControlledShutdown",
            7,
            controller,
            {"broker_id": leader, "broker_epoch": broker_epoch(secure.cluster.zk_connect, leader)},
        ),
    ]
    for name, key, target, body in forged:
        assert errors_in(alice(key, body, target)) == {DENIED_CLUSTER}, name
    follower_fetch = alice(1, fetch_body(topic, replica_id=follower), leader)
    assert errors_in(follower_fetch) == {DENIED_TOPIC} and fetched_values(follower_fetch) == []

    # nothing changed: every broker's view, the data, the leader's service, the controller's own requests
    assert cluster_view(secure, topic) == before
    assert secure.controller() == controller
    assert secure.broker(leader).is_running()
    assert fetched_values(secure.request("admin", leader, 1, fetch_body(topic))) == [b"a", b"b", b"c"]
    listed = secure.request(
        "admin",
        leader,
        2,
        {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [
                {"name": topic, "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]}
            ],
        },
    )
    assert listed["topics"][0]["partitions"][0]["offset"] == 3  # no marker appended
    assert errors_in(secure.request("admin", leader, 0, produce_body(topic, 0, batch(b"d"), acks=-1))) == {Errors.NONE}
    after = secure.create_topic("after-forgery")  # the real controller's LeaderAndIsr/UpdateMetadata still apply
    produced = secure.request("admin", secure.leader(after), 0, produce_body(after, 0, batch(b"x"), acks=-1))
    assert errors_in(produced) == {Errors.NONE}
    assert cluster_view(secure, topic) == before


# -- allow.everyone.if.no.acl.found=true -----------------------------------------------------------------------


def test_allow_everyone_if_no_acl_found(tmp_path, zookeeper_server):
    cluster = start_secure_cluster(
        tmp_path / "open",
        zookeeper_server,
        brokers=1,
        **{
            "allow.everyone.if.no.acl.found": "true",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
        },
    )
    secure = AuthorizationCluster(cluster)
    try:
        topic = secure.create_topic("open", replication=1)
        broker_id = cluster.brokers[0].broker_id

        def produce(user):
            return errors_in(secure.request(user, broker_id, 0, produce_body(topic, 0, batch(b"x"), acks=-1)))

        assert produce("alice") == {Errors.NONE} and describable(secure, "alice", topic)
        # once any ACL names the resource, only what the ACLs allow is allowed
        secure.grant(binding(Rt.TOPIC, topic, Op.WRITE, principal="User:bob"))
        assert produce("alice") == {DENIED_TOPIC} and produce("bob") == {Errors.NONE}
        assert not describable(secure, "alice", topic)
        # a resource without ACLs stays open, whatever other resources have
        assert errors_in(secure.request("alice", broker_id, 29, acl_filter())) == {Errors.NONE}
    finally:
        secure.close()
        cluster.stop()
