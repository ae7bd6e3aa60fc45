"""zookeeper.ssl.* (KIP-515) to kazoo's TLS arguments: stores converted to PEM, protocols, Kafka's messages."""

import io
import ssl
import stat

import jks
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from kafka_zk.security.zk_login import ZkSecurityError, broker_zk_security, tool_zk_security
from kafka_zk.security.zk_tls import NETTY_SOCKET, ZkTlsError, read_zk_tls_config_file, zk_tls
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.tools import configs, zk_security_migration
from kafka_zk.tools.secure_material import SecureMaterial
from zookeeper.launcher import zk_tls_client_config

NO_JAAS = {"KAFKA_OPTS": ""}
TYPE = "zookeeper.ssl.keystore.type"


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    return SecureMaterial(tmp_path_factory.mktemp("secure")).create()


def tls_settings(material, **more):
    settings = {
        "zookeeper.ssl.client.enable": "true",
        "zookeeper.clientCnxnSocket": NETTY_SOCKET,
        "zookeeper.ssl.keystore.location": str(material.keystore),
        "zookeeper.ssl.keystore.password": material.passwords()["store"],
        "zookeeper.ssl.keystore.type": "PKCS12",
        "zookeeper.ssl.truststore.location": str(material.truststore),
        "zookeeper.ssl.truststore.password": material.passwords()["store"],
        "zookeeper.ssl.truststore.type": "PKCS12",
    }
    settings.update(more)
    return settings


def test_broker_configs_have_kafka_25_names_and_defaults():
    config = KafkaConfig({"zookeeper.connect": "zk:2181"})
    assert config["zookeeper.ssl.client.enable"] is False
    assert config["zookeeper.clientCnxnSocket"] is None
    assert config["zookeeper.ssl.protocol"] == "TLSv1.2"
    assert config["zookeeper.ssl.endpoint.identification.algorithm"] == "HTTPS"
    assert config["zookeeper.ssl.crl.enable"] is False and config["zookeeper.ssl.ocsp.enable"] is False
    assert config["zookeeper.ssl.keystore.type"] is None and config["zookeeper.ssl.truststore.type"] is None


def test_tls_needs_the_netty_socket_as_in_kafka_251():
    # Kafka 2.5.1 with zookeeper.ssl.client.enable=true and no socket named connects in plain text (NIO).
    assert zk_tls({"zookeeper.ssl.client.enable": "true"}) is None
    assert zk_tls({"zookeeper.clientCnxnSocket": NETTY_SOCKET}) is None
    with pytest.raises(ZkTlsError, match="^Couldn't instantiate org.example.Socket$"):
        zk_tls({"zookeeper.ssl.client.enable": "true", "zookeeper.clientCnxnSocket": "org.example.Socket"})


def test_pkcs12_stores_become_private_pem_files(material, tmp_path):
    tls = zk_tls(tls_settings(material), tmp_path / "pem")
    options = tls.client_options
    assert options["use_ssl"] and options["verify_certs"] and options["check_hostname"]
    assert tls.authenticates
    for name in ("keyfile", "certfile", "ca"):
        assert stat.S_IMODE((tmp_path / "pem" / options[name].rsplit("/", 1)[1]).stat().st_mode) == 0o600
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_cert_chain(options["certfile"], options["keyfile"], options["keyfile_password"])
    context.load_verify_locations(options["ca"])
    certificate = x509.load_pem_x509_certificates(open(options["certfile"], "rb").read())[0]
    assert certificate.subject.rfc4514_string() == "CN=broker,O=kafka-zk local cluster"
    # TLSv1.2 only, Kafka's default zookeeper.ssl.protocol, which zookeeper.ssl.enabled.protocols defaults to
    assert tls.socket_options["options"] & ssl.OP_NO_TLSv1_3 and not tls.socket_options["options"] & ssl.OP_NO_TLSv1_2
    both = zk_tls(tls_settings(material, **{"zookeeper.ssl.enabled.protocols": "TLSv1.2,TLSv1.3"}), tmp_path / "b")
    assert not both.socket_options["options"] & ssl.OP_NO_TLSv1_3


def test_jks_keystore_converted(material, tmp_path):
    password = material.passwords()["store"]
    key, certificate, chain = pkcs12.load_key_and_certificates(material.keystore.read_bytes(), password.encode())
    der = serialization.Encoding.DER
    entry = jks.PrivateKeyEntry.new(
        "broker",
        [certificate.public_bytes(der)] + [c.public_bytes(der) for c in chain],
        key.private_bytes(der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        "pkcs8",
    )
    keystore = tmp_path / "broker.jks"
    jks.KeyStore.new("jks", [entry]).save(str(keystore), password)
    settings = tls_settings(material, **{"zookeeper.ssl.keystore.location": str(keystore)})
    del settings["zookeeper.ssl.keystore.type"]  # .jks: ZooKeeper's client detects the type from the extension
    options = zk_tls(settings, tmp_path / "pem").client_options
    assert zk_tls(tls_settings(material, **{"zookeeper.ssl.keystore.type": None}), tmp_path / "p12").authenticates
    ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(
        options["certfile"], options["keyfile"], options["keyfile_password"]
    )


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"zookeeper.ssl.keystore.type": None, "zookeeper.ssl.keystore.location": "/secure/broker.keystore"},
            "Unable to auto-detect store file type from file name: /secure/broker.keystore$",
        ),
        ({"zookeeper.ssl.keystore.type": "P12"}, "No enum constant org.apache.zookeeper.common.KeyStoreFileType.P12"),
        ({"zookeeper.ssl.keystore.password": "wrong"}, "Failed to load keystore of type PKCS12 from"),
        ({"zookeeper.ssl.enabled.protocols": "TLSv9"}, "TLSv9 SSLContext not available"),
        ({"zookeeper.ssl.cipher.suites": "NO_SUCH_SUITE"}, "Unsupported CipherSuite: NO_SUCH_SUITE"),
        ({"zookeeper.ssl.client.enable": "yes"}, "Expected value to be a boolean"),
    ],
)
def test_wrong_settings_get_kafkas_message(material, tmp_path, change, message):
    with pytest.raises(ZkTlsError, match=message):
        zk_tls(tls_settings(material, **change), tmp_path)


def test_set_acl_needs_sasl_or_a_tls_client_certificate(material):
    with pytest.raises(ZkSecurityError, match="zookeeper.set.acl is true, but ZooKeeper client TLS configuration"):
        broker_zk_security(True, NO_JAAS, {"zookeeper.ssl.client.enable": "true"})
    security = broker_zk_security(True, NO_JAAS, tls_settings(material))
    assert security.secure_acls and security.sasl_options is None and security.tls_options["use_ssl"]
    assert tool_zk_security(NO_JAAS, tls_settings(material)).secure_acls
    assert not tool_zk_security(NO_JAAS, {}).secure_acls


def test_zk_tls_config_file_keeps_only_zookeeper_tls_entries(tmp_path):
    path = tmp_path / "zk-tls.properties"
    path.write_text(
        "zookeeper.ssl.client.enable=true\nauthorizer.zookeeper.clientCnxnSocket=%s\nzookeeper.connect=zk:1\n"
        % NETTY_SOCKET
    )
    assert read_zk_tls_config_file(path) == {
        "zookeeper.ssl.client.enable": "true",
        "zookeeper.clientCnxnSocket": NETTY_SOCKET,
    }


def test_zookeeper_shell_hands_the_file_to_zookeepers_client_under_its_own_names():
    config = zk_tls_client_config(
        {
            "zookeeper.ssl.client.enable": "true",
            "zookeeper.clientCnxnSocket": NETTY_SOCKET,
            "authorizer.zookeeper.ssl.keystore.location": "/k.p12",
            "zookeeper.ssl.truststore.type": "PKCS12",
            "zookeeper.ssl.endpoint.identification.algorithm": "",
            "zookeeper.connect": "zk:2181",
        }
    )
    assert config == {
        "zookeeper.client.secure": "true",
        "zookeeper.clientCnxnSocket": NETTY_SOCKET,
        "zookeeper.ssl.keyStore.location": "/k.p12",
        "zookeeper.ssl.trustStore.type": "PKCS12",
        "zookeeper.ssl.hostnameVerification": "false",
    }


def test_migration_logs_in_with_the_certificate_of_its_zk_tls_config_file(material, tmp_path):
    tls_file = tmp_path / "zk-tls.properties"
    tls_file.write_text("".join("%s=%s\n" % item for item in tls_settings(material).items()))
    sessions = []

    class Unreachable:
        def __init__(self, connect, **options):
            sessions.append(options["security"])

        def start(self, timeout):
            raise ConnectionError("no ZooKeeper here")

    args = zk_security_migration.build_parser().parse_args(
        ["--zookeeper.acl=secure", "--zookeeper.connect=127.0.0.1:1", "--zk-tls-config-file", str(tls_file)]
    )
    err = io.StringIO()
    assert zk_security_migration.run(args, io.StringIO(), err, environ=NO_JAAS, client_factory=Unreachable) == 1
    assert "no ZooKeeper here" in err.getvalue()
    [security] = sessions
    assert security.secure_acls and security.sasl_options is None and security.tls_options["certfile"]


def test_kafka_configs_with_a_wrong_zk_tls_config_file_prints_zookeepers_message(material, tmp_path, capsys):
    wrong = tmp_path / "zk-tls.properties"
    wrong.write_text("".join("%s=%s\n" % item for item in tls_settings(material, **{TYPE: "P12"}).items()))
    entity = ["--entity-type", "topics", "--entity-name", "t", "--describe"]
    assert configs.main(["--zookeeper", "127.0.0.1:1", "--zk-tls-config-file", str(wrong), *entity]) == 1
    assert "No enum constant org.apache.zookeeper.common.KeyStoreFileType.P12" in capsys.readouterr().err
