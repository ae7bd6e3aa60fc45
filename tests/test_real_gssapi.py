"""SASL/GSSAPI on real brokers with a real MIT KDC: three brokers serve GSSAPI on a SASL_PLAINTEXT listener, which
carries their own traffic too (inter-broker GSSAPI; a PLAINTEXT listener serves the admin). librdkafka (kcat),
confluent-kafka (both on Debian's librdkafka), kafka-python and Kafka's Java client log in from keytabs and produce
and consume with acks=all on RF 3; a stale keytab, an unknown principal and an expired ticket fail with each client's
own error; ACLs hold on the principal the rules map alice to; a v0 handshake with raw tokens logs in too, and garbage,
replayed and other-service tokens are a clean close that leaves the brokers serving; a leader kill -9 and a
controlled shutdown lose no acknowledged record."""

import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import uuid

import pytest

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.connection import BrokerConnection
from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.security.acls import AclBinding, AclEntry, ResourcePattern
from kafka_zk.security.authorizer import CLUSTER_NAME, AclOperation, PatternType, PermissionType, ResourceType
from kafka_zk.security.gssapi_mechanism import GssapiClient
from kafka_zk.tools.kdc import SERVICE_PRINCIPAL, KerberosKdc
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.java_clients import java_command
from tests.ports import free_port
from tests.raw_socket_support import closed_by_broker, frame, read_frame
from tests.replication_support import metadata_partition
from tests.zk_support import create_chroot

PRINCIPALS = (SERVICE_PRINCIPAL, "admin", "alice", "other/127.0.0.1", "stale", "gone", "brief")
KCAT = "/usr/bin/kcat"
UNHANDLED = re.compile(r"Traceback|error handling|Unhandled error")
GENERIC_FAILURE = "Authentication failed during authentication due to invalid credentials with SASL mechanism GSSAPI"
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
                "zookeeper.session.timeout.ms": "6000",  # a killed broker is noticed in 6 s
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
                ResourcePattern(ResourceType.TOPIC, ALLOWED, PatternType.PREFIXED),
                AclEntry(alice, "*", operation, PermissionType.ALLOW),
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


def librdkafka_gssapi(kdc, principal, keytab=None):
    """librdkafka's GSSAPI settings as ``principal`` from ``keytab``: its kinit command runs with our realm."""
    keytab = keytab or kdc.keytab(principal)
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "GSSAPI",
        "sasl.kerberos.service.name": "kafka",
        "sasl.kerberos.principal": kdc.full_name(principal),
        "sasl.kerberos.keytab": str(keytab),
        "sasl.kerberos.kinit.cmd": "kinit -k -t %s %s" % (keytab, kdc.full_name(principal)),
    }


def kcat(cluster, kdc, *args, principal="alice", keytab=None, stdin=None):
    """kcat (Debian's, on librdkafka with cyrus-sasl's GSSAPI plugin: confluent-kafka's wheels carry no GSSAPI) as
    ``principal`` from ``keytab``: librdkafka's kinit command runs with our realm into a credential cache of its own."""
    ccache = "FILE:%s" % (kdc.folder / ("cc-kcat-%s" % uuid.uuid4().hex[:8]))
    argv = [KCAT, "-b", cluster.sasl_bootstrap, *args]
    for name, value in librdkafka_gssapi(kdc, principal, keytab).items():
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


# confluent-kafka built on Debian's librdkafka (scripts/_venv.sh's ensure_confluent_kafka_gssapi), as its wheels'
# librdkafka has no GSSAPI. The client runs in a process of its own, with that build first on its path.
CONFLUENT_KAFKA_GSSAPI = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "confluent-kafka-gssapi"
)
CONFLUENT_KAFKA_CLIENT = """
import json, sys
import confluent_kafka
settings, topic, values = json.loads(sys.argv[1])
assert confluent_kafka.__file__.startswith(sys.argv[2]), confluent_kafka.__file__
errors = []
producer = confluent_kafka.Producer(dict(settings, acks="all"))
for value in values:
    producer.produce(topic, value.encode(), on_delivery=lambda error, message: error and errors.append(str(error)))
left = producer.flush(60)
if errors or left:
    sys.exit("produce failed: %s (%d not delivered)" % (errors[:1], left))
consumer = confluent_kafka.Consumer(dict(settings, **{"group.id": "gss-ck", "auto.offset.reset": "earliest"}))
consumer.subscribe([topic])
seen = set()
for _ in range(60):
    message = consumer.poll(1.0)
    if message is not None and message.error() is None:
        seen.add(message.value().decode())
    if set(values) <= seen:
        break
consumer.close()
print(json.dumps(sorted(set(values) & seen)))
"""


def confluent_kafka_client(cluster, kdc, topic, values, principal="alice"):
    settings = dict(librdkafka_gssapi(kdc, principal), **{"bootstrap.servers": cluster.sasl_bootstrap})
    environment = kdc.environment("FILE:%s" % (kdc.folder / ("cc-ck-%s" % uuid.uuid4().hex[:8])))
    environment["PYTHONPATH"] = CONFLUENT_KAFKA_GSSAPI
    return subprocess.run(
        [sys.executable, "-c", CONFLUENT_KAFKA_CLIENT, json.dumps([settings, topic, values]), CONFLUENT_KAFKA_GSSAPI],
        capture_output=True,
        text=True,
        timeout=150,
        env=environment,
    )


@pytest.mark.timeout(180)
def test_confluent_kafka_produces_and_consumes_with_gssapi(cluster, kdc):
    values = ["ck-%d" % index for index in range(10)]
    run = confluent_kafka_client(cluster, kdc, ALLOWED, values)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.splitlines()[-1]) == values
    refused = confluent_kafka_client(cluster, kdc, REFUSED, ["no"])
    assert refused.returncode != 0 and "TOPIC_AUTHORIZATION_FAILED" in refused.stderr, refused.stderr[-2000:]


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


@pytest.mark.timeout(120)
def test_a_stale_keytab_fails_librdkafkas_login(cluster, kdc):
    failed = kcat(cluster, kdc, "-L", "-m", "3", principal="stale", keytab=kdc.folder / "stale-old.keytab")
    # the KDC refuses the stale key: librdkafka's kinit fails, and so does every broker's SASL handshake
    assert failed.returncode != 0
    assert (
        "Kerberos ticket refresh failed" in failed.stderr
        and "Failed to initialize SASL authentication" in failed.stderr
    )


@pytest.mark.timeout(120)
def test_an_unknown_principal_fails_javas_login(cluster, kdc, tmp_path):
    properties = java_client_properties(tmp_path / "gone.properties", cluster, kdc, principal="gone")
    failed = run_java_tool(
        kdc,
        "org.apache.kafka.tools.ProducerPerformance",
        *("--topic", ALLOWED, "--num-records", "1", "--record-size", "10", "--throughput", "-1"),
        *("--producer-props", "bootstrap.servers=%s" % cluster.sasl_bootstrap, "--producer.config", str(properties)),
    )
    assert failed.returncode != 0
    assert "LoginException: Client not found in Kerberos database" in failed.stderr, failed.stderr[-3000:]


@pytest.mark.timeout(120)
def test_an_expired_ticket_fails_kafka_pythons_login(cluster, kdc, caplog):
    import kafka
    from kafka.errors import KafkaTimeoutError

    ccache = "FILE:%s" % (kdc.folder / "cc-brief")
    kdc.kinit("brief", ccache, lifetime="2s")
    os.environ["KRB5CCNAME"] = ccache
    wait_for(lambda: subprocess.run(["klist", "-s", "-c", ccache], env=kdc.environment(ccache)).returncode != 0)
    # kafka-python's gssapi refuses the expired ticket; the producer finds no broker it can log in to
    with pytest.raises(KafkaTimeoutError, match="Unable to bootstrap"):
        kafka.KafkaProducer(
            bootstrap_servers=cluster.sasl_bootstrap.split(","),
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism="GSSAPI",
            sasl_kerberos_service_name="kafka",
            bootstrap_timeout_ms=3000,
        )
    assert "Ticket expired" in caplog.text


# -- raw tokens: the v0 handshake, and bad tokens ---------------------------------------------------------------


def sasl_socket(broker):
    return socket.create_connection(("127.0.0.1", broker.sasl_port), timeout=10)


def alice_login(kdc, service="kafka", authorization_id=None):
    return GssapiClient(kdc.full_name("alice"), str(kdc.keytab("alice")), service, "127.0.0.1", authorization_id)


def topic_errors(sock, correlation_id):
    sock.sendall(frame(encode_request(3, 1, correlation_id, "gss", {"topics": [{"name": ALLOWED}, {"name": REFUSED}]})))
    _, metadata = decode_response(3, 1, read_frame(sock))
    return {topic["name"]: topic["error_code"] for topic in metadata["topics"]}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("authorization_id", [None, "kafka/127.0.0.1@KAFKA.LOCAL"])
def test_a_v0_handshake_with_raw_tokens_logs_in(cluster, kdc, authorization_id):
    """As Kafka 2.5.1's callback handler, the broker takes the authenticated name and ignores an authorization id:
    alice asking to be the brokers' own (super user) principal stays User:alice."""
    sock = sasl_socket(cluster.brokers[0])
    try:
        sock.sendall(frame(encode_request(17, 0, 1, "gss", {"mechanism": "GSSAPI"})))
        assert decode_response(17, 0, read_frame(sock))[1]["error_code"] == 0
        login = alice_login(kdc, authorization_id=authorization_id)
        token = login.initial
        while True:
            sock.sendall(frame(token))
            if login.complete:  # the last token has no answer in v0
                break
            token = login.respond(read_frame(sock))
        assert topic_errors(sock, 2) == {ALLOWED: 0, REFUSED: 29}  # User:alice: TOPIC_AUTHORIZATION_FAILED
    finally:
        sock.close()


def unhandled_errors(broker):
    return len(UNHANDLED.findall(broker.log_file.read_text(errors="replace")))


def authenticate_v1(sock, token):
    """SaslHandshake v1 then one SaslAuthenticate; its response's error code (and auth bytes)."""
    sock.sendall(frame(encode_request(17, 1, 1, "gss", {"mechanism": "GSSAPI"})))
    assert decode_response(17, 1, read_frame(sock))[1]["error_code"] == 0
    sock.sendall(frame(encode_request(36, 1, 2, "gss", {"auth_bytes": token})))
    return decode_response(36, 1, read_frame(sock))[1]


@pytest.mark.timeout(90)
def test_garbage_replayed_and_other_service_tokens_are_a_clean_close(cluster, kdc):
    unhandled = {broker.broker_id: unhandled_errors(broker) for broker in cluster.brokers}
    first = alice_login(kdc)
    recorded = first.initial
    sock = sasl_socket(cluster.brokers[0])  # a login that uses the token, which a replay then repeats
    assert authenticate_v1(sock, recorded)["error_code"] == 0
    sock.close()
    bad_tokens = {
        "garbage": b"\x60\x82garbage" * 20,
        "replayed": recorded,
        "other service": alice_login(kdc, service="other").initial,  # other/127.0.0.1's ticket
    }
    for index, (name, token) in enumerate(bad_tokens.items()):
        sock = sasl_socket(cluster.brokers[index % 3])
        answer = authenticate_v1(sock, token)
        assert answer["error_code"] == 58, name  # SASL_AUTHENTICATION_FAILED, with Kafka 2.5.1's words
        assert answer["error_message"] == GENERIC_FAILURE, name
        assert closed_by_broker(sock), name
    # mutants: fresh tokens with a byte changed (v1), random raw tokens after a v0 handshake; answered or closed
    rng = random.Random(20261129)
    for _ in range(6):
        token = bytearray(alice_login(kdc).initial)
        token[rng.randrange(len(token))] ^= 1 << rng.randrange(8)
        sock = sasl_socket(rng.choice(cluster.brokers))
        try:
            assert authenticate_v1(sock, bytes(token))["error_code"] in (0, 58)
        finally:
            sock.close()
    for _ in range(6):
        sock = sasl_socket(rng.choice(cluster.brokers))
        sock.sendall(frame(encode_request(17, 0, 1, "gss", {"mechanism": "GSSAPI"})))
        read_frame(sock)
        sock.sendall(frame(bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))))
        assert closed_by_broker(sock)
    # nothing else disturbed: our own client logs in with GSSAPI on every broker and is served
    security = {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "GSSAPI",
        "sasl.kerberos.service.name": "kafka",
        "sasl.jaas.config": krb5_jaas(kdc.keytab("alice"), kdc.full_name("alice")),
    }
    for broker in cluster.brokers:
        connection = BrokerConnection("127.0.0.1", broker.sasl_port, timeout=10, security=security)
        try:
            topics = connection.request(3, {"topics": [{"name": ALLOWED}]}, version=1)["topics"]
            assert [topic["error_code"] for topic in topics] == [0]
        finally:
            connection.close()
    assert {broker.broker_id: unhandled_errors(broker) for broker in cluster.brokers} == unhandled


# -- faults on a Kerberos cluster (last: it moves leaders) -------------------------------------------------------


@pytest.mark.timeout(180)
def test_a_leader_kill_and_a_controlled_shutdown_lose_nothing(cluster, kdc):
    topic = ALLOWED + "-faults"
    with AdminClient(cluster.bootstrap_servers) as admin:
        admin.create_topics([NewTopic(topic, 1, 3, configs={"min.insync.replicas": "2"})])
    survivor = cluster.brokers[0]

    def partition():
        return wait_for(lambda: metadata_partition(survivor.bootstrap, topic), message="%s's metadata" % topic)

    def produce(first, last):
        lines = "".join("fault-%d\n" % index for index in range(first, last))
        produced = kcat(
            cluster, kdc, "-P", "-t", topic, "-X", "acks=all", "-X", "message.timeout.ms=60000", stdin=lines
        )
        assert produced.returncode == 0, produced.stderr

    produce(0, 50)
    killed = cluster.broker(partition()["leader_id"])
    if killed is survivor:
        survivor = cluster.brokers[1]
    killed.kill()
    produce(50, 100)  # once a new leader is elected: the brokers replicate with GSSAPI between themselves
    killed.start()
    wait_for(lambda: len(partition()["isr_nodes"]) == 3, timeout=60, message="the killed broker back in the ISR")
    stopped = cluster.broker(partition()["leader_id"])
    if stopped is survivor:
        survivor = next(b for b in cluster.brokers if b is not stopped and b is not killed)
    stopped.stop()  # SIGTERM: a controlled shutdown moves its leadership first
    produce(100, 150)
    consumed = kcat(cluster, kdc, "-C", "-t", topic, "-o", "beginning", "-e", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert sorted(consumed.stdout.split()) == sorted("fault-%d" % index for index in range(150))
