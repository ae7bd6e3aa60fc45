"""Client properties files of the tools, in memory: the shared reader and splitter (security.protocol, ssl.*,
sasl.* become our client's security= dict), each broker-facing tool handing them to its admin client, producer or
consumer, the translation into librdkafka settings (perf tools, Spark source and sink), and the Spark driver's
client."""

import io
import json

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from kafka_zk.security.client_properties import (
    SecuritySettingsError,
    librdkafka_client_settings,
    librdkafka_security,
    split_security,
)
from kafka_zk.tools import (
    acls,
    broker_api_versions,
    command_config,
    configs,
    console_consumer,
    console_producer,
    consumer_groups,
    consumer_perf,
    delegation_tokens,
    delete_records,
    leader_election,
    log_dirs,
    preferred_replica_election,
    producer_perf,
    reassign_partitions,
    topics,
)
from kafka_zk.tools.command_line import ToolFailure

JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";'
SECURITY = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": JAAS}


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "client.properties"
    path.write_text(
        "# alice\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
        "sasl.jaas.config=%s\nclient.id=my-tool\nrequest.timeout.ms=7000\n" % JAAS
    )
    return str(path)


def test_split_security_separates_security_settings():
    client, security = split_security(
        dict(SECURITY, **{"client.id": "c", "ssl.truststore.location": "/t", "request.timeout.ms": "5"})
    )
    assert client == {"client.id": "c", "request.timeout.ms": "5"}
    assert security == dict(SECURITY, **{"ssl.truststore.location": "/t"})


def test_admin_options_from_a_file(config_file):
    assert command_config.read_admin_options(config_file, client_id="default") == {
        "security": SECURITY,
        "client_id": "my-tool",
        "timeout": 7.0,
    }
    assert command_config.read_admin_options(None, client_id="default", timeout=3.0) == {
        "client_id": "default",
        "timeout": 3.0,
    }
    assert command_config.security_options({"client.id": "x"}) == {}


def test_a_missing_file_fails_as_the_jvm_does(tmp_path):
    with pytest.raises(ToolFailure) as failure:
        command_config.read_client_properties(str(tmp_path / "missing.properties"))
    assert failure.value.java_class == "java.nio.file.NoSuchFileException"


class Stop(Exception):
    """Raised by the fake admin factory once it has seen its arguments."""


def capture(calls):
    def factory(bootstrap, **options):
        calls.append(options)
        raise Stop()

    return factory


def _run(module, argv, **kwargs):
    args = module.build_parser().parse_args(argv)
    try:
        module.run(args, io.StringIO(), io.StringIO(), **kwargs)
    except Stop:
        pass


ADMIN_TOOLS = {
    "kafka-topics": (topics, ["--command-config", "{cfg}", "--list"]),
    "kafka-configs": (
        configs,
        ["--command-config", "{cfg}", "--describe", "--entity-type", "topics", "--entity-name", "t"],
    ),
    "kafka-consumer-groups": (consumer_groups, ["--command-config", "{cfg}", "--list"]),
    "kafka-delegation-tokens": (delegation_tokens, ["--command-config", "{cfg}", "--describe"]),
    "kafka-delete-records": (delete_records, ["--command-config", "{cfg}", "--offset-json-file", "{offsets}"]),
    "kafka-log-dirs": (log_dirs, ["--command-config", "{cfg}", "--describe"]),
    "kafka-broker-api-versions": (broker_api_versions, ["--command-config", "{cfg}"]),
    "kafka-leader-election": (
        leader_election,
        ["--admin.config", "{cfg}", "--election-type", "preferred", "--all-topic-partitions"],
    ),
    "kafka-preferred-replica-election": (preferred_replica_election, ["--admin.config", "{cfg}"]),
}


@pytest.mark.parametrize("name", sorted(ADMIN_TOOLS))
def test_each_admin_tool_hands_the_file_to_its_admin_client(name, config_file, tmp_path):
    module, argv = ADMIN_TOOLS[name]
    offsets = tmp_path / "offsets.json"
    offsets.write_text(json.dumps({"partitions": [{"topic": "t", "partition": 0, "offset": 1}], "version": 1}))
    calls = []
    _run(
        module,
        ["--bootstrap-server", "b:9092"] + [a.format(cfg=config_file, offsets=offsets) for a in argv],
        admin_factory=capture(calls),
    )
    assert len(calls) == 1 and calls[0]["security"] == SECURITY
    if name != "kafka-consumer-groups":  # its timeout follows its --timeout option, as in Kafka
        assert calls[0]["timeout"] == 7.0


@pytest.mark.parametrize(
    "module,argv",
    [
        (acls, ["--list"]),
        (reassign_partitions, ["--list"]),
    ],
)
def test_tools_building_their_own_admin_client_pass_the_file(module, argv, config_file, monkeypatch):
    calls = []
    monkeypatch.setattr(module, "AdminClient", capture(calls))
    _run(module, ["--bootstrap-server", "b:9092", "--command-config", config_file] + argv)
    assert calls == [{"security": SECURITY, "client_id": "my-tool", "timeout": 7.0}]


def test_console_producer_and_consumer_take_security_from_config_and_properties(config_file):
    produce = console_producer.build_parser().parse_args(
        [
            "--bootstrap-server",
            "b:9092",
            "--topic",
            "t",
            "--producer.config",
            config_file,
            "--producer-property",
            "sasl.mechanism=SCRAM-SHA-512",
        ]
    )
    assert console_producer.producer_settings(produce)["security"] == dict(
        SECURITY, **{"sasl.mechanism": "SCRAM-SHA-512"}
    )
    consume = console_consumer.build_parser().parse_args(
        ["--bootstrap-server", "b:9092", "--topic", "t", "--consumer.config", config_file]
    )
    settings = console_consumer.consumer_settings(consume)
    assert settings["security"] == SECURITY and settings["client_id"] == "my-tool"
    bare = console_consumer.build_parser().parse_args(["--bootstrap-server", "b:9092", "--topic", "t"])
    assert "security" not in console_consumer.consumer_settings(bare)


def test_perf_tools_translate_java_security_settings_for_librdkafka():
    warnings = io.StringIO()
    props = dict(SECURITY, **{"bootstrap.servers": "b:9092"})
    for settings in (
        producer_perf.librdkafka_settings(props, warnings),
        consumer_perf.librdkafka_settings(dict(props, **{"group.id": "g"}), warnings),
    ):
        assert {k: settings[k] for k in ("security.protocol", "sasl.mechanism", "sasl.username", "sasl.password")} == {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-256",
            "sasl.username": "alice",
            "sasl.password": "alice-secret",
        }
        assert "sasl.jaas.config" not in settings
    assert warnings.getvalue() == ""


def test_librdkafka_cannot_log_in_with_a_token():
    with pytest.raises(SecuritySettingsError, match="delegation token"):
        librdkafka_security(dict(SECURITY, **{"sasl.jaas.config": JAAS[:-1] + ' tokenauth="true";'}))


def test_librdkafka_gets_truststore_and_keystore_as_pem(tmp_path):
    ca = trustme.CA()
    leaf = ca.issue_cert("client")
    truststore = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(truststore))
    key = serialization.load_pem_private_key(leaf.private_key_pem.bytes(), None)
    cert = x509.load_pem_x509_certificate(leaf.cert_chain_pems[0].bytes())
    keystore = tmp_path / "client.p12"
    keystore.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"client", key, cert, None, serialization.BestAvailableEncryption(b"storepass")
        )
    )
    settings = librdkafka_security(
        {
            "security.protocol": "SSL",
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(truststore),
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(keystore),
            "ssl.keystore.password": "storepass",
            "ssl.key.password": "storepass",
            "ssl.endpoint.identification.algorithm": "",
        }
    )
    assert settings["ssl.ca.pem"] == ca.cert_pem.bytes().decode()
    assert settings["ssl.certificate.pem"].startswith("-----BEGIN CERTIFICATE-----")
    assert settings["ssl.key.pem"].startswith("-----BEGIN PRIVATE KEY-----")
    assert settings["ssl.endpoint.identification.algorithm"] == "none"
    assert not any(
        name.startswith(("ssl.truststore", "ssl.keystore")) or name == "ssl.key.password" for name in settings
    )


def test_spark_source_and_sink_pass_kafka_security_options(monkeypatch):
    from kafka_zk.spark import offsets
    from kafka_zk.spark.fetch import consumer_config
    from kafka_zk.spark.options import client_settings
    from kafka_zk.spark.writer import producer_config

    settings = client_settings(
        {
            "kafka.bootstrap.servers": "b:9092",
            "kafka.security.protocol": "SASL_PLAINTEXT",
            "kafka.sasl.mechanism": "SCRAM-SHA-256",
            "kafka.sasl.jaas.config": JAAS,
        }
    )
    for config in (consumer_config("b:9092", settings), producer_config("b:9092", settings)):
        assert (config["security.protocol"], config["sasl.username"], config["sasl.password"]) == (
            "SASL_PLAINTEXT",
            "alice",
            "alice-secret",
        )
        assert "sasl.jaas.config" not in config
    assert librdkafka_client_settings({"linger.ms": "5"}) == {"linger.ms": "5"}
    seen = []
    monkeypatch.setattr(offsets, "ClusterClient", lambda *args, **kwargs: seen.append(kwargs) or None)
    monkeypatch.setattr(offsets, "Consumer", lambda *args, **kwargs: None)
    offsets.PartitionOffsets("b:9092", None, settings)._client()
    assert seen[0]["security"] == SECURITY
