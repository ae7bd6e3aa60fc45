"""The secure local cluster's material: a CA, a broker keystore valid for 127.0.0.1 and localhost, a Java
truststore, private files, and client properties; made once and reused."""

import ipaddress
import stat

from cryptography import x509
from cryptography.hazmat.primitives.serialization import pkcs12

from kafka_zk.common.properties import read_properties
from kafka_zk.security.jaas import parse_jaas_config, parse_jaas_file
from kafka_zk.tools.secure_material import SecureMaterial


def test_material_is_complete_private_and_consistent(tmp_path):
    material = SecureMaterial(tmp_path / "secure").create()
    password = material.passwords()["store"].encode()
    key, broker, chain = pkcs12.load_key_and_certificates(material.keystore.read_bytes(), password)
    ca = x509.load_pem_x509_certificate(material.ca_pem.read_bytes())
    assert key is not None and chain[0] == ca
    broker.verify_directly_issued_by(ca)
    names = broker.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("127.0.0.1")]
    assert names.get_values_for_type(x509.DNSName) == ["localhost"]
    trusted = pkcs12.load_pkcs12(material.truststore.read_bytes(), password)
    assert [entry.certificate for entry in trusted.additional_certs] == [ca]
    for path in (
        material.keystore,
        material.truststore,
        material.secrets_file,
        material.broker_jaas,
        material.properties_file("alice"),
    ):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_client_properties_and_jaas_files(tmp_path):
    material = SecureMaterial(tmp_path / "secure").create()
    users = material.passwords()["users"]
    lines = dict(
        line.split("=", 1)
        for line in material.properties_file("alice").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    assert lines["security.protocol"] == "SASL_SSL" and lines["sasl.mechanism"] == "SCRAM-SHA-512"
    assert parse_jaas_config(lines["sasl.jaas.config"])[0].options == {"username": "alice", "password": users["alice"]}
    assert lines["ssl.truststore.location"] == str(material.truststore)
    sections = parse_jaas_file(material.broker_jaas.read_text())
    plain = sections["KafkaServer"][0].options
    assert plain["user_alice"] == users["alice"] and plain["username"] == "broker"
    assert "Client" not in sections  # brokers reach ZooKeeper over mutual TLS, not SASL


def test_zookeeper_tls_files(tmp_path):
    material = SecureMaterial(tmp_path / "secure").create()
    settings = read_properties(str(material.zk_tls_properties))
    assert settings == material.zk_tls_settings()
    assert settings["zookeeper.ssl.keystore.location"] == str(material.keystore)
    key, certificate, _ = pkcs12.load_key_and_certificates(
        material.keystore.read_bytes(), material.passwords()["store"].encode()
    )
    assert x509.load_pem_x509_certificates(material.broker_certificate_pem.read_bytes())[0] == certificate
    for path in (material.zk_tls_properties, material.broker_key_pem):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_a_second_create_reuses_what_exists(tmp_path):
    first = SecureMaterial(tmp_path / "secure").create()
    ca, passwords = first.ca_pem.read_bytes(), first.passwords()
    second = SecureMaterial(tmp_path / "secure").create()
    assert second.ca_pem.read_bytes() == ca and second.passwords() == passwords
