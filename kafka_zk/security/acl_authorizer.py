"""AclAuthorizer: a broker's ACLs loaded from ZooKeeper into memory, kept current through the ACL change
notifications, and written (znode, then notification) for CreateAcls and DeleteAcls.

``zk`` is a ReactorZkClient: its methods answer Deferreds, and its watchers only post to the reactor.
"""

import logging

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import (
    AUTHORIZER_CLASS_NAMES,
    STORED_PATTERN_TYPES,
    AclCache,
    ResourcePattern,
    adding,
    deletion_targets,
    entries_from_json,
    parse_super_users,
    pattern_from_store,
    pattern_type_from_name,
    plan_creations,
    removing,
    resource_type_from_name,
    store_key,
)
from kafka_zk.zk.change_notification_listener import ChangeNotificationListener
from kafka_zk.zk.security_znodes import AclChangeNotificationZNode, AclZNodes

log = logging.getLogger(__name__)


def authorizer_from_config(config, zk, clock):
    """The authorizer ``authorizer.class.name`` names (None when empty); KafkaConfig has checked the name."""
    class_name = (config["authorizer.class.name"] or "").strip()
    if not class_name:
        return None
    if class_name not in AUTHORIZER_CLASS_NAMES:
        raise ValueError("unknown authorizer.class.name %s" % class_name)
    return AclAuthorizer(
        zk, clock, parse_super_users(config.get("super.users")), bool(config.get("allow.everyone.if.no.acl.found"))
    )


def decode_entries(key, items):
    try:
        return entries_from_json(items)
    except (KeyError, ValueError, TypeError) as error:
        log.error("ignoring unreadable ACLs of %s: %s", key, error)
        return frozenset()


class AclAuthorizer:
    def __init__(self, zk, clock, super_users=(), allow_everyone_if_no_acl_found=False):
        self.zk = zk
        self.clock = clock
        self.cache = AclCache(super_users, allow_everyone_if_no_acl_found)
        self._writes = defer.DeferredLock()  # one change at a time, so the cache follows the order written
        self._change_listeners = []

    @defer.inlineCallbacks
    def start(self):
        """Create the ACL paths, load every ACL, then follow both change paths."""
        yield self.zk.create_acl_paths()
        stored = yield self.zk.get_all_acls()
        for key, items in stored.items():
            self._store(key, items)
        log.info("AclAuthorizer loaded ACLs of %d resource patterns", len(stored))
        for pattern_type in STORED_PATTERN_TYPES:
            listener = acl_change_listener(self.zk, self.clock, pattern_type.name, self._reload)
            self._change_listeners.append(listener)
            yield listener.start()

    def _store(self, key, items):
        try:
            pattern = pattern_from_store(key)
        except ValueError as error:
            log.error("ignoring ACLs of unknown resource %s: %s", key, error)
            return
        self.cache.set(pattern, decode_entries(key, items))

    @defer.inlineCallbacks
    def _reload(self, keys):
        stored = yield self.zk.get_resource_acls(keys)
        for key, items in stored.items():
            self._store(key, items)

    # -- decisions -----------------------------------------------------------------------------

    def authorize(self, principal, host, operation, resource_type, resource_name):
        return self.cache.authorize(principal, host, operation, resource_type, resource_name)

    def acls(self, binding_filter):
        """The bindings a filter selects (DescribeAcls)."""
        return self.cache.bindings(binding_filter)

    # -- changes ---------------------------------------------------------------------------------

    @defer.inlineCallbacks
    def create_acls(self, bindings):
        """CreateAcls: [(Errors member, message or None)] in the order of ``bindings``."""
        bindings = list(bindings)
        errors, additions = plan_creations(bindings)
        results = [
            (Errors.INVALID_REQUEST, errors[i]) if i in errors else (Errors.NONE, None) for i in range(len(bindings))
        ]
        yield self._writes.acquire()
        try:
            for pattern, entries in additions.items():
                try:
                    yield self._update(pattern, adding(entries))
                except Exception as error:  # noqa: BLE001 - each resource answers its own failure
                    log.error("failed to create ACLs for %s: %s", pattern, error)
                    for i, binding in enumerate(bindings):
                        if i not in errors and binding.pattern == pattern:
                            results[i] = (Errors.UNKNOWN_SERVER_ERROR, str(error))
        finally:
            self._writes.release()
        return results

    @defer.inlineCallbacks
    def delete_acls(self, filters):
        """DeleteAcls: per filter, [(AclBinding, Errors member, message or None)] of what it deleted."""
        filters = list(filters)
        deleted, failed = {}, {}
        yield self._writes.acquire()
        try:
            for pattern, matching in deletion_targets(self.cache.patterns(), filters).items():
                removed = {}
                try:
                    yield self._update(pattern, removing(pattern, matching, removed))
                except Exception as error:  # noqa: BLE001
                    log.error("failed to delete ACLs of %s: %s", pattern, error)
                    failed.update((binding, str(error)) for binding in removed)
                for binding, index in removed.items():
                    deleted.setdefault(binding, index)
        finally:
            self._writes.release()
        results = [[] for _ in filters]
        for binding, index in sorted(deleted.items()):
            error = failed.get(binding)
            results[index].append((binding, Errors.NONE if error is None else Errors.UNKNOWN_SERVER_ERROR, error))
        return results

    @defer.inlineCallbacks
    def _update(self, pattern, update):
        key = store_key(pattern)
        before, after = yield self.zk.update_resource_acls(*key, update)
        if entries_from_json(before) != entries_from_json(after):
            self.cache.set(pattern, entries_from_json(after))
            yield self.zk.create_acl_change_notification(*key)


def acl_change_listener(zk, clock, pattern_type, reload):
    """Follows one change path (``/kafka-acl-changes`` or ``/kafka-acl-extended-changes``): re-reads, through
    ``reload([(pattern type, resource type, name)])``, the ACLs of the patterns the new notifications name."""

    def reload_changed(resources):
        patterns = (_pattern_of_change(resource) for resource in resources)
        keys = sorted({store_key(pattern) for pattern in patterns if pattern is not None})
        return reload(keys) if keys else None

    def decode(data):
        return AclChangeNotificationZNode.decode(data, pattern_type)

    return ChangeNotificationListener(
        zk, clock, AclChangeNotificationZNode.parent(pattern_type), AclZNodes.CHANGE_PREFIX, decode, reload_changed
    )


def _pattern_of_change(resource):
    resource_type, name, pattern_type = resource
    try:
        return ResourcePattern(resource_type_from_name(resource_type), name, pattern_type_from_name(pattern_type))
    except ValueError:
        log.error("ignoring an ACL change notification of unknown resource %s", resource)
        return None
