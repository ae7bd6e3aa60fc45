"""The secure local cluster: SASL_SSL client listeners, SSL inter-broker listeners, the ACL authorizer, SCRAM users
and ZooKeeper ACLs, over the material SecureMaterial keeps in ``data/secure``.

Client listeners (the usual ports) speak SASL_SSL with SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN; brokers talk to
each other on an SSL listener (base port + 100 + i) with mutual TLS, where their certificate maps to ``User:broker``;
``admin`` and ``broker`` are super users, ``alice`` has no ACLs; nothing is allowed without an ACL; delegation tokens
are on. ZooKeeper serves on TLS alone and requires client certificates: brokers and tools present the broker
certificate (zk-tls.properties), whose DN is their ZooKeeper identity in the secure ACLs of the znodes they create.
"""

from kafka_zk.client.zk_admin import tool_zk_client
from kafka_zk.common.properties import read_properties
from kafka_zk.server.quota.quota_configs import scram_credential
from kafka_zk.tools.secure_material import BROKER_USER, SUPER_USER, USERS, SecureMaterial
from zookeeper.launcher import ServerTls

INTERNAL_PORT_OFFSET = 100
INTERNAL_LISTENER = "INTERNAL"
CLIENT_LISTENER = "SASL_SSL"
SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
SCRAM_ITERATIONS = 8192


class SecureCluster:
    def __init__(self, folder, host="127.0.0.1", extra_hosts=()):
        """``extra_hosts``: further addresses the broker certificate must name (brokers on hosts of their own)."""
        self.host = host
        self.material = SecureMaterial(folder, hosts=tuple(dict.fromkeys((host, "localhost") + tuple(extra_hosts))))
        self._created = False

    def _ensure_material(self):
        if not self._created:
            self.material.create()
            self._created = True
        return self.material

    @property
    def kafka_opts(self):
        return "-Djava.security.auth.login.config=%s" % self._ensure_material().broker_jaas

    def zookeeper_tls(self):
        """ZooKeeper's client port: TLS only, with the broker certificate as its own, client certificates of the
        cluster's CA required (the broker certificate's DN is the brokers' and tools' ZooKeeper identity)."""
        material = self._ensure_material()
        password = material.passwords()["store"]
        return ServerTls(
            str(material.keystore),
            password,
            str(material.truststore),
            password,
            str(material.broker_certificate_pem),
            str(material.broker_key_pem),
            str(material.ca_pem),
        )

    def zk_tls_settings(self):
        """The zookeeper.ssl.* settings of brokers and tools (what data/secure/zk-tls.properties holds)."""
        return self._ensure_material().zk_tls_settings()

    def client_properties(self, user=SUPER_USER):
        """The Kafka client properties of ``user`` (what data/secure/<user>.properties holds), as a dict."""
        return read_properties(str(self._ensure_material().properties_file(user)))

    def broker_overrides(self, port, internal_port, host=None):
        material = self._ensure_material()
        store_password = material.passwords()["store"]
        host = host or self.host
        return {
            "listeners": "%s://%s:%d,%s://%s:%d"
            % (CLIENT_LISTENER, host, port, INTERNAL_LISTENER, host, internal_port),
            "listener.security.protocol.map": "%s:SASL_SSL,%s:SSL" % (CLIENT_LISTENER, INTERNAL_LISTENER),
            "inter.broker.listener.name": INTERNAL_LISTENER,
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(material.keystore),
            "ssl.keystore.password": store_password,
            "ssl.key.password": store_password,
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(material.truststore),
            "ssl.truststore.password": store_password,
            "listener.name.%s.ssl.client.auth" % INTERNAL_LISTENER.lower(): "required",
            "ssl.principal.mapping.rules": "RULE:^CN=([^,]+),.*$/$1/,DEFAULT",
            "sasl.enabled.mechanisms": ",".join(SCRAM_MECHANISMS + ("PLAIN",)),
            "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "allow.everyone.if.no.acl.found": "false",
            "super.users": "User:%s;User:%s" % (SUPER_USER, BROKER_USER),
            "zookeeper.set.acl": "true",
            "delegation.token.master.key": material.passwords()["delegation_token_master_key"],
            **material.zk_tls_settings(),
        }

    def prepare(self, broker, internal_port):
        """Make a BrokerProcess secure: its listeners and security settings, the JAAS file in its KAFKA_OPTS, and the
        admin's client properties for the cluster's own checks."""
        broker.overrides.update(self.broker_overrides(broker.port, internal_port, broker.host))
        broker.environment["KAFKA_OPTS"] = self.kafka_opts
        broker.client_properties = self.client_properties(SUPER_USER)

    def create_users(self, zk_connect):
        """Store the SCRAM credentials of the users that have none yet in /config/users; returns their names."""
        users = self._ensure_material().passwords()["users"]
        created = []
        zk = tool_zk_client(zk_connect, environ={"KAFKA_OPTS": self.kafka_opts}, tls_settings=self.zk_tls_settings())
        try:
            for user in USERS:
                configs = zk.get_entity_config("users", user)
                if all(mechanism in configs for mechanism in SCRAM_MECHANISMS):
                    continue
                for mechanism in SCRAM_MECHANISMS:
                    configs[mechanism] = scram_credential(
                        mechanism, "iterations=%d,password=%s" % (SCRAM_ITERATIONS, users[user])
                    )
                zk.set_entity_config("users", user, configs)
                created.append(user)
        finally:
            zk.close()
        return created

    def summary_lines(self):
        material = self._ensure_material()
        return [
            "secure: client listeners SASL_SSL (SCRAM-SHA-256, SCRAM-SHA-512, PLAIN), brokers between "
            "themselves on SSL; the ACL authorizer is on (super user: %s; %s has no ACLs)" % (SUPER_USER, "alice"),
            "CA certificate: %s" % material.ca_pem,
            "truststore (PKCS12): %s" % material.truststore,
            "client properties: %s" % ", ".join(str(material.properties_file(user)) for user in USERS),
            "ZooKeeper: TLS only, client certificates required (--zk-tls-config-file %s)" % material.zk_tls_properties,
        ]
