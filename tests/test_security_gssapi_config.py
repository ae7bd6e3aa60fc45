"""GSSAPI's configuration on brokers and clients: the JAAS Krb5LoginModule entry, sasl.kerberos.service.name, and
clear errors for what is missing (no KDC: a broker refuses such a config before it ever accepts a connection)."""

import pytest

from kafka_zk.security.gssapi_mechanism import krb5_conf_path, realm_of
from kafka_zk.security.sasl_client import SaslClientError, client_sasl
from kafka_zk.security.sasl_config import BrokerSasl, SaslConfigError


def krb5_jaas(keytab, principal):
    return (
        'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" '
        'principal="%s";' % (keytab, principal)
    )


def gssapi_broker(jaas, **extra):
    props = {"sasl.enabled.mechanisms": "GSSAPI", "listener.name.sasl_plaintext.gssapi.sasl.jaas.config": jaas}
    props.update(extra)
    return BrokerSasl(props.get, {})


def test_the_brokers_krb5_login_module_must_name_a_service_principal_and_its_keytab(tmp_path):
    keytab = tmp_path / "kafka.keytab"
    cases = {
        "needs principal=": 'com.sun.security.auth.module.Krb5LoginModule required keyTab="%s";' % keytab,
        "does NOT have the expected hostname part": krb5_jaas(keytab, "kafka@KAFKA.LOCAL"),
        "does not exist": krb5_jaas(keytab, "kafka/127.0.0.1@KAFKA.LOCAL"),
    }
    for message, jaas in cases.items():
        with pytest.raises(SaslConfigError, match=message):
            gssapi_broker(jaas).server_settings("SASL_PLAINTEXT", None, lambda: 0)


def test_the_inter_broker_login_needs_the_service_name(tmp_path):
    jaas = krb5_jaas(tmp_path / "kafka.keytab", "kafka/127.0.0.1@KAFKA.LOCAL")
    settings = {"sasl.mechanism.inter.broker.protocol": "GSSAPI"}
    with pytest.raises(SaslConfigError, match="No serviceName defined"):
        gssapi_broker(jaas, **settings).inter_broker_login("SASL_PLAINTEXT")
    login = gssapi_broker(jaas, **settings, **{"sasl.kerberos.service.name": "kafka"}).inter_broker_login(
        "SASL_PLAINTEXT"
    )
    assert login.mechanism == "GSSAPI" and login.options["serviceName"] == "kafka"
    assert login.options["principal"] == "kafka/127.0.0.1@KAFKA.LOCAL"


def test_client_properties_give_a_gssapi_login():
    base = {"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI"}
    with pytest.raises(SaslClientError, match="sasl.kerberos.service.name"):
        client_sasl(dict(base, **{"sasl.jaas.config": krb5_jaas("/k", "alice@KAFKA.LOCAL")}))
    with pytest.raises(SaslClientError, match="needs a keytab and a principal"):
        client_sasl(dict(base, **{"sasl.kerberos.service.name": "kafka"}))
    from_jaas = client_sasl(
        dict(base, **{"sasl.kerberos.service.name": "kafka", "sasl.jaas.config": krb5_jaas("/k", "alice@KAFKA.LOCAL")})
    )
    # librdkafka's names serve too
    from_librdkafka = client_sasl(
        dict(
            base,
            **{
                "sasl.kerberos.service.name": "kafka",
                "sasl.kerberos.keytab": "/k",
                "sasl.kerberos.principal": "alice@KAFKA.LOCAL",
            },
        )
    )
    for login in (from_jaas, from_librdkafka):
        assert (login.mechanism, login.options["principal"], login.options["keyTab"]) == (
            "GSSAPI",
            "alice@KAFKA.LOCAL",
            "/k",
        )
        assert login.options["serviceName"] == "kafka"


def test_the_krb5_conf_comes_from_the_jvm_flag_then_krb5_config(tmp_path):
    conf = tmp_path / "krb5.conf"
    conf.write_text("[libdefaults]\n    default_realm = KAFKA.LOCAL\n")
    assert krb5_conf_path({"KAFKA_OPTS": "-Xmx1g -Djava.security.krb5.conf=%s" % conf, "KRB5_CONFIG": "/x"}) == str(
        conf
    )
    assert krb5_conf_path({"KRB5_CONFIG": "/x"}) == "/x"
    assert realm_of(str(conf)) == "KAFKA.LOCAL"
    assert realm_of(str(tmp_path / "missing.conf")) == ""


def test_the_krb5_login_module_comes_from_the_jaas_files_kafka_server_section_too(tmp_path):
    keytab = tmp_path / "kafka.keytab"
    jaas_file = tmp_path / "kafka_server_jaas.conf"
    jaas_file.write_text("KafkaServer {\n  %s\n};\n" % krb5_jaas(keytab, "kafka/127.0.0.1@KAFKA.LOCAL"))
    broker = BrokerSasl(
        {"sasl.enabled.mechanisms": "GSSAPI"}.get,
        {"KAFKA_OPTS": "-Djava.security.auth.login.config=%s" % jaas_file},
    )
    options = broker.module_options("SASL_PLAINTEXT", "GSSAPI")
    assert options["principal"] == "kafka/127.0.0.1@KAFKA.LOCAL" and options["keyTab"] == str(keytab)
    with pytest.raises(SaslConfigError, match="does not exist"):  # the section's keytab is the one checked
        broker.server_settings("SASL_PLAINTEXT", None, lambda: 0)
