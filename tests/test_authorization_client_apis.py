"""Client APIs ask what Kafka 2.5's KafkaApis asks, per resource: Write / Read / Describe on topics, Read /
Describe / Delete on groups, Write / Describe on transactional ids, IdempotentWrite and Create on the cluster;
without the grant they answer Kafka's error and nothing is done, with it they go through."""

from types import SimpleNamespace

import pytest
from twisted.internet import defer, task

from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_response, encode_response
from kafka_zk.record.records import encode_batch
from kafka_zk.security.authorizer import AclOperation as Op
from kafka_zk.security.authorizer import ResourceType as Rt
from kafka_zk.server.apis import (
    add_offsets_to_txn,
    add_partitions_to_txn,
    create_partitions,
    create_topics,
    delete_groups,
    delete_records,
    delete_topics,
    describe_groups,
    end_txn,
    find_coordinator,
    heartbeat,
    init_producer_id,
    join_group,
    leave_group,
    list_groups,
    list_offsets,
    offset_commit,
    offset_delete,
    offset_fetch,
    produce,
    sync_group,
    txn_offset_commit,
)
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from tests.authorization_support import GrantedAuthorizer, Spy, cluster, grant, request, result_of

NOTHING = GrantedAuthorizer()
TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED
GROUP_DENIED = Errors.GROUP_AUTHORIZATION_FAILED
TXN_DENIED = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


# -- Produce ----------------------------------------------------------------------------------------------------

PLAIN = encode_batch([(b"k", b"v", (), 0)])
IDEMPOTENT = encode_batch([(b"k", b"v", (), 0)], producer_id=5, producer_epoch=0, base_sequence=0)
TRANSACTIONAL = encode_batch(
    [(b"k", b"v", (), 0)], producer_id=5, producer_epoch=0, base_sequence=0, is_transactional=True
)


def _produce(authorizer, records, topics=("t",), transactional_id=None):
    appended = []

    def append(timeout, acks, entries):
        appended.extend(entries)
        return defer.succeed(
            {
                tp: SimpleNamespace(
                    error=Errors.NONE,
                    base_offset=0,
                    log_append_time=-1,
                    log_start_offset=0,
                    message=None,
                    record_errors=(),
                )
                for tp in entries
            }
        )

    body = {
        "transactional_id": transactional_id,
        "acks": -1,
        "timeout_ms": 100,
        "topics": [{"name": topic, "partitions": [{"partition_index": 0, "records": records}]} for topic in topics],
    }
    answer = result_of(
        produce.handle(
            request(0, 8, body),
            metadata_cache=Spy(contains_topic=lambda topic: True),
            replica_manager=Spy(append_records_or_defer=append),
            produce_quotas=ClientQuotaManager("producer_byte_rate"),
            clock=task.Clock(),
            authorizer=authorizer,
        )
    )
    return {t["name"]: t["partitions"][0]["error_code"] for t in answer["responses"]}, appended


def test_produce_needs_write_on_each_topic():
    errors, appended = _produce(GrantedAuthorizer(grant(Op.WRITE, Rt.TOPIC, "t")), PLAIN, ("t", "secret"))
    assert errors == {"t": Errors.NONE, "secret": TOPIC_DENIED} and appended == [("t", 0)]
    assert _produce(None, PLAIN, ("t", "secret"))[0] == {"t": Errors.NONE, "secret": Errors.NONE}


def test_idempotent_produce_needs_idempotent_write_on_the_cluster():
    write = grant(Op.WRITE, Rt.TOPIC, "t")
    assert _produce(GrantedAuthorizer(write), IDEMPOTENT) == ({"t": Errors.CLUSTER_AUTHORIZATION_FAILED}, [])
    assert _produce(GrantedAuthorizer(write, cluster(Op.IDEMPOTENT_WRITE)), IDEMPOTENT)[0] == {"t": Errors.NONE}


def test_transactional_produce_needs_write_on_the_transactional_id():
    write = grant(Op.WRITE, Rt.TOPIC, "t")
    assert _produce(GrantedAuthorizer(write, cluster(Op.IDEMPOTENT_WRITE)), TRANSACTIONAL, transactional_id="tx") == (
        {"t": TXN_DENIED},
        [],
    )
    assert _produce(None, TRANSACTIONAL) == ({"t": TXN_DENIED}, [])  # no transactional id at all
    allowed = GrantedAuthorizer(write, grant(Op.WRITE, Rt.TRANSACTIONAL_ID, "tx"))
    assert _produce(allowed, TRANSACTIONAL, transactional_id="tx")[0] == {"t": Errors.NONE}


# -- ListOffsets, OffsetCommit, OffsetFetch, OffsetDelete, DeleteRecords ---------------------------------------


def test_list_offsets_needs_describe_on_the_topic():
    replica_manager = Spy(missing_partition_error=lambda tp: Errors.UNKNOWN_TOPIC_OR_PARTITION)
    body = {
        "replica_id": -1,
        "isolation_level": 0,
        "topics": [
            {"name": name, "partitions": [{"partition_index": 0, "timestamp": -1, "current_leader_epoch": -1}]}
            for name in ("t", "secret")
        ],
    }
    answer = list_offsets.handle(
        request(2, 5, body),
        replica_manager=replica_manager,
        authorizer=GrantedAuthorizer(grant(Op.DESCRIBE, Rt.TOPIC, "t")),
    )
    assert [(t["name"], t["partitions"][0]["error_code"], t["partitions"][0]["offset"]) for t in answer["topics"]] == [
        ("t", Errors.UNKNOWN_TOPIC_OR_PARTITION, -1),
        ("secret", TOPIC_DENIED, -1),
    ]
    assert replica_manager.calls == ["get_partition", "missing_partition_error"]  # "secret" was not looked up


def _commit(authorizer, coordinator):
    body = {
        "group_id": "g",
        "generation_id": -1,
        "member_id": "",
        "retention_time_ms": -1,
        "topics": [
            {
                "name": name,
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": 5,
                        "committed_leader_epoch": -1,
                        "committed_metadata": "",
                    }
                ],
            }
            for name in ("t", "secret")
        ],
    }
    answer = result_of(
        offset_commit.handle(
            request(8, 7, body),
            metadata_cache=Spy(partition_info=lambda t, p: 1),
            group_coordinator=coordinator,
            zk=Spy(),
            clock=task.Clock(),
            authorizer=authorizer,
        )
    )
    return {t["name"]: t["partitions"][0]["error_code"] for t in answer["topics"]}


def test_offset_commit_needs_read_on_the_group_and_on_each_topic():
    coordinator = Spy(
        handle_commit_offsets=lambda group, member, instance, generation, offsets: defer.succeed(
            {tp: Errors.NONE for tp in offsets}
        )
    )
    assert _commit(GrantedAuthorizer(grant(Op.READ, Rt.TOPIC, "t")), coordinator) == {
        "t": GROUP_DENIED,
        "secret": GROUP_DENIED,
    }
    assert coordinator.calls == []
    allowed = GrantedAuthorizer(grant(Op.READ, Rt.GROUP, "g"), grant(Op.READ, Rt.TOPIC, "t"))
    assert _commit(allowed, coordinator) == {"t": Errors.NONE, "secret": TOPIC_DENIED}


def test_offset_fetch_needs_describe_on_the_group_and_hides_undescribable_topics():
    stored = {("t", 0): (5, -1, ""), ("secret", 0): (7, -1, "")}
    coordinator = Spy(
        handle_fetch_offsets=lambda group, partitions: (
            Errors.NONE,
            {tp: value for tp, value in stored.items() if partitions is None or tp in partitions},
        )
    )

    def fetch(authorizer, topics):
        answer = offset_fetch.handle(
            request(9, 5, {"group_id": "g", "topics": topics}),
            group_coordinator=coordinator,
            metadata_cache=Spy(),
            zk=Spy(),
            authorizer=authorizer,
        )
        return answer.get("error_code"), {
            t["name"]: (t["partitions"][0]["committed_offset"], t["partitions"][0]["error_code"])
            for t in answer["topics"]
        }

    assert fetch(GrantedAuthorizer(grant(Op.READ, Rt.GROUP, "g")), None) == (GROUP_DENIED, {})
    allowed = GrantedAuthorizer(grant(Op.DESCRIBE, Rt.GROUP, "g"), grant(Op.DESCRIBE, Rt.TOPIC, "t"))
    assert fetch(allowed, None) == (Errors.NONE, {"t": (5, Errors.NONE)})
    named = [{"name": "t", "partition_indexes": [0]}, {"name": "secret", "partition_indexes": [0]}]
    assert fetch(allowed, named) == (Errors.NONE, {"t": (5, Errors.NONE), "secret": (-1, TOPIC_DENIED)})


def test_offset_delete_needs_delete_on_the_group_and_read_on_each_topic():
    coordinator = Spy(handle_delete_offsets=lambda group, tps: (Errors.NONE, {tp: Errors.NONE for tp in tps}))
    body = {"group_id": "g", "topics": [{"name": n, "partitions": [{"partition_index": 0}]} for n in ("t", "secret")]}

    def delete(authorizer):
        return offset_delete.handle(
            request(47, 0, body),
            metadata_cache=Spy(partition_info=lambda t, p: 1),
            group_coordinator=coordinator,
            authorizer=authorizer,
        )

    assert delete(GrantedAuthorizer(grant(Op.READ, Rt.GROUP, "g"))) == {
        "error_code": GROUP_DENIED,
        "throttle_time_ms": 0,
        "topics": [],
    }
    assert coordinator.calls == []
    answer = delete(GrantedAuthorizer(grant(Op.DELETE, Rt.GROUP, "g"), grant(Op.READ, Rt.TOPIC, "t")))
    assert {t["name"]: t["partitions"][0]["error_code"] for t in answer["topics"]} == {
        "t": Errors.NONE,
        "secret": TOPIC_DENIED,
    }


def test_delete_records_needs_delete_on_the_topic():
    deleted = []
    replica_manager = Spy(
        delete_records=lambda timeout, offsets: (
            deleted.extend(offsets)
            or defer.succeed({tp: SimpleNamespace(error=Errors.NONE, low_watermark=5) for tp in offsets})
        )
    )
    body = {
        "timeout_ms": 100,
        "topics": [{"name": n, "partitions": [{"partition_index": 0, "offset": 5}]} for n in ("t", "secret")],
    }
    answer = result_of(
        delete_records.handle(
            request(21, 1, body),
            metadata_cache=Spy(partition_info=lambda t, p: 1),
            replica_manager=replica_manager,
            authorizer=GrantedAuthorizer(grant(Op.DELETE, Rt.TOPIC, "t")),
        )
    )
    assert {t["name"]: t["partitions"][0]["error_code"] for t in answer["topics"]} == {
        "t": Errors.NONE,
        "secret": TOPIC_DENIED,
    }
    assert deleted == [("t", 0)]


# -- Group membership ------------------------------------------------------------------------------------------


def test_group_membership_needs_read_on_the_group():
    coordinator = Spy(handle_heartbeat=lambda *args: Errors.NONE)
    describe_only = GrantedAuthorizer(grant(Op.DESCRIBE, Rt.GROUP, "g"))
    joined = result_of(
        join_group.handle(
            request(
                11,
                5,
                {
                    "group_id": "g",
                    "session_timeout_ms": 10000,
                    "rebalance_timeout_ms": 10000,
                    "member_id": "",
                    "group_instance_id": None,
                    "protocol_type": "consumer",
                    "protocols": [],
                },
            ),
            group_coordinator=coordinator,
            authorizer=describe_only,
        )
    )
    assert (joined["error_code"], joined["generation_id"], joined["member_id"], joined["members"]) == (
        GROUP_DENIED,
        -1,
        "",
        [],
    )
    synced = result_of(
        sync_group.handle(
            request(
                14,
                3,
                {"group_id": "g", "generation_id": 1, "member_id": "m", "group_instance_id": None, "assignments": []},
            ),
            group_coordinator=coordinator,
            authorizer=describe_only,
        )
    )
    assert (synced["error_code"], synced["assignment"]) == (GROUP_DENIED, b"")
    beat = {"group_id": "g", "member_id": "m", "generation_id": 1, "group_instance_id": None}
    assert (
        heartbeat.handle(request(12, 3, beat), group_coordinator=coordinator, authorizer=describe_only)["error_code"]
        == GROUP_DENIED
    )
    left = leave_group.handle(
        request(13, 3, {"group_id": "g", "members": [{"member_id": "m"}]}),
        group_coordinator=coordinator,
        authorizer=describe_only,
    )
    assert left == {"throttle_time_ms": 0, "error_code": GROUP_DENIED, "members": []}
    assert coordinator.calls == []
    assert (
        heartbeat.handle(
            request(12, 3, beat),
            group_coordinator=coordinator,
            authorizer=GrantedAuthorizer(grant(Op.READ, Rt.GROUP, "g")),
        )["error_code"]
        == Errors.NONE
    )


def _summary():
    return SimpleNamespace(state="Stable", protocol_type="consumer", protocol="range", members=[])


def test_describe_groups_needs_describe_on_each_group_and_reports_the_allowed_operations():
    coordinator = Spy(handle_describe_group=lambda group: (Errors.NONE, _summary()))
    body = {"groups": ["g", "secret"], "include_authorized_operations": True}
    answer = describe_groups.handle(
        request(15, 3, body),
        group_coordinator=coordinator,
        authorizer=GrantedAuthorizer(grant(Op.DESCRIBE, Rt.GROUP, "g"), grant(Op.READ, Rt.GROUP, "g")),
    )
    described, denied = answer["groups"]
    assert (described["error_code"], described["group_state"]) == (Errors.NONE, "Stable")
    assert described["authorized_operations"] == (1 << Op.READ) | (1 << Op.DESCRIBE)
    assert (denied["error_code"], denied["group_state"], denied["members"]) == (GROUP_DENIED, "", [])
    assert coordinator.calls == ["handle_describe_group"]
    everything = describe_groups.handle(request(15, 3, body), group_coordinator=coordinator, authorizer=None)
    assert everything["groups"][1]["authorized_operations"] == (1 << Op.READ) | (1 << Op.DELETE) | (1 << Op.DESCRIBE)


def test_list_groups_lists_every_group_with_describe_on_the_cluster_else_the_describable_ones():
    coordinator = Spy(handle_list_groups=lambda: (Errors.NONE, [("g", "consumer"), ("secret", "consumer")]))

    def listed(authorizer):
        answer = list_groups.handle(request(16, 2, {}), group_coordinator=coordinator, authorizer=authorizer)
        return [group["group_id"] for group in answer["groups"]]

    assert listed(GrantedAuthorizer(grant(Op.DESCRIBE, Rt.GROUP, "g"))) == ["g"]
    assert listed(GrantedAuthorizer(cluster(Op.DESCRIBE))) == ["g", "secret"]
    assert listed(None) == ["g", "secret"]


def test_delete_groups_needs_delete_on_each_group():
    coordinator = Spy(handle_delete_groups=lambda names: {name: Errors.NONE for name in names})
    answer = delete_groups.handle(
        request(42, 1, {"groups_names": ["g", "secret"]}),
        group_coordinator=coordinator,
        authorizer=GrantedAuthorizer(grant(Op.DELETE, Rt.GROUP, "g")),
    )
    assert [(r["group_id"], r["error_code"]) for r in answer["results"]] == [
        ("g", Errors.NONE),
        ("secret", GROUP_DENIED),
    ]


# -- FindCoordinator and transactions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key_type, resource_type, denied", [(0, Rt.GROUP, GROUP_DENIED), (1, Rt.TRANSACTIONAL_ID, TXN_DENIED)]
)
def test_find_coordinator_needs_describe_on_the_key(key_type, resource_type, denied):
    admin = Spy()

    def find(authorizer):
        return result_of(
            find_coordinator.handle(
                request(10, 2, {"key": "k", "key_type": key_type}),
                group_coordinator=Spy(),
                txn_coordinator=Spy(),
                config=KafkaConfig({"zookeeper.connect": "z"}),
                metadata_cache=Spy(contains_topic=lambda topic: False, alive_broker_ids=lambda: []),
                admin=admin,
                authorizer=authorizer,
            )
        )["error_code"]

    assert find(GrantedAuthorizer(grant(Op.READ, resource_type, "k"))) == denied
    assert find(GrantedAuthorizer(grant(Op.DESCRIBE, resource_type, "k"))) == Errors.COORDINATOR_NOT_AVAILABLE


def test_init_producer_id_needs_write_on_the_transactional_id_or_idempotent_write_on_the_cluster():
    producer_ids = Spy(next_id=lambda: defer.succeed(7))
    coordinator = Spy(handle_init_producer_id=lambda tid, timeout, expected: defer.succeed((Errors.NONE, 8, 0)))

    def init(authorizer, transactional_id):
        return result_of(
            init_producer_id.handle(
                request(22, 2, {"transactional_id": transactional_id, "transaction_timeout_ms": 1000}),
                producer_ids=producer_ids,
                txn_coordinator=coordinator,
                authorizer=authorizer,
            )
        )

    assert init(NOTHING, None)["error_code"] == Errors.CLUSTER_AUTHORIZATION_FAILED
    assert init(GrantedAuthorizer(cluster(Op.IDEMPOTENT_WRITE)), "tx") == {
        "throttle_time_ms": 0,
        "error_code": TXN_DENIED,
        "producer_id": -1,
        "producer_epoch": -1,
    }
    assert producer_ids.calls == [] and coordinator.calls == []
    assert init(GrantedAuthorizer(cluster(Op.IDEMPOTENT_WRITE)), None)["producer_id"] == 7
    assert init(GrantedAuthorizer(grant(Op.WRITE, Rt.TRANSACTIONAL_ID, "tx")), "tx")["producer_id"] == 8


def test_transaction_apis_need_write_on_the_transactional_id():
    txn = Spy(
        handle_add_partitions=lambda *args: defer.succeed(Errors.NONE),
        handle_end_txn=lambda *args: defer.succeed(Errors.NONE),
    )
    groups = Spy(
        manager=Spy(partition_for=lambda group: 0),
        handle_txn_commit_offsets=lambda *args: defer.succeed({("t", 0): Errors.NONE}),
    )
    cache = Spy(partition_info=lambda topic, index: 1)
    ids = {"transactional_id": "tx", "producer_id": 1, "producer_epoch": 0}
    added = {**ids, "topics": [{"name": "t", "partitions": [0]}, {"name": "secret", "partitions": [0]}]}
    offsets = {**ids, "group_id": "g"}
    ended = {**ids, "committed": True}
    committed = {
        **offsets,
        "topics": [
            {
                "name": "t",
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": 1,
                        "committed_leader_epoch": -1,
                        "committed_metadata": "",
                    }
                ],
            }
        ],
    }

    def send(authorizer):
        add = result_of(
            add_partitions_to_txn.handle(
                request(24, 1, added), metadata_cache=cache, txn_coordinator=txn, authorizer=authorizer
            )
        )
        return (
            {r["name"]: r["results"][0]["error_code"] for r in add["results"]},
            result_of(
                add_offsets_to_txn.handle(
                    request(25, 1, offsets), group_coordinator=groups, txn_coordinator=txn, authorizer=authorizer
                )
            )["error_code"],
            result_of(end_txn.handle(request(26, 1, ended), txn_coordinator=txn, authorizer=authorizer))["error_code"],
            result_of(
                txn_offset_commit.handle(
                    request(28, 2, committed), metadata_cache=cache, group_coordinator=groups, authorizer=authorizer
                )
            )["topics"][0]["partitions"][0]["error_code"],
        )

    topic_and_group = [grant(Op.WRITE, Rt.TOPIC, "t"), grant(Op.READ, Rt.GROUP, "g"), grant(Op.READ, Rt.TOPIC, "t")]
    assert send(GrantedAuthorizer(*topic_and_group)) == (
        {"t": TXN_DENIED, "secret": TXN_DENIED},
        TXN_DENIED,
        TXN_DENIED,
        TXN_DENIED,
    )
    assert txn.calls == [] and groups.calls == []
    writer = grant(Op.WRITE, Rt.TRANSACTIONAL_ID, "tx")
    assert send(GrantedAuthorizer(writer)) == (
        {"t": TOPIC_DENIED, "secret": TOPIC_DENIED},
        GROUP_DENIED,
        Errors.NONE,
        GROUP_DENIED,
    )
    assert send(GrantedAuthorizer(writer, *topic_and_group)) == (
        {"t": Errors.OPERATION_NOT_ATTEMPTED, "secret": TOPIC_DENIED},
        Errors.NONE,
        Errors.NONE,
        Errors.NONE,
    )
    secret_too = GrantedAuthorizer(writer, grant(Op.WRITE, Rt.TOPIC, "secret"), *topic_and_group)
    assert send(secret_too)[0] == {"t": Errors.NONE, "secret": Errors.NONE}


def test_internal_topics_are_never_added_to_a_transaction_directly():
    answer = add_partitions_to_txn.handle(
        request(
            24,
            1,
            {
                "transactional_id": "tx",
                "producer_id": 1,
                "producer_epoch": 0,
                "topics": [{"name": "__consumer_offsets", "partitions": [0]}],
            },
        ),
        metadata_cache=Spy(partition_info=lambda topic, index: 1),
        txn_coordinator=Spy(),
        authorizer=None,
    )
    assert answer["results"][0]["results"][0]["error_code"] == TOPIC_DENIED


# -- Topic administration --------------------------------------------------------------------------------------


# CreateTopics, DeleteTopics and CreatePartitions are the active controller's.
ACTIVE = lambda: Spy(is_active=True)  # noqa: E731


def test_create_topics_needs_create_on_the_cluster_or_the_topic_and_describe_configs_to_see_configs():
    created = []

    def create(specs, timeout, validate_only):
        created.extend(spec[0] for spec in specs)
        return defer.succeed(
            [
                SimpleNamespace(
                    name=spec[0],
                    error=Errors.NONE,
                    message=None,
                    num_partitions=1,
                    replication_factor=1,
                    configs={"retention.ms": ("1", 5)},
                )
                for spec in specs
            ]
        )

    body = {
        "timeout_ms": 100,
        "validate_only": False,
        "topics": [
            {"name": name, "num_partitions": 1, "replication_factor": 1, "assignments": [], "configs": []}
            for name in ("t", "secret")
        ],
    }

    def send(authorizer):
        answer = result_of(
            create_topics.handle(
                request(19, 5, body), admin=Spy(create_topics=create), controller=ACTIVE, authorizer=authorizer
            )
        )
        return {
            t["name"]: (
                t["error_code"],
                t.get("topic_config_error_code", 0),
                t["num_partitions"],
                t["configs"] is not None,
            )
            for t in answer["topics"]
        }

    assert send(GrantedAuthorizer(grant(Op.CREATE, Rt.TOPIC, "t"), grant(Op.DESCRIBE_CONFIGS, Rt.TOPIC, "t"))) == {
        "t": (Errors.NONE, 0, 1, True),
        "secret": (TOPIC_DENIED, TOPIC_DENIED, -1, False),
    }
    assert created == ["t"]
    assert send(GrantedAuthorizer(cluster(Op.CREATE))) == {
        "t": (Errors.NONE, TOPIC_DENIED, -1, False),
        "secret": (Errors.NONE, TOPIC_DENIED, -1, False),
    }


def test_delete_topics_needs_delete_on_the_topic():
    admin = Spy(delete_topics=lambda names, timeout: defer.succeed([(name, Errors.NONE) for name in names]))
    body = {"topic_names": ["t", "secret"], "timeout_ms": 100}
    answer = result_of(
        delete_topics.handle(
            request(20, 3, body),
            admin=admin,
            config={"delete.topic.enable": True},
            controller=ACTIVE,
            authorizer=GrantedAuthorizer(grant(Op.DELETE, Rt.TOPIC, "t")),
        )
    )
    assert sorted((r["name"], r["error_code"]) for r in answer["responses"]) == [
        ("secret", TOPIC_DENIED),
        ("t", Errors.NONE),
    ]


def test_create_partitions_needs_alter_on_the_topic():
    asked = []
    admin = Spy(
        create_partitions=lambda requests, timeout, validate_only: (
            asked.extend(requests) or defer.succeed([(topic, Errors.NONE, None) for topic, _, _ in requests])
        )
    )
    body = {
        "timeout_ms": 100,
        "validate_only": False,
        "topics": [{"name": name, "count": 3, "assignments": None} for name in ("t", "secret")],
    }
    answer = result_of(
        create_partitions.handle(
            request(37, 1, body),
            admin=admin,
            controller=ACTIVE,
            authorizer=GrantedAuthorizer(grant(Op.ALTER, Rt.TOPIC, "t")),
        )
    )
    assert sorted((r["name"], r["error_code"]) for r in answer["results"]) == [
        ("secret", TOPIC_DENIED),
        ("t", Errors.NONE),
    ]
    assert asked == [("t", 3, None)]


def test_denied_answers_encode_on_the_wire():
    body = {
        "timeout_ms": 100,
        "validate_only": False,
        "topics": [{"name": "t", "num_partitions": 1, "replication_factor": 1, "assignments": [], "configs": []}],
    }
    answer = result_of(
        create_topics.handle(
            request(19, 5, body),
            admin=Spy(create_topics=lambda *a: defer.succeed([])),
            controller=ACTIVE,
            authorizer=NOTHING,
        )
    )
    _, decoded = decode_response(19, 5, encode_response(19, 5, 1, answer))
    assert (decoded["topics"][0]["error_code"], decoded["topics"][0]["topic_config_error_code"]) == (
        TOPIC_DENIED,
        TOPIC_DENIED,
    )
