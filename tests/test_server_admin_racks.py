"""The broker's AdminManager places replicas by the live brokers' racks, in Kafka's mode for each path."""

from twisted.internet import task

from kafka_zk.controller.assignment import assign_replicas, growth_start_index
from kafka_zk.protocol.errors import Errors
from kafka_zk.server.admin_manager import AdminManager
from kafka_zk.server.config.dynamic_broker_config import DynamicBrokerConfig
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.metadata_cache import BrokerEndpoints, MetadataCache, PartitionInfo
from tests.fake_zk import FakeZk


class RecordingZk(FakeZk):
    """The calls AdminManager makes to ZooKeeper, answered from a dict of topic assignments."""

    def __init__(self):
        self.assignments = {}
        super().__init__(
            {
                "create_topic_assignment": lambda topic, assignment, config=None: self._store(topic, assignment),
                "set_topic_assignment": lambda topic, assignment, *_: self._store(topic, assignment),
                "get_topic_assignment": lambda topic: dict(self.assignments.get(topic, {})),
            }
        )

    def _store(self, topic, assignment):
        self.assignments[topic] = dict(assignment)


class Server:
    def __init__(self, racks, props=None):
        self.config = KafkaConfig(dict({"zookeeper.connect": "z"}, **(props or {})))
        self.metadata_cache = MetadataCache(0)
        self.metadata_cache.update(0, 1, [BrokerEndpoints(b, {}, rack) for b, rack in racks.items()], [])
        self.zk = RecordingZk()

    def add_topic(self, topic, assignment):
        self.zk.assignments[topic] = assignment
        self.metadata_cache.update(
            0,
            1,
            list(self.metadata_cache.brokers.values()),
            [(topic, p, PartitionInfo(r[0], 0, r, r, [], 1, 0)) for p, r in assignment.items()],
        )


def admin_of(server):
    return AdminManager(
        server.config, server.metadata_cache, server.zk, 0, DynamicBrokerConfig(server.config, 0), task.Clock()
    )


RACKED = {b: "rack-%d" % (b % 3) for b in range(6)}
PARTIAL = {**RACKED, 5: None}


def _result(deferred):
    results = []
    deferred.addCallback(results.append)
    assert results, "the deferred did not fire"
    return results[0]


def test_create_topics_places_replicas_one_per_rack():
    server = Server(RACKED)
    [outcome] = _result(admin_of(server).create_topics([("t", 12, 3, {}, {})], 0, False))
    assert outcome.error == Errors.NONE
    assignment = server.zk.assignments["t"]
    assert all(
        sorted(RACKED[b] for b in replicas) == ["rack-0", "rack-1", "rack-2"] for replicas in assignment.values()
    )


def test_create_topics_with_some_brokers_rackless_is_an_unexpected_error_without_message():
    server = Server(PARTIAL)
    [outcome] = _result(admin_of(server).create_topics([("t", 3, 2, {}, {})], 0, False))
    assert (outcome.error, outcome.message) == (Errors.UNKNOWN_SERVER_ERROR, None)
    assert "t" not in server.zk.assignments
    # a manual assignment does not need racks
    [manual] = _result(admin_of(server).create_topics([("m", -1, -1, {0: [5, 0]}, {})], 0, False))
    assert manual.error == Errors.NONE and server.zk.assignments["m"] == {0: [5, 0]}


def test_auto_creation_ignores_racks_when_some_are_missing():
    server = Server(PARTIAL, {"num.partitions": "6", "default.replication.factor": "2"})
    assert _result(admin_of(server).auto_create_topic("auto")) == Errors.LEADER_NOT_AVAILABLE
    assignment = server.zk.assignments["auto"]
    assert sorted(assignment) == list(range(6)) and all(len(set(r)) == 2 for r in assignment.values())


def test_auto_creation_is_rack_aware_when_every_broker_has_a_rack():
    server = Server(RACKED, {"num.partitions": "12", "default.replication.factor": "3"})
    _result(admin_of(server).auto_create_topic("auto"))
    assert all(len({RACKED[b] for b in r}) == 3 for r in server.zk.assignments["auto"].values())


def test_create_partitions_continue_from_partition_zeros_first_replica():
    server = Server(RACKED)
    existing = {0: [4, 2, 0], 1: [5, 0, 1]}
    server.add_topic("grow", existing)
    [(topic, error, _)] = _result(admin_of(server).create_partitions([("grow", 8, None)], 0, False))
    assert (topic, error) == ("grow", Errors.NONE)
    expected = assign_replicas(6, 3, RACKED, start_index=growth_start_index(range(6), 4), start_partition=2)
    assert server.zk.assignments["grow"] == {**existing, **expected}
    assert all(len({RACKED[b] for b in r}) == 3 for r in expected.values())


def test_create_partitions_with_some_brokers_rackless_fail_every_topic():
    server = Server(PARTIAL)
    server.add_topic("grow", {0: [0, 1]})
    outcomes = _result(
        admin_of(server).create_partitions(
            [("grow", 2, None), ("grow-manually", 2, [[0, 1]]), ("missing", 3, None)], 0, False
        )
    )
    assert outcomes == [(name, Errors.UNKNOWN_SERVER_ERROR, None) for name in ("grow", "grow-manually", "missing")]
    assert server.zk.assignments["grow"] == {0: [0, 1]}
