"""ZooKeeper over TLS (KIP-515): Kafka 2.5's zookeeper.ssl.* settings turned into what kazoo's TLS connection needs.

Kafka hands these settings to ZooKeeper's client (ZKClientConfig); its Netty socket
(`zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty`) is the only one that speaks TLS, so
Kafka 2.5.1 with `zookeeper.ssl.client.enable=true` and no socket named connects in plain text, as here. Keystores
and truststores of any type ZooKeeper reads (JKS, PKCS12, PEM) become PEM files in a private folder, the key
encrypted with the keystore's password.
"""

from __future__ import annotations

import atexit
import os
import shutil
import ssl
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from kafka_zk.common.properties import read_properties
from kafka_zk.security.ssl_config import SslConfigError, openssl_ciphers

ZK_SSL_CLIENT_ENABLE = "zookeeper.ssl.client.enable"
ZK_CLIENT_CNXN_SOCKET = "zookeeper.clientCnxnSocket"
ZK_SSL_KEYSTORE_LOCATION = "zookeeper.ssl.keystore.location"
ZK_SSL_KEYSTORE_PASSWORD = "zookeeper.ssl.keystore.password"
ZK_SSL_KEYSTORE_TYPE = "zookeeper.ssl.keystore.type"
ZK_SSL_TRUSTSTORE_LOCATION = "zookeeper.ssl.truststore.location"
ZK_SSL_TRUSTSTORE_PASSWORD = "zookeeper.ssl.truststore.password"
ZK_SSL_TRUSTSTORE_TYPE = "zookeeper.ssl.truststore.type"
ZK_SSL_PROTOCOL = "zookeeper.ssl.protocol"
ZK_SSL_ENABLED_PROTOCOLS = "zookeeper.ssl.enabled.protocols"
ZK_SSL_CIPHER_SUITES = "zookeeper.ssl.cipher.suites"
ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = "zookeeper.ssl.endpoint.identification.algorithm"
ZK_SSL_CRL_ENABLE = "zookeeper.ssl.crl.enable"
ZK_SSL_OCSP_ENABLE = "zookeeper.ssl.ocsp.enable"

# Kafka 2.5's KafkaConfig: name, type, default (what --zk-tls-config-file reads too).
ZK_TLS_CONFIGS = (
    (ZK_SSL_CLIENT_ENABLE, "bool", False),
    (ZK_CLIENT_CNXN_SOCKET, "string", None),
    (ZK_SSL_KEYSTORE_LOCATION, "string", None),
    (ZK_SSL_KEYSTORE_PASSWORD, "password", None),
    (ZK_SSL_KEYSTORE_TYPE, "string", None),
    (ZK_SSL_TRUSTSTORE_LOCATION, "string", None),
    (ZK_SSL_TRUSTSTORE_PASSWORD, "password", None),
    (ZK_SSL_TRUSTSTORE_TYPE, "string", None),
    (ZK_SSL_PROTOCOL, "string", "TLSv1.2"),
    (ZK_SSL_ENABLED_PROTOCOLS, "list", None),
    (ZK_SSL_CIPHER_SUITES, "list", None),
    (ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, "string", "HTTPS"),
    (ZK_SSL_CRL_ENABLE, "bool", False),
    (ZK_SSL_OCSP_ENABLE, "bool", False),
)
ZK_TLS_CONFIG_NAMES = tuple(name for name, _, _ in ZK_TLS_CONFIGS)

AUTHORIZER_PREFIX = "authorizer."
NETTY_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty"
NIO_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNIO"
CLIENT_SOCKETS = (NETTY_SOCKET, NIO_SOCKET)
STORE_TYPES = ("JKS", "PEM", "PKCS12")
STORE_EXTENSIONS = {".jks": "JKS", ".pem": "PEM", ".p12": "PKCS12"}  # ZooKeeper's KeyStoreFileType.fromFilename
_TLS_VERSIONS = {
    "TLSv1": "OP_NO_TLSv1",
    "TLSv1.1": "OP_NO_TLSv1_1",
    "TLSv1.2": "OP_NO_TLSv1_2",
    "TLSv1.3": "OP_NO_TLSv1_3",
}


class ZkTlsError(Exception):
    """A zookeeper.ssl.* setting that cannot be used; the message is Kafka's (or ZooKeeper's client's)."""


@dataclass(frozen=True)
class ZkTls:
    """How a ZooKeeper session speaks TLS: kazoo's client arguments (`client_options`), and the SSL context options
    and TLS 1.2 ciphers its connection handler adds (`socket_options`). `authenticates`: a client certificate is
    presented, so ZooKeeper's x509 provider knows the session by its certificate's DN (Kafka's
    zkTlsClientAuthEnabled)."""

    client_options: Mapping[str, Any] = field(default_factory=dict)
    socket_options: Mapping[str, Any] = field(default_factory=dict)
    authenticates: bool = False


def _text(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _flag(settings: Mapping[str, object], name: str) -> bool:
    value = settings.get(name)
    if isinstance(value, bool):
        return value
    text = _text(value)
    if text is None:
        return False
    if text.lower() not in ("true", "false"):
        raise ZkTlsError("Invalid value %s for configuration %s: Expected value to be a boolean" % (text, name))
    return text.lower() == "true"


def _names(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value if str(item).strip()]
    return [item.strip() for item in str(value).split(",") if item.strip()]


def tls_requested(settings: Mapping[str, object]) -> bool:
    """zookeeper.ssl.client.enable: the client is to use TLS (Kafka's zkSslClientEnable)."""
    return _flag(settings, ZK_SSL_CLIENT_ENABLE)


def speaks_tls(settings: Mapping[str, object]) -> bool:
    """TLS is asked for and the socket named is Netty's, the one ZooKeeper's client speaks TLS with."""
    socket = _text(settings.get(ZK_CLIENT_CNXN_SOCKET))
    if socket is not None and socket not in CLIENT_SOCKETS:
        raise ZkTlsError("Couldn't instantiate %s" % socket)
    return tls_requested(settings) and socket == NETTY_SOCKET


def client_auth_enabled(settings: Mapping[str, object]) -> bool:
    """Kafka's KafkaConfig.zkTlsClientAuthEnabled: TLS on, a client socket and a keystore named."""
    return (
        tls_requested(settings)
        and _text(settings.get(ZK_CLIENT_CNXN_SOCKET)) is not None
        and _text(settings.get(ZK_SSL_KEYSTORE_LOCATION)) is not None
    )


def store_type(location: str, declared: object) -> str:
    """The store's type: the one declared, else ZooKeeper's guess from the file name's extension."""
    text = _text(declared)
    if text is not None:
        if text.upper() not in STORE_TYPES:
            raise ZkTlsError("No enum constant org.apache.zookeeper.common.KeyStoreFileType.%s" % text.upper())
        return text.upper()
    kind = STORE_EXTENSIONS.get(os.path.splitext(location)[1])
    if kind is not None:
        return kind
    raise ZkTlsError("Unable to auto-detect store file type from file name: %s" % location)


def _password(value: object) -> bytes | None:
    text = None if value is None else str(value)
    return None if text is None else text.encode()


def _read_store(location: str, kind: str, password: bytes | None, what: str) -> tuple[Any, list[x509.Certificate]]:
    """(private key or None, certificates: the key's chain first, then the trusted ones) of a store."""
    try:
        data = Path(location).read_bytes()
    except OSError as error:
        raise ZkTlsError("Failed to load %s of type %s from %s: %s" % (what, kind, location, error)) from None
    try:
        if kind == "PKCS12":
            key, certificate, extra = pkcs12.load_key_and_certificates(data, password)
            chain = ([certificate] if certificate is not None else []) + list(extra)
            return key, chain
        if kind == "PEM":
            certificates = x509.load_pem_x509_certificates(data) if b"CERTIFICATE-----" in data else []
            key = serialization.load_pem_private_key(data, password) if b"PRIVATE KEY-----" in data else None
            return key, certificates
        return _read_jks(data, password)
    except ZkTlsError:
        raise
    except Exception as error:
        raise ZkTlsError(
            "Failed to load %s of type %s from %s: %s" % (what, kind, location, error or type(error).__name__)
        ) from None


def _read_jks(data: bytes, password: bytes | None) -> tuple[Any, list[x509.Certificate]]:
    import jks  # pyjks, only for JKS stores

    store = jks.KeyStore.loads(data, (password or b"").decode())
    key, chain = None, []
    for entry in store.private_keys.values():
        if not entry.is_decrypted():
            entry.decrypt((password or b"").decode())
        key = serialization.load_der_private_key(entry.pkey_pkcs8, None)
        chain = [x509.load_der_x509_certificate(der) for _, der in entry.cert_chain]
        break
    trusted = [x509.load_der_x509_certificate(entry.cert) for entry in store.certs.values()]
    return key, chain + trusted


def _write_private(folder: Path, name: str, content: bytes) -> str:
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(content)
    return str(path)


def _private_folder() -> Path:
    """A new folder only the user can read, removed when the process exits."""
    folder = tempfile.mkdtemp(prefix="kafka-zk-zktls-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


def _pem(certificates: list[x509.Certificate]) -> bytes:
    return b"".join(certificate.public_bytes(serialization.Encoding.PEM) for certificate in certificates)


def _context_options(settings: Mapping[str, object]) -> int:
    """SSL context options enabling exactly zookeeper.ssl.enabled.protocols (by default zookeeper.ssl.protocol)."""
    protocol = _text(settings.get(ZK_SSL_PROTOCOL)) or "TLSv1.2"
    enabled = _names(settings.get(ZK_SSL_ENABLED_PROTOCOLS)) or [protocol]
    unknown = [name for name in enabled if name not in _TLS_VERSIONS and name != "TLS"]
    if unknown:
        raise ZkTlsError("%s SSLContext not available" % unknown[0])
    options = ssl.OP_ALL | ssl.OP_NO_SSLv2 | ssl.OP_NO_SSLv3 | ssl.OP_NO_COMPRESSION
    if "TLS" not in enabled:
        for version, option in _TLS_VERSIONS.items():
            if version not in enabled:
                options |= getattr(ssl, option)
    return int(options)


def zk_tls(settings: Mapping[str, object], folder: str | os.PathLike | None = None) -> ZkTls | None:
    """The TLS a ZooKeeper session uses under these zookeeper.ssl.* settings, None for plain text. Stores are
    converted to PEM files in `folder` (a new private temporary folder when None)."""
    for name in (ZK_SSL_CRL_ENABLE, ZK_SSL_OCSP_ENABLE):
        if _flag(settings, name):
            raise ZkTlsError("%s=true is not supported by this ZooKeeper client (no revocation checks)" % name)
    if not speaks_tls(settings):
        return None
    algorithm = _text(settings.get(ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, "HTTPS"))
    check_hostname = algorithm is not None and algorithm.upper() == "HTTPS"
    socket_options: dict[str, Any] = {"options": _context_options(settings)}
    try:
        tls12, _tls13 = openssl_ciphers({"ssl.cipher.suites": _names(settings.get(ZK_SSL_CIPHER_SUITES))})
    except SslConfigError as error:
        raise ZkTlsError(str(error)) from None
    if tls12:
        socket_options["ciphers"] = tls12
    out = Path(folder) if folder is not None else _private_folder()
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    client: dict[str, Any] = {"use_ssl": True, "verify_certs": True, "check_hostname": check_hostname}
    keystore = _text(settings.get(ZK_SSL_KEYSTORE_LOCATION))
    if keystore is not None:
        password = _password(settings.get(ZK_SSL_KEYSTORE_PASSWORD))
        kind = store_type(keystore, settings.get(ZK_SSL_KEYSTORE_TYPE))
        key, chain = _read_store(keystore, kind, password, "keystore")
        if key is None or not chain:
            raise ZkTlsError("Failed to load keystore of type %s from %s: no private key entry" % (kind, keystore))
        encryption = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
        key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
        client["keyfile"] = _write_private(out, "zk-client-key.pem", key_pem)
        client["certfile"] = _write_private(out, "zk-client-cert.pem", _pem(chain))
        if password:
            client["keyfile_password"] = password.decode()
    truststore = _text(settings.get(ZK_SSL_TRUSTSTORE_LOCATION))
    if truststore is not None:
        kind = store_type(truststore, settings.get(ZK_SSL_TRUSTSTORE_TYPE))
        _, trusted = _read_store(truststore, kind, _password(settings.get(ZK_SSL_TRUSTSTORE_PASSWORD)), "truststore")
        if not trusted:
            raise ZkTlsError("Failed to load truststore of type %s from %s: no certificate" % (kind, truststore))
        client["ca"] = _write_private(out, "zk-truststore.pem", _pem(trusted))
    return ZkTls(client_options=client, socket_options=socket_options, authenticates=keystore is not None)


def read_zk_tls_config_file(path: str | os.PathLike) -> dict[str, str]:
    """The zookeeper.ssl.* and zookeeper.clientCnxnSocket entries of a --zk-tls-config-file, with or without an
    "authorizer." prefix (the unprefixed one wins); other entries are ignored, as Kafka's tools ignore them."""
    try:
        properties = read_properties(str(path))
    except OSError as error:
        raise ZkTlsError("Failed to read %s: %s" % (path, error)) from None
    prefixed = {
        name[len(AUTHORIZER_PREFIX) :]: value
        for name, value in properties.items()
        if name.startswith(AUTHORIZER_PREFIX) and name[len(AUTHORIZER_PREFIX) :] in ZK_TLS_CONFIG_NAMES
    }
    return dict(prefixed, **{name: value for name, value in properties.items() if name in ZK_TLS_CONFIG_NAMES})
