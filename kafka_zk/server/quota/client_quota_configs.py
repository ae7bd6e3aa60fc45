"""Client and user quotas read from /config/clients and /config/users into the broker's quota managers."""

import logging

from twisted.internet import defer

from kafka_zk.zk.znodes import ConfigEntityTypeZNode

log = logging.getLogger(__name__)


class ClientQuotaConfigs:
    def __init__(self, zk, managers):
        """``managers``: the ClientQuotaManagers (produce, fetch) that take the quotas, each by its config_name."""
        self.zk = zk
        self.managers = managers

    @defer.inlineCallbacks
    def load(self):
        """Every client and user quota stored under /config/clients and /config/users."""
        entities = ["clients/" + name for name in (yield self.zk.get_children(ConfigEntityTypeZNode.path("clients")))]
        for user in (yield self.zk.get_children(ConfigEntityTypeZNode.path("users"))):
            entities.append("users/" + user)
            entities.extend(
                "users/%s/clients/%s" % (user, client)
                for client in (yield self.zk.get_children(ConfigEntityTypeZNode.path("users/%s/clients" % user)))
            )
        yield self.reload(entities)

    @defer.inlineCallbacks
    def reload(self, entity_paths):
        """Re-read the quota configs of entity paths such as "clients/c" or "users/u/clients/c"."""
        for entity_path in entity_paths:
            entity_type, _, name = entity_path.partition("/")
            config = yield self.zk.get_entity_config(entity_type, name)
            parts = entity_path.split("/")
            user = parts[1] if parts[0] == "users" else None
            client = parts[1] if parts[0] == "clients" else (parts[3] if len(parts) == 4 else None)
            for manager in self.managers:
                raw = config.get(manager.config_name)
                try:
                    manager.update_quota(user, client, None if raw is None else float(raw))
                except ValueError:
                    log.warning("ignoring invalid quota %s=%s of %s", manager.config_name, raw, entity_path)
