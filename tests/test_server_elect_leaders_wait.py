"""ElectLeaders answers once the broker's own metadata shows the elected leaders, as Kafka 2.5's DelayedElectLeader
does, and REQUEST_TIMED_OUT for a partition whose new leader it has not heard of within the request's timeout."""

from twisted.internet import defer, task

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.admin_manager import AdminManager
from kafka_zk.server.apis import elect_leaders
from kafka_zk.server.config.dynamic_broker_config import DynamicBrokerConfig
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.metadata_cache import BrokerEndpoints, MetadataCache, PartitionInfo
from tests.authorization_support import Spy, request
from tests.fake_zk import FakeZk

REPLICAS = [0, 1]


def broker_and_admin():
    config = KafkaConfig({"zookeeper.connect": "z"})
    cache = MetadataCache(0)
    clock = task.Clock()
    admin = AdminManager(config, cache, FakeZk({}), 0, DynamicBrokerConfig(config, 0), clock)
    brokers = [BrokerEndpoints(b, {}, None) for b in REPLICAS]
    cache.update(0, 1, brokers, [("t", p, PartitionInfo(1, 0, REPLICAS, REPLICAS, [], 1, 0)) for p in (0, 1)])

    def metadata_arrives(partition, leader):
        cache.update(0, 1, brokers, [("t", partition, PartitionInfo(leader, 1, REPLICAS, REPLICAS, [], 1, 1))])
        admin.on_metadata_updated()

    return admin, clock, metadata_arrives


def elect(admin, partitions, timeout_ms):
    controller = Spy(
        elect_leaders=lambda election, tps: defer.succeed({tp: Errors.NONE for tp in tps}),
        leaders_of=lambda tps: {tp: 0 for tp in tps},  # the preferred replica, 0, was elected
    )
    body = {"election_type": 0, "topic_partitions": [{"topic": "t", "partition_id": partitions}]}
    answers = []
    elect_leaders.handle(
        request(43, 1, dict(body, timeout_ms=timeout_ms)), admin=admin, controller=lambda: controller
    ).addCallback(answers.append)
    return answers


def codes(answer):
    return {
        (topic["topic"], entry["partition_id"]): entry["error_code"]
        for topic in answer["replica_election_results"]
        for entry in topic["partition_result"]
    }


def test_the_answer_waits_for_the_brokers_metadata_to_show_every_new_leader():
    admin, clock, metadata_arrives = broker_and_admin()
    answers = elect(admin, [0, 1], 30000)
    assert answers == []
    metadata_arrives(0, 0)
    assert answers == []
    metadata_arrives(1, 0)
    assert [codes(answer) for answer in answers] == [{("t", 0): Errors.NONE, ("t", 1): Errors.NONE}]
    assert clock.getDelayedCalls() == []


def test_a_leader_not_shown_within_the_timeout_answers_request_timed_out():
    admin, clock, metadata_arrives = broker_and_admin()
    answers = elect(admin, [0, 1], 30000)
    metadata_arrives(0, 0)
    clock.advance(29.9)
    assert answers == []
    clock.advance(0.1)
    [answer] = answers
    assert codes(answer) == {("t", 0): Errors.NONE, ("t", 1): Errors.REQUEST_TIMED_OUT}
    assert answer["error_code"] == Errors.NONE
