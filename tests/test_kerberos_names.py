"""sasl.kerberos.principal.to.local.rules: Kafka 2.5's grammar on the examples of its documentation and tests."""

import pytest

from kafka_zk.security.kerberos_names import (
    BadFormatString,
    KerberosName,
    KerberosShortNamer,
    NoMatchingRule,
    default_realm,
    rules_from_config,
)

REALM = "KAFKA.LOCAL"


def short(principal, rules=None, realm=REALM):
    return KerberosShortNamer(realm, rules).short_name(KerberosName.parse(principal))


def test_parse_names():
    assert KerberosName.parse("kafka/127.0.0.1@KAFKA.LOCAL") == ("kafka", "127.0.0.1", "KAFKA.LOCAL")
    assert KerberosName.parse("alice@KAFKA.LOCAL") == ("alice", None, "KAFKA.LOCAL")
    assert KerberosName.parse("alice") == ("alice", None, None)
    assert str(KerberosName.parse("kafka/127.0.0.1@KAFKA.LOCAL")) == "kafka/127.0.0.1@KAFKA.LOCAL"
    with pytest.raises(ValueError, match="Malformed Kerberos name"):
        KerberosName.parse("a@b@c")


def test_default_maps_the_default_realm_to_the_first_component():
    assert short("alice@KAFKA.LOCAL") == "alice"
    assert short("kafka/127.0.0.1@KAFKA.LOCAL") == "kafka"
    assert short("alice") == "alice"  # no realm: the name as it is
    with pytest.raises(NoMatchingRule, match="No rules apply to alice@OTHER.REALM"):
        short("alice@OTHER.REALM")


def test_documented_rules():
    # Kafka's documentation: a realm's users to their names, /L lower-cased, /U upper-cased
    rule = "RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*//"
    assert short("user@MYDOMAIN.COM", [rule]) == "user"
    assert short("JOHN@MYDOMAIN.COM", ["RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*///L"]) == "john"
    assert short("john@MYDOMAIN.COM", ["RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*///U"]) == "JOHN"
    host_rule = "RULE:[2:$1@$0](.*@MYDOMAIN.COM)s/@.*//"
    assert short("kafka/broker1.example.com@MYDOMAIN.COM", [host_rule]) == "kafka"
    with pytest.raises(NoMatchingRule):  # a one-component rule does not apply to two components
        short("kafka/broker1.example.com@MYDOMAIN.COM", [rule])


def test_rules_in_order_with_groups_and_repeat():
    rules = [
        "RULE:[1:$1@$0](App\\..*)s/App\\.(.*)@.*/$1/g",
        "RULE:[2:$1](App\\..*)s/App\\.(.*)/$1/g",
        "DEFAULT",
    ]
    assert short("App.service-name/example.com@REALM.COM", rules, "REALM.COM") == "service-name"
    assert short("App.service-name@REALM.COM", rules, "REALM.COM") == "service-name"
    assert short("user/host@REALM.COM", rules, "REALM.COM") == "user"
    assert short("a.b.c@KAFKA.LOCAL", ["RULE:[1:$1]s/\\./-/g"]) == "a-b-c"
    assert short("a.b.c@KAFKA.LOCAL", ["RULE:[1:$1]s/\\./-/"]) == "a-b.c"
    assert short("bob@KAFKA.LOCAL", ["RULE:[1:$1]"]) == "bob"  # no substitution: the base itself


def test_non_simple_result_and_bad_format():
    with pytest.raises(NoMatchingRule, match="Non-simple name alice@KAFKA.LOCAL"):
        short("alice@KAFKA.LOCAL", ["RULE:[1:$1@$0]"])
    with pytest.raises(BadFormatString, match="outside of the valid range"):
        short("alice@KAFKA.LOCAL", ["RULE:[1:$3]"])


def test_invalid_rules_are_refused():
    with pytest.raises(ValueError, match="Invalid rule: `DEFAULTX`, unmatched substring: `X`"):
        KerberosShortNamer(REALM, ["DEFAULTX"])
    with pytest.raises(ValueError, match="Invalid rule: RUL"):
        KerberosShortNamer(REALM, ["RUL:[1:$1]"])


def test_config_values_and_default_realm():
    assert rules_from_config(None) == ["DEFAULT"]
    assert rules_from_config("RULE:[1:$1], DEFAULT") == ["RULE:[1:$1]", "DEFAULT"]
    conf = "[libdefaults]\n  default_realm = KAFKA.LOCAL  # ours\n[realms]\n  default_realm = NOT.THIS\n"
    assert default_realm(conf) == "KAFKA.LOCAL"
    assert default_realm("[realms]\n") is None
