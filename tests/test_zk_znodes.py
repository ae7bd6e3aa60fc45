"""Znode paths, golden encodings and decoding of Kafka-written JSON (kafka_zk/zk/znodes.py)."""

import base64
import json

import pytest

from kafka_zk.zk.security_znodes import AclZNodes
from kafka_zk.zk.znodes import (
    PERSISTENT_PATHS,
    BrokerIdsZNode,
    BrokerIdZNode,
    BrokerInfo,
    BrokerSequenceIdZNode,
    ClusterIdZNode,
    ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityChangeNotificationZNode,
    ConfigEntityTypeZNode,
    ConfigEntityZNode,
    ControllerEpochZNode,
    ControllerZNode,
    DeleteTopicsZNode,
    DeleteTopicZNode,
    EndPoint,
    IsrChangeNotificationSequenceZNode,
    IsrChangeNotificationZNode,
    LeaderIsrAndControllerEpoch,
    LogDirEventNotificationSequenceZNode,
    LogDirEventNotificationZNode,
    PreferredReplicaElectionZNode,
    ProducerIdBlock,
    ProducerIdBlockZNode,
    ReassignPartitionsZNode,
    TopicAssignment,
    TopicPartitionStateZNode,
    TopicPartitionsZNode,
    TopicPartitionZNode,
    TopicsZNode,
    TopicZNode,
    generate_cluster_id,
    sequence_number,
)


def test_controller_golden_and_decode():
    assert ControllerZNode.path() == "/controller"
    assert ControllerZNode.encode(0, 1700000000000) == b'{"version":1,"brokerid":0,"timestamp":"1700000000000"}'
    assert ControllerZNode.decode(b'{"timestamp":"1700000000000","brokerid":7,"version":1}') == 7
    assert ControllerZNode.decode(b"") is None


def test_controller_epoch_is_bare_text():
    assert ControllerEpochZNode.path() == "/controller_epoch"
    assert ControllerEpochZNode.encode(5) == b"5"
    assert ControllerEpochZNode.decode(b"12") == 12


def test_broker_registration_golden():
    info = BrokerInfo(0, [EndPoint("PLAINTEXT", "h", 9092, "PLAINTEXT")])
    assert BrokerIdsZNode.path() == "/brokers/ids"
    assert BrokerIdZNode.path(0) == "/brokers/ids/0"
    assert BrokerIdZNode.encode(info, 1700000000000) == (
        b'{"version":4,"host":"h","port":9092,"endpoints":["PLAINTEXT://h:9092"],"jmx_port":-1,'
        b'"timestamp":"1700000000000","listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"}}'
    )


def test_broker_registration_rack_and_host_port_from_first_plaintext_listener():
    info = BrokerInfo(
        3,
        [
            EndPoint("SECURE", "a", 9093, "SSL"),
            EndPoint("INTERNAL", "b", 9094, "PLAINTEXT"),
            EndPoint("PLAINTEXT", "c", 9092, "PLAINTEXT"),
        ],
        rack="r1",
    )
    body = json.loads(BrokerIdZNode.encode(info, 5, jmx_port=9999))
    assert (body["host"], body["port"], body["rack"], body["jmx_port"]) == ("b", 9094, "r1", 9999)
    assert body["endpoints"] == ["SECURE://a:9093", "INTERNAL://b:9094", "PLAINTEXT://c:9092"]
    assert body["listener_security_protocol_map"] == {
        "SECURE": "SSL",
        "INTERNAL": "PLAINTEXT",
        "PLAINTEXT": "PLAINTEXT",
    }
    assert BrokerIdZNode.decode(3, BrokerIdZNode.encode(info, 5), epoch=42) == BrokerInfo(3, info.endpoints, "r1", 42)


def test_broker_registration_without_plaintext_has_null_host():
    body = json.loads(BrokerIdZNode.encode(BrokerInfo(1, [EndPoint("SSL", "h", 9093, "SSL")]), 5))
    assert body["host"] is None and body["port"] == -1 and "rack" not in body


def test_broker_registration_written_by_kafka():
    kafka = (
        b'{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","REPL":"SASL_SSL"},'
        b'"endpoints":["PLAINTEXT://broker1:9092","REPL://[::1]:9095"],"rack":"dc1","jmx_port":-1,'
        b'"host":"broker1","timestamp":"1588000000000","port":9092,"version":4}'
    )
    info = BrokerIdZNode.decode(1, kafka, epoch=99)
    assert info == BrokerInfo(
        1, [("PLAINTEXT", "broker1", 9092, "PLAINTEXT"), ("REPL", "::1", 9095, "SASL_SSL")], "dc1", 99
    )
    assert info.endpoint("REPL").connection_string == "REPL://[::1]:9095"


def test_broker_registration_old_versions():
    v1 = b'{"jmx_port":-1,"timestamp":"1","host":"old","version":1,"port":9092}'
    assert BrokerIdZNode.decode(2, v1).endpoints == [EndPoint("PLAINTEXT", "old", 9092, "PLAINTEXT")]
    v2 = b'{"version":2,"host":"h","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h:9092","SSL://h:9093"]}'
    assert BrokerIdZNode.decode(2, v2).endpoints == [("PLAINTEXT", "h", 9092, "PLAINTEXT"), ("SSL", "h", 9093, "SSL")]


def test_endpoint_parsing():
    assert EndPoint.parse("PLAINTEXT://:9092") == ("PLAINTEXT", None, 9092, "PLAINTEXT")
    assert EndPoint.parse("PLAINTEXT://:9092").connection_string == "PLAINTEXT://:9092"
    with pytest.raises(ValueError):
        EndPoint.parse("CUSTOM://h:1")  # no protocol map entry and not a protocol name
    with pytest.raises(ValueError):
        EndPoint.parse("nonsense")


def test_topic_assignment_golden_and_versions():
    assert TopicsZNode.path() == "/brokers/topics"
    assert TopicZNode.path("t") == "/brokers/topics/t"
    assert TopicZNode.encode({1: [2, 3], 0: [1, 2, 3]}) == (
        b'{"version":2,"partitions":{"0":[1,2,3],"1":[2,3]},"adding_replicas":{},"removing_replicas":{}}'
    )
    during = TopicZNode.encode({0: [1, 2, 4]}, adding_replicas={0: [4], 1: []}, removing_replicas={0: [3]})
    assert json.loads(during)["adding_replicas"] == {"0": [4]}
    assert TopicZNode.decode(during) == TopicAssignment({0: [1, 2, 4]}, {0: [4]}, {0: [3]})
    v1 = b'{"partitions":{"1":[2,1],"0":[1,2]},"version":1}'
    assert TopicZNode.decode(v1) == TopicAssignment({0: [1, 2], 1: [2, 1]}, {}, {})


def test_partition_paths_and_state():
    assert TopicPartitionsZNode.path("t") == "/brokers/topics/t/partitions"
    assert TopicPartitionZNode.path("t", 3) == "/brokers/topics/t/partitions/3"
    assert TopicPartitionStateZNode.path("t", 3) == "/brokers/topics/t/partitions/3/state"
    state = LeaderIsrAndControllerEpoch(leader=1, leader_epoch=0, isr=[1, 2, 3], controller_epoch=1)
    assert TopicPartitionStateZNode.encode(state) == (
        b'{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}'
    )
    kafka = b'{"isr":[2,1],"leader_epoch":7,"version":1,"leader":2,"controller_epoch":4}'
    assert TopicPartitionStateZNode.decode(kafka, zk_version=9) == LeaderIsrAndControllerEpoch(2, 7, [2, 1], 4, 9)


def test_broker_sequence_and_persistent_paths():
    assert BrokerSequenceIdZNode.path() == "/brokers/seqid"
    assert set(PERSISTENT_PATHS) == {
        "/consumers",
        "/brokers/ids",
        "/brokers/topics",
        "/brokers/seqid",
        "/config/changes",
        "/config/topics",
        "/config/clients",
        "/config/users",
        "/config/brokers",
        "/admin/delete_topics",
        "/isr_change_notification",
        "/latest_producer_id_block",
        "/log_dir_event_notification",
    }


def test_delete_topics_paths():
    assert DeleteTopicsZNode.path() == "/admin/delete_topics"
    assert DeleteTopicZNode.path("t") == "/admin/delete_topics/t"


def test_reassign_partitions():
    assert ReassignPartitionsZNode.path() == "/admin/reassign_partitions"
    assert ReassignPartitionsZNode.encode({("t", 0): [1, 2]}) == (
        b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}'
    )
    kafka = (
        b'{"partitions":[{"replicas":[3,1],"partition":2,"topic":"x"},'
        b'{"topic":"t","partition":0,"replicas":[1,2]}],"version":1}'
    )
    assert ReassignPartitionsZNode.decode(kafka) == {("x", 2): [3, 1], ("t", 0): [1, 2]}


def test_preferred_replica_election():
    assert PreferredReplicaElectionZNode.path() == "/admin/preferred_replica_election"
    assert (
        PreferredReplicaElectionZNode.encode([("t", 0)]) == b'{"version":1,"partitions":[{"topic":"t","partition":0}]}'
    )
    kafka = (
        b'{"partitions":[{"partition":1,"topic":"a"},{"topic":"a","partition":1},'
        b'{"topic":"b","partition":0}],"version":1}'
    )
    assert PreferredReplicaElectionZNode.decode(kafka) == [("a", 1), ("b", 0)]


def test_isr_change_notification():
    assert IsrChangeNotificationZNode.path() == "/isr_change_notification"
    assert IsrChangeNotificationSequenceZNode.path() == "/isr_change_notification/isr_change_"
    assert IsrChangeNotificationSequenceZNode.path("0000000004") == "/isr_change_notification/isr_change_0000000004"
    assert IsrChangeNotificationSequenceZNode.encode([("t", 0)]) == (
        b'{"version":1,"partitions":[{"topic":"t","partition":0}]}'
    )
    kafka = b'{"partitions":[{"partition":0,"topic":"t"},{"partition":3,"topic":"u"}],"version":1}'
    assert IsrChangeNotificationSequenceZNode.decode(kafka) == [("t", 0), ("u", 3)]
    assert sequence_number("isr_change_0000000004", IsrChangeNotificationSequenceZNode.PREFIX) == "0000000004"


def test_log_dir_event_notification():
    assert LogDirEventNotificationZNode.path() == "/log_dir_event_notification"
    assert LogDirEventNotificationSequenceZNode.path() == "/log_dir_event_notification/log_dir_event_"
    assert LogDirEventNotificationSequenceZNode.encode(1) == b'{"version":1,"broker":1,"event":1}'
    assert LogDirEventNotificationSequenceZNode.decode(b'{"event":1,"broker":5,"version":1}') == 5


def test_entity_config():
    assert ConfigEntityTypeZNode.path("topics") == "/config/topics"
    assert ConfigEntityZNode.path("topics", "t") == "/config/topics/t"
    assert ConfigEntityZNode.path("brokers", "<default>") == "/config/brokers/<default>"
    assert ConfigEntityZNode.encode({"retention.ms": "1000"}) == b'{"version":1,"config":{"retention.ms":"1000"}}'
    assert json.loads(ConfigEntityZNode.encode({"segment.bytes": 1024, "preallocate": True}))["config"] == {
        "segment.bytes": "1024",
        "preallocate": "true",
    }
    assert ConfigEntityZNode.decode(b'{"config":{"cleanup.policy":"compact"},"version":1}') == {
        "cleanup.policy": "compact"
    }
    assert ConfigEntityZNode.decode(None) == {}


def test_config_change_notification():
    assert ConfigEntityChangeNotificationZNode.path() == "/config/changes"
    assert ConfigEntityChangeNotificationSequenceZNode.path() == "/config/changes/config_change_"
    assert ConfigEntityChangeNotificationSequenceZNode.encode("topics/t") == b'{"version":2,"entity_path":"topics/t"}'
    assert (
        ConfigEntityChangeNotificationSequenceZNode.decode(b'{"entity_path":"users/alice","version":2}')
        == "users/alice"
    )
    v1 = b'{"version":1,"entity_type":"topics","entity_name":"t"}'
    assert ConfigEntityChangeNotificationSequenceZNode.decode(v1) == "topics/t"


def test_cluster_id():
    assert ClusterIdZNode.path() == "/cluster/id"
    assert ClusterIdZNode.encode("abc") == b'{"version":"1","id":"abc"}'
    assert ClusterIdZNode.decode(b'{"id":"XYZ","version":"1"}') == "XYZ"
    generated = generate_cluster_id()
    assert len(generated) == 22 and "=" not in generated
    assert base64.urlsafe_b64decode(generated + "==") and generated != generate_cluster_id()
    assert generate_cluster_id(bytes(range(16))) == "AAECAwQFBgcICQoLDA0ODw"


def test_producer_id_block():
    assert ProducerIdBlockZNode.path() == "/latest_producer_id_block"
    assert ProducerIdBlockZNode.encode(ProducerIdBlock(0, 0, 999)) == (
        b'{"version":1,"broker":0,"block_start":"0","block_end":"999"}'
    )
    kafka = b'{"block_end":"1999","broker":2,"version":1,"block_start":"1000"}'
    assert ProducerIdBlockZNode.decode(kafka) == ProducerIdBlock(2, 1000, 1999)
    assert ProducerIdBlockZNode.decode(b"") is None
    assert ProducerIdBlockZNode.next_block(None, 3) == ProducerIdBlock(3, 0, 999)
    assert ProducerIdBlockZNode.next_block(ProducerIdBlock(2, 1000, 1999), 3) == ProducerIdBlock(3, 2000, 2999)


def test_acl_paths():
    assert AclZNodes.path("Topic", "t") == "/kafka-acl/Topic/t"
    assert AclZNodes.path("Group", "g", "PREFIXED") == "/kafka-acl-extended/prefixed/Group/g"
    assert AclZNodes.change_path() == "/kafka-acl-changes/acl_changes_"
    assert AclZNodes.change_path("PREFIXED") == "/kafka-acl-extended-changes/acl_changes_"
