"""ACL and config changes reach their handlers through the one ChangeNotificationListener: each follower's path,
prefix and decoding, over an in-memory ZooKeeper."""

from twisted.internet import task

from kafka_zk.security.acl_authorizer import acl_change_listener
from kafka_zk.server.config.config_changes import ConfigChangeListener
from kafka_zk.zk.notification_sequence import Notification
from kafka_zk.zk.security_znodes import AclChangeNotificationZNode
from kafka_zk.zk.znodes import ConfigEntityChangeNotificationSequenceZNode
from tests.fake_zk import FakeZk


def _notifications(prefix, payloads):
    return [Notification("%s%010d" % (prefix, number), data, 0) for number, data in enumerate(payloads)]


def test_each_acl_change_path_reloads_the_patterns_its_notifications_name():
    stored = {
        "/kafka-acl-changes": _notifications(
            "acl_changes_",
            [
                AclChangeNotificationZNode.encode("Topic", "events"),
                b"no separator",
                b"Bogus:x",
                AclChangeNotificationZNode.encode("Group", "g"),
            ],
        ),
        "/kafka-acl-extended-changes": _notifications(
            "acl_changes_", [AclChangeNotificationZNode.encode("Topic", "ev", "PREFIXED")]
        ),
    }
    zk = FakeZk({"get_notifications": lambda parent: stored[parent]})
    reloaded = []
    for pattern_type in ("LITERAL", "PREFIXED"):
        acl_change_listener(zk, task.Clock(), pattern_type, reloaded.append).start()
    for parent in stored:
        zk.watches[parent]([])
    assert reloaded == [[("LITERAL", "Group", "g"), ("LITERAL", "Topic", "events")], [("PREFIXED", "Topic", "ev")]]


def test_config_changes_reach_topics_brokers_and_quota_entities():
    entity_paths = ["topics/t", "brokers/<default>", "users/alice", "topics/t", "clients/c"]
    stored = _notifications("config_change_", map(ConfigEntityChangeNotificationSequenceZNode.encode, entity_paths))
    zk = FakeZk(
        {
            "get_notifications": lambda parent: stored if parent == "/config/changes" else [],
            "get_entity_configs": lambda entity_type, names: {"t": {"retention.ms": "5"}},
        }
    )
    applied = []
    listener = ConfigChangeListener(
        zk,
        task.Clock(),
        1,
        lambda topic, overrides: applied.append((topic, overrides)),
        lambda: applied.append("brokers"),
        lambda paths: applied.append(paths),
    )
    listener.start()
    zk.watches["/config/changes"]([])
    assert applied == [("t", {"retention.ms": "5"}), "brokers", ["clients/c", "users/alice"]]
