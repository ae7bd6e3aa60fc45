"""AdminClient against fake brokers (controller routing), and ZkAdmin against a real ZooKeeper."""

import json

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.topic_names import InvalidTopicName, filter_topics, validate_topic_name
from kafka_zk.client.zk_admin import AdminOperationError, InvalidReplicaAssignmentError, ZkAdmin
from kafka_zk.controller.assignment import (
    IncompleteRackInformationError,
    InvalidPartitionsError,
    InvalidReplicationFactorError,
    RackAwareMode,
)
from kafka_zk.protocol.errors import Errors
from kafka_zk.zk.client import KafkaZkClient, TopicExistsError
from kafka_zk.zk.znodes import BrokerInfo, EndPoint
from tests.client_fake_broker import FakeCluster


@pytest.fixture
def fake():
    cluster = FakeCluster(broker_count=2)
    cluster.controller_id = 1
    cluster.create_topic("existing", 1)
    yield cluster
    cluster.stop()


def test_create_topics_goes_to_the_controller(fake):
    with AdminClient(fake.bootstrap) as admin:
        result = admin.create_topics([NewTopic("a", 3, 1, configs={"retention.ms": "1"}), NewTopic("existing", 1, 1)])
        assert result == {
            "a": (Errors.NONE, None),
            "existing": (Errors.TOPIC_ALREADY_EXISTS, "Topic 'existing' already exists."),
        }
        assert admin.list_topics() == ["a", "existing"]
        assert sorted(admin.describe_topics(["a"])["a"].partitions) == [0, 1, 2]
    [(node, body)] = [(node, body) for node, key, _, body in fake.requests if key == 19]
    assert node == 1
    assert body["topics"][0]["configs"] == [{"name": "retention.ms", "value": "1"}]


def test_controller_move_is_followed(fake):
    with AdminClient(fake.bootstrap, sleep=lambda s: None) as admin:
        admin.cluster.metadata([])
        fake.controller_id = 0  # broker 1 now answers NOT_CONTROLLER
        assert admin.create_topics([NewTopic("b", 1, 1)]) == {"b": (Errors.NONE, None)}
    assert [node for node, key, _, _ in fake.requests if key == 19] == [1, 0]


def test_manual_assignment_is_sent_without_counts(fake):
    with AdminClient(fake.bootstrap) as admin:
        admin.create_topics([NewTopic("m", replica_assignment={0: [1, 0], 1: [0, 1]})])
    [body] = [body for _, key, _, body in fake.requests if key == 19]
    topic = body["topics"][0]
    assert (topic["num_partitions"], topic["replication_factor"]) == (-1, -1)
    assert topic["assignments"] == [
        {"partition_index": 0, "broker_ids": [1, 0]},
        {"partition_index": 1, "broker_ids": [0, 1]},
    ]


def test_delete_topics(fake):
    with AdminClient(fake.bootstrap) as admin:
        assert admin.delete_topics(["existing", "nope"]) == {
            "existing": Errors.NONE,
            "nope": Errors.UNKNOWN_TOPIC_OR_PARTITION,
        }


def test_topic_name_rules():
    validate_topic_name("ok.name_1-x")
    for bad, message in [
        ("", "empty"),
        ("..", "cannot be"),
        ("a" * 250, "longer than 249"),
        ("a b", "character other than"),
    ]:
        with pytest.raises(InvalidTopicName, match=message):
            validate_topic_name(bad)
    topics = ["__consumer_offsets", "orders", "orders-eu", "payments"]
    assert filter_topics(topics, "orders.*") == ["orders", "orders-eu"]
    assert filter_topics(topics, "orders") == ["orders"]
    assert filter_topics(topics, "'orders, payments'") == ["orders", "payments"]
    assert filter_topics(topics, None, exclude_internal=True) == ["orders", "orders-eu", "payments"]


# -- ZkAdmin on a real ZooKeeper -----------------------------------------------------------------


def _zk_admin_over(zk_connect, racks):
    """A ZkAdmin over registered brokers {id: rack or None}."""
    admin = ZkAdmin(zk_connect, session_timeout_ms=6000)
    admin.zk.create_persistent_paths()
    for broker_id, rack in racks.items():
        admin.zk.register_broker(
            BrokerInfo(broker_id, [EndPoint("PLAINTEXT", "h", 9090 + broker_id, "PLAINTEXT")], rack), timestamp_ms=1
        )
    return admin


@pytest.fixture
def zk_admin(zk_connect):
    admin = _zk_admin_over(zk_connect, dict.fromkeys((1, 2, 3)))
    yield admin
    admin.close()


def test_zk_create_writes_config_then_assignment(zk_admin):
    assignment = zk_admin.create_topic("orders", 6, 2, {"retention.ms": "1000"})
    assert sorted(assignment) == list(range(6)) and all(len(set(r)) == 2 for r in assignment.values())
    leaders = [replicas[0] for replicas in assignment.values()]
    assert sorted(leaders.count(b) for b in (1, 2, 3)) == [2, 2, 2]
    data, _ = zk_admin.zk.get_data("/brokers/topics/orders")
    assert json.loads(data)["partitions"] == {str(p): r for p, r in assignment.items()}
    data, _ = zk_admin.zk.get_data("/config/topics/orders")
    assert json.loads(data) == {"version": 1, "config": {"retention.ms": "1000"}}
    with pytest.raises(TopicExistsError, match="already exists"):
        zk_admin.create_topic("orders", 1, 1)
    zk_admin.create_topic("my.topic", 1, 1)
    with pytest.raises(InvalidTopicName, match="collides with existing topics: my.topic"):
        zk_admin.create_topic("my_topic", 1, 1)
    with pytest.raises(InvalidReplicationFactorError, match="larger than available brokers: 3"):
        zk_admin.create_topic("big", 1, 4)
    with pytest.raises(InvalidReplicaAssignmentError, match="same number of replicas"):
        zk_admin.create_topic_with_assignment("bad", {0: [1, 2], 1: [3]})


def test_zk_delete_list_and_describe(zk_admin):
    zk_admin.create_topic_with_assignment("a", {0: [1, 2], 1: [2, 3]})
    zk_admin.create_topic_with_assignment("b", {0: [3]})
    zk_admin.zk.kazoo.create(
        "/brokers/topics/a/partitions/0/state",
        json.dumps({"controller_epoch": 1, "leader": 2, "version": 1, "leader_epoch": 0, "isr": [2, 1]}).encode(),
        makepath=True,
    )
    described = zk_admin.describe_topic("a")
    assert described["partitions"][0] == {
        "replicas": [1, 2],
        "leader": 2,
        "isr": [2, 1],
        "adding_replicas": [],
        "removing_replicas": [],
    }
    assert described["partitions"][1]["leader"] is None and described["partitions"][1]["isr"] == []
    assert zk_admin.describe_topic("missing") is None
    assert zk_admin.delete_topic("b") is True
    assert zk_admin.delete_topic("b") is False
    assert zk_admin.list_topics() == ["a", "b"]
    assert zk_admin.topics_marked_for_deletion() == {"b"}
    with pytest.raises(TopicExistsError, match="marked for deletion"):
        zk_admin.create_topic("b", 1, 1)
    with pytest.raises(AdminOperationError, match="internal topic"):
        zk_admin.delete_topic("__consumer_offsets")


def test_zk_add_partitions(zk_admin):
    zk_admin.create_topic_with_assignment("g", {0: [2, 3], 1: [3, 1]})
    added = zk_admin.add_partitions("g", 4)
    assert sorted(added) == [2, 3] and all(len(set(r)) == 2 for r in added.values())
    assert sorted(zk_admin.zk.get_topic_assignment("g")) == [0, 1, 2, 3]
    with pytest.raises(InvalidPartitionsError, match="can only be increased"):
        zk_admin.add_partitions("g", 4)
    zk_admin.add_partitions("g", 5, {4: [1, 2]})
    assert zk_admin.zk.get_topic_assignment("g")[4] == [1, 2]
    with pytest.raises(InvalidReplicaAssignmentError, match="Unknown broker"):
        zk_admin.add_partitions("g", 6, {5: [1, 9]})


def test_zk_add_partitions_start_at_partition_zeros_first_replica_among_the_sorted_ids(zk_admin):
    zk_admin.create_topic_with_assignment("g", {0: [2, 3], 1: [3, 1]})
    # broker 2 is index 1 of [1, 2, 3]: new partitions start there, start and shift 1, as Kafka's addPartitions
    assert zk_admin.add_partitions("g", 4) == {2: [1, 3], 3: [2, 3]}


def test_zk_admin_assigns_by_the_registered_racks(zk_connect):
    racks = {b: "rack-%d" % (b % 3) for b in range(6)}
    with _zk_admin_over(zk_connect, racks) as admin:
        assert admin.brokers() == racks
        created = admin.create_topic("spread", 30, 3)
        assert all(len({racks[b] for b in r}) == 3 for r in created.values())
        unaware = admin.create_topic("lumped", 30, 3, rack_aware_mode=RackAwareMode.DISABLED)
        # over 30 partitions the unaware shift passes every offset, some of which land on the leader's rack
        assert any(len({racks[b] for b in r}) < 3 for r in unaware.values())
        added = admin.add_partitions("spread", 36)
        assert sorted(added) == list(range(30, 36))
        assert all(len({racks[b] for b in r}) == 3 for r in added.values())


def test_zk_admin_with_some_brokers_rackless(zk_connect):
    with _zk_admin_over(zk_connect, {0: "r0", 1: "r1", 2: None}) as admin:
        with pytest.raises(IncompleteRackInformationError, match="Add --disable-rack-aware in command line"):
            admin.create_topic("t", 3, 2)
        assert admin.list_topics() == []
        assert len(admin.create_topic("t", 3, 2, rack_aware_mode=RackAwareMode.DISABLED)) == 3
        with pytest.raises(IncompleteRackInformationError):  # growing is always ENFORCED, as in Kafka
            admin.add_partitions("t", 4)


def test_zk_admin_accepts_an_existing_client(zk_connect):
    client = KafkaZkClient(zk_connect, session_timeout_ms=6000)
    client.start(10)
    with ZkAdmin(None, zk_client=client) as admin:
        assert admin.list_topics() == []
