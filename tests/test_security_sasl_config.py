"""A broker's SASL configuration: enabled mechanisms per listener, JAAS from config or the KAFKA_OPTS file,
reauth lifetimes, the inter-broker login, and clear errors for what is missing."""

import pytest

from kafka_zk.security import plain
from kafka_zk.security.credential_cache import CredentialCache
from kafka_zk.security.sasl_config import BrokerSasl, SaslConfigError
from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig
from kafka_zk.server.sasl_setup import BrokerSaslSetup

PLAIN_JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
    'password="admin-secret" user_admin="admin-secret";'
)


def broker_sasl(props, environ=None):
    return BrokerSasl(props.get, environ or {})


def test_defaults_and_listener_overrides():
    sasl = broker_sasl(
        {
            "listener.name.internal.sasl.enabled.mechanisms": "PLAIN, SCRAM-SHA-512",
            "connections.max.reauth.ms": "60000",
            "listener.name.internal.plain.connections.max.reauth.ms": "1000",
        }
    )
    assert sasl.enabled_mechanisms("EXTERNAL") == ["GSSAPI"]
    assert sasl.enabled_mechanisms("INTERNAL") == ["PLAIN", "SCRAM-SHA-512"]
    assert sasl.max_reauth_ms("INTERNAL", "PLAIN") == 1000
    assert sasl.max_reauth_ms("INTERNAL", "SCRAM-SHA-512") == 60000


def test_jaas_from_the_file_named_in_kafka_opts(tmp_path):
    jaas = tmp_path / "kafka_server_jaas.conf"
    jaas.write_text(
        "KafkaServer {\n %s\n};\nsasl_plaintext.KafkaServer {\n %s\n};\n"
        % (PLAIN_JAAS, PLAIN_JAAS.replace('admin-secret";', 'admin-secret" user_bob="b";'))
    )
    environ = {"KAFKA_OPTS": "-Xmx1g -Djava.security.auth.login.config=%s" % jaas}
    sasl = broker_sasl({"sasl.enabled.mechanisms": "PLAIN", "sasl.mechanism.inter.broker.protocol": "PLAIN"}, environ)
    settings = sasl.server_settings("SASL_PLAINTEXT", CredentialCache(), lambda: 0)
    server = settings.servers["PLAIN"]()
    server.evaluate(plain.client_token("bob", "b"))
    assert server.authorization_id == "bob"
    other = sasl.server_settings("OTHER", CredentialCache(), lambda: 0).servers["PLAIN"]()
    with pytest.raises(Exception, match="Invalid username or password"):
        other.evaluate(plain.client_token("bob", "b"))
    login = sasl.inter_broker_login("SASL_PLAINTEXT")
    assert (login.mechanism, login.username, login.password) == ("PLAIN", "admin", "admin-secret")


def test_a_sasl_listener_without_jaas_is_a_clear_config_error():
    props = {
        "zookeeper.connect": "zk:2181",
        "listeners": "SASL_PLAINTEXT://:9092",
        "security.inter.broker.protocol": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN",
        "sasl.mechanism.inter.broker.protocol": "PLAIN",
    }
    with pytest.raises(ConfigError, match="Could not find a 'sasl_plaintext.KafkaServer' or 'KafkaServer' entry"):
        BrokerSaslSetup(KafkaConfig(props), clock=None, environ={})


def test_inter_broker_mechanism_must_be_enabled_and_have_credentials():
    base = {
        "zookeeper.connect": "zk:2181",
        "listeners": "SASL_PLAINTEXT://:9092",
        "security.inter.broker.protocol": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        ),
    }
    with pytest.raises(ConfigError, match="sasl.mechanism.inter.broker.protocol must be included in sasl.enabled"):
        BrokerSaslSetup(KafkaConfig(base), clock=None, environ={})
    with pytest.raises(ConfigError, match="needs username and password"):
        BrokerSaslSetup(
            KafkaConfig(dict(base, **{"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256"})), clock=None, environ={}
        )
    setup = BrokerSaslSetup(
        KafkaConfig(dict(base, **{"sasl.mechanism.inter.broker.protocol": "PLAIN"})), clock=None, environ={}
    )
    assert setup.login("SASL_PLAINTEXT") is not None
    assert setup.authenticator_factory("SASL_PLAINTEXT")().settings.mechanisms == ["PLAIN", "SCRAM-SHA-256"]


def test_plaintext_brokers_need_no_sasl():
    setup = BrokerSaslSetup(KafkaConfig({"zookeeper.connect": "zk:2181"}), clock=None, environ={})
    assert setup.login("PLAINTEXT") is None and setup.settings == {}
    assert setup.authenticator_factory("PLAINTEXT") is None


def test_errors_are_sasl_config_errors_in_the_pure_layer():
    with pytest.raises(SaslConfigError):
        broker_sasl({}).login_modules("SASL_PLAINTEXT", "PLAIN")
