"""SASL/GSSAPI on real brokers with a real MIT KDC: three brokers serve GSSAPI on a SASL_PLAINTEXT listener, which
carries their own traffic too (inter-broker GSSAPI; a PLAINTEXT listener serves the admin). librdkafka (kcat),
kafka-python and Kafka's Java client log in from keytabs and produce and consume with acks=all on RF 3; ACLs hold on
the principal the rules map alice to."""

import os
import shutil
import subprocess
import uuid

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.security.acls import AclBinding, AclEntry, ResourcePattern
from kafka_zk.security.authorizer import CLUSTER_NAME, AclOperation, PatternType, PermissionType, ResourceType
from kafka_zk.tools.kdc import SERVICE_PRINCIPAL, KerberosKdc
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS
from tests.java_clients import java_command
from tests.ports import free_port
from tests.zk_support import create_chroot

PRINCIPALS = (SERVICE_PRINCIPAL, "admin", "alice", "other/127.0.0.1", "stale", "gone", "brief")
KCAT = "/usr/bin/kcat"
ALLOWED = "gss-allowed"
REFUSED = "gss-refused"


def krb5_jaas(keytab, principal):
    return (
        'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" '
        'principal="%s";' % (keytab, principal)
    )


@pytest.fixture(scope="module")
def kdc(tmp_path_factory):
    kdc = KerberosKdc(tmp_path_factory.mktemp("kdc"), free_port(), principals=PRINCIPALS).start()
    # the in-process clients (librdkafka's cyrus-sasl plugin, kafka-python's gssapi) read the realm from here
    saved = {name: os.environ.get(name) for name in ("KRB5_CONFIG", "KRB5CCNAME")}
    os.environ.update({"KRB5_CONFIG": str(kdc.krb5_conf), "KRB5CCNAME": "FILE:%s" % (kdc.folder / "cc-alice")})
    # a stale keytab (the key changed after its export) and a keytab of a principal that no longer exists
    shutil.copy(kdc.keytab("stale"), kdc.folder / "stale-old.keytab")
    kdc.rotate_key("stale")
    kdc._kadmin("delprinc -force gone@%s" % kdc.realm)
    yield kdc
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    kdc.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server, broker_processes, kdc):
    sasl_ports = [free_port() for _ in range(3)]
    cluster = LocalCluster(
        tmp_path_factory.mktemp("gssapi"),
        brokers=3,
        zk_connect=create_chroot(zookeeper_server),
        broker_ports=[free_port() for _ in range(3)],
        overrides=dict(
            TEST_DEFAULTS,
            **{
                "security.inter.broker.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism.inter.broker.protocol": "GSSAPI",
                "sasl.enabled.mechanisms": "GSSAPI",
                "sasl.kerberos.service.name": "kafka",
                "listener.name.sasl_plaintext.gssapi.sasl.jaas.config": krb5_jaas(
                    kdc.keytab(SERVICE_PRINCIPAL), kdc.full_name(SERVICE_PRINCIPAL)
                ),
                "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
                "super.users": "User:ANONYMOUS;User:kafka",  # kafka/127.0.0.1@KAFKA.LOCAL: the brokers
                "offsets.topic.replication.factor": "3",
            },
        ),
    )
    for broker, sasl_port in zip(cluster.brokers, sasl_ports):
        broker.overrides["listeners"] = "PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:%d" % sasl_port
        broker.sasl_port = sasl_port
        broker.environment["KAFKA_OPTS"] = "-Djava.security.krb5.conf=%s" % kdc.krb5_conf
    try:
        cluster.start(timeout=60)
    except Exception:
        cluster.kill()
        raise
    cluster.sasl_bootstrap = ",".join("127.0.0.1:%d" % port for port in sasl_ports)
    with AdminClient(cluster.bootstrap_servers) as admin:
        admin.create_topics([NewTopic(name, 1, 3, configs={"min.insync.replicas": "2"}) for name in (ALLOWED, REFUSED)])
        alice = "User:alice"  # alice@KAFKA.LOCAL by the DEFAULT rule
        bindings = [
            AclBinding(
                ResourcePattern(ResourceType.TOPIC, ALLOWED), AclEntry(alice, "*", operation, PermissionType.ALLOW)
            )
            for operation in (AclOperation.WRITE, AclOperation.READ, AclOperation.DESCRIBE)
        ] + [
            AclBinding(
                ResourcePattern(ResourceType.GROUP, "gss-", PatternType.PREFIXED),
                AclEntry(alice, "*", AclOperation.READ, PermissionType.ALLOW),
            ),
            AclBinding(  # kafka-python's producer is idempotent
                ResourcePattern(ResourceType.CLUSTER, CLUSTER_NAME),
                AclEntry(alice, "*", AclOperation.IDEMPOTENT_WRITE, PermissionType.ALLOW),
            ),
        ]
        assert all(error == 0 for error, _ in admin.create_acls(bindings))
    yield cluster
    cluster.stop()


def kcat(cluster, kdc, *args, principal="alice", keytab=None, stdin=None):
    """kcat (Debian's, on librdkafka with cyrus-sasl's GSSAPI plugin: confluent-kafka's wheels carry no GSSAPI) as
    ``principal`` from ``keytab``: librdkafka's kinit command runs with our realm into a credential cache of its own."""
    keytab = keytab or kdc.keytab(principal)
    ccache = "FILE:%s" % (kdc.folder / ("cc-kcat-%s" % uuid.uuid4().hex[:8]))
    settings = {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "GSSAPI",
        "sasl.kerberos.service.name": "kafka",
        "sasl.kerberos.principal": kdc.full_name(principal),
        "sasl.kerberos.keytab": str(keytab),
        "sasl.kerberos.kinit.cmd": "kinit -k -t %s %s" % (keytab, kdc.full_name(principal)),
    }
    argv = [KCAT, "-b", cluster.sasl_bootstrap, *args]
    for name, value in settings.items():
        argv += ["-X", "%s=%s" % (name, value)]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=90, env=kdc.environment(ccache))


@pytest.mark.timeout(120)
def test_librdkafka_produces_and_consumes_with_gssapi(cluster, kdc):
    lines = "".join("kcat-%d\n" % index for index in range(10))
    produced = kcat(cluster, kdc, "-P", "-t", ALLOWED, "-X", "acks=all", stdin=lines)
    assert produced.returncode == 0, produced.stderr
    consumed = kcat(cluster, kdc, "-C", "-t", ALLOWED, "-o", "beginning", "-e", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert {"kcat-%d" % index for index in range(10)} <= set(consumed.stdout.split())
    # the ACLs hold on User:alice: the other topic is refused
    refused = kcat(cluster, kdc, "-P", "-t", REFUSED, "-X", "acks=all", stdin="no\n")
    assert refused.returncode != 0 and "authoriz" in refused.stderr.lower(), refused.stderr


@pytest.mark.timeout(120)
def test_kafka_python_produces_and_consumes_with_gssapi(cluster, kdc):
    import kafka

    ccache = "FILE:%s" % (kdc.folder / "cc-kafka-python")
    kdc.kinit("alice", ccache)
    os.environ["KRB5CCNAME"] = ccache
    common = {
        "bootstrap_servers": cluster.sasl_bootstrap.split(","),
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "GSSAPI",
        "sasl_kerberos_service_name": "kafka",
    }
    producer = kafka.KafkaProducer(acks="all", **common)
    try:
        for index in range(10):
            producer.send(ALLOWED, b"kafka-python-%d" % index).get(timeout=30)
    finally:
        producer.close()
    consumer = kafka.KafkaConsumer(
        ALLOWED, auto_offset_reset="earliest", consumer_timeout_ms=20000, group_id="gss-kp", **common
    )
    try:
        values = set()
        for message in consumer:
            values.add(message.value)
            if {b"kafka-python-%d" % i for i in range(10)} <= values:
                break
        assert {b"kafka-python-%d" % i for i in range(10)} <= values
    finally:
        consumer.close()


def java_client_properties(path, cluster, kdc, principal="alice", keytab=None):
    path.write_text(
        "security.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=GSSAPI\n"
        "sasl.kerberos.service.name=kafka\n"
        "sasl.jaas.config=%s\n" % krb5_jaas(keytab or kdc.keytab(principal), kdc.full_name(principal))
    )
    return path


def run_java_tool(kdc, main_class, *args, timeout=120):
    command = java_command(main_class, *args)
    command[1:1] = kdc.java_options()
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=kdc.environment())


@pytest.mark.timeout(240)
def test_java_client_produces_and_consumes_with_gssapi(cluster, kdc, tmp_path):
    properties = java_client_properties(tmp_path / "alice.properties", cluster, kdc)
    produced = run_java_tool(
        kdc,
        "org.apache.kafka.tools.ProducerPerformance",
        "--topic",
        ALLOWED,
        "--num-records",
        "20",
        "--record-size",
        "50",
        "--throughput",
        "-1",
        "--producer-props",
        "acks=all",
        "bootstrap.servers=%s" % cluster.sasl_bootstrap,
        "--producer.config",
        str(properties),
    )
    assert produced.returncode == 0 and "20 records sent" in produced.stdout, produced.stdout + produced.stderr
    consumed = run_java_tool(
        kdc,
        "kafka.tools.ConsoleConsumer",
        "--bootstrap-server",
        cluster.sasl_bootstrap,
        "--topic",
        ALLOWED,
        "--from-beginning",
        "--max-messages",
        "20",
        "--timeout-ms",
        "60000",
        "--group",
        "gss-java",
        "--consumer.config",
        str(properties),
    )
    assert consumed.returncode == 0 and "Processed a total of 20 messages" in consumed.stderr, consumed.stderr
