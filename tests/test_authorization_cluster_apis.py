"""Inter-broker and cluster-wide APIs ask what Kafka 2.5's KafkaApis asks: ClusterAction for the controller's and
followers' requests (a forged one from another principal answers CLUSTER_AUTHORIZATION_FAILED and changes
nothing), Alter / Describe on the cluster for elections, reassignments and log dirs, and DescribeConfigs /
AlterConfigs on the cluster (brokers) or the topic (topics)."""

from types import SimpleNamespace

import pytest
from twisted.internet import defer, task

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation as Op
from kafka_zk.security.authorizer import ResourceType as Rt
from kafka_zk.server import apis
from kafka_zk.server.apis import (
    alter_configs,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    controlled_shutdown,
    describe_configs,
    describe_log_dirs,
    elect_leaders,
    fetch,
    incremental_alter_configs,
    leader_and_isr,
    list_partition_reassignments,
    offset_for_leader_epoch,
    stop_replica,
    update_metadata,
    write_txn_markers,
)
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.kafka_server import KafkaServer
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from kafka_zk.server.replication.fetch_session import FetchManager, FetchSessionCache
from kafka_zk.server.replication.results import FetchResult
from tests.authorization_support import GrantedAuthorizer, Spy, cluster, grant, request, result_of

CLUSTER_ACTION = GrantedAuthorizer(cluster(Op.CLUSTER_ACTION))
NOTHING = GrantedAuthorizer()
DENIED = Errors.CLUSTER_AUTHORIZATION_FAILED


def _leader_and_isr(authorizer, replica_manager, coordinator):
    body = {
        "controller_id": 1,
        "controller_epoch": 1,
        "broker_epoch": -1,
        "live_leaders": [],
        "ungrouped_partition_states": [
            {
                "topic_name": "t",
                "partition_index": 0,
                "controller_epoch": 1,
                "leader": 1,
                "leader_epoch": 3,
                "isr": [1],
                "zk_version": 0,
                "replicas": [1],
                "is_new": False,
            }
        ],
    }
    return result_of(
        leader_and_isr.handle(
            request(4, 1, body),
            replica_manager=replica_manager,
            broker_id=1,
            broker_epoch=lambda: 5,
            prepare_topic_configs=lambda topics: defer.succeed(None),
            group_coordinator=coordinator,
            txn_coordinator=coordinator,
            clock=task.Clock(),
            authorizer=authorizer,
            control_requests=defer.DeferredLock(),
        )
    )


@pytest.mark.parametrize("authorizer", [NOTHING, GrantedAuthorizer(cluster(Op.ALTER), cluster(Op.DESCRIBE))])
def test_a_forged_leader_and_isr_is_refused_and_changes_nothing(authorizer):
    replica_manager, coordinator = Spy(controller_epoch=0), Spy()
    answer = _leader_and_isr(authorizer, replica_manager, coordinator)
    assert answer == {
        "error_code": DENIED,
        "partition_errors": [{"topic_name": "t", "partition_index": 0, "error_code": DENIED}],
    }
    assert replica_manager.calls == [] and coordinator.calls == []


@pytest.mark.parametrize("authorizer", [CLUSTER_ACTION, None])
def test_leader_and_isr_with_cluster_action_is_applied(authorizer):
    replica_manager = Spy(controller_epoch=0, become_leader_or_follower=lambda states, leaders: {("t", 0): 0})
    answer = _leader_and_isr(authorizer, replica_manager, Spy())
    assert answer["error_code"] == Errors.NONE
    assert replica_manager.calls == ["check_controller_epoch", "become_leader_or_follower"]


def _update_metadata(authorizer, replica_manager, metadata_cache):
    body = {
        "controller_id": 1,
        "controller_epoch": 1,
        "broker_epoch": -1,
        "live_brokers": [],
        "ungrouped_partition_states": [],
    }
    return result_of(
        update_metadata.handle(
            request(6, 5, body),
            replica_manager=replica_manager,
            metadata_cache=metadata_cache,
            group_coordinator=Spy(),
            on_metadata_updated=lambda: None,
            broker_id=1,
            broker_epoch=lambda: 5,
            clock=task.Clock(),
            authorizer=authorizer,
            control_requests=defer.DeferredLock(),
        )
    )


def test_a_forged_update_metadata_leaves_the_metadata_cache_untouched():
    replica_manager, cache = Spy(controller_epoch=0), Spy()
    assert _update_metadata(NOTHING, replica_manager, cache) == {"error_code": DENIED}
    assert replica_manager.calls == [] and cache.calls == []
    assert _update_metadata(CLUSTER_ACTION, replica_manager, cache) == {"error_code": Errors.NONE}
    assert cache.calls == ["update"]


def _stop_replica(authorizer, replica_manager):
    body = {
        "controller_id": 1,
        "controller_epoch": 1,
        "broker_epoch": -1,
        "delete_partitions": True,
        "ungrouped_partitions": [{"topic_name": "t", "partition_index": 0}],
    }
    return result_of(
        stop_replica.handle(
            request(5, 1, body),
            replica_manager=replica_manager,
            broker_epoch=lambda: 5,
            group_coordinator=Spy(),
            txn_coordinator=Spy(),
            authorizer=authorizer,
            control_requests=defer.DeferredLock(),
        )
    )


def test_a_forged_stop_replica_deletes_nothing():
    replica_manager = Spy(controller_epoch=0, stop_replica=lambda topic, index, delete: Errors.NONE)
    assert _stop_replica(NOTHING, replica_manager) == {
        "error_code": DENIED,
        "partition_errors": [{"topic_name": "t", "partition_index": 0, "error_code": DENIED}],
    }
    assert replica_manager.calls == []
    assert _stop_replica(CLUSTER_ACTION, replica_manager)["error_code"] == Errors.NONE
    assert "stop_replica" in replica_manager.calls


def test_a_forged_controlled_shutdown_never_reaches_the_controller():
    controller = Spy(is_active=True, controlled_shutdown=lambda broker, epoch: defer.succeed((Errors.NONE, set())))
    body = {"broker_id": 2, "broker_epoch": 7}
    denied = result_of(
        controlled_shutdown.handle(request(7, 3, body), controller=lambda: controller, authorizer=NOTHING)
    )
    assert denied == {"error_code": DENIED, "remaining_partitions": []} and controller.calls == []
    allowed = result_of(
        controlled_shutdown.handle(request(7, 3, body), controller=lambda: controller, authorizer=CLUSTER_ACTION)
    )
    assert allowed["error_code"] == Errors.NONE and controller.calls == ["controlled_shutdown"]


def test_forged_transaction_markers_are_not_appended():
    replica_manager = Spy(get_partition=lambda topic, index: None)
    body = {
        "markers": [
            {
                "producer_id": 9,
                "producer_epoch": 0,
                "transaction_result": True,
                "coordinator_epoch": 1,
                "topics": [{"name": "t", "partition_indexes": [0, 1]}],
            }
        ]
    }

    def send(authorizer):
        return result_of(
            write_txn_markers.handle(
                request(27, 0, body),
                replica_manager=replica_manager,
                group_coordinator=Spy(),
                config={"request.timeout.ms": 1000},
                clock=task.Clock(),
                authorizer=authorizer,
            )
        )

    codes = [p["error_code"] for p in send(NOTHING)["markers"][0]["topics"][0]["partitions"]]
    assert codes == [DENIED, DENIED] and replica_manager.calls == []
    codes = [p["error_code"] for p in send(CLUSTER_ACTION)["markers"][0]["topics"][0]["partitions"]]
    assert codes == [Errors.UNKNOWN_TOPIC_OR_PARTITION] * 2  # authorized: the partitions were looked up


def _fetch(authorizer, replica_id, replica_manager, topics=("t",)):
    body = {
        "replica_id": replica_id,
        "max_wait_ms": 0,
        "min_bytes": 0,
        "max_bytes": 1 << 20,
        "isolation_level": 0,
        "topics": [
            {
                "topic": topic,
                "partitions": [
                    {
                        "partition": 0,
                        "fetch_offset": 0,
                        "partition_max_bytes": 100,
                        "current_leader_epoch": -1,
                        "log_start_offset": -1,
                    }
                ],
            }
            for topic in topics
        ],
    }
    answer = result_of(
        fetch.handle(
            request(1, 4, body),
            fetch_manager=FetchManager(FetchSessionCache(10)),
            metadata_cache=Spy(contains_topic=lambda topic: True),
            replica_manager=replica_manager,
            fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
            clock=task.Clock(),
            authorizer=authorizer,
        )
    )
    return {t["topic"]: p["error_code"] for t in answer["responses"] for p in t["partitions"]}


def _fetching_replica_manager():
    return Spy(
        fetch_messages_or_park=lambda max_wait, min_bytes, max_bytes, infos, *args, **kwargs: {
            info.tp: FetchResult(high_watermark=0) for info in infos
        }
    )


def test_a_follower_fetch_needs_cluster_action_and_a_denied_one_is_not_recorded():
    replica_manager = _fetching_replica_manager()
    assert _fetch(GrantedAuthorizer(grant(Op.READ, Rt.TOPIC, "t")), 2, replica_manager) == {
        "t": Errors.TOPIC_AUTHORIZATION_FAILED
    }
    assert replica_manager.calls == []  # the leader never heard of this "follower"'s position
    assert _fetch(CLUSTER_ACTION, 2, replica_manager) == {"t": Errors.NONE}
    assert replica_manager.calls == ["fetch_messages_or_park"]


def test_a_consumer_fetch_needs_read_on_each_topic():
    replica_manager = _fetching_replica_manager()
    authorizer = GrantedAuthorizer(grant(Op.READ, Rt.TOPIC, "t"), cluster(Op.CLUSTER_ACTION))
    assert _fetch(authorizer, -1, replica_manager, ("t", "secret")) == {
        "t": Errors.NONE,
        "secret": Errors.TOPIC_AUTHORIZATION_FAILED,
    }
    assert _fetch(None, -1, replica_manager, ("t", "secret")) == {"t": Errors.NONE, "secret": Errors.NONE}


@pytest.mark.parametrize(
    "authorizer, expected",
    [
        (NOTHING, Errors.TOPIC_AUTHORIZATION_FAILED),
        (CLUSTER_ACTION, Errors.UNKNOWN_TOPIC_OR_PARTITION),
        (GrantedAuthorizer(grant(Op.DESCRIBE, Rt.TOPIC, "t")), Errors.UNKNOWN_TOPIC_OR_PARTITION),
        (None, Errors.UNKNOWN_TOPIC_OR_PARTITION),
    ],
)
def test_offset_for_leader_epoch_needs_cluster_action_or_describe_on_the_topic(authorizer, expected):
    replica_manager = Spy(missing_partition_error=lambda tp: Errors.UNKNOWN_TOPIC_OR_PARTITION)
    body = {"topics": [{"topic": "t", "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]}]}
    answer = offset_for_leader_epoch.handle(
        request(23, 3, body), replica_manager=replica_manager, authorizer=authorizer
    )
    assert answer["topics"][0]["partitions"][0]["error_code"] == expected
    assert (replica_manager.calls == []) == (expected == Errors.TOPIC_AUTHORIZATION_FAILED)


def test_elect_leaders_needs_alter_on_the_cluster():
    controller = Spy(
        elect_leaders=lambda election, partitions: defer.succeed({("t", 0): Errors.NONE}),
        leaders_of=lambda partitions: {tp: 1 for tp in partitions},
    )
    admin = Spy(wait_for_leaders=lambda leaders, timeout_ms: defer.succeed(set()))
    body = {"election_type": 0, "topic_partitions": [{"topic": "t", "partition_id": [0]}], "timeout_ms": 100}
    denied = result_of(
        elect_leaders.handle(
            request(43, 1, body), admin=admin, controller=lambda: controller, authorizer=CLUSTER_ACTION
        )
    )
    assert denied["error_code"] == DENIED and controller.calls == [] and admin.calls == []
    assert denied["replica_election_results"] == [
        {"topic": "t", "partition_result": [{"partition_id": 0, "error_code": DENIED, "error_message": None}]}
    ]
    allowed = result_of(
        elect_leaders.handle(
            request(43, 1, body),
            admin=admin,
            controller=lambda: controller,
            authorizer=GrantedAuthorizer(cluster(Op.ALTER)),
        )
    )
    assert allowed["error_code"] == Errors.NONE and controller.calls == ["elect_leaders", "leaders_of"]


def test_partition_reassignments_need_alter_and_describe_on_the_cluster():
    controller = Spy(
        alter_reassignments=lambda targets: defer.succeed({("t", 0): Errors.NONE}),
        list_reassignments=lambda partitions: defer.succeed([]),
    )
    alter = {"timeout_ms": 100, "topics": [{"name": "t", "partitions": [{"partition_index": 0, "replicas": [2]}]}]}
    denied = result_of(
        alter_partition_reassignments.handle(
            request(45, 0, alter), controller=lambda: controller, authorizer=GrantedAuthorizer(cluster(Op.DESCRIBE))
        )
    )
    assert denied["error_code"] == DENIED and denied["responses"][0]["partitions"][0]["error_code"] == DENIED
    listed = result_of(
        list_partition_reassignments.handle(
            request(46, 0, {"timeout_ms": 100, "topics": None}),
            controller=lambda: controller,
            authorizer=GrantedAuthorizer(cluster(Op.ALTER)),
        )
    )
    assert listed["error_code"] == DENIED and controller.calls == []
    both = GrantedAuthorizer(cluster(Op.ALTER), cluster(Op.DESCRIBE))
    assert (
        result_of(
            alter_partition_reassignments.handle(request(45, 0, alter), controller=lambda: controller, authorizer=both)
        )["error_code"]
        == Errors.NONE
    )
    assert (
        result_of(
            list_partition_reassignments.handle(
                request(46, 0, {"timeout_ms": 100, "topics": None}), controller=lambda: controller, authorizer=both
            )
        )["error_code"]
        == Errors.NONE
    )


def test_log_dirs_need_alter_and_describe_on_the_cluster():
    log_manager = Spy(log_dirs=["/data"], failures=Spy(is_offline=lambda d: False), logs_in_dir=lambda d: [])
    body = {"dirs": [{"path": "/elsewhere", "topics": [{"name": "t", "partitions": [0]}]}]}
    moved = alter_replica_log_dirs.handle(
        request(34, 1, body),
        log_manager=log_manager,
        replica_manager=Spy(),
        metadata_cache=Spy(),
        authorizer=GrantedAuthorizer(cluster(Op.DESCRIBE)),
    )
    assert moved["results"][0]["partitions"][0]["error_code"] == DENIED and log_manager.calls == []
    moved = alter_replica_log_dirs.handle(
        request(34, 1, body),
        log_manager=log_manager,
        replica_manager=Spy(),
        metadata_cache=Spy(),
        authorizer=GrantedAuthorizer(cluster(Op.ALTER)),
    )
    assert moved["results"][0]["partitions"][0]["error_code"] == Errors.LOG_DIR_NOT_FOUND  # asked, then refused
    described = describe_log_dirs.handle(
        request(35, 1, {"topics": None}),
        log_manager=log_manager,
        replica_manager=Spy(),
        authorizer=GrantedAuthorizer(cluster(Op.ALTER)),
    )
    assert described == {"throttle_time_ms": 0, "results": []}  # Kafka answers no log dirs, and no error
    described = describe_log_dirs.handle(
        request(35, 1, {"topics": None}),
        log_manager=log_manager,
        replica_manager=Spy(),
        authorizer=GrantedAuthorizer(cluster(Op.DESCRIBE)),
    )
    assert [r["log_dir"] for r in described["results"]] == ["/data"]


def test_describe_configs_needs_describe_configs_on_the_cluster_or_the_topic():
    body = {
        "include_synonyms": False,
        "resources": [
            {"resource_type": 4, "resource_name": "", "configuration_keys": None},
            {"resource_type": 2, "resource_name": "t", "configuration_keys": None},
            {"resource_type": 8, "resource_name": "1", "configuration_keys": None},
        ],
    }

    def describe(authorizer):
        answer = result_of(
            describe_configs.handle(
                request(32, 1, body),
                metadata_cache=Spy(contains_topic=lambda name: False),
                zk=Spy(),
                dynamic_config=Spy(cluster_default={}),
                broker_id=1,
                authorizer=authorizer,
            )
        )
        return [result["error_code"] for result in answer["results"]]

    assert describe(NOTHING) == [DENIED, Errors.TOPIC_AUTHORIZATION_FAILED, DENIED]
    assert describe(GrantedAuthorizer(cluster(Op.DESCRIBE_CONFIGS), grant(Op.DESCRIBE_CONFIGS, Rt.TOPIC, "t"))) == [
        Errors.NONE,
        Errors.UNKNOWN_TOPIC_OR_PARTITION,
        Errors.NONE,
    ]


def _recording_admin():
    def alter(changes, validate_only):
        admin.altered.append([(kind, name) for kind, name, _ in changes])
        return defer.succeed([(Errors.NONE, None)] * len(changes))

    admin = Spy(alter_configs=alter)
    admin.altered = []
    return admin


def test_alter_configs_need_alter_configs_on_the_cluster_or_the_topic():
    body = {
        "validate_only": False,
        "resources": [
            {"resource_type": 4, "resource_name": "1", "configs": []},
            {"resource_type": 2, "resource_name": "t", "configs": []},
            {"resource_type": 2, "resource_name": "mine", "configs": []},
        ],
    }
    admin = _recording_admin()
    answer = result_of(
        alter_configs.handle(
            request(33, 1, body), admin=admin, authorizer=GrantedAuthorizer(grant(Op.ALTER_CONFIGS, Rt.TOPIC, "mine"))
        )
    )
    assert [r["error_code"] for r in answer["responses"]] == [DENIED, Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE]
    assert admin.altered == [[(2, "mine")]]  # only the authorized resource reached the admin manager
    body["resources"].append({"resource_type": 8, "resource_name": "1", "configs": []})
    answer = result_of(
        incremental_alter_configs.handle(
            request(44, 0, body), admin=admin, broker_id=1, authorizer=GrantedAuthorizer(cluster(Op.ALTER_CONFIGS))
        )
    )
    assert [r["error_code"] for r in answer["responses"]] == [
        Errors.NONE,
        Errors.TOPIC_AUTHORIZATION_FAILED,
        Errors.TOPIC_AUTHORIZATION_FAILED,
        Errors.NONE,
    ]
    assert admin.altered[-1] == [(4, "1")]


def test_the_broker_binds_its_authorizer_into_every_handler_that_asks(tmp_path):
    server = KafkaServer(
        KafkaConfig({"zookeeper.connect": "127.0.0.1:1", "broker.id": "0", "log.dirs": str(tmp_path)}), task.Clock()
    )
    for name in (
        "zk",
        "log_manager",
        "metadata_cache",
        "replica_manager",
        "admin",
        "group_coordinator",
        "producer_ids",
        "txn_coordinator",
        "token_manager",
    ):
        setattr(server, name, SimpleNamespace(name=name))
    server.authorizer = GrantedAuthorizer()
    handlers = server.request_dispatcher().handlers
    asking = {key for key, handle in apis.HANDLERS.items() if "authorizer" in apis.collaborators(handle)}
    # every API but ApiVersions and the SASL exchange, and the token APIs that check a token's owner and renewers
    # instead of ACLs
    assert asking == set(apis.HANDLERS) - {17, 18, 36, 38, 39, 40}
    assert all(handlers[key].keywords["authorizer"] is server.authorizer for key in asking)
