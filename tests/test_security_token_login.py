"""Logging in with a delegation token, in memory: our client's SCRAM exchange with tokenauth=true against a
listener's SASL authenticator whose SCRAM server looks tokens up in the broker's DelegationTokenCache."""

import base64

import pytest

from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.security.credential_cache import CredentialCache
from kafka_zk.security.delegation_tokens import (
    DelegationToken,
    DelegationTokenCache,
    TokenInformation,
    create_hmac,
    is_token_authenticated,
    token_requests_allowed,
)
from kafka_zk.security.principal import user
from kafka_zk.security.sasl_client import SaslClientError, client_sasl, exchange
from kafka_zk.security.sasl_config import BrokerSasl
from kafka_zk.security.sasl_server import SaslServerAuthenticator

MASTER_KEY = "s3cr3t"
NOW_MS = 1_700_000_000_000
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"


def token(token_id="tok-1", expiry=NOW_MS + 60_000):
    info = TokenInformation(token_id, user("alice"), (user("bob"),), NOW_MS - 1000, NOW_MS + 3_600_000, expiry)
    return DelegationToken(info, create_hmac(token_id, MASTER_KEY))


def server_settings(tokens, now_ms=NOW_MS):
    config = {
        "sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
    }
    return BrokerSasl(config.get, {}).server_settings("SASL_PLAINTEXT", CredentialCache(), lambda: now_ms, tokens)


def token_properties(token_id, hmac_base64, mechanism="SCRAM-SHA-256", tokenauth=True):
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s"%s;' % (
        token_id,
        hmac_base64,
        ' tokenauth="true"' if tokenauth else "",
    )
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism, "sasl.jaas.config": jaas}


def login(authenticator, properties):
    """Drive our client's exchange against the authenticator; returns the session lifetime it answered."""
    steps = exchange(client_sasl(properties), lambda: NOW_MS)
    request = next(steps)
    correlation = 0
    while True:
        api_key, version, body = request
        correlation += 1
        step = authenticator.receive(encode_request(api_key, version, correlation, "client", body), NOW_MS)
        assert step.response is not None, step
        _, response = decode_response(api_key, version, step.response)
        try:
            request = steps.send(response)
        except StopIteration as done:
            return done.value


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_a_token_logs_in_as_its_owner_marked_token_authenticated(mechanism):
    tokens = DelegationTokenCache()
    tokens.update(token())
    authenticator = SaslServerAuthenticator(server_settings(tokens))
    lifetime = login(authenticator, token_properties("tok-1", token().hmac_base64, mechanism))
    assert authenticator.complete and authenticator.principal == user("alice")
    assert is_token_authenticated(authenticator.principal) and str(authenticator.principal) == "User:alice"
    assert lifetime == 60_000  # the session ends when the token expires
    # token APIs are then refused on this connection, as Kafka's allowTokenRequests
    assert not token_requests_allowed("SASL_PLAINTEXT", authenticator.principal)


@pytest.mark.parametrize("case", ["unknown", "expired", "wrong hmac", "without tokenauth"])
def test_unknown_expired_or_wrongly_proven_tokens_fail(case):
    tokens = DelegationTokenCache()
    tokens.update(token(expiry=NOW_MS - 1 if case == "expired" else NOW_MS + 60_000))
    token_id = "nope" if case == "unknown" else "tok-1"
    password = base64.b64encode(b"wrong").decode() if case == "wrong hmac" else token().hmac_base64
    authenticator = SaslServerAuthenticator(server_settings(tokens))
    with pytest.raises(SaslClientError):
        login(authenticator, token_properties(token_id, password, tokenauth=case != "without tokenauth"))
    assert not authenticator.complete and authenticator.principal is None


def test_a_removed_token_no_longer_logs_in():
    tokens = DelegationTokenCache()
    tokens.update(token())
    tokens.remove("tok-1")
    with pytest.raises(SaslClientError, match="invalid credentials"):
        login(SaslServerAuthenticator(server_settings(tokens)), token_properties("tok-1", token().hmac_base64))


def test_without_a_token_cache_tokenauth_fails():
    with pytest.raises(SaslClientError):
        login(SaslServerAuthenticator(server_settings(None)), token_properties("tok-1", token().hmac_base64))


def test_the_client_sends_the_tokenauth_extension_only_when_asked():
    first = []
    for tokenauth in (True, False):
        steps = exchange(client_sasl(token_properties("tok-1", "aG1hYw==", tokenauth=tokenauth)), lambda: NOW_MS)
        next(steps)
        api_key, _, body = steps.send({"error_code": 0, "mechanisms": ["SCRAM-SHA-256"]})
        assert api_key == 36  # SaslAuthenticate
        first.append(bytes(body["auth_bytes"]).decode())
    assert first[0].startswith("n,,n=tok-1,r=") and first[0].endswith(",tokenauth=true")
    assert "tokenauth" not in first[1]
