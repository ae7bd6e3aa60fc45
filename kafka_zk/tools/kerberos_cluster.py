"""The Kerberos part of a secure local cluster (``--secure --kerberos``): a KDC of its own, GSSAPI on the client
listeners, and what a user needs next to the other files of ``data/secure``.

The KDC (realm KAFKA.LOCAL, principals ``kafka/<host>``, ``admin``, ``alice``) keeps its database and keytabs in
``data/secure/kdc`` and listens on port 8188 (UDP and TCP); the cluster's clients find it through
``data/secure/krb5.conf`` (Java: ``-Djava.security.krb5.conf=...``, MIT tools and librdkafka: ``KRB5_CONFIG``, our tools
also take the Java flag from KAFKA_OPTS). ``data/secure/<user>.keytab`` and ``<user>-gssapi.properties`` log a user
in with GSSAPI on the SASL_SSL listeners; the brokers' ``kafka/<host>`` principal maps to ``User:kafka``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kafka_zk.common.properties import read_properties
from kafka_zk.tools.kdc import REALM, KerberosKdc

DEFAULT_KDC_PORT = 8188
SERVICE_NAME = "kafka"
GSSAPI_USERS = ("admin", "alice")
CLIENT_LISTENER = "sasl_ssl"


def krb5_jaas(keytab, principal: str) -> str:
    return (
        'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" '
        'principal="%s";' % (keytab, principal)
    )


class KerberosCluster:
    """``secure_folder``: data/secure; ``host``: the brokers' host (the service principal's second part)."""

    def __init__(self, secure_folder, host: str = "127.0.0.1", kdc_port: int = DEFAULT_KDC_PORT):
        self.folder = Path(secure_folder).resolve()
        self.host = host
        self.service_principal = "%s/%s" % (SERVICE_NAME, host)
        self.kdc = KerberosKdc(
            self.folder / "kdc", kdc_port, principals=(self.service_principal,) + GSSAPI_USERS, host=host
        )

    @property
    def krb5_conf(self) -> Path:
        return self.folder / "krb5.conf"

    def keytab(self, user: str) -> Path:
        return self.folder / ("%s.keytab" % user)

    def properties_file(self, user: str) -> Path:
        return self.folder / ("%s-gssapi.properties" % user)

    def java_option(self) -> str:
        return "-Djava.security.krb5.conf=%s" % self.krb5_conf

    def start(self) -> bool:
        """Start the KDC unless it runs; write krb5.conf, the users' keytabs and properties. True when started."""
        if self.kdc.running:
            return False
        self.kdc.start()
        shutil.copyfile(self.kdc.krb5_conf, self.krb5_conf)
        for user in GSSAPI_USERS:
            shutil.copyfile(self.kdc.keytab(user), self.keytab(user))
            self.keytab(user).chmod(0o600)
        return True

    def write_client_properties(self, tls_properties_file) -> None:
        """``<user>-gssapi.properties``: the TLS settings of ``tls_properties_file`` (a user's SASL_SSL properties)
        with GSSAPI from the user's keytab."""
        tls = {
            key: value
            for key, value in read_properties(str(tls_properties_file)).items()
            if key.startswith("ssl.") or key == "security.protocol"
        }
        for user in GSSAPI_USERS:
            lines = [
                "# %s logs in with GSSAPI (Kerberos realm %s); Java clients also need %s"
                % (user, REALM, self.java_option()),
                *("%s=%s" % item for item in sorted(tls.items())),
                "sasl.mechanism=GSSAPI",
                "sasl.kerberos.service.name=%s" % SERVICE_NAME,
                "sasl.jaas.config=%s" % krb5_jaas(self.keytab(user), self.kdc.full_name(user)),
            ]
            self.properties_file(user).write_text("\n".join(lines) + "\n")

    def prepare(self, broker) -> None:
        """GSSAPI beside the other mechanisms of the broker's SASL_SSL listener, from the service keytab."""
        mechanisms = broker.overrides.get("sasl.enabled.mechanisms", "")
        broker.overrides.update(
            {
                "sasl.enabled.mechanisms": ",".join(filter(None, (mechanisms, "GSSAPI"))),
                "sasl.kerberos.service.name": SERVICE_NAME,
                "listener.name.%s.gssapi.sasl.jaas.config" % CLIENT_LISTENER: krb5_jaas(
                    self.kdc.keytab(self.service_principal), self.kdc.full_name(self.service_principal)
                ),
            }
        )
        broker.environment["KAFKA_OPTS"] = " ".join(
            filter(None, (broker.environment.get("KAFKA_OPTS", ""), self.java_option()))
        )

    def stop(self) -> None:
        self.kdc.stop()

    def status_line(self) -> str:
        pid = self.kdc.pid()
        state = "running (pid %d)" % pid if pid else "stopped"
        return "kerberos KDC %s on %s:%d: %s" % (REALM, self.host, self.kdc.port, state)

    def summary_lines(self) -> list[str]:
        return [
            "kerberos: GSSAPI on the client listeners too; KDC %s on %s:%d; krb5.conf: %s"
            % (REALM, self.host, self.kdc.port, self.krb5_conf),
            "GSSAPI client properties: %s" % ", ".join(str(self.properties_file(user)) for user in GSSAPI_USERS),
        ]
