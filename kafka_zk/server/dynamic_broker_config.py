"""DynamicBrokerConfig: a broker's effective config, /config/brokers/<id> over /config/brokers/<default> over
server.properties, and the listeners that follow changes of chosen names (minimal version)."""

import logging

from kafka_zk.server.config import _BY_NAME, ConfigError, _parse

log = logging.getLogger(__name__)

DEFAULT_ENTITY = "<default>"


class DynamicBrokerConfig:
    """Effective values; update() is called on the reactor with the two override dicts read from ZooKeeper."""

    def __init__(self, static_config, broker_id):
        self.static = static_config
        self.broker_id = broker_id
        self.default_overrides = {}
        self.broker_overrides = {}
        self._listeners = []  # (names, callback)

    def _dynamic(self, name):
        for overrides in (self.broker_overrides, self.default_overrides):
            if name in overrides:
                key = _BY_NAME.get(name)
                if key is None:
                    return True, overrides[name]
                try:
                    value = _parse(key, overrides[name])
                    if key.validator is not None:
                        key.validator(name, value)
                    return True, value
                except ConfigError as error:
                    log.warning("[DynamicBrokerConfig broker=%s] ignoring %s", self.broker_id, error)
        return False, None

    def value(self, name):
        """The effective typed value of ``name``."""
        found, value = self._dynamic(name)
        return value if found else self.static.get(name)

    def add_listener(self, names, callback):
        """callback({name: value}) now, and whenever one of those names' effective value changes."""
        names = list(names)
        self._listeners.append((names, callback))
        callback({name: self.value(name) for name in names})

    def update(self, default_overrides, broker_overrides):
        """New overrides from /config/brokers/<default> and /config/brokers/<id>; notifies listeners."""
        before = {}
        for names, _ in self._listeners:
            for name in names:
                before[name] = self.value(name)
        self.default_overrides = dict(default_overrides or {})
        self.broker_overrides = dict(broker_overrides or {})
        for names, callback in self._listeners:
            values = {name: self.value(name) for name in names}
            if any(values[name] != before[name] for name in names):
                callback(values)

    def entity_names(self):
        """The /config/brokers entities this broker follows."""
        return [DEFAULT_ENTITY, str(self.broker_id)]
