"""The topic configs a broker applies: each topic's /config/topics overrides over the (dynamic) broker defaults,
the effective config of each topic kept until either changes."""

from twisted.internet import defer

from kafka_zk.server.config.topic_config import effective_topic_config, to_log_config


class TopicConfigCache:
    def __init__(self, dynamic_config, zk, on_overrides=lambda topic, overrides: None):
        """``dynamic_config``: the broker's DynamicBrokerConfig, whose log.* values are every topic's defaults;
        ``on_overrides(topic, overrides)``: called with every topic's overrides as they are read or changed (the
        replication quotas follow the throttled replicas named there)."""
        self.dynamic_config = dynamic_config
        self.zk = zk
        self.on_overrides = on_overrides
        self.overrides = {}  # topic -> its /config/topics overrides, as strings
        self._configs = {}  # topic -> effective config, for the dynamic configs as of _generation
        self._generation = dynamic_config.generation

    def config(self, topic):
        """The topic's effective config (broker defaults, dynamic ones included, under its own overrides), kept
        until either changes: every append and every partition of a LeaderAndIsr asks for it. Read-only.
        ``topic`` None: the broker defaults alone."""
        dynamic = self.dynamic_config
        if self._generation != dynamic.generation:
            self._configs = {}
            self._generation = dynamic.generation
        config = self._configs.get(topic)
        if config is None:
            config = self._configs[topic] = effective_topic_config(
                dynamic.log_config_defaults(), self.overrides.get(topic, {})
            )
        return config

    def log_config(self, topic):
        """The LogConfig of the topic's logs."""
        return to_log_config(self.config(topic))

    @defer.inlineCallbacks
    def prepare(self, topics):
        """Read the /config/topics overrides of topics not seen yet (before creating their logs)."""
        for topic in topics:
            if topic not in self.overrides:
                self._set(topic, (yield self.zk.get_entity_config("topics", topic)))

    def update_overrides(self, topic, overrides):
        """New /config/topics overrides of a topic (a config change notification)."""
        self._set(topic, dict(overrides))

    def _set(self, topic, overrides):
        self.overrides[topic] = overrides
        self._configs.pop(topic, None)
        self.on_overrides(topic, overrides)

    def reconfigure_logs(self, log_manager):
        """The broker defaults changed: logs created from now on take them, and every log its topic's config."""
        log_manager.default_config = self.log_config(None)
        for log_ in log_manager.configurable_logs():
            log_.config = self.log_config(log_.topic)
