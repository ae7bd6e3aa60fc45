"""The pure ACL core: AclAuthorizer's decision, filters' ANY/MATCH semantics, the ZooKeeper JSON, create/delete
planning, and the ACL API handlers without an authorizer or without the Cluster permission."""

import json

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import (
    AclBinding,
    AclBindingFilter,
    AclCache,
    AclEntry,
    AclEntryFilter,
    ResourcePattern,
    ResourcePatternFilter,
    adding,
    binding_error,
    deletion_targets,
    entries_from_json,
    entries_to_json,
    operation_from_name,
    parse_super_users,
    pattern_from_store,
    plan_creations,
    removing,
    store_key,
)
from kafka_zk.security.authorizer import AclOperation as Op
from kafka_zk.security.authorizer import PatternType
from kafka_zk.security.authorizer import PermissionType as Perm
from kafka_zk.security.authorizer import ResourceType as RT
from kafka_zk.security.principal import user
from kafka_zk.server.apis import create_acls, delete_acls, describe_acls
from kafka_zk.zk.security_znodes import ACL_PATHS, AclChangeNotificationZNode, AclZNode

ALLOW, DENY = Perm.ALLOW, Perm.DENY
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED


def entry(principal="User:alice", operation=Op.READ, permission=ALLOW, host="*"):
    return AclEntry(principal, host, operation, permission)


def cache_with(acls, super_users=(), allow_if_no_acl=False):
    cache = AclCache(super_users, allow_if_no_acl)
    for pattern, entries in acls.items():
        cache.set(pattern, entries)
    return cache


def topic(name, pattern_type=LITERAL):
    return ResourcePattern(RT.TOPIC, name, pattern_type)


def test_literal_allow_applies_to_its_principal_operation_and_resource_only():
    cache = cache_with({topic("events"): [entry()]})
    assert cache.authorize(user("alice"), "10.0.0.1", Op.READ, RT.TOPIC, "events")
    assert not cache.authorize(user("bob"), "10.0.0.1", Op.READ, RT.TOPIC, "events")
    assert not cache.authorize(user("alice"), "10.0.0.1", Op.WRITE, RT.TOPIC, "events")
    assert not cache.authorize(user("alice"), "10.0.0.1", Op.READ, RT.GROUP, "events")


def test_no_acl_for_the_resource_denies_unless_allow_everyone_if_no_acl_found():
    acls = {topic("other"): [entry()]}
    assert not cache_with(acls).authorize(user("alice"), "h", Op.READ, RT.TOPIC, "events")
    assert cache_with(acls, allow_if_no_acl=True).authorize(user("bob"), "h", Op.WRITE, RT.TOPIC, "events")
    # any ACL on the resource, even for someone else, takes the default away
    restricted = cache_with({topic("events"): [entry("User:carol")]}, allow_if_no_acl=True)
    assert not restricted.authorize(user("bob"), "h", Op.READ, RT.TOPIC, "events")


def test_super_users_are_allowed_everything_even_against_a_deny():
    cache = cache_with(
        {topic("events"): [entry("User:admin", Op.ALL, DENY)]}, super_users=parse_super_users(" User:admin ; User:ops;")
    )
    assert parse_super_users("User:admin;User:ops") == {"User:admin", "User:ops"}
    assert cache.authorize(user("admin"), "h", Op.DELETE, RT.TOPIC, "events")
    assert cache.authorize(user("ops"), "h", Op.ALTER, RT.CLUSTER, "kafka-cluster")


def test_deny_wins_over_allow_including_wildcard_principal_and_host():
    cache = cache_with(
        {
            topic("events"): [
                entry("User:*", Op.ALL),
                entry("User:bob", Op.READ, DENY),
                entry("User:carol", Op.ALL, DENY, host="10.0.0.9"),
            ]
        }
    )
    assert cache.authorize(user("alice"), "h", Op.WRITE, RT.TOPIC, "events")
    assert not cache.authorize(user("bob"), "h", Op.READ, RT.TOPIC, "events")
    assert cache.authorize(user("bob"), "h", Op.WRITE, RT.TOPIC, "events")
    assert not cache.authorize(user("carol"), "10.0.0.9", Op.READ, RT.TOPIC, "events")
    assert cache.authorize(user("carol"), "10.0.0.8", Op.READ, RT.TOPIC, "events")


def test_host_must_match_unless_the_acl_names_any_host():
    cache = cache_with({topic("events"): [entry(host="10.0.0.1")]})
    assert cache.authorize(user("alice"), "10.0.0.1", Op.READ, RT.TOPIC, "events")
    assert not cache.authorize(user("alice"), "10.0.0.2", Op.READ, RT.TOPIC, "events")


def test_wildcard_literal_and_prefixed_patterns_apply():
    cache = cache_with({topic("*"): [entry("User:reader")], topic("ev", PREFIXED): [entry("User:writer", Op.WRITE)]})
    assert cache.authorize(user("reader"), "h", Op.READ, RT.TOPIC, "anything")
    assert cache.authorize(user("writer"), "h", Op.WRITE, RT.TOPIC, "events")
    assert cache.authorize(user("writer"), "h", Op.WRITE, RT.TOPIC, "ev")
    assert not cache.authorize(user("writer"), "h", Op.WRITE, RT.TOPIC, "e")
    assert not cache.authorize(user("writer"), "h", Op.WRITE, RT.TOPIC, "logs")


@pytest.mark.parametrize(
    "granted, asked, allowed",
    [
        (Op.READ, Op.DESCRIBE, True),
        (Op.WRITE, Op.DESCRIBE, True),
        (Op.DELETE, Op.DESCRIBE, True),
        (Op.ALTER, Op.DESCRIBE, True),
        (Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS, True),
        (Op.ALL, Op.CREATE, True),
        (Op.DESCRIBE, Op.READ, False),
        (Op.CREATE, Op.DESCRIBE, False),
        (Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, False),
    ],
)
def test_implied_operations(granted, asked, allowed):
    cache = cache_with({topic("events"): [entry(operation=granted)]})
    assert cache.authorize(user("alice"), "h", asked, RT.TOPIC, "events") is allowed


def test_a_deny_of_read_does_not_deny_the_describe_read_implies():
    cache = cache_with({topic("events"): [entry(operation=Op.WRITE), entry(operation=Op.READ, permission=DENY)]})
    assert cache.authorize(user("alice"), "h", Op.DESCRIBE, RT.TOPIC, "events")
    assert not cache.authorize(user("alice"), "h", Op.READ, RT.TOPIC, "events")


def test_forgetting_a_pattern_removes_its_acls():
    cache = cache_with({topic("ev", PREFIXED): [entry()]})
    cache.set(topic("ev", PREFIXED), [])
    assert cache.patterns() == []
    assert not cache.authorize(user("alice"), "h", Op.READ, RT.TOPIC, "events")


def test_pattern_filters_any_match_and_exact():
    literal, wildcard, prefixed = topic("events"), topic("*"), topic("ev", PREFIXED)
    match = ResourcePatternFilter(RT.TOPIC, "events", PatternType.MATCH)
    assert [p for p in (literal, wildcard, prefixed, topic("logs")) if match.matches(p)] == [
        literal,
        wildcard,
        prefixed,
    ]
    any_type = ResourcePatternFilter(RT.ANY, "ev", PatternType.ANY)
    assert any_type.matches(prefixed) and not any_type.matches(literal)
    assert ResourcePatternFilter(RT.TOPIC, None, PatternType.ANY).matches(prefixed)
    assert not ResourcePatternFilter(RT.TOPIC, "events", LITERAL).matches(wildcard)
    assert not ResourcePatternFilter(RT.GROUP, None, PatternType.ANY).matches(literal)
    assert ResourcePatternFilter(RT.TOPIC, "events", LITERAL).matches_at_most_one()
    assert not match.matches_at_most_one()


def test_entry_filter():
    acl = entry("User:alice", Op.READ, ALLOW, "10.0.0.1")
    assert AclEntryFilter().matches(acl)
    assert AclEntryFilter("User:alice", "10.0.0.1", Op.READ, ALLOW).matches(acl)
    assert not AclEntryFilter("User:bob").matches(acl)
    assert not AclEntryFilter(host="*").matches(acl)
    assert not AclEntryFilter(operation=Op.ALL).matches(acl)
    assert not AclEntryFilter(permission=DENY).matches(acl)


def test_bindings_describe_by_filter():
    cache = cache_with({topic("events"): [entry(), entry("User:bob", Op.WRITE)], topic("ev", PREFIXED): [entry()]})
    by_bob = AclBindingFilter(ResourcePatternFilter(RT.ANY, None, PatternType.ANY), AclEntryFilter("User:bob"))
    assert cache.bindings(by_bob) == [AclBinding(topic("events"), entry("User:bob", Op.WRITE))]
    assert len(cache.bindings()) == 3


def test_string_forms_match_aclcommand():
    assert str(topic("events")) == "ResourcePattern(resourceType=TOPIC, name=events, patternType=LITERAL)"
    assert (
        str(ResourcePatternFilter(RT.ANY, None, PatternType.ANY))
        == "ResourcePattern(resourceType=ANY, name=<any>, patternType=ANY)"
    )
    assert (
        str(entry(operation=Op.DESCRIBE_CONFIGS))
        == "(principal=User:alice, host=*, operation=DESCRIBE_CONFIGS, permissionType=ALLOW)"
    )


def test_operation_names_in_any_spelling():
    assert operation_from_name("Read") is Op.READ
    assert operation_from_name("describe_configs") is Op.DESCRIBE_CONFIGS
    assert operation_from_name("IdempotentWrite") is Op.IDEMPOTENT_WRITE
    with pytest.raises(ValueError):
        operation_from_name("Jump")


def test_zookeeper_json_round_trip():
    entries = {entry(), entry("User:*", Op.DESCRIBE_CONFIGS, DENY, "10.0.0.1")}
    data = AclZNode.encode(entries_to_json(entries))
    parsed = json.loads(data)
    assert parsed["version"] == 1
    assert {"principal": "User:alice", "permissionType": "Allow", "operation": "Read", "host": "*"} in parsed["acls"]
    assert {
        "principal": "User:*",
        "permissionType": "Deny",
        "operation": "DescribeConfigs",
        "host": "10.0.0.1",
    } in parsed["acls"]
    assert entries_from_json(AclZNode.decode(data)) == entries
    assert AclZNode.decode(None) == []


def test_paths_and_change_notifications():
    assert AclZNode.path("Topic", "events") == "/kafka-acl/Topic/events"
    assert AclZNode.path("Group", "g", "PREFIXED") == "/kafka-acl-extended/prefixed/Group/g"
    assert AclChangeNotificationZNode.encode("Topic", "events") == b"TOPIC:events"  # as Kafka 2.5 writes it
    assert AclChangeNotificationZNode.decode(b"Topic:a:b") == ("Topic", "a:b", "LITERAL")
    extended = AclChangeNotificationZNode.encode("Topic", "ev", "PREFIXED")
    assert json.loads(extended) == {"version": 1, "resourceType": "TOPIC", "name": "ev", "patternType": "PREFIXED"}
    assert AclChangeNotificationZNode.decode(extended, "PREFIXED") == ("TOPIC", "ev", "PREFIXED")
    assert (
        AclChangeNotificationZNode.path("PREFIXED", "0000000001")
        == "/kafka-acl-extended-changes/acl_changes_0000000001"
    )
    assert {
        "/kafka-acl/Topic",
        "/kafka-acl-extended/prefixed/TransactionalId",
        "/kafka-acl-changes",
        "/kafka-acl-extended-changes",
    } <= set(ACL_PATHS)
    pattern = ResourcePattern(RT.TRANSACTIONAL_ID, "tx", PREFIXED)
    assert store_key(pattern) == ("PREFIXED", "TransactionalId", "tx")
    assert pattern_from_store(store_key(pattern)) == pattern
    assert pattern_from_store(("LITERAL", "TOPIC", "t")) == topic("t")


@pytest.mark.parametrize(
    "binding, message",
    [
        (AclBinding(ResourcePattern(RT.UNKNOWN, "t"), entry()), "unknown elements"),
        (AclBinding(ResourcePattern(RT.ANY, "t"), entry()), "resourceType must not be ANY"),
        (AclBinding(ResourcePattern(RT.TOPIC, "t", PatternType.MATCH), entry()), "patternType must not be MATCH"),
        (AclBinding(topic("t"), entry(operation=Op.ANY)), "operation must not be ANY"),
        (AclBinding(topic("t"), entry(permission=Perm.ANY)), "permissionType must not be ANY"),
        (AclBinding(ResourcePattern(RT.CLUSTER, "c"), entry()), "only valid name for the CLUSTER"),
        (AclBinding(topic(""), entry()), "empty resource name"),
        (AclBinding(topic("*", PREFIXED), entry()), "wildcard"),
        (AclBinding(topic("t"), entry("alice")), "principalType:principalName"),
    ],
)
def test_invalid_bindings(binding, message):
    assert message in binding_error(binding)


def test_plan_creations_groups_valid_bindings_by_pattern():
    bindings = [
        AclBinding(topic("a"), entry()),
        AclBinding(topic("a"), entry("User:bob")),
        AclBinding(ResourcePattern(RT.ANY, "x"), entry()),
    ]
    errors, additions = plan_creations(bindings)
    assert list(errors) == [2]
    assert additions == {topic("a"): {entry(), entry("User:bob")}}
    assert entries_from_json(adding([entry("User:bob")])(entries_to_json([entry()]))) == {entry(), entry("User:bob")}


def test_deletion_attributes_each_binding_to_the_first_matching_filter():
    filters = [
        AclBindingFilter(ResourcePatternFilter(RT.TOPIC, "events", PatternType.MATCH), AclEntryFilter("User:bob")),
        AclBindingFilter(ResourcePatternFilter(RT.ANY, None, PatternType.ANY)),
        AclBindingFilter(ResourcePatternFilter(RT.GROUP, "new", LITERAL)),
    ]
    targets = deletion_targets([topic("*"), topic("logs")], filters)
    assert set(targets) == {topic("*"), topic("logs"), ResourcePattern(RT.GROUP, "new")}
    assert [i for i, _ in targets[topic("*")]] == [0, 1]
    removed = {}
    kept = entries_from_json(
        removing(topic("*"), targets[topic("*")], removed)(entries_to_json([entry("User:bob"), entry("User:carol")]))
    )
    assert kept == set()
    assert removed == {AclBinding(topic("*"), entry("User:bob")): 0, AclBinding(topic("*"), entry("User:carol")): 1}


class FakeRequest:
    def __init__(self, body, version=2, principal=None):
        self.body, self.api_version, self.principal, self.client_host = body, version, principal, "127.0.0.1"


DESCRIBE_ANY = {
    "resource_type_filter": 1,
    "resource_name_filter": None,
    "pattern_type_filter": 1,
    "principal_filter": None,
    "host_filter": None,
    "operation": 1,
    "permission_type": 1,
}
CREATION = {
    "resource_type": 2,
    "resource_name": "t",
    "resource_pattern_type": 3,
    "principal": "User:a",
    "host": "*",
    "operation": 3,
    "permission_type": 3,
}


def result_of(value):
    """A handler's answer, whether returned or in an already-fired Deferred."""
    if hasattr(value, "addCallback"):
        box = []
        value.addCallback(box.append)
        return box[0]
    return value


def test_acl_apis_answer_security_disabled_without_an_authorizer():
    assert describe_acls.handle(FakeRequest(DESCRIBE_ANY), authorizer=None)["error_code"] == Errors.SECURITY_DISABLED
    created = result_of(create_acls.handle(FakeRequest({"creations": [CREATION]}), authorizer=None))
    assert [r["error_code"] for r in created["results"]] == [Errors.SECURITY_DISABLED]
    deleted = result_of(delete_acls.handle(FakeRequest({"filters": [DESCRIBE_ANY]}), authorizer=None))
    assert [r["error_code"] for r in deleted["filter_results"]] == [Errors.SECURITY_DISABLED]


class DenyingAuthorizer:
    def authorize(self, *_):
        return False


def test_acl_apis_need_describe_or_alter_on_the_cluster():
    authorizer = DenyingAuthorizer()
    assert (
        describe_acls.handle(FakeRequest(DESCRIBE_ANY), authorizer=authorizer)["error_code"]
        == Errors.CLUSTER_AUTHORIZATION_FAILED
    )
    created = result_of(create_acls.handle(FakeRequest({"creations": [CREATION]}), authorizer=authorizer))
    assert created["results"][0]["error_code"] == Errors.CLUSTER_AUTHORIZATION_FAILED
    deleted = result_of(delete_acls.handle(FakeRequest({"filters": [DESCRIBE_ANY]}), authorizer=authorizer))
    assert deleted["filter_results"][0]["error_code"] == Errors.CLUSTER_AUTHORIZATION_FAILED


def test_authorizer_class_name_is_checked_by_the_broker_config():
    from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig

    base = {"zookeeper.connect": "localhost:2181"}
    assert KafkaConfig(base)["authorizer.class.name"] == ""
    assert KafkaConfig(base)["allow.everyone.if.no.acl.found"] is False
    for name in ("kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer"):
        assert KafkaConfig(dict(base, **{"authorizer.class.name": name}))["authorizer.class.name"] == name
    with pytest.raises(ConfigError, match="authorizer.class.name"):
        KafkaConfig(dict(base, **{"authorizer.class.name": "com.example.MyAuthorizer"}))
