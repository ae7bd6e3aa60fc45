"""What a secure local cluster needs on disk: a CA, the brokers' keystore (also as PEM), a truststore, passwords, the
brokers' JAAS file, the Kafka client properties of its users and the ZooKeeper TLS properties of brokers and tools.

Everything lives in one folder (``data/secure``) and is made once: a second start reuses it, so the truststore
and properties files a user already copied keep working.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import secrets
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

CERTIFICATE_DAYS = 3650
USERS = ("admin", "alice")
SUPER_USER = "admin"
BROKER_USER = "broker"  # the brokers' own SASL user, and the CN their certificate maps to


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kafka-zk local cluster"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _certificate(subject, issuer, public_key, signing_key, extensions, now):
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CERTIFICATE_DAYS))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(signing_key, hashes.SHA256())


class SecureMaterial:
    """The files of a secure local cluster in ``folder``; ``create()`` makes what is missing."""

    def __init__(self, folder, hosts=("127.0.0.1", "localhost")):
        self.folder = Path(folder).resolve()
        self.hosts = tuple(hosts)

    @property
    def ca_pem(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def truststore(self) -> Path:
        return self.folder / "truststore.p12"

    @property
    def keystore(self) -> Path:
        return self.folder / "broker.keystore.p12"

    @property
    def broker_certificate_pem(self) -> Path:
        """The broker certificate and its CA's, PEM (what the launcher's ZooKeeper health checks present)."""
        return self.folder / "broker.pem"

    @property
    def broker_key_pem(self) -> Path:
        """The broker certificate's key, PEM, unencrypted (private to the user)."""
        return self.folder / "broker.key.pem"

    @property
    def zk_tls_properties(self) -> Path:
        """What brokers and tools need to reach ZooKeeper over mutual TLS: a --zk-tls-config-file."""
        return self.folder / "zk-tls.properties"

    @property
    def certificate_hosts(self) -> Path:
        """The addresses and names the broker certificate was made for, one a line."""
        return self.folder / "certificate-hosts.txt"

    @property
    def secrets_file(self) -> Path:
        return self.folder / "secrets.json"

    def properties_file(self, user: str) -> Path:
        return self.folder / ("%s.properties" % user)

    @property
    def broker_jaas(self) -> Path:
        return self.folder / "kafka_server_jaas.conf"

    def passwords(self) -> dict:
        """{"store": keystore and truststore password, "users": {user: password},
        "delegation_token_master_key": the brokers' delegation.token.master.key}."""
        return json.loads(self.secrets_file.read_text())

    def create(self) -> "SecureMaterial":
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o700)
        known = self.passwords() if self.secrets_file.exists() else {}
        wanted = dict(
            {
                "store": secrets.token_urlsafe(12),
                "users": {user: secrets.token_urlsafe(12) for user in USERS + (BROKER_USER,)},
                "delegation_token_master_key": secrets.token_urlsafe(24),
            },
            **known,
        )
        if wanted != known:
            self._write_private(self.secrets_file, json.dumps(wanted, indent=2) + "\n")
        covered = self.certificate_hosts.read_text().split() if self.certificate_hosts.exists() else []
        if not (self.ca_pem.exists() and self.keystore.exists() and self.truststore.exists()) or not set(
            self.hosts
        ) <= set(covered):
            self._write_certificates()
            self.certificate_hosts.write_text("\n".join(self.hosts) + "\n")
        if not (self.broker_certificate_pem.exists() and self.broker_key_pem.exists()):
            self._write_broker_pem()
        self._write_private(self.zk_tls_properties, self.zk_tls_properties_text())
        self._write_jaas_files()
        for user in USERS:
            self._write_private(self.properties_file(user), self.client_properties_text(user))
        return self

    def _write_certificates(self):
        password = self.passwords()["store"].encode()
        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = _name("kafka-zk local CA")
        ca = _certificate(
            ca_name,
            ca_name,
            ca_key.public_key(),
            ca_key,
            [
                (x509.BasicConstraints(ca=True, path_length=0), True),
                (
                    x509.KeyUsage(
                        digital_signature=True,
                        key_cert_sign=True,
                        crl_sign=True,
                        content_commitment=False,
                        key_encipherment=False,
                        data_encipherment=False,
                        key_agreement=False,
                        encipher_only=False,
                        decipher_only=False,
                    ),
                    True,
                ),
            ],
            now,
        )
        broker_key = ec.generate_private_key(ec.SECP256R1())
        names = []
        for host in self.hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        broker = _certificate(
            _name(BROKER_USER),
            ca_name,
            broker_key.public_key(),
            ca_key,
            [
                (x509.BasicConstraints(ca=False, path_length=None), True),
                (x509.SubjectAlternativeName(names), False),
                (
                    x509.ExtendedKeyUsage(
                        [x509.oid.ExtendedKeyUsageOID.SERVER_AUTH, x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]
                    ),
                    False,
                ),
            ],
            now,
        )
        encryption = serialization.BestAvailableEncryption(password)
        self._write_private(
            self.keystore,
            pkcs12.serialize_key_and_certificates(BROKER_USER.encode(), broker_key, broker, [ca], encryption),
            binary=True,
        )
        self._write_private(
            self.truststore,
            pkcs12.serialize_java_truststore([pkcs12.PKCS12Certificate(ca, b"caroot")], encryption),
            binary=True,
        )
        self.ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))

    def _write_broker_pem(self):
        key, certificate, chain = pkcs12.load_key_and_certificates(
            self.keystore.read_bytes(), self.passwords()["store"].encode()
        )
        self._write_private(
            self.broker_certificate_pem,
            b"".join(c.public_bytes(serialization.Encoding.PEM) for c in [certificate] + list(chain)),
            binary=True,
        )
        self._write_private(
            self.broker_key_pem,
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ),
            binary=True,
        )

    def zk_tls_settings(self) -> dict:
        """zookeeper.ssl.* for mutual TLS to the cluster's ZooKeeper with the broker certificate (Kafka 2.5's names)."""
        password = self.passwords()["store"]
        return {
            "zookeeper.ssl.client.enable": "true",
            "zookeeper.clientCnxnSocket": "org.apache.zookeeper.ClientCnxnSocketNetty",
            "zookeeper.ssl.keystore.location": str(self.keystore),
            "zookeeper.ssl.keystore.password": password,
            "zookeeper.ssl.keystore.type": "PKCS12",
            "zookeeper.ssl.truststore.location": str(self.truststore),
            "zookeeper.ssl.truststore.password": password,
            "zookeeper.ssl.truststore.type": "PKCS12",
        }

    def zk_tls_properties_text(self) -> str:
        lines = ["# ZooKeeper over mutual TLS on the secure local cluster (generated by kafka-zk)"]
        return "\n".join(lines + ["%s=%s" % item for item in self.zk_tls_settings().items()]) + "\n"

    def _write_jaas_files(self):
        users = self.passwords()["users"]
        plain_users = " ".join('user_%s="%s"' % item for item in sorted(users.items()))
        self._write_private(
            self.broker_jaas,
            (
                "KafkaServer {\n"
                "    org.apache.kafka.common.security.plain.PlainLoginModule required\n"
                '    username="%s" password="%s" %s;\n'
                "    org.apache.kafka.common.security.scram.ScramLoginModule required;\n"
                "};\n"
            )
            % (BROKER_USER, users[BROKER_USER], plain_users),
        )

    def client_properties_text(self, user: str, mechanism: str = "SCRAM-SHA-512") -> str:
        """Kafka client properties for ``user``: what Kafka's Java tools and ours take as --command-config."""
        password = self.passwords()["users"][user]
        return "\n".join(
            [
                "# %s on the secure local cluster (generated by kafka-zk)" % user,
                "security.protocol=SASL_SSL",
                "sasl.mechanism=%s" % mechanism,
                "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                'username="%s" password="%s";' % (user, password),
                "ssl.truststore.location=%s" % self.truststore,
                "ssl.truststore.type=PKCS12",
                "ssl.truststore.password=%s" % self.passwords()["store"],
                "",
            ]
        )

    def _write_private(self, path: Path, content, binary=False):
        path.touch(mode=0o600, exist_ok=True)
        path.chmod(0o600)
        if binary:
            path.write_bytes(content)
        else:
            path.write_text(content)
