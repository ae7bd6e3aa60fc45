"""Kafka's own Java clients against real brokers. tests/java/ClientCompatibilityCheck (on kafka-clients 2.5.1, the
brokers' own version) runs the checks of Kafka's client compatibility test (tools' ClientCompatibilityTest) with the
answers a Kafka 2.5 broker gives, on three brokers with the ACL authorizer; JavaFeaturesCheck (on kafka-clients 4.3,
tests/java/kafka-4/: it probes APIs newer than 2.5, which must be refused as unsupported versions) goes on through the
admin, producer and consumer APIs; both again over SASL_SSL with the client properties file a secure local cluster
writes, unchanged; JavaSecurityCheck (2.5.1) meets ACLs, SASL mechanisms, re-authentication and delegation tokens
there."""

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import AclBinding, AclEntry, ResourcePattern
from kafka_zk.security.authorizer import AclOperation, PermissionType, ResourceType
from kafka_zk.tools.local_cluster import LocalCluster, internal_topic_settings
from tests.cluster_support import start_cluster
from tests.java_clients import KAFKA_2_5_CLIENTS, KAFKA_4_CLIENTS, JavaClientsUnavailable, classpath, run_java
from tests.ports import free_port

# What Kafka's client_compatibility_features_test expects of a 2.5 broker (features new since 0.10 all present;
# KIP-74 fetches hand an oversized first record to the consumer instead of failing).
KAFKA_2_5_FEATURES = {
    "--offsets-for-times-supported": "true",
    "--cluster-id-supported": "true",
    "--expect-record-too-large-exception": "false",
    "--create-topics-supported": "true",
    "--describe-acls-supported": "true",
    "--describe-configs-supported": "true",
    "--idempotent-producer-supported": "true",
    "--consumer-group-delete-supported": "true",
}
# local-cluster --secure leaves delegation tokens off (as Kafka does without a master key); the Java checks use them.
TOKENS = {"delegation.token.master.key": "java-client-checks"}
# Sessions of 3 s: the Java client re-authenticates its connections (KIP-368) all through these tests.
REAUTH = {"connections.max.reauth.ms": "3000"}
AUTHORIZER = {
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    "allow.everyone.if.no.acl.found": "true",
}


def compiled_checks(clients):
    try:
        return classpath(clients)
    except JavaClientsUnavailable as exc:
        pytest.skip("Kafka's Java client %s is not available here: %s" % (clients.version, exc))


@pytest.fixture(scope="module")
def java_classpath():
    """Our checks on kafka-clients 2.5.1."""
    return compiled_checks(KAFKA_2_5_CLIENTS)


@pytest.fixture(scope="module")
def java_4_classpath():
    """JavaFeaturesCheck on kafka-clients 4.3."""
    return compiled_checks(KAFKA_4_CLIENTS)


@pytest.fixture(scope="module")
def acl_cluster(tmp_path_factory, zookeeper_server):
    running = start_cluster(tmp_path_factory.mktemp("java-cluster"), zookeeper_server, overrides=AUTHORIZER)
    yield running
    running.stop()


def compatibility_check(bootstrap, topic, nodes, *more):
    args = ["--bootstrap-server", bootstrap, "--topic", topic, "--num-cluster-nodes", str(nodes)]
    for name, value in KAFKA_2_5_FEATURES.items():
        args += [name, value]
    return run_java("ClientCompatibilityCheck", *args, *more)


def assert_success(result):
    assert result.returncode == 0 and result.stdout.rstrip().endswith("SUCCESS."), (
        "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (result.returncode, result.stdout, result.stderr[-6000:])
    )


@pytest.mark.timeout(240)
def test_client_compatibility_checks_pass_as_for_kafka_2_5(java_classpath, acl_cluster):
    bootstrap = acl_cluster.bootstrap_servers
    topic = "client-compatibility-test"
    with AdminClient(bootstrap) as admin:
        assert admin.create_topics([NewTopic(topic, 1, 3)]) == {topic: (Errors.NONE, None)}
        # An ACL on another topic, so that describeAcls has something to return (everyone may use resources
        # without ACLs, and this one is not used).
        probe = AclBinding(
            ResourcePattern(ResourceType.TOPIC, "java-acl-probe"),
            AclEntry("User:alice", "*", AclOperation.READ, PermissionType.ALLOW),
        )
        assert admin.create_acls([probe]) == [(Errors.NONE, None)]
        cluster_id = admin.describe_cluster()[2]
    result = compatibility_check(bootstrap, topic, 3)
    assert_success(result)
    lines = result.stdout.splitlines()
    for check in ("describeConfigs", "createTopics", "describeAcls", "offsetsForTimes", "deleteConsumerGroups"):
        assert "%s: supported, as expected" % check in lines, result.stdout
    assert "describeAcls: 1 bindings" in lines
    assert "consume: 2 records read back, cluster id %s" % cluster_id in lines


@pytest.mark.timeout(240)
def test_java_client_features_of_kafka_2_5(java_4_classpath, acl_cluster):
    result = run_java(
        "JavaFeaturesCheck", "--bootstrap-server", acl_cluster.bootstrap_servers, "--topic", "java-features"
    )
    assert_success(result)
    lines = result.stdout.splitlines()
    assert "after a leader change, a position past the old epoch's end is a log truncation (KIP-320): ok" in lines
    assert "transactions: commit with sendOffsetsToTransaction, abort, read_committed: ok" in lines
    assert "a compacted topic refuses a batch's keyless records by name (KIP-467): ok" in lines
    assert (
        "keyless record: Compacted topic cannot accept message without key in topic partition "
        "java-features-compacted-0." in lines
    ), result.stdout


@pytest.fixture(scope="module")
def secure_broker(tmp_path_factory):
    """One broker as `local-cluster --secure` makes it (SASL_SSL for clients, ACLs, SCRAM users admin and alice),
    with delegation tokens enabled and SASL sessions of 3 s."""
    cluster = LocalCluster(
        tmp_path_factory.mktemp("java-secure"),
        brokers=1,
        zk_port=free_port(),
        broker_ports=[free_port()],
        internal_ports=[free_port()],
        overrides=dict(internal_topic_settings(1), **TOKENS, **REAUTH),
        secure=True,
    )
    try:
        cluster.start(timeout=90)
    except Exception:
        cluster.kill()
        raise
    yield cluster
    cluster.stop()


@pytest.mark.timeout(240)
def test_java_client_takes_the_generated_command_config_over_sasl_ssl(java_classpath, secure_broker):
    admin_properties = secure_broker.security.material.properties_file("admin")
    result = compatibility_check(
        secure_broker.bootstrap_servers, "secure-compatibility", 1, "--command-config", str(admin_properties)
    )
    assert_success(result)
    assert "describeAcls: supported, as expected" in result.stdout.splitlines()


@pytest.mark.timeout(240)
def test_java_client_features_over_sasl_ssl(java_4_classpath, secure_broker):
    admin_properties = secure_broker.security.material.properties_file("admin")
    result = run_java(
        "JavaFeaturesCheck",
        "--bootstrap-server",
        secure_broker.bootstrap_servers,
        "--topic",
        "secure-features",
        "--command-config",
        str(admin_properties),
    )
    assert_success(result)


def security_check(broker, topic, *more):
    material = broker.security.material
    return run_java(
        "JavaSecurityCheck",
        "--bootstrap-server",
        broker.bootstrap_servers,
        "--topic",
        topic,
        "--user",
        "alice",
        "--admin-config",
        str(material.properties_file("admin")),
        "--user-config",
        str(material.properties_file("alice")),
        *more,
        timeout=240,
    )


@pytest.mark.timeout(300)
def test_java_client_meets_acls_and_delegation_tokens_over_sasl_ssl(java_classpath, secure_broker):
    result = security_check(secure_broker, "java-security", "--sections", "acls,mechanisms,tokens,reauthentication")
    assert_success(result)
    lines = result.stdout.splitlines()
    assert "delegation token: create, describe, renew, expire: ok" in lines
    assert "a producer re-authenticates its connections as sessions end: ok" in lines
    assert {"log in with %s: ok" % mechanism for mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")} <= set(lines)


@pytest.mark.timeout(300)
def test_java_client_logs_in_with_a_delegation_token(java_classpath, secure_broker):
    result = security_check(secure_broker, "java-token-login", "--sections", "token-login")
    assert_success(result)
    assert (
        "delegation token: log in with it over SCRAM (tokenauth), refused once expired: ok"
        in result.stdout.splitlines()
    )
