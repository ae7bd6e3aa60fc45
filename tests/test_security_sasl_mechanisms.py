"""SASL mechanisms as pure code: PLAIN, SCRAM (RFC 7677's vector, scramp as an independent peer), unsecured
OAUTHBEARER tokens, and the client exchange against our servers."""

import base64
import json

import pytest
import scramp

from kafka_zk.security import oauthbearer, plain, scram
from kafka_zk.security.credential_cache import CredentialCache
from kafka_zk.security.sasl_client import ClientSasl, SaslClientError, client_sasl
from kafka_zk.security.sasl_errors import SaslAuthenticationFailure, SaslFailure

SHA256 = scram.MECHANISMS["SCRAM-SHA-256"]
SHA512 = scram.MECHANISMS["SCRAM-SHA-512"]


# -- PLAIN --------------------------------------------------------------------------------------------


def plain_server():
    return plain.PlainServer(
        plain.users_checker(
            plain.jaas_users(
                {"username": "admin", "password": "x", "user_admin": "admin-secret", "user_alice": "alice-secret"}
            )
        )
    )


def test_plain_accepts_a_jaas_user():
    server = plain_server()
    assert server.evaluate(plain.client_token("alice", "alice-secret")) == b""
    assert server.complete and server.authorization_id == "alice"


@pytest.mark.parametrize(
    "token, message",
    [
        (plain.client_token("alice", "wrong"), "Authentication failed: Invalid username or password"),
        (plain.client_token("mallory", "x"), "Authentication failed: Invalid username or password"),
        (plain.client_token("", "x"), "Authentication failed: username not specified"),
        (plain.client_token("alice", ""), "Authentication failed: password not specified"),
        (b"alice\0alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 2"),
        (
            plain.client_token("alice", "alice-secret", "admin"),
            "Authentication failed: Client requested an authorization id that is different from username",
        ),
    ],
)
def test_plain_failures_say_what_kafka_says(token, message):
    with pytest.raises(SaslAuthenticationFailure, match="^%s$" % message.replace("(", r"\(").replace(")", r"\)")):
        plain_server().evaluate(token)


# -- SCRAM --------------------------------------------------------------------------------------------

RFC7677_SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")


def test_scram_sha256_rfc7677_vector_server_side():
    credential = scram.credential_from_password(SHA256, "pencil", 4096, RFC7677_SALT)
    server = scram.ScramServer(SHA256, {"user": credential}.get, nonce_source=lambda: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
    first = server.evaluate(b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
    assert first == b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    final = server.evaluate(
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    assert final == b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    assert server.complete and server.authorization_id == "user"


def test_scram_sha256_rfc7677_vector_client_side():
    client = scram.ScramClient(SHA256, "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    assert client.first_message() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    final = client.final_message(
        b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    )
    assert final.endswith(b",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    client.verify(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
    assert client.complete


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scramp_client_logs_in_to_our_server(mechanism):
    """scramp is an independent SCRAM implementation: our stored credential and server must satisfy it."""
    ours = scram.MECHANISMS[mechanism]
    credential = scram.credential_from_password(ours, "s3cr=t,", 8192)
    assert scram.parse_credential(scram.format_credential(credential)) == credential
    server = scram.ScramServer(ours, {"a,b=c": credential}.get)
    client = scramp.ScramClient([mechanism], "a,b=c", "s3cr=t,")
    server_first = server.evaluate(client.get_client_first().encode())
    client.set_server_first(server_first.decode())
    server_final = server.evaluate(client.get_client_final().encode())
    client.set_server_final(server_final.decode())
    assert server.complete and server.authorization_id == "a,b=c"


@pytest.mark.parametrize("mechanism", [SHA256, SHA512])
def test_our_scram_client_against_our_server_with_stored_form(mechanism):
    stored = scram.format_credential(scram.credential_from_password(mechanism, "pw"))
    cache = CredentialCache()
    cache.update_user("bob", {mechanism.name: stored, "producer_byte_rate": "1000"})
    server = scram.ScramServer(mechanism, lambda user: cache.get(mechanism.name, user))
    client = scram.ScramClient(mechanism, "bob", "pw")
    client.verify(server.evaluate(client.final_message(server.evaluate(client.first_message()))))
    assert client.complete and server.complete


def test_scram_wrong_password_unknown_user_and_nonce_replay_fail():
    credential = scram.credential_from_password(SHA256, "right")
    lookup = {"bob": credential}.get
    server = scram.ScramServer(SHA256, lookup)
    client = scram.ScramClient(SHA256, "bob", "wrong")
    final = client.final_message(server.evaluate(client.first_message()))
    with pytest.raises(SaslFailure, match="Invalid client credentials"):
        server.evaluate(final)
    with pytest.raises(SaslFailure, match="Invalid user credentials"):
        scram.ScramServer(SHA256, lookup).evaluate(scram.ScramClient(SHA256, "nobody", "x").first_message())
    # a recorded client-final replayed on another exchange: the server's nonce differs
    good = scram.ScramClient(SHA256, "bob", "right")
    recorded = good.final_message(scram.ScramServer(SHA256, lookup).evaluate(good.first_message()))
    replayed = scram.ScramServer(SHA256, lookup)
    replayed.evaluate(good.first_message())
    with pytest.raises(SaslFailure, match="Invalid client nonce"):
        replayed.evaluate(recorded)


def test_scram_token_auth_extension_is_refused_until_delegation_tokens_exist():
    server = scram.ScramServer(SHA256, {"bob": scram.credential_from_password(SHA256, "x")}.get)
    client = scram.ScramClient(SHA256, "tokenid", "hmac", extensions={"tokenauth": "true"})
    with pytest.raises(SaslFailure, match="Token Authentication failed"):
        server.evaluate(client.first_message())


def test_scram_garbage_and_low_iterations():
    lookup = {"bob": scram.credential_from_password(SHA256, "x", iterations=100)}.get
    with pytest.raises(SaslFailure):
        scram.ScramServer(SHA256, lookup).evaluate(b"\xff\xfe garbage")
    with pytest.raises(SaslFailure, match="less than the minimum 4096"):
        scram.ScramServer(SHA256, lookup).evaluate(b"n,,n=bob,r=abc")


def test_credential_cache_follows_a_users_config():
    cache = CredentialCache()
    stored = scram.format_credential(scram.credential_from_password(SHA512, "p"))
    cache.update_user("alice", {"SCRAM-SHA-512": stored})
    assert cache.get("SCRAM-SHA-512", "alice") is not None and cache.get("SCRAM-SHA-256", "alice") is None
    cache.update_user("alice", {"producer_byte_rate": "10"})
    assert cache.get("SCRAM-SHA-512", "alice") is None
    cache.update_user("alice", {"SCRAM-SHA-512": "salt=???"})
    assert cache.users("SCRAM-SHA-512") == []


# -- OAUTHBEARER --------------------------------------------------------------------------------------


def token(claims, header=None):
    encode = lambda value: base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")  # noqa
    return "%s.%s." % (encode(header or {"alg": "none"}), encode(claims))


def test_unsecured_tokens_are_validated_as_kafka_does():
    now_ms = 1_000_000_000
    assert oauthbearer.validate_unsecured_token(
        token({"sub": "alice", "exp": 1_000_100, "iat": 999_000}), now_ms, {}
    ) == ("alice", 1_000_100_000)
    for bad, reason in [
        ({"exp": 1_000_100}, "sub"),
        ({"sub": "a"}, "exp"),
        ({"sub": "a", "exp": 999_999}, "future"),
        ({"sub": "a", "exp": 1_000_100, "iat": 1_000_200}, "Issued At"),
    ]:
        with pytest.raises(oauthbearer.InvalidToken, match=reason):
            oauthbearer.validate_unsecured_token(token(bad), now_ms, {})
    with pytest.raises(oauthbearer.InvalidToken, match="alg"):
        oauthbearer.validate_unsecured_token(token({"sub": "a", "exp": 2e9}, {"alg": "HS256"}), now_ms, {})
    with pytest.raises(oauthbearer.InvalidToken, match="required scope"):
        oauthbearer.validate_unsecured_token(
            token({"sub": "a", "exp": 2e9, "scope": "x"}), now_ms, {"unsecuredValidatorRequiredScope": "x y"}
        )


def test_oauthbearer_server_accepts_the_clients_unsecured_token_and_rejects_a_bad_one():
    now = lambda: 1_000_000_000  # noqa: E731
    options = {"unsecuredLoginStringClaim_sub": "carol", "unsecuredLoginLifetimeSeconds": "60"}
    server = oauthbearer.OAuthBearerServer(now, {})
    assert server.evaluate(oauthbearer.client_initial_response(oauthbearer.unsecured_token(options, now()))) == b""
    assert server.complete and server.authorization_id == "carol" and server.credential_expiry_ms == now() + 60000
    server = oauthbearer.OAuthBearerServer(now, {})
    challenge = server.evaluate(oauthbearer.client_initial_response(token({"sub": "carol", "exp": 1})))
    assert json.loads(challenge) == {"status": "invalid_token"}
    with pytest.raises(SaslAuthenticationFailure):
        server.evaluate(b"\x01")


# -- client properties ----------------------------------------------------------------------------------


def test_client_properties_give_the_login():
    assert client_sasl({"security.protocol": "PLAINTEXT"}) is None
    sasl = client_sasl(
        {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
            'username="alice" password="a b";',
        }
    )
    assert sasl == ClientSasl("SCRAM-SHA-512", "alice", "a b", {"username": "alice", "password": "a b"})
    assert (
        client_sasl(
            {
                "security.protocol": "sasl_plaintext",
                "sasl.mechanism": "PLAIN",
                "sasl.username": "u",
                "sasl.password": "p",
            }
        ).username
        == "u"
    )
    with pytest.raises(SaslClientError, match="GSSAPI"):
        client_sasl({"security.protocol": "SASL_PLAINTEXT"})
    with pytest.raises(SaslClientError, match="needs a username and password"):
        client_sasl({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"})
