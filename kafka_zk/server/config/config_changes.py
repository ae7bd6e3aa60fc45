"""Every broker follows /config/changes: topic overrides and dynamic broker configs take effect live."""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds

log = logging.getLogger(__name__)

CONFIG_CHANGES_PATH = "/config/changes"
NOTIFICATION_MAX_AGE_MS = 15 * 60 * 1000


class ConfigChangeListener:
    def __init__(self, zk, clock, broker_id, apply_topic_overrides, reload_broker_configs, reload_quota_configs):
        """Callbacks for what the notifications name: ``apply_topic_overrides(topic, overrides)``;
        ``reload_broker_configs()`` and ``reload_quota_configs(entity paths)``, which read ZooKeeper themselves and
        may return Deferreds. ``clock``: how old a notification is, to delete the expired ones."""
        self.zk = zk
        self.clock = clock
        self.broker_id = broker_id
        self.apply_topic_overrides = apply_topic_overrides
        self.reload_broker_configs = reload_broker_configs
        self.reload_quota_configs = reload_quota_configs
        self.last_seen = None
        self._pending = False
        self._running = False

    def start(self):
        zk = self.zk
        return zk.watch_children(CONFIG_CHANGES_PATH, zk.on_reactor(self._changed))

    def _changed(self, *_):
        self._pending = True
        if not self._running:
            self._run().addErrback(lambda failure: log.error("config change processing failed: %s",
                                                             failure.getTraceback()))

    @defer.inlineCallbacks
    def _run(self):
        self._running = True
        try:
            while self._pending:
                self._pending = False
                yield self._process()
        finally:
            self._running = False

    @defer.inlineCallbacks
    def _process(self):
        notifications = yield self.zk.get_config_change_notifications()
        fresh = [(name, path) for name, path, _ in notifications if self.last_seen is None or name > self.last_seen]
        if notifications:
            self.last_seen = max(name for name, _, _ in notifications)
        topics = sorted({path.split("/", 1)[1] for _, path in fresh if path.startswith("topics/")})
        if topics:
            overrides = yield self.zk.get_entity_configs("topics", topics)
            for topic in topics:
                self.apply_topic_overrides(topic, overrides.get(topic, {}))
            log.info("[KafkaServer id=%d] applied config changes of topics %s", self.broker_id, topics)
        if any(path.startswith("brokers/") for _, path in fresh):
            yield self.reload_broker_configs()
            log.info("[KafkaServer id=%d] applied dynamic broker config changes", self.broker_id)
        quota_entities = sorted({path for _, path in fresh if path.startswith(("clients/", "users/"))})
        if quota_entities:
            yield self.reload_quota_configs(quota_entities)
            log.info("[KafkaServer id=%d] applied quota configs of %s", self.broker_id, quota_entities)
        now_ms = milliseconds(self.clock)
        expired = [name for name, _, ctime in notifications if ctime < now_ms - NOTIFICATION_MAX_AGE_MS]
        if expired:
            yield self.zk.delete_config_change_notifications(expired)
