"""ACLs on a real cluster with AclAuthorizer: the ACL APIs from confluent-kafka, kafka-python and our client,
every broker's cache following ZooKeeper, kafka-acls through a broker and straight to ZooKeeper, and
SECURITY_DISABLED on a broker without an authorizer."""

import subprocess
from pathlib import Path

import pytest

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import (
    AclBinding,
    AclBindingFilter,
    AclEntry,
    AclEntryFilter,
    ResourcePattern,
    ResourcePatternFilter,
)
from kafka_zk.security.authorizer import AclOperation, PatternType, PermissionType, ResourceType
from tests.cluster_support import module_cluster, start_cluster, wait_for

ROOT = Path(__file__).resolve().parent.parent
AUTHORIZER = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:ANONYMOUS"}


acl_cluster = module_cluster(2, overrides=AUTHORIZER)


def admin(cluster):
    return AdminClient(",".join(b.bootstrap for b in cluster.brokers))


def acls_tool(*args, stdin=None):
    return subprocess.run(
        [str(ROOT / "scripts" / "kafka-acls.sh"), *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def topic_filter(name, pattern_type=PatternType.LITERAL):
    return AclBindingFilter(ResourcePatternFilter(ResourceType.TOPIC, name, pattern_type))


def visible_on_every_broker(client, cluster, binding_filter, expected):
    return all(set(client.describe_acls(binding_filter, node_id=b.broker_id)) == expected for b in cluster.brokers)


@pytest.mark.timeout(120)
def test_confluent_kafka_admin_round_trip(acl_cluster):
    from confluent_kafka.admin import (
        AclBinding as CkBinding,
    )
    from confluent_kafka.admin import (
        AclBindingFilter as CkFilter,
    )
    from confluent_kafka.admin import (
        AclOperation as CkOp,
    )
    from confluent_kafka.admin import (
        AclPermissionType as CkPerm,
    )
    from confluent_kafka.admin import (
        AdminClient as CkAdmin,
    )
    from confluent_kafka.admin import (
        ResourcePatternType as CkPattern,
    )
    from confluent_kafka.admin import (
        ResourceType as CkType,
    )

    ck = CkAdmin({"bootstrap.servers": acl_cluster.brokers[0].bootstrap})
    bindings = [
        CkBinding(CkType.TOPIC, "ck-events", CkPattern.LITERAL, "User:alice", "*", CkOp.READ, CkPerm.ALLOW),
        CkBinding(CkType.GROUP, "ck-", CkPattern.PREFIXED, "User:alice", "10.0.0.1", CkOp.READ, CkPerm.DENY),
    ]
    for future in ck.create_acls(bindings).values():
        assert future.result() is None
    alices = AclBindingFilter(
        ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY), AclEntryFilter(principal="User:alice")
    )
    with admin(acl_cluster) as client:  # confluent-kafka may ask either broker; both must have heard
        wait_for(
            lambda: all(len(client.describe_acls(alices, node_id=b.broker_id)) == 2 for b in acl_cluster.brokers),
            timeout=10.0,
            message="both ACLs on every broker",
        )
    described = ck.describe_acls(
        CkFilter(CkType.ANY, None, CkPattern.ANY, "User:alice", None, CkOp.ANY, CkPerm.ANY)
    ).result(timeout=30)
    assert {
        (b.restype, b.name, b.resource_pattern_type, b.host, b.operation, b.permission_type) for b in described
    } == {
        (CkType.TOPIC, "ck-events", CkPattern.LITERAL, "*", CkOp.READ, CkPerm.ALLOW),
        (CkType.GROUP, "ck-", CkPattern.PREFIXED, "10.0.0.1", CkOp.READ, CkPerm.DENY),
    }
    matching = ck.describe_acls(
        CkFilter(CkType.GROUP, "ck-group", CkPattern.MATCH, None, None, CkOp.ANY, CkPerm.ANY)
    ).result(timeout=30)
    assert [b.name for b in matching] == ["ck-"]
    deleted = ck.delete_acls([CkFilter(CkType.ANY, None, CkPattern.ANY, "User:alice", None, CkOp.ANY, CkPerm.ANY)])
    assert len(list(deleted.values())[0].result(timeout=30)) == 2
    ck_events = AclBindingFilter(ResourcePatternFilter(ResourceType.ANY, "ck-events", PatternType.ANY))
    with admin(acl_cluster) as client:  # whichever broker deleted them, the other follows the change notification
        wait_for(
            lambda: visible_on_every_broker(client, acl_cluster, ck_events, set()),
            timeout=10.0,
            message="the deletion on every broker",
        )


@pytest.mark.timeout(120)
def test_kafka_python_admin_round_trip(acl_cluster):
    from kafka.admin import (
        ACL,
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        KafkaAdminClient,
    )
    from kafka.admin import (
        ResourcePattern as KpPattern,
    )
    from kafka.admin import (
        ResourcePatternFilter as KpFilter,
    )
    from kafka.admin import (
        ResourceType as KpType,
    )

    kp = KafkaAdminClient(bootstrap_servers=acl_cluster.brokers[1].bootstrap)
    try:
        acl = ACL(
            "User:bob",
            "*",
            ACLOperation.WRITE,
            ACLPermissionType.ALLOW,
            KpPattern(KpType.TOPIC, "kp-", ACLResourcePatternType.PREFIXED),
        )
        created = kp.create_acls([acl])
        assert created["failed"] == [] and len(created["succeeded"]) == 1
        with admin(acl_cluster) as client:  # kafka-python may ask either broker; both must have heard
            wait_for(
                lambda: visible_on_every_broker(
                    client,
                    acl_cluster,
                    topic_filter("kp-", PatternType.PREFIXED),
                    {
                        AclBinding(
                            ResourcePattern(ResourceType.TOPIC, "kp-", PatternType.PREFIXED),
                            AclEntry("User:bob", "*", AclOperation.WRITE, PermissionType.ALLOW),
                        )
                    },
                ),
                timeout=10.0,
                message="the ACL on every broker",
            )
        acl_filter = ACLFilter(
            "User:bob",
            None,
            ACLOperation.ANY,
            ACLPermissionType.ANY,
            KpFilter(KpType.TOPIC, None, ACLResourcePatternType.ANY),
        )
        found, error = kp.describe_acls(acl_filter)
        assert error.errno == 0
        assert [(a.resource_pattern.resource_name, a.operation) for a in found] == [("kp-", ACLOperation.WRITE)]
        deleted = kp.delete_acls([acl_filter])
        assert len(deleted[0][1]) == 1
    finally:
        kp.close()


@pytest.mark.timeout(120)
def test_acls_created_on_one_broker_reach_every_brokers_cache(acl_cluster):
    binding = AclBinding(
        ResourcePattern(ResourceType.TOPIC, "spread", PatternType.PREFIXED),
        AclEntry("User:carol", "*", AclOperation.DESCRIBE, PermissionType.ALLOW),
    )
    spread = topic_filter("spread", PatternType.PREFIXED)
    with admin(acl_cluster) as client:
        assert client.create_acls([binding], node_id=0) == [(Errors.NONE, None)]
        wait_for(
            lambda: visible_on_every_broker(client, acl_cluster, spread, {binding}),
            timeout=10.0,
            message="the ACL on every broker",
        )
        deleted = client.delete_acls([spread], node_id=1)
        assert deleted == [(Errors.NONE, None, [(binding, Errors.NONE, None)])]
        wait_for(
            lambda: visible_on_every_broker(client, acl_cluster, spread, set()),
            timeout=10.0,
            message="the deletion on every broker",
        )

        written = acls_tool(
            "--authorizer-properties",
            "zookeeper.connect=" + acl_cluster.zk_connect,
            "--add",
            "--allow-principal",
            "User:dave",
            "--operation",
            "Read",
            "--topic",
            "from-zk",
        )
        assert written.returncode == 0, written.stdout + written.stderr
        expected = {
            AclBinding(
                ResourcePattern(ResourceType.TOPIC, "from-zk"),
                AclEntry("User:dave", "*", AclOperation.READ, PermissionType.ALLOW),
            )
        }
        wait_for(
            lambda: visible_on_every_broker(client, acl_cluster, topic_filter("from-zk"), expected),
            timeout=10.0,
            message="the ACL kafka-acls wrote to ZooKeeper on every broker",
        )


@pytest.mark.timeout(120)
def test_invalid_creations_answer_per_binding(acl_cluster):
    good = AclBinding(
        ResourcePattern(ResourceType.TOPIC, "valid"),
        AclEntry("User:erin", "*", AclOperation.READ, PermissionType.ALLOW),
    )
    wildcard_prefix = AclBinding(ResourcePattern(ResourceType.TOPIC, "*", PatternType.PREFIXED), good.entry)
    bad_cluster = AclBinding(ResourcePattern(ResourceType.CLUSTER, "other"), good.entry)
    with admin(acl_cluster) as client:
        results = client.create_acls([good, wildcard_prefix, bad_cluster])
        assert [error for error, _ in results] == [Errors.NONE, Errors.INVALID_REQUEST, Errors.INVALID_REQUEST]
        assert "kafka-cluster" in results[2][1]
        client.delete_acls([topic_filter("valid")])


@pytest.mark.timeout(120)
def test_kafka_acls_add_list_remove_through_a_broker(acl_cluster, tmp_path):
    bootstrap = acl_cluster.brokers[0].bootstrap
    config = tmp_path / "admin.properties"
    config.write_text("client.id=acl-tool\n")
    common = ["--bootstrap-server", bootstrap, "--command-config", config]
    added = acls_tool(
        *common,
        "--add",
        "--allow-principal",
        "User:alice",
        "--allow-principal",
        "User:bob",
        "--operation",
        "Read",
        "--operation",
        "Write",
        "--topic",
        "events",
    )
    assert added.returncode == 0, added.stdout + added.stderr
    pattern = "ResourcePattern(resourceType=TOPIC, name=events, patternType=LITERAL)"
    entries = "\n".join(
        "\t(principal=User:%s, host=*, operation=%s, permissionType=ALLOW)" % (who, op)
        for who in ("alice", "bob")
        for op in ("READ", "WRITE")
    )
    assert added.stdout == (
        "Adding ACLs for resource `%s`: \n %s \n\n" % (pattern, entries)
        + "Current ACLs for resource `%s`: \n %s \n\n" % (pattern, entries)
    )

    listed = acls_tool("--bootstrap-server", bootstrap, "--list", "--topic", "events")
    assert listed.stdout == "Current ACLs for resource `%s`: \n %s \n\n" % (pattern, entries)
    by_principal = acls_tool("--bootstrap-server", bootstrap, "--list", "--principal", "User:bob")
    assert by_principal.stdout.startswith("ACLs for principal `User:bob`\nCurrent ACLs for resource `%s`" % pattern)
    assert "User:alice" not in by_principal.stdout

    producer = acls_tool(
        *common,
        "--add",
        "--producer",
        "--allow-principal",
        "User:p",
        "--topic",
        "orders",
        "--transactional-id",
        "tx",
        "--idempotent",
    )
    assert producer.returncode == 0, producer.stdout + producer.stderr
    for resource, operations in (
        ("TOPIC, name=orders", ("WRITE", "CREATE", "DESCRIBE")),
        ("TRANSACTIONAL_ID, name=tx", ("WRITE", "DESCRIBE")),
        ("CLUSTER, name=kafka-cluster", ("IDEMPOTENT_WRITE",)),
    ):
        assert (
            "Current ACLs for resource `ResourcePattern(resourceType=%s, patternType=LITERAL)`" % resource
            in producer.stdout
        )
        for operation in operations:
            assert "operation=%s, permissionType=ALLOW" % operation in producer.stdout

    removed_one = acls_tool(
        "--bootstrap-server",
        bootstrap,
        "--remove",
        "--force",
        "--allow-principal",
        "User:alice",
        "--operation",
        "Write",
        "--topic",
        "events",
    )
    assert removed_one.returncode == 0, removed_one.stdout + removed_one.stderr
    assert "(principal=User:alice, host=*, operation=WRITE" not in removed_one.stdout
    assert "(principal=User:alice, host=*, operation=READ" in removed_one.stdout

    declined = acls_tool("--bootstrap-server", bootstrap, "--remove", "--topic", "events", stdin="n\n")
    assert ("Are you sure you want to delete all ACLs for resource filter `%s`? (y/n)" % pattern) in declined.stdout
    assert "User:bob" in declined.stdout
    removed_all = acls_tool("--bootstrap-server", bootstrap, "--remove", "--topic", "events", stdin="y\n")
    assert removed_all.returncode == 0
    assert "Current ACLs" not in removed_all.stdout
    for resource in (["--topic", "orders"], ["--transactional-id", "tx"], ["--cluster"]):
        assert acls_tool("--bootstrap-server", bootstrap, "--remove", "--force", *resource).returncode == 0

    bad = acls_tool(
        "--bootstrap-server",
        bootstrap,
        "--add",
        "--allow-principal",
        "User:a",
        "--operation",
        "ClusterAction",
        "--topic",
        "events",
    )
    assert bad.returncode == 1
    assert "ResourceType TOPIC only supports operations READ,WRITE,CREATE,DESCRIBE,DELETE" in bad.stderr
    none = acls_tool("--bootstrap-server", bootstrap, "--list", "--add")
    assert "Command must include exactly one action: --list, --add, --remove." in none.stderr


@pytest.mark.timeout(120)
def test_kafka_acls_straight_to_zookeeper_with_prefixed_patterns(acl_cluster):
    zk = ["--authorizer-properties", "zookeeper.connect=" + acl_cluster.zk_connect]
    added = acls_tool(
        *zk,
        "--add",
        "--deny-principal",
        "User:mallory",
        "--deny-host",
        "10.1.1.1",
        "--resource-pattern-type",
        "prefixed",
        "--group",
        "app-",
    )
    assert added.returncode == 0, added.stdout + added.stderr
    pattern = "ResourcePattern(resourceType=GROUP, name=app-, patternType=PREFIXED)"
    assert (
        "Current ACLs for resource `%s`: \n \t(principal=User:mallory, host=10.1.1.1, operation=ALL, "
        "permissionType=DENY) \n" % pattern
    ) in added.stdout
    matched = acls_tool(*zk, "--list", "--group", "app-one", "--resource-pattern-type", "match")
    assert pattern in matched.stdout
    with admin(acl_cluster) as client:
        group_filter = AclBindingFilter(ResourcePatternFilter(ResourceType.GROUP, "app-one", PatternType.MATCH))
        wait_for(
            lambda: all(len(client.describe_acls(group_filter, node_id=b.broker_id)) == 1 for b in acl_cluster.brokers),
            timeout=10.0,
            message="prefixed ACL on every broker",
        )
        removed = acls_tool(*zk, "--remove", "--force", "--group", "app-", "--resource-pattern-type", "prefixed")
        assert removed.returncode == 0 and pattern not in removed.stdout
        wait_for(
            lambda: all(client.describe_acls(group_filter, node_id=b.broker_id) == [] for b in acl_cluster.brokers),
            timeout=10.0,
            message="its removal on every broker",
        )
    rejected = acls_tool(
        *zk, "--add", "--allow-principal", "User:a", "--resource-pattern-type", "match", "--topic", "t"
    )
    assert "A '--resource-pattern-type' value of 'MATCH' is not valid when adding acls." in rejected.stderr


@pytest.mark.timeout(180)
def test_acl_apis_answer_security_disabled_without_an_authorizer(tmp_path, zookeeper_server):
    plain = start_cluster(tmp_path / "plain", zookeeper_server, brokers=1)
    try:
        with AdminClient(plain.brokers[0].bootstrap) as client:
            with pytest.raises(KafkaResponseError) as raised:
                client.describe_acls(topic_filter("t"))
            assert raised.value.error == Errors.SECURITY_DISABLED
            binding = AclBinding(
                ResourcePattern(ResourceType.TOPIC, "t"),
                AclEntry("User:a", "*", AclOperation.READ, PermissionType.ALLOW),
            )
            assert client.create_acls([binding])[0][0] == Errors.SECURITY_DISABLED
            assert client.delete_acls([topic_filter("t")])[0][0] == Errors.SECURITY_DISABLED
    finally:
        plain.stop()
