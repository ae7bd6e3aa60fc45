"""ssl.* settings, contexts built from JKS / PKCS12 / PEM stores (checked by an in-memory handshake), and the
SSL principal: RFC 2253 names mapped by ssl.principal.mapping.rules."""

import pytest
from cryptography import x509
from OpenSSL import SSL

from kafka_zk.security.principal import ANONYMOUS, user
from kafka_zk.security.ssl_config import SslConfigError, openssl_ciphers, ssl_settings, validate
from kafka_zk.security.ssl_context import client_context, load_key_material, load_trusted_certificates, server_context
from kafka_zk.security.ssl_principal import NoMatchingRule, SslPrincipalMapper, rfc2253_name, ssl_principal
from tests.tls_support import PASSWORD, client_leaf, new_ca, server_leaf, write_keystore, write_truststore

# -- mapping rules ---------------------------------------------------------------------------------------


def test_default_rule_keeps_the_distinguished_name():
    assert SslPrincipalMapper(None).name("CN=alice,OU=Eng,O=Test") == "CN=alice,OU=Eng,O=Test"
    assert SslPrincipalMapper("DEFAULT").name("CN=a") == "CN=a"


def test_rules_apply_in_order_with_case_flags_and_back_references():
    mapper = SslPrincipalMapper(
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, "
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT"
    )
    assert mapper.name("CN=kafka1,OU=ServiceUsers,O=Org,C=US") == "kafka1"
    assert mapper.name("CN=Admin,OU=Admin,O=Org,L=Oslo,ST=N,C=NO") == "admin@admin"
    assert mapper.name("OU=x,cn=foo.bar") == "FOO.BAR"
    assert mapper.name("O=NoCommonName") == "O=NoCommonName"


def test_a_back_reference_past_the_last_group_stays_literal():
    assert SslPrincipalMapper("RULE:^CN=(.*)$/$1-$4/").name("CN=ab") == "ab-$4"
    assert SslPrincipalMapper(r"RULE:^CN=(.*)$/\$1/").name("CN=ab") == "$1"


def test_no_rule_applies_and_invalid_rules():
    with pytest.raises(NoMatchingRule, match="No rules apply to CN=x"):
        SslPrincipalMapper("RULE:^O=(.*)$/$1/").name("CN=x")
    with pytest.raises(ValueError, match="Invalid rule: `RULE:a/b/Lx`, unmatched substring: `x`"):
        SslPrincipalMapper("RULE:a/b/Lx")
    assert SslPrincipalMapper(["RULE:^CN=(.*)$/$1/", "DEFAULT"]).name("CN=z") == "z"


def test_principal_from_certificate_is_its_rfc2253_subject():
    ca = new_ca()
    cert = x509.load_pem_x509_certificate(client_leaf(ca, "alice", "Eng").cert_chain_pems[0].bytes())
    assert rfc2253_name(cert.subject) == "CN=alice,OU=Eng,O=Test"
    assert ssl_principal(cert, SslPrincipalMapper(None)) == user("CN=alice,OU=Eng,O=Test")
    assert ssl_principal(cert, SslPrincipalMapper("RULE:^CN=(.*?),.*$/$1/")) == user("alice")
    assert ssl_principal(None, SslPrincipalMapper(None)) is ANONYMOUS


# -- settings ---------------------------------------------------------------------------------------------


def test_listener_settings_override_the_ssl_defaults():
    props = {
        "ssl.keystore.location": "/a",
        "ssl.client.auth": "required",
        "listener.name.internal.ssl.keystore.location": "/b",
        "listener.name.other.ssl.client.auth": "none",
    }
    internal = ssl_settings(props, "INTERNAL")
    assert internal["ssl.keystore.location"] == "/b" and internal["ssl.client.auth"] == "required"
    assert ssl_settings(props, "EXTERNAL")["ssl.keystore.location"] == "/a"
    assert ssl_settings({})["ssl.endpoint.identification.algorithm"] == "https"
    assert ssl_settings({})["ssl.enabled.protocols"] == "TLSv1.2,TLSv1.3"


@pytest.mark.parametrize(
    "name, value, message",
    [
        (
            "ssl.client.auth",
            "sometimes",
            "Invalid value sometimes for configuration ssl.client.auth: String must be "
            "one of: required, requested, none",
        ),
        ("ssl.enabled.protocols", "TLSv1.2,SSLv9", "Unsupported protocol"),
        ("ssl.cipher.suites", "TLS_NOT_A_SUITE", "Unsupported CipherSuite: TLS_NOT_A_SUITE"),
        ("ssl.keystore.type", "JCEKS", "JCEKS not found"),
        ("ssl.endpoint.identification.algorithm", "ldaps", "Unsupported endpoint identification algorithm"),
    ],
)
def test_invalid_settings_are_refused(name, value, message):
    with pytest.raises(SslConfigError, match=message):
        validate(ssl_settings({name: value}))


def test_java_cipher_suite_names_map_to_openssl():
    settings = ssl_settings(
        {
            "ssl.cipher.suites": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,"
            "ECDHE-ECDSA-AES256-GCM-SHA384"
        }
    )
    assert openssl_ciphers(settings) == (
        "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384",
        "TLS_AES_256_GCM_SHA384",
    )
    assert openssl_ciphers(ssl_settings({})) == (None, None)


# -- stores and contexts ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ca():
    return new_ca()


@pytest.mark.parametrize("store_type", ["PEM", "PKCS12", "JKS"])
def test_keystores_and_truststores_load(tmp_path, ca, store_type):
    leaf = server_leaf(ca)
    keystore = write_keystore(leaf, tmp_path / "keystore", store_type)
    material = load_key_material(store_type, keystore, PASSWORD)
    assert material.certificate.subject.rfc4514_string().startswith("CN=localhost,")
    truststore = write_truststore(ca, tmp_path / "truststore", store_type)
    trusted = load_trusted_certificates(store_type, truststore, PASSWORD)
    assert [cert.subject for cert in trusted] == [material.chain[-1].issuer]


def test_a_jks_key_with_its_own_password(tmp_path, ca):
    keystore = write_keystore(server_leaf(ca), tmp_path / "ks.jks", "JKS", key_password="key-secret")
    settings = ssl_settings(
        {"ssl.keystore.location": keystore, "ssl.keystore.password": PASSWORD, "ssl.key.password": "key-secret"}
    )
    server_context(settings)
    with pytest.raises(SslConfigError, match="Failed to load SSL keystore"):
        load_key_material("JKS", keystore, "wrong")


def _handshake(server_ctx, client_ctx):
    """Run a TLS handshake between two contexts in memory; returns (server connection, client connection)."""
    server = SSL.Connection(server_ctx, None)
    server.set_accept_state()
    client = SSL.Connection(client_ctx, None)
    client.set_connect_state()
    for _ in range(20):
        for source, sink in ((client, server), (server, client)):
            try:
                source.do_handshake()
            except SSL.WantReadError:
                pass
            try:
                data = source.bio_read(65536)
            except SSL.WantReadError:
                data = b""
            if data:
                sink.bio_write(data)
    client.do_handshake()
    server.do_handshake()
    return server, client


def _server_settings(tmp_path, ca, store_type, client_auth="none"):
    return ssl_settings(
        {
            "ssl.keystore.type": store_type,
            "ssl.keystore.password": PASSWORD,
            "ssl.keystore.location": write_keystore(server_leaf(ca), tmp_path / ("server." + store_type), store_type),
            "ssl.truststore.type": store_type,
            "ssl.truststore.password": PASSWORD,
            "ssl.truststore.location": write_truststore(ca, tmp_path / ("trust." + store_type), store_type),
            "ssl.client.auth": client_auth,
        }
    )


@pytest.mark.parametrize("store_type", ["PEM", "PKCS12", "JKS"])
def test_mutual_tls_handshake_gives_the_client_principal(tmp_path, ca, store_type):
    server_settings = _server_settings(tmp_path, ca, store_type, "required")
    client_settings = ssl_settings(
        {
            "ssl.keystore.type": store_type,
            "ssl.keystore.password": PASSWORD,
            "ssl.keystore.location": write_keystore(client_leaf(ca, "alice"), tmp_path / "client.ks", store_type),
            "ssl.truststore.type": store_type,
            "ssl.truststore.password": PASSWORD,
            "ssl.truststore.location": server_settings["ssl.truststore.location"],
        }
    )
    server, client = _handshake(server_context(server_settings), client_context(client_settings))
    peer = server.get_peer_certificate().to_cryptography()
    assert ssl_principal(peer, SslPrincipalMapper("RULE:^CN=(.*?),.*$/$1/")) == user("alice")
    assert client.get_protocol_version_name() == "TLSv1.3"


def test_client_auth_required_refuses_a_client_without_certificate(tmp_path, ca):
    server_settings = _server_settings(tmp_path, ca, "PEM", "required")
    client_settings = ssl_settings(
        {"ssl.truststore.type": "PEM", "ssl.truststore.location": server_settings["ssl.truststore.location"]}
    )
    with pytest.raises(SSL.Error):
        _handshake(server_context(server_settings), client_context(client_settings))


def test_an_untrusted_server_is_refused_by_the_client(tmp_path, ca):
    server_settings = _server_settings(tmp_path, ca, "PEM")
    other = write_truststore(new_ca(), tmp_path / "other.pem", "PEM")
    client_settings = ssl_settings({"ssl.truststore.type": "PEM", "ssl.truststore.location": other})
    with pytest.raises(SSL.Error, match="certificate verify failed"):
        _handshake(server_context(server_settings), client_context(client_settings))


def test_enabled_protocols_and_ciphers_limit_the_handshake(tmp_path, ca):
    server_settings = _server_settings(tmp_path, ca, "PEM")
    server_settings["ssl.enabled.protocols"] = "TLSv1.2"
    server_settings["ssl.cipher.suites"] = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
    client_settings = ssl_settings(
        {"ssl.truststore.type": "PEM", "ssl.truststore.location": server_settings["ssl.truststore.location"]}
    )
    server, client = _handshake(server_context(server_settings), client_context(client_settings))
    assert client.get_protocol_version_name() == "TLSv1.2"
    assert client.get_cipher_name() == "ECDHE-ECDSA-AES256-GCM-SHA384"
    client_settings["ssl.enabled.protocols"] = "TLSv1.3"
    with pytest.raises(SSL.Error):
        _handshake(server_context(server_settings), client_context(client_settings))


# -- the listener side: hostname check and principal builders -----------------------------------------------


def test_https_endpoint_identification_checks_the_subject_alt_names(ca):
    from kafka_zk.security.tls_transport import certificate_names_host

    cert = x509.load_pem_x509_certificate(server_leaf(ca).cert_chain_pems[0].bytes())
    assert certificate_names_host(cert, "127.0.0.1") and certificate_names_host(cert, "localhost")
    assert not certificate_names_host(cert, "10.1.2.3") and not certificate_names_host(cert, "example.com")


class _Transport:
    def __init__(self, certificate):
        self.certificate = certificate

    def getPeerCertificate(self):
        return self.certificate


def test_principal_builders_per_security_protocol(ca):
    from OpenSSL import crypto

    from kafka_zk.security.tls_transport import principal_builder

    settings = ssl_settings({"ssl.principal.mapping.rules": "RULE:^CN=(.*?),.*$/$1/L"})
    assert principal_builder("PLAINTEXT", settings)(_Transport(None)) is ANONYMOUS
    ssl_builder = principal_builder("SSL", settings)
    assert ssl_builder(_Transport(None)) is ANONYMOUS
    cert = x509.load_pem_x509_certificate(client_leaf(ca, "Bob").cert_chain_pems[0].bytes())
    assert ssl_builder(_Transport(crypto.X509.from_cryptography(cert))) == user("bob")
    assert principal_builder("SASL_SSL", settings) is None  # the SASL exchange names the principal
