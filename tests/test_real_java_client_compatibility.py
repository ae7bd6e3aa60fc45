"""Kafka's own Java clients against real brokers: JavaFeaturesCheck (on kafka-clients 4.3, tests/java/kafka-4/: it
probes APIs newer than 2.5, which must be refused as unsupported versions) goes through the admin, producer and consumer
APIs on three brokers with the ACL authorizer, and again over SASL_SSL with the client properties file a secure local
cluster writes, unchanged; JavaSecurityCheck (on 2.5.1, the brokers' own version) meets ACLs, SASL mechanisms,
re-authentication and delegation tokens there. Kafka 2.5.1's own ClientCompatibilityTest runs in
test_real_kafka_tools."""

import pytest

from kafka_zk.tools.local_cluster import LocalCluster, internal_topic_settings
from tests.cluster_support import start_cluster
from tests.java_clients import KAFKA_2_5_CLIENTS, KAFKA_4_CLIENTS, JavaClientsUnavailable, classpath, run_java
from tests.ports import free_port

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


def assert_success(result):
    assert result.returncode == 0 and result.stdout.rstrip().endswith("SUCCESS."), (
        "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (result.returncode, result.stdout, result.stderr[-6000:])
    )


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
