"""`local-cluster --secure` as a user gets it: SASL_SSL client listeners, SSL between brokers, ACLs, SCRAM users
and ZooKeeper ACLs; real clients log in with the files it writes, and the drills still hold on it: a leader
killed -9, controlled shutdown, a group through its coordinator's kill, transactions, the PySpark source and sink."""

import json
import ssl
import subprocess
import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.zk_admin import tool_zk_client
from kafka_zk.common.properties import read_properties
from kafka_zk.coordinator.group.records import partition_for
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.local_cluster import LocalCluster, internal_topic_settings
from kafka_zk.tools.secure_material import SecureMaterial
from tests.cluster_support import wait_for
from tests.ports import free_port, free_ports
from tests.spark_support import spark  # noqa: F401 (the module's SparkSession fixture)
from tests.test_real_sasl import aiokafka_round_trip, kafka_python_round_trip
from tests.test_real_secure_tools import _token_from, tool
from zookeeper.launcher import four_letter_word

KCAT = "/usr/bin/kcat"
BROKERS = 3
PARTITIONS = 3
# Only for speed: brokers notice a dead one when its 6 s ZooKeeper session expires (Kafka's default is 18 s).
FAST_DEATH = {"zookeeper.session.timeout.ms": "6000", "controlled.shutdown.retry.backoff.ms": "200"}


@pytest.fixture(scope="module")
def secure(tmp_path_factory):
    base, internal = free_ports(BROKERS), free_ports(BROKERS)
    cluster = LocalCluster(
        tmp_path_factory.mktemp("secure-cluster"),
        brokers=BROKERS,
        zk_port=free_port(),
        broker_ports=list(range(base, base + BROKERS)),
        internal_ports=list(range(internal, internal + BROKERS)),
        overrides=dict(internal_topic_settings(BROKERS), **FAST_DEATH),
        secure=True,
    )
    try:
        cluster.start(timeout=90)
    except Exception:
        cluster.kill()
        raise
    yield cluster
    cluster.stop()


def passwords(cluster):
    return cluster.security.material.passwords()["users"]


def client_config(cluster, user, mechanism="SCRAM-SHA-512", password=None, **more):
    """librdkafka's settings for ``user``, trusting the cluster's CA."""
    return dict(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": mechanism,
            "sasl.username": user,
            "sasl.password": password if password is not None else passwords(cluster)[user],
            "ssl.ca.location": str(cluster.security.material.ca_pem),
        },
        **more,
    )


def admin_client(cluster):
    return AdminClient(client_config(cluster, "admin"))


def create_topic(cluster, name, partitions=PARTITIONS, **configs):
    admin = admin_client(cluster)  # kept while its future is pending
    admin.create_topics([NewTopic(name, partitions, 3, config=configs)])[name].result(60)
    wait_full_isr(cluster, name, partitions)


def metadata(cluster, topic):
    return admin_client(cluster).list_topics(topic, timeout=10).topics[topic]


def wait_full_isr(cluster, topic, partitions=PARTITIONS, timeout=60):
    def full():
        try:
            found = metadata(cluster, topic)
        except KafkaException:
            return False
        return len(found.partitions) == partitions and all(
            len(p.isrs) == 3 and p.leader >= 0 for p in found.partitions.values()
        )

    wait_for(full, timeout, interval=0.2, message="%s fully in sync" % topic)


def produce(cluster, topic, values, user="admin", **settings):
    producer = Producer(client_config(cluster, user, **dict({"acks": "all", "message.timeout.ms": 60000}, **settings)))
    failures = []
    for value in values:
        producer.produce(topic, value=value, on_delivery=lambda error, _: error and failures.append(error))
    assert producer.flush(90) == 0 and not failures, failures


def consume_all(cluster, topic, count, user="admin", **settings):
    consumer = Consumer(
        client_config(
            cluster,
            user,
            **dict({"group.id": "check-" + uuid.uuid4().hex[:6], "auto.offset.reset": "earliest"}, **settings),
        )
    )
    consumer.subscribe([topic])
    values = []
    try:

        def done():
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                values.append(message.value())
            return len(values) >= count

        wait_for(done, 60, interval=0, message="%d records of %s" % (count, topic))
        for _ in range(5):  # nothing more than what was written
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                values.append(message.value())
    finally:
        consumer.close()
    return values


def test_files_logins_and_acls_as_a_user_gets_them(secure):
    material = secure.security.material
    for path in (
        material.ca_pem,
        material.truststore,
        material.properties_file("admin"),
        material.properties_file("alice"),
    ):
        assert path.exists(), path
    topic = "secure-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic)
    for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"):
        produce(secure, topic, [mechanism.encode()], mechanism=mechanism)

    # alice has no ACLs: refused, then allowed once the admin grants them
    refused = []
    producer = Producer(client_config(secure, "alice", **{"message.timeout.ms": 10000}))
    producer.produce(topic, b"x", on_delivery=lambda error, _: refused.append(error))
    producer.flush(20)
    assert refused and refused[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    grants = [
        AclBinding(
            ResourceType.TOPIC,
            topic,
            ResourcePatternType.LITERAL,
            "User:alice",
            "*",
            operation,
            AclPermissionType.ALLOW,
        )
        for operation in (AclOperation.WRITE, AclOperation.READ)
    ]
    grants.append(
        AclBinding(
            ResourceType.GROUP,
            "alice-",
            ResourcePatternType.PREFIXED,
            "User:alice",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
    )
    admin = admin_client(secure)
    for future in admin.create_acls(grants).values():
        future.result(30)
    wait_for(lambda: _alice_can_write(secure, topic), 30, interval=0.5, message="alice's ACLs on every broker")
    values = consume_all(secure, topic, 4, user="alice", **{"group.id": "alice-" + uuid.uuid4().hex[:6]})
    assert sorted(values)[:3] == [b"PLAIN", b"SCRAM-SHA-256", b"SCRAM-SHA-512"]


def _alice_can_write(cluster, topic):
    errors = []
    producer = Producer(client_config(cluster, "alice", **{"message.timeout.ms": 5000}))
    producer.produce(topic, b"alice", on_delivery=lambda error, _: errors.append(error))
    producer.flush(10)
    return errors == [None]


def test_a_wrong_password_fails_and_the_brokers_stay_healthy(secure):
    errors = []
    consumer = Consumer(
        client_config(secure, "alice", password="wrong", **{"group.id": "g", "error_cb": errors.append})
    )
    try:
        wait_for(
            lambda: consumer.poll(0.2) is None and any(error.code() == KafkaError._AUTHENTICATION for error in errors),
            30,
            interval=0,
            message="librdkafka's authentication error",
        )
    finally:
        consumer.close()
    assert len(admin_client(secure).list_topics(timeout=10).brokers) == BROKERS


def test_kcat_logs_in_with_scram_over_tls(secure):
    topic = "kcat-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=1)
    options = [
        "-b",
        secure.bootstrap_servers,
        "-X",
        "security.protocol=SASL_SSL",
        "-X",
        "sasl.mechanisms=SCRAM-SHA-256",
        "-X",
        "sasl.username=admin",
        "-X",
        "sasl.password=%s" % passwords(secure)["admin"],
        "-X",
        "ssl.ca.location=%s" % secure.security.material.ca_pem,
    ]
    subprocess.run([KCAT, *options, "-P", "-t", topic], input=b"one\ntwo\n", check=True, timeout=60)
    consumed = subprocess.run(
        [KCAT, *options, "-C", "-t", topic, "-o", "beginning", "-e", "-q"], capture_output=True, check=True, timeout=60
    )
    assert consumed.stdout.split() == [b"one", b"two"]


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "PLAIN"])
@pytest.mark.parametrize("round_trip", [kafka_python_round_trip, aiokafka_round_trip], ids=["kafka-python", "aiokafka"])
def test_python_clients_log_in_over_sasl_ssl(secure, round_trip, mechanism):
    topic = "py-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=1)
    round_trip(
        secure.bootstrap_servers,
        mechanism,
        "admin",
        passwords(secure)["admin"],
        topic,
        cafile=str(secure.security.material.ca_pem),
    )


# What Kafka 2.5.1's broker writes over a TLS session with zookeeper.set.acl=true (run against this ZooKeeper, with
# this certificate): its DN ALL and world READ, the DN alone on sensitive paths, /consumers open.
BROKER_DN = ("x509", "CN=broker,O=kafka-zk local cluster")


def ids(acls):
    return {(acl.id.scheme, acl.id.id) for acl in acls}


def test_znodes_carry_the_broker_certificates_x509_identity(secure):
    zk = tool_zk_client(secure.zk_connect, connect_timeout=20, tls_settings=secure.security.zk_tls_settings())
    try:
        assert ids(zk.kazoo.get_acls("/brokers/ids")[0]) == {BROKER_DN, ("world", "anyone")}
        assert ids(zk.kazoo.get_acls("/brokers/ids/0")[0]) == {BROKER_DN, ("world", "anyone")}
        assert ids(zk.kazoo.get_acls("/config/users/alice")[0]) == {BROKER_DN}
        assert json.loads(zk.kazoo.get("/controller")[0])["brokerid"] in range(BROKERS)
    finally:
        zk.close()


def test_zookeeper_answers_only_clients_with_a_certificate_of_the_cluster_ca(secure, tmp_path):
    server = secure.zookeeper
    assert "clientPort=" not in server.cfg_file.read_text().replace("secureClientPort=", "")
    material = secure.security.material
    trusted = ssl.create_default_context(cafile=str(material.ca_pem))
    stranger = SecureMaterial(tmp_path / "another-ca").create()  # same names, another CA
    strangers = ssl.create_default_context(cafile=str(material.ca_pem))
    strangers.load_cert_chain(str(stranger.broker_certificate_pem), str(stranger.broker_key_pem))
    answers = {
        name: ruok(server, context)
        for name, context in [("plain", None), ("no certificate", trusted), ("another CA", strangers)]
    }
    assert answers == {name: "refused" for name in answers}
    assert ruok(server, secure.security.zookeeper_tls().probe_context()) == "imok"


def ruok(server, tls):
    # A newline as `nc` sends it: a plain ZooKeeper still reads "ruok", a TLS port sees a record that is not TLS.
    try:
        return four_letter_word(server.host, server.port, "ruok\n", timeout=5, tls=tls) or "refused"
    except OSError:
        return "refused"


def test_a_tool_reaches_zookeeper_with_its_zk_tls_config_file(secure):
    topic = "zktls-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=1)
    tls_file = str(secure.security.material.zk_tls_properties)
    zookeeper = ["--zookeeper", secure.zk_connect, "--zk-tls-config-file", tls_file]
    entity = ["--entity-type", "topics", "--entity-name", topic]
    altered = tool("configs", *zookeeper, *entity, "--alter", "--add-config", "retention.ms=123456")
    assert altered.returncode == 0, altered.stderr
    assert "Completed updating config for entity: topic '%s'." % topic in altered.stdout
    authorizer = ["--authorizer-properties", "zookeeper.connect=" + secure.zk_connect, "--zk-tls-config-file", tls_file]
    added = tool(
        "acls", *authorizer, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", topic
    )
    assert (
        added.returncode == 0 and "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)" in added.stdout
    ), added


def test_a_leader_killed_with_kill_9_loses_no_acknowledged_record(secure):
    topic = "kill9-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=1, **{"min.insync.replicas": "2"})
    produce(secure, topic, [b"before-%d" % i for i in range(200)], **{"enable.idempotence": True})
    leader = metadata(secure, topic).partitions[0].leader
    secure.broker(leader).kill()
    try:
        wait_for(
            lambda: metadata(secure, topic).partitions[0].leader not in (-1, leader),
            30,
            interval=0.2,
            message="a new leader",
        )
        produce(secure, topic, [b"after-%d" % i for i in range(200)], **{"enable.idempotence": True})
    finally:
        secure.broker(leader).start()
    wait_full_isr(secure, topic, partitions=1)
    values = consume_all(secure, topic, 400)
    assert sorted(values) == sorted([b"before-%d" % i for i in range(200)] + [b"after-%d" % i for i in range(200)])


def test_controlled_shutdown_moves_leadership_first(secure):
    topic = "shutdown-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic)
    leaders = {p.leader for p in metadata(secure, topic).partitions.values()}
    stopping = sorted(leaders)[0]
    broker = secure.broker(stopping)
    offset = broker.log_file.stat().st_size
    broker.stop()
    try:
        assert all(p.leader not in (-1, stopping) for p in metadata(secure, topic).partitions.values())
        with open(broker.log_file, "rb") as log:
            log.seek(offset)
            assert b"controlled shutdown succeeded" in log.read()
    finally:
        broker.start()
    wait_full_isr(secure, topic)


def test_a_group_keeps_its_commits_through_its_coordinators_kill(secure):
    topic, group = "group-" + uuid.uuid4().hex[:6], "g-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=1)
    produce(secure, topic, [b"%d" % i for i in range(20)])
    consumer = Consumer(
        client_config(
            secure,
            "admin",
            **{
                "group.id": group,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "topic.metadata.refresh.interval.ms": 2000,
            },
        )
    )
    try:
        consumer.subscribe([topic])
        seen = []
        wait_for(lambda: _poll_into(consumer, seen) and len(seen) >= 20, 60, interval=0, message="20 records")
        consumer.commit(offsets=[TopicPartition(topic, 0, 20)], asynchronous=False)
        offsets_partition = partition_for(group, 50)
        coordinator = metadata(secure, "__consumer_offsets").partitions[offsets_partition].leader
        secure.broker(coordinator).kill()
        try:

            def committed_again():
                _poll_into(consumer, seen)
                try:
                    answered = consumer.commit(offsets=[TopicPartition(topic, 0, 15)], asynchronous=False)
                except KafkaException:
                    return False
                return all(tp.error is None for tp in answered)

            wait_for(committed_again, 60, interval=0.2, message="a commit on the new coordinator")
            stored = consumer.committed([TopicPartition(topic, 0)], timeout=10)
            assert stored[0].offset == 15
        finally:
            secure.broker(coordinator).start()
    finally:
        consumer.close()
    wait_full_isr(secure, "__consumer_offsets", partitions=50, timeout=90)


def _poll_into(consumer, seen):
    message = consumer.poll(0.1)
    if message is not None and message.error() is None:
        seen.append(message.value())
    return True


def test_the_generated_properties_work_with_our_tools_and_delegation_tokens(secure):
    """Kafka's tools take admin.properties / alice.properties as --command-config; alice, who has no ACLs, is
    refused; a token alice creates logs in over SASL_SSL as alice."""
    material = secure.security.material
    admin_config, alice_config = str(material.properties_file("admin")), str(material.properties_file("alice"))
    servers = secure.bootstrap_servers
    topic = "tools-" + uuid.uuid4().hex[:6]
    refused = tool(
        "topics",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--create",
        "--topic",
        topic,
        "--partitions",
        "1",
        "--replication-factor",
        "3",
    )
    assert refused.returncode != 0 and "Authorization failed." in refused.stdout, refused
    created = tool(
        "topics",
        "--bootstrap-server",
        servers,
        "--command-config",
        admin_config,
        "--create",
        "--topic",
        topic,
        "--partitions",
        "1",
        "--replication-factor",
        "3",
    )
    assert created.returncode == 0, created.stdout + created.stderr
    token = tool(
        "delegation_tokens",
        "--bootstrap-server",
        servers,
        "--command-config",
        alice_config,
        "--create",
        "--max-life-time-period",
        "-1",
    )
    assert token.returncode == 0, token.stdout + token.stderr
    token_id, hmac = _token_from(token.stdout)
    with_token = dict(
        read_properties(alice_config),
        **{
            "sasl.jaas.config": (
                'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s" '
                'tokenauth="true";' % (token_id, hmac)
            )
        },
    )
    broker = secure.brokers[0]
    connection = BrokerConnection(broker.host, broker.port, timeout=10, security=with_token)
    try:
        answer = connection.request(3, {"topics": [{"name": topic}], "allow_auto_topic_creation": False}, version=4)
    finally:
        connection.close()
    # the token logs in as alice, who may not describe the topic
    assert [t["error_code"] for t in answer["topics"]] == [Errors.TOPIC_AUTHORIZATION_FAILED]


def test_spark_writes_and_reads_with_the_generated_properties(secure, spark):
    """The kafka_zk sink and source over SASL_SSL, with admin.properties passed as kafka.* options, as Spark's Kafka
    source takes them: librdkafka on the executors, our client on the driver."""
    topic = "spark-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=2)
    properties = read_properties(str(secure.security.material.properties_file("admin")))
    options = {
        "kafka.bootstrap.servers": secure.bootstrap_servers,
        **{"kafka." + name: value for name, value in properties.items()},
    }
    rows = [("k%d" % i, "v%d" % i) for i in range(100)]
    spark.createDataFrame(rows, "key string, value string").write.format("kafka_zk").mode("append").options(
        topic=topic, **options
    ).save()
    read = spark.read.format("kafka_zk").options(subscribe=topic, **options).load()
    assert sorted((bytes(row.key).decode(), bytes(row.value).decode()) for row in read.collect()) == sorted(rows)


def test_transactions_commit_and_abort(secure):
    topic = "txn-" + uuid.uuid4().hex[:6]
    create_topic(secure, topic, partitions=1)
    producer = Producer(client_config(secure, "admin", **{"transactional.id": "tx-" + uuid.uuid4().hex[:6]}))
    producer.init_transactions(60)
    producer.begin_transaction()
    producer.produce(topic, b"committed")
    producer.commit_transaction(60)
    producer.begin_transaction()
    producer.produce(topic, b"aborted")
    producer.abort_transaction(60)
    producer.begin_transaction()
    producer.produce(topic, b"committed-too")
    producer.commit_transaction(60)
    values = consume_all(secure, topic, 2, **{"isolation.level": "read_committed"})
    assert values == [b"committed", b"committed-too"]
