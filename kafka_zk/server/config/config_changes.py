"""Every broker follows /config/changes: topic overrides and dynamic broker configs take effect live."""

import logging

from twisted.internet import defer

from kafka_zk.zk.change_notification_listener import ChangeNotificationListener
from kafka_zk.zk.znodes import ConfigEntityChangeNotificationSequenceZNode, ConfigEntityChangeNotificationZNode

log = logging.getLogger(__name__)


class ConfigChangeListener:
    def __init__(self, zk, clock, broker_id, apply_topic_overrides, reload_broker_configs, reload_quota_configs):
        """Callbacks for what the notifications name: ``apply_topic_overrides(topic, overrides)``;
        ``reload_broker_configs()`` and ``reload_quota_configs(entity paths)``, which read ZooKeeper themselves and
        may return Deferreds. ``clock``: how old a notification is, to delete the expired ones."""
        self.zk = zk
        self.broker_id = broker_id
        self.apply_topic_overrides = apply_topic_overrides
        self.reload_broker_configs = reload_broker_configs
        self.reload_quota_configs = reload_quota_configs
        self.notifications = ChangeNotificationListener(
            zk,
            clock,
            ConfigEntityChangeNotificationZNode.PATH,
            ConfigEntityChangeNotificationSequenceZNode.PREFIX,
            ConfigEntityChangeNotificationSequenceZNode.decode,
            self._apply,
        )

    def start(self):
        return self.notifications.start()

    @defer.inlineCallbacks
    def _apply(self, entity_paths):
        topics = sorted({path.split("/", 1)[1] for path in entity_paths if path.startswith("topics/")})
        if topics:
            overrides = yield self.zk.get_entity_configs("topics", topics)
            for topic in topics:
                self.apply_topic_overrides(topic, overrides.get(topic, {}))
            log.info("[KafkaServer id=%d] applied config changes of topics %s", self.broker_id, topics)
        if any(path.startswith("brokers/") for path in entity_paths):
            yield self.reload_broker_configs()
            log.info("[KafkaServer id=%d] applied dynamic broker config changes", self.broker_id)
        quota_entities = sorted({path for path in entity_paths if path.startswith(("clients/", "users/"))})
        if quota_entities:
            yield self.reload_quota_configs(quota_entities)
            log.info("[KafkaServer id=%d] applied quota configs of %s", self.broker_id, quota_entities)
