"""The replica selectors of replica.selector.class (KIP-392), as plain functions over replica views."""

import pytest

from kafka_zk.server.config.kafka_config import REPLICA_SELECTOR_CLASSES, ConfigError, KafkaConfig
from kafka_zk.server.replication.replica_selector import RACK_AWARE, SELECTORS, ReplicaView, rack_aware, selector_for

LEADER = ReplicaView(1, "r1", 100, 0)


def test_without_a_client_rack_or_a_replica_in_it_the_leader_is_chosen():
    follower = ReplicaView(2, "r2", 100, 0)
    for client_rack in ("", None, "r9"):
        assert rack_aware(client_rack, [follower, LEADER], LEADER) == LEADER


def test_the_leader_is_chosen_when_it_shares_the_client_rack_even_behind_a_follower():
    ahead = ReplicaView(2, "r1", 100, 0)
    assert rack_aware("r1", [ahead, LEADER], LEADER) == LEADER


def test_a_replica_in_the_client_rack_is_chosen_over_the_leader():
    follower = ReplicaView(2, "r2", 40, 5000)
    assert rack_aware("r2", [follower, ReplicaView(3, "r3", 100, 0), LEADER], LEADER) == follower


def test_among_replicas_of_the_rack_the_most_caught_up_wins_then_the_freshest_then_the_highest_id():
    behind, ahead = ReplicaView(2, "r2", 90, 0), ReplicaView(3, "r2", 95, 9000)
    assert rack_aware("r2", [behind, ahead, LEADER], LEADER) == ahead
    stale, fresh = ReplicaView(2, "r2", 95, 300), ReplicaView(3, "r2", 95, 100)
    assert rack_aware("r2", [fresh, stale, LEADER], LEADER) == fresh
    low, high = ReplicaView(2, "r2", 95, 100), ReplicaView(4, "r2", 95, 100)
    assert rack_aware("r2", [high, low, LEADER], LEADER) == high


def test_replica_selector_class_takes_kafkas_class_name_and_defaults_to_none():
    assert KafkaConfig({"zookeeper.connect": "z"})["replica.selector.class"] is None
    assert selector_for(None) is None
    config = KafkaConfig({"zookeeper.connect": "z", "replica.selector.class": RACK_AWARE})
    assert selector_for(config["replica.selector.class"]) is rack_aware
    with pytest.raises(ConfigError, match="replica.selector.class"):
        KafkaConfig({"zookeeper.connect": "z", "replica.selector.class": "com.example.Nearest"})


def test_the_config_accepts_exactly_the_class_names_of_the_selectors():
    assert set(REPLICA_SELECTOR_CLASSES) == set(SELECTORS)
