"""ZooKeeper security for real: a SASL ZooKeeper from our launcher, two brokers logging in from the JAAS file in
KAFKA_OPTS with zookeeper.set.acl=true, the tools logging in the same way, and zookeeper-security-migration."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError
from kazoo.security import ACL, CREATOR_ALL_ACL, Id, Permissions

from kafka_zk.tools import configs, topics
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.ports import free_port
from tests.raw_wire import partition_leaders
from zookeeper.launcher import ZooKeeperError, ZooKeeperServer

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
PASSWORD = "kafka-secret"
CHROOT = "/secure"

KAFKA_ALL = ACL(Permissions.ALL, Id("sasl", "kafka"))
WORLD_READ = ACL(Permissions.READ, Id("world", "anyone"))
WORLD_ALL = ACL(Permissions.ALL, Id("world", "anyone"))


def sasl_zookeeper(directory, attempts=3):
    error = None
    for _ in range(attempts):
        try:
            return ZooKeeperServer(directory, port=free_port(), sasl_users={"kafka": PASSWORD}).start(timeout=30)
        except ZooKeeperError as exc:
            error = exc
    raise error


def kazoo(connect, authenticated):
    options = {"mechanism": "DIGEST-MD5", "username": "kafka", "password": PASSWORD} if authenticated else None
    client = KazooClient(hosts=connect, sasl_options=options)
    client.start(15)
    return client


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    """(ZooKeeper, cluster, KAFKA_OPTS): KAFKA_OPTS names a JAAS file with a Client section for the whole module,
    as an operator exports it before starting brokers and tools."""
    directory = tmp_path_factory.mktemp("zk-security")
    jaas = directory / "kafka_jaas.conf"
    jaas.write_text(
        "Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
        '  username="kafka"\n  password="%s";\n};\n' % PASSWORD
    )
    kafka_opts = "-Djava.security.auth.login.config=%s" % jaas
    previous = os.environ.get("KAFKA_OPTS")
    os.environ["KAFKA_OPTS"] = kafka_opts
    zookeeper = sasl_zookeeper(directory / "zookeeper")
    cluster = None
    try:
        cluster = LocalCluster(
            directory / "cluster",
            brokers=2,
            zk_connect=zookeeper.connect_string + CHROOT,
            broker_ports=[free_port() for _ in range(2)],
            overrides=dict(TEST_DEFAULTS, **{"zookeeper.set.acl": "true"}),
        )
        try:
            cluster.start(timeout=60)
        except Exception:
            cluster.kill()
            raise
        yield zookeeper, cluster, kafka_opts
    finally:
        if cluster is not None:
            cluster.stop()
        zookeeper.stop()
        if previous is None:
            os.environ.pop("KAFKA_OPTS", None)
        else:
            os.environ["KAFKA_OPTS"] = previous


@pytest.fixture(scope="module")
def topic(secured):
    """A topic created by kafka-topics --zookeeper, logged in from KAFKA_OPTS, and served by both brokers."""
    _, cluster, _ = secured
    name = "secured-%s" % uuid.uuid4().hex[:6]
    assert (
        topics.main(
            [
                "--zookeeper",
                cluster.zk_connect,
                "--create",
                "--topic",
                name,
                "--partitions",
                "2",
                "--replication-factor",
                "2",
            ]
        )
        == 0
    )
    wait_for(lambda: len(partition_leaders(cluster.brokers[0].bootstrap, name)) == 2, message="leaders of " + name)
    return name


@pytest.fixture
def admin_zk(secured):
    client = kazoo(secured[1].zk_connect, authenticated=True)
    yield client
    client.stop()
    client.close()


@pytest.fixture
def anonymous_zk(secured):
    client = kazoo(secured[1].zk_connect, authenticated=False)
    yield client
    client.stop()
    client.close()


def acls(client, path):
    return sorted(client.get_acls(path)[0], key=lambda acl: (acl.id.scheme, acl.perms))


@pytest.mark.timeout(240)
def test_broker_and_tool_znodes_carry_kafkas_acls(secured, topic, admin_zk):
    _, cluster, _ = secured
    assert (
        configs.main(
            [
                "--zookeeper",
                cluster.zk_connect,
                "--alter",
                "--entity-type",
                "users",
                "--entity-name",
                "alice",
                "--add-config",
                "consumer_byte_rate=1000",
            ]
        )
        == 0
    )
    readable = sorted([KAFKA_ALL, WORLD_READ], key=lambda acl: (acl.id.scheme, acl.perms))
    for path in [
        "/",
        "/brokers",
        "/brokers/ids/0",
        "/brokers/ids/1",
        "/brokers/topics/" + topic,
        "/brokers/topics/%s/partitions/0/state" % topic,
        "/controller",
        "/controller_epoch",
        "/cluster/id",
        "/config/topics/" + topic,
        "/config/changes",
    ]:
        assert acls(admin_zk, path) == readable, path
    for path in ["/config/users", "/config/users/alice", "/config/brokers"]:
        assert acls(admin_zk, path) == [KAFKA_ALL], path
    change = sorted(admin_zk.get_children("/config/changes"))[-1]
    assert acls(admin_zk, "/config/changes/" + change) == readable


@pytest.mark.timeout(120)
def test_an_unauthenticated_client_reads_public_znodes_only(secured, topic, anonymous_zk):
    assert anonymous_zk.get("/brokers/topics/" + topic)[0].startswith(b"{")
    with pytest.raises(NoAuthError):
        anonymous_zk.create("/brokers/topics/intruder", b'{"version":2,"partitions":{"0":[0]}}')
    with pytest.raises(NoAuthError):
        anonymous_zk.set("/brokers/topics/" + topic, b"{}")
    with pytest.raises(NoAuthError):
        anonymous_zk.get_children("/config/users")
    with pytest.raises(NoAuthError):
        anonymous_zk.delete("/controller")


@pytest.mark.timeout(180)
def test_the_secured_cluster_serves_producers_and_consumers(secured, topic):
    _, cluster, _ = secured
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all"})
    for index in range(20):
        producer.produce(topic, value=b"value-%d" % index, partition=index % 2)
    assert producer.flush(30) == 0
    consumer = Consumer(
        {"bootstrap.servers": cluster.bootstrap_servers, "group.id": "g-" + topic, "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    received = []
    try:

        def poll():
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                received.append(message.value())
            return len(received) >= 20

        wait_for(poll, timeout=60, message="20 records consumed")
    finally:
        consumer.close()
    assert sorted(received) == sorted(b"value-%d" % index for index in range(20))


@pytest.mark.timeout(120)
def test_zookeeper_shell_logs_in_from_kafka_opts(secured, admin_zk):
    _, cluster, kafka_opts = secured
    admin_zk.create("/config/users/shell-probe", b'{"version":1,"config":{}}', acl=CREATOR_ALL_ACL)
    environ = dict(os.environ, PATH="%s:%s" % (Path(sys.executable).parent, os.environ.get("PATH", "")))
    shell = [str(SCRIPTS / "zookeeper-shell.sh"), cluster.zk_connect, "get", "/config/users/shell-probe"]
    logged_in = subprocess.run(shell, capture_output=True, text=True, timeout=60, env=environ)
    assert '{"version":1,"config":{}}' in logged_in.stdout, logged_in.stderr
    anonymous = subprocess.run(
        shell, capture_output=True, text=True, timeout=60, env={k: v for k, v in environ.items() if k != "KAFKA_OPTS"}
    )
    assert '{"version":1,"config":{}}' not in anonymous.stdout
    assert "Insufficient permission : /config/users/shell-probe" in anonymous.stderr


def migrate(connect, acl, environ=None):
    return subprocess.run(
        [str(SCRIPTS / "zookeeper-security-migration.sh"), "--zookeeper.acl=" + acl, "--zookeeper.connect=" + connect],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ or dict(os.environ),
    )


@pytest.mark.timeout(240)
def test_migration_opens_then_secures_the_tree(secured, topic, admin_zk):
    _, cluster, _ = secured
    opened = migrate(cluster.zk_connect, "unsecure")
    assert opened.returncode == 0, opened.stdout + opened.stderr
    for path in [
        "/",
        "/brokers/topics/" + topic,
        "/brokers/ids/0",
        "/config/users",
        "/controller",
        "/brokers/topics/%s/partitions/1/state" % topic,
    ]:
        assert admin_zk.get_acls(path)[0] == [WORLD_ALL], path
    anonymous = kazoo(cluster.zk_connect, authenticated=False)
    try:
        assert anonymous.get_children("/config/users") is not None
    finally:
        anonymous.stop()
        anonymous.close()

    secured_again = migrate(cluster.zk_connect, "secure")
    assert secured_again.returncode == 0, secured_again.stdout + secured_again.stderr
    readable = sorted([KAFKA_ALL, WORLD_READ], key=lambda acl: (acl.id.scheme, acl.perms))
    for path in ["/", "/brokers/topics/" + topic, "/brokers/ids/0", "/controller", "/kafka-acl"]:
        assert acls(admin_zk, path) == readable, path
    assert acls(admin_zk, "/config/users") == [KAFKA_ALL]
    # the cluster still works: a new topic through the brokers' secured sessions
    assert (
        topics.main(
            [
                "--bootstrap-server",
                cluster.brokers[0].bootstrap,
                "--create",
                "--topic",
                topic + "-after",
                "--partitions",
                "1",
                "--replication-factor",
                "2",
            ]
        )
        == 0
    )
    wait_for(lambda: partition_leaders(cluster.brokers[0].bootstrap, topic + "-after"), message="the new topic")
    assert acls(admin_zk, "/brokers/topics/%s-after" % topic) == readable


@pytest.mark.timeout(60)
def test_migration_without_jaas_is_refused(secured):
    environ = {k: v for k, v in os.environ.items() if k != "KAFKA_OPTS"}
    refused = migrate(secured[1].zk_connect, "secure", environ)
    assert refused.returncode == 1
    assert refused.stderr.startswith("ERROR: No JAAS configuration file has been specified")


@pytest.mark.timeout(60)
def test_a_broker_with_set_acl_and_no_jaas_refuses_to_start(secured, tmp_path):
    zookeeper = secured[0]
    properties = tmp_path / "server.properties"
    properties.write_text(
        "broker.id=7\nlisteners=PLAINTEXT://127.0.0.1:%d\nlog.dirs=%s\nzookeeper.connect=%s\n"
        "zookeeper.set.acl=true\n" % (free_port(), tmp_path / "logs", zookeeper.connect_string)
    )
    environ = {k: v for k, v in os.environ.items() if k != "KAFKA_OPTS"}
    started = subprocess.run(
        [sys.executable, "-m", "kafka_zk.server.main", str(properties)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(environ, PYTHONPATH=str(ROOT), LOG_DIR=str(tmp_path)),
    )
    assert started.returncode == 1
    assert (
        "zookeeper.set.acl is true, but ZooKeeper client TLS configuration identifying at least "
        "zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location was not "
        "present and the verification of the JAAS login file failed [java.security.auth.login.config=null, "
        "zookeeper.sasl.client=default:true, zookeeper.sasl.clientconfig=default:Client]"
    ) in started.stderr
