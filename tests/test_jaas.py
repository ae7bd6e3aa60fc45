"""JAAS configs as Kafka reads them: config strings, files with sections, comments, quoting, KAFKA_OPTS."""

import pytest

from kafka_zk.security.jaas import (
    JaasError,
    login_config_path,
    parse_jaas_config,
    parse_jaas_file,
    read_jaas_file,
    server_section,
)


def test_a_plain_config_string_with_users():
    [module] = parse_jaas_config(
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
        'password="admin-secret" user_admin="admin-secret" user_alice="alice secret";'
    )
    assert module.class_name == "org.apache.kafka.common.security.plain.PlainLoginModule"
    assert module.flag == "required"
    assert module.options == {
        "username": "admin",
        "password": "admin-secret",
        "user_admin": "admin-secret",
        "user_alice": "alice secret",
    }


def test_unquoted_values_and_special_characters():
    [module] = parse_jaas_config(
        "org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED username=alice "
        'password="p@ss;w=rd" tokenauth=true;'
    )
    assert module.flag == "required"
    assert module.options == {"username": "alice", "password": "p@ss;w=rd", "tokenauth": "true"}


def test_a_file_with_sections_and_comments():
    sections = parse_jaas_file("""
        // the broker's own
        KafkaServer {
            org.apache.kafka.common.security.plain.PlainLoginModule required
            username="admin"   /* inter-broker */
            password="admin-secret"
            user_admin="admin-secret";
            org.apache.kafka.common.security.scram.ScramLoginModule required;
        };
        sasl_ssl.KafkaServer { org.apache.kafka.common.security.plain.PlainLoginModule required user_bob="b"; };
        Client {
            org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="zk-secret";
        };
    """)
    assert [m.class_name.rsplit(".", 1)[1] for m in sections["KafkaServer"]] == ["PlainLoginModule", "ScramLoginModule"]
    assert sections["KafkaServer"][1].options == {}
    assert sections["Client"][0].options == {"username": "kafka", "password": "zk-secret"}
    assert server_section(sections, "SASL_SSL")[0].options == {"user_bob": "b"}
    assert server_section(sections, "SASL_PLAINTEXT") is sections["KafkaServer"]
    assert server_section({}, "X") is None


@pytest.mark.parametrize(
    "text, message",
    [
        ('org.Foo username="a";', "control flag"),
        ('org.Foo required username "a";', "key=value"),
        ('org.Foo required username="a"', "not terminated"),
        ("", "empty"),
        ('org.Foo required username="a;', "cannot parse"),
    ],
)
def test_bad_config_strings_say_what_is_wrong(text, message):
    with pytest.raises(JaasError, match=message):
        parse_jaas_config(text)


def test_bad_files_say_what_is_wrong(tmp_path):
    with pytest.raises(JaasError, match="expected '{'"):
        parse_jaas_file("KafkaServer org.Foo required;")
    with pytest.raises(JaasError, match="not closed"):
        parse_jaas_file("KafkaServer { org.Foo required;")
    with pytest.raises(JaasError, match="cannot read"):
        read_jaas_file(str(tmp_path / "missing.conf"))


def test_the_file_comes_from_kafka_opts(tmp_path):
    path = tmp_path / "jaas.conf"
    path.write_text('KafkaClient { org.Foo required username="u"; };')
    environ = {"KAFKA_OPTS": "-Xmx1g -Djava.security.auth.login.config=%s -Dother=1" % path}
    assert login_config_path(environ) == str(path)
    assert read_jaas_file(login_config_path(environ))["KafkaClient"][0].options == {"username": "u"}
    assert login_config_path({}) is None
