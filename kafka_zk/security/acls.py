"""ACLs as Kafka 2.5's AclAuthorizer keeps them: entries, resource patterns, binding filters, the decision.

Pure: no ZooKeeper, no reactor. ZooKeeper stores an entry as a dict of names (``{"principal": "User:alice",
"permissionType": "Allow", "operation": "Read", "host": "*"}``); ``entry_from_json``/``entry_to_json`` convert.
"""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple

from kafka_zk.security.authorizer import CLUSTER_NAME, WILDCARD, AclOperation, PatternType, PermissionType, ResourceType
from kafka_zk.security.principal import ANONYMOUS, KafkaPrincipal

# authorizer.class.name values that mean AclAuthorizer (SimpleAclAuthorizer is its deprecated older name).
AUTHORIZER_CLASS_NAMES = ("kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer")

WILDCARD_PRINCIPAL = "User:*"
WILDCARD_HOST = "*"

# The resource types ACLs are stored for, and the pattern types with a ZooKeeper store.
STORED_RESOURCE_TYPES = (
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.CLUSTER,
    ResourceType.TRANSACTIONAL_ID,
    ResourceType.DELEGATION_TOKEN,
)
STORED_PATTERN_TYPES = (PatternType.LITERAL, PatternType.PREFIXED)

# An allow of any of these operations also allows the key (AclAuthorizer.allowAclExists).
IMPLYING_OPERATIONS = {
    AclOperation.DESCRIBE: (
        AclOperation.DESCRIBE,
        AclOperation.READ,
        AclOperation.WRITE,
        AclOperation.DELETE,
        AclOperation.ALTER,
    ),
    AclOperation.DESCRIBE_CONFIGS: (AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS),
}


def _lookup(enum_type, text: str):
    """An enum member by any spelling Kafka accepts: READ, Read, read, DescribeConfigs, describe_configs."""
    wanted = text.strip().replace("_", "").replace("-", "").upper()
    for member in enum_type:
        if member.name.replace("_", "") == wanted:
            return member
    raise ValueError("unknown %s: %s" % (enum_type.__name__, text))


def operation_from_name(text: str) -> AclOperation:
    return _lookup(AclOperation, text)


def resource_type_from_name(text: str) -> ResourceType:
    return _lookup(ResourceType, text)


def pattern_type_from_name(text: str) -> PatternType:
    return _lookup(PatternType, text)


def permission_from_name(text: str) -> PermissionType:
    return _lookup(PermissionType, text)


class AclEntry(NamedTuple):
    """Who (``User:alice`` or ``User:*``) may or may not do what from which host (``*`` for any)."""

    principal: str
    host: str
    operation: AclOperation
    permission: PermissionType

    def __str__(self) -> str:
        return "(principal=%s, host=%s, operation=%s, permissionType=%s)" % (
            self.principal,
            self.host,
            self.operation.name,
            self.permission.name,
        )

    def to_json(self) -> dict:
        return {
            "principal": self.principal,
            "permissionType": self.permission.name.capitalize(),
            "operation": self.operation.display_name,
            "host": self.host,
        }

    @classmethod
    def from_json(cls, item: Mapping) -> "AclEntry":
        return cls(
            item["principal"],
            item["host"],
            operation_from_name(item["operation"]),
            permission_from_name(item["permissionType"]),
        )


def entries_to_json(entries: Iterable[AclEntry]) -> list[dict]:
    return [entry.to_json() for entry in sorted(entries)]


def entries_from_json(items: Iterable[Mapping]) -> frozenset:
    return frozenset(AclEntry.from_json(item) for item in items)


class ResourcePattern(NamedTuple):
    """A stored pattern: a literal name (``*`` meaning every resource of the type) or a prefix."""

    resource_type: ResourceType
    name: str
    pattern_type: PatternType = PatternType.LITERAL

    def __str__(self) -> str:
        return "ResourcePattern(resourceType=%s, name=%s, patternType=%s)" % (
            self.resource_type.name,
            self.name,
            self.pattern_type.name,
        )


class ResourcePatternFilter(NamedTuple):
    """Which patterns a DescribeAcls/DeleteAcls filter selects. ANY resource type or pattern type, or a None
    name, match everything; MATCH selects the patterns that would apply to the named resource."""

    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType

    def __str__(self) -> str:
        return "ResourcePattern(resourceType=%s, name=%s, patternType=%s)" % (
            self.resource_type.name,
            "<any>" if self.name is None else self.name,
            self.pattern_type.name,
        )

    def matches(self, pattern: ResourcePattern) -> bool:
        if self.resource_type != ResourceType.ANY and self.resource_type != pattern.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH) and self.pattern_type != pattern.pattern_type:
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        if pattern.pattern_type == PatternType.LITERAL:
            return self.name == pattern.name or pattern.name == WILDCARD
        return self.name.startswith(pattern.name)

    def matches_at_most_one(self) -> bool:
        return (
            self.resource_type not in (ResourceType.ANY, ResourceType.UNKNOWN)
            and self.name is not None
            and self.pattern_type in (PatternType.LITERAL, PatternType.PREFIXED)
        )

    def has_unknown(self) -> bool:
        return ResourceType.UNKNOWN == self.resource_type or PatternType.UNKNOWN == self.pattern_type


class AclEntryFilter(NamedTuple):
    """Which entries a filter selects: None principal/host and ANY operation/permission match all."""

    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission: PermissionType = PermissionType.ANY

    def matches(self, entry: AclEntry) -> bool:
        return (
            (self.principal is None or self.principal == entry.principal)
            and (self.host is None or self.host == entry.host)
            and (self.operation == AclOperation.ANY or self.operation == entry.operation)
            and (self.permission == PermissionType.ANY or self.permission == entry.permission)
        )

    def has_unknown(self) -> bool:
        return AclOperation.UNKNOWN == self.operation or PermissionType.UNKNOWN == self.permission


class AclBinding(NamedTuple):
    pattern: ResourcePattern
    entry: AclEntry


class AclBindingFilter(NamedTuple):
    pattern_filter: ResourcePatternFilter
    entry_filter: AclEntryFilter = AclEntryFilter()

    def matches(self, binding: AclBinding) -> bool:
        return self.pattern_filter.matches(binding.pattern) and self.entry_filter.matches(binding.entry)

    def has_unknown(self) -> bool:
        return self.pattern_filter.has_unknown() or self.entry_filter.has_unknown()


MATCH_ALL = AclBindingFilter(ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY))


def binding_error(binding: AclBinding) -> str | None:
    """Why a CreateAcls binding is invalid (Kafka answers INVALID_REQUEST with this message), or None."""
    pattern, entry = binding
    if (
        ResourceType.UNKNOWN == pattern.resource_type
        or PatternType.UNKNOWN == pattern.pattern_type
        or AclOperation.UNKNOWN == entry.operation
        or PermissionType.UNKNOWN == entry.permission
    ):
        return "ACL binding contains unknown elements"
    if pattern.resource_type == ResourceType.ANY:
        return "resourceType must not be ANY"
    if pattern.pattern_type in (PatternType.ANY, PatternType.MATCH):
        return "patternType must not be %s" % pattern.pattern_type.name
    if entry.operation == AclOperation.ANY:
        return "operation must not be ANY"
    if entry.permission == PermissionType.ANY:
        return "permissionType must not be ANY"
    if pattern.resource_type == ResourceType.CLUSTER and pattern.name != CLUSTER_NAME:
        return "The only valid name for the CLUSTER resource is %s" % CLUSTER_NAME
    if not pattern.name:
        return "Invalid empty resource name"
    if pattern.pattern_type == PatternType.PREFIXED and pattern.name == WILDCARD:
        return "A prefixed pattern cannot use the wildcard name '*'; use a literal '*' instead"
    try:
        KafkaPrincipal.parse(entry.principal)
    except ValueError as error:
        return str(error)
    return None


def parse_super_users(text: str | None) -> frozenset:
    """``super.users``: semicolon-separated principals (``User:admin;User:ops``)."""
    return frozenset(part.strip() for part in (text or "").split(";") if part.strip())


class AclCache:
    """Every ACL by resource pattern, and the authorization decision over them (AclAuthorizer.authorize)."""

    def __init__(self, super_users: Iterable[str] = (), allow_if_no_acl: bool = False):
        self.super_users = frozenset(super_users)
        self.allow_if_no_acl = allow_if_no_acl
        self._acls: dict[ResourcePattern, frozenset] = {}
        self._prefixed: dict[ResourceType, dict[str, frozenset]] = {}

    def set(self, pattern: ResourcePattern, entries: Iterable[AclEntry]) -> None:
        """Replace a pattern's ACLs (none: forget the pattern)."""
        entries = frozenset(entries)
        if entries:
            self._acls[pattern] = entries
        else:
            self._acls.pop(pattern, None)
        if pattern.pattern_type == PatternType.PREFIXED:
            prefixes = self._prefixed.setdefault(pattern.resource_type, {})
            if entries:
                prefixes[pattern.name] = entries
            else:
                prefixes.pop(pattern.name, None)

    def get(self, pattern: ResourcePattern) -> frozenset:
        return self._acls.get(pattern, frozenset())

    def patterns(self) -> list:
        return list(self._acls)

    def bindings(self, binding_filter: AclBindingFilter = MATCH_ALL) -> list:
        """The stored bindings a filter selects, sorted."""
        return sorted(
            AclBinding(pattern, entry)
            for pattern, entries in self._acls.items()
            for entry in entries
            if binding_filter.matches(AclBinding(pattern, entry))
        )

    def matching_acls(self, resource_type: ResourceType, name: str) -> frozenset:
        """The ACLs that apply to one resource: the literal wildcard, the literal name and every prefix."""
        found = set(self._acls.get(ResourcePattern(resource_type, WILDCARD), ()))
        found.update(self._acls.get(ResourcePattern(resource_type, name), ()))
        prefixes = self._prefixed.get(resource_type)
        if prefixes:
            for end in range(len(name) + 1):
                found.update(prefixes.get(name[:end], ()))
        return frozenset(found)

    def authorize(
        self, principal, host: str, operation: AclOperation, resource_type: ResourceType, resource_name: str
    ) -> bool:
        principal = str(principal if principal is not None else ANONYMOUS)  # None: nothing authenticated it
        if principal in self.super_users:
            return True
        acls = self.matching_acls(resource_type, resource_name)
        if not acls:
            return self.allow_if_no_acl
        if _exists(acls, principal, host, (operation,), PermissionType.DENY):
            return False
        return _exists(acls, principal, host, IMPLYING_OPERATIONS.get(operation, (operation,)), PermissionType.ALLOW)


def _exists(acls, principal: str, host: str, operations, permission: PermissionType) -> bool:
    return any(
        acl.permission == permission
        and acl.principal in (principal, WILDCARD_PRINCIPAL)
        and (acl.operation in operations or acl.operation == AclOperation.ALL)
        and acl.host in (host, WILDCARD_HOST)
        for acl in acls
    )


# -- creating and deleting: the planning both the broker and kafka-acls --authorizer-properties use --------


def plan_creations(bindings: list) -> tuple[dict, dict]:
    """({index: error message} of the invalid bindings, {pattern: {entries}} of the valid ones)."""
    errors, additions = {}, {}
    for index, binding in enumerate(bindings):
        message = binding_error(binding)
        if message is not None:
            errors[index] = message
        else:
            additions.setdefault(binding.pattern, set()).add(binding.entry)
    return errors, additions


def deletion_targets(known_patterns: Iterable[ResourcePattern], filters: list) -> dict:
    """{pattern: [(index, filter)]}: the patterns some filter may delete from, with those filters. A filter that
    names exactly one pattern adds it even when not known (it may have been written since)."""
    candidates = list(dict.fromkeys(known_patterns))
    for binding_filter in filters:
        pattern_filter = binding_filter.pattern_filter
        if pattern_filter.matches_at_most_one():
            candidates.append(
                ResourcePattern(pattern_filter.resource_type, pattern_filter.name, pattern_filter.pattern_type)
            )
    targets = {}
    for pattern in dict.fromkeys(candidates):
        matching = [(i, f) for i, f in enumerate(filters) if f.pattern_filter.matches(pattern)]
        if matching:
            targets[pattern] = matching
    return targets


def remove_matching(
    pattern: ResourcePattern, entries: Iterable[AclEntry], matching_filters: list, deleted: dict
) -> frozenset:
    """The entries no filter selects; each removed binding goes into ``deleted`` under the first filter's index."""
    kept = set()
    for entry in entries:
        index = next((i for i, f in matching_filters if f.entry_filter.matches(entry)), None)
        if index is None:
            kept.add(entry)
        else:
            deleted.setdefault(AclBinding(pattern, entry), index)
    return frozenset(kept)


def group_by_pattern(bindings: Iterable[AclBinding]) -> dict:
    """{pattern: sorted entries}, patterns in sorted order."""
    grouped: dict = {}
    for pattern, entry in sorted(bindings):
        grouped.setdefault(pattern, []).append(entry)
    return grouped


# -- ZooKeeper's names for a pattern: (pattern type, resource type, name) as KafkaZkClient takes them ----------


def store_key(pattern: ResourcePattern) -> tuple[str, str, str]:
    return pattern.pattern_type.name, pattern.resource_type.display_name, pattern.name


def pattern_from_store(key: tuple[str, str, str]) -> ResourcePattern:
    """The pattern of a stored (pattern type, resource type, name); ValueError for an unknown type."""
    pattern_type, resource_type, name = key
    return ResourcePattern(resource_type_from_name(resource_type), name, pattern_type_from_name(pattern_type))


def adding(entries: Iterable[AclEntry]):
    """An update for KafkaZkClient.update_resource_acls that adds ``entries``."""
    additions = frozenset(entries)
    return lambda current: entries_to_json(entries_from_json(current) | additions)


def removing(pattern: ResourcePattern, matching_filters: list, removed: dict):
    """An update that removes what ``matching_filters`` select; ``removed`` holds those bindings afterwards."""

    def update(current):
        removed.clear()
        return entries_to_json(remove_matching(pattern, entries_from_json(current), matching_filters, removed))

    return update
