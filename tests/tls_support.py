"""Certificates for TLS tests: a trustme CA issuing certificates for 127.0.0.1 and localhost, written as the
keystores and truststores Kafka reads (PEM, PKCS12, JKS)."""

import datetime

import jks
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

PASSWORD = "test-secret"
HOSTS = ("127.0.0.1", "localhost")


def _key_and_chain(leaf):
    key = serialization.load_pem_private_key(leaf.private_key_pem.bytes(), None)
    chain = [x509.load_pem_x509_certificate(blob.bytes()) for blob in leaf.cert_chain_pems]
    return key, chain


def write_keystore(leaf, path, store_type, password=PASSWORD, key_password=None):
    """Write a trustme LeafCert as a keystore of store_type (PEM, PKCS12, JKS); returns the path as str."""
    key, chain = _key_and_chain(leaf)
    store_type = store_type.upper()
    if store_type == "PEM":
        encryption = (
            serialization.BestAvailableEncryption(key_password.encode())
            if key_password
            else serialization.NoEncryption()
        )
        body = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
        body += b"".join(cert.public_bytes(serialization.Encoding.PEM) for cert in chain)
        path.write_bytes(body)
    elif store_type == "PKCS12":
        path.write_bytes(
            pkcs12.serialize_key_and_certificates(
                b"kafka", key, chain[0], chain[1:], serialization.BestAvailableEncryption(password.encode())
            )
        )
    elif store_type == "JKS":
        pkcs8 = key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        entry = jks.PrivateKeyEntry.new(
            "kafka", [cert.public_bytes(serialization.Encoding.DER) for cert in chain], pkcs8
        )
        if key_password:
            entry.encrypt(key_password)
        jks.KeyStore.new("jks", [entry]).save(str(path), password)
    else:
        raise ValueError(store_type)
    return str(path)


def write_truststore(ca, path, store_type, password=PASSWORD):
    """Write a trustme CA's certificate as a truststore of store_type; returns the path as str."""
    cert = x509.load_pem_x509_certificate(ca.cert_pem.bytes())
    store_type = store_type.upper()
    if store_type == "PEM":
        path.write_bytes(ca.cert_pem.bytes())
    elif store_type == "PKCS12":
        path.write_bytes(
            pkcs12.serialize_key_and_certificates(
                None, None, None, [cert], serialization.BestAvailableEncryption(password.encode())
            )
        )
    elif store_type == "JKS":
        entry = jks.TrustedCertEntry.new("ca", cert.public_bytes(serialization.Encoding.DER))
        jks.KeyStore.new("jks", [entry]).save(str(path), password)
    else:
        raise ValueError(store_type)
    return str(path)


def server_leaf(ca, common_name="localhost", expired=False):
    if expired:
        now = datetime.datetime.now(datetime.timezone.utc)
        return ca.issue_cert(
            *HOSTS,
            common_name=common_name,
            not_before=now - datetime.timedelta(days=30),
            not_after=now - datetime.timedelta(days=1),
        )
    return ca.issue_cert(*HOSTS, common_name=common_name)


def client_leaf(ca, common_name, organization_unit_name=None):
    return ca.issue_cert(
        "client.test", common_name=common_name, organization_name="Test", organization_unit_name=organization_unit_name
    )


def new_ca():
    return trustme.CA()
