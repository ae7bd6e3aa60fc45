"""The pure delegation token core: HMAC, token ids, the znode JSON Kafka 2.5 writes, the create/renew/expire/
describe decisions, which connections may ask, and the SCRAM credentials a token gives (checked by a real SCRAM
exchange through scramp)."""

import base64
import hashlib
import hmac

import pytest
import scramp

from kafka_zk.protocol.errors import Errors
from kafka_zk.security import delegation_tokens as dt
from kafka_zk.security.principal import ANONYMOUS, KafkaPrincipal, user
from kafka_zk.zk.security_znodes import DelegationTokenInfoZNode, StoredDelegationToken, desanitize, sanitize

ALICE, BOB, CAROL = user("alice"), user("bob"), user("carol")
SETTINGS = dt.TokenSettings(max_lifetime_ms=1000, expiry_time_ms=100)


def _info(expiry=1100, maximum=2000, renewers=(BOB,)):
    return dt.TokenInformation("tok", ALICE, tuple(renewers), 1000, maximum, expiry)


def test_the_hmac_is_hmac_sha512_of_the_token_id_keyed_by_the_master_key():
    mac = dt.create_hmac("tok", "secret")
    assert len(mac) == 64
    assert mac == hmac.new(b"secret", b"tok", hashlib.sha512).digest()
    assert dt.create_hmac("tok", "other") != mac
    assert dt.DelegationToken(_info(), mac).hmac_base64 == base64.b64encode(mac).decode()


def test_a_token_id_is_a_uuid_as_url_safe_base64_without_padding():
    assert dt.generate_token_id(bytes(range(16))) == "AAECAwQFBgcICQoLDA0ODw"
    token_id = dt.generate_token_id()
    assert len(token_id) == 22 and "=" not in token_id and token_id != dt.generate_token_id()


def test_the_znode_json_is_kafkas_with_sanitized_principals_in_its_key_order():
    stored = StoredDelegationToken("tok", "User:alice", ("User:bob", "User:c d*~"), 1, 3, 2)
    data = DelegationTokenInfoZNode.encode(stored)
    assert data == (
        b'{"issueTimestamp":1,"renewers":["User%3Abob","User%3Ac%20d%2A%7E"],"maxTimestamp":3,'
        b'"version":1,"tokenId":"tok","owner":"User%3Aalice","expiryTimestamp":2}'
    )
    assert DelegationTokenInfoZNode.decode(data) == stored
    assert DelegationTokenInfoZNode.path("tok") == "/delegation_token/tokens/tok"
    assert DelegationTokenInfoZNode.decode(b"") is None
    with pytest.raises(ValueError):
        DelegationTokenInfoZNode.decode(data.replace(b'"version":1', b'"version":3'))


def test_sanitize_is_javas_url_encoding():
    assert sanitize("User:CN=a b,O=x.y-z_w") == "User%3ACN%3Da%20b%2CO%3Dx.y-z_w"
    assert desanitize("User%3Aa%20b%2A") == "User:a b*"


def test_token_information_converts_to_and_from_what_zookeeper_stores():
    info = _info(renewers=(BOB, KafkaPrincipal("Group", "ops")))
    assert info.to_stored() == StoredDelegationToken("tok", "User:alice", ("User:bob", "Group:ops"), 1000, 2000, 1100)
    assert dt.TokenInformation.from_stored(info.to_stored()) == info


def test_create_caps_the_lifetime_and_starts_with_the_default_expiry_period():
    assert dt.new_token_info("t", ALICE, [BOB], -1, 5000, SETTINGS) == dt.TokenInformation(
        "t", ALICE, (BOB,), 5000, 6000, 5100
    )
    assert dt.new_token_info("t", ALICE, [], 0, 5000, SETTINGS).max_timestamp == 6000
    assert dt.new_token_info("t", ALICE, [], 5000, 5000, SETTINGS).max_timestamp == 6000
    short = dt.new_token_info("t", ALICE, [], 50, 5000, SETTINGS)
    assert (short.max_timestamp, short.expiry_timestamp) == (5050, 5050)


def test_renewers_must_be_users():
    assert not dt.invalid_renewers([BOB, CAROL])
    assert dt.invalid_renewers([KafkaPrincipal("Group", "ops")])


def test_renew_by_owner_or_renewer_moves_the_expiry_up_to_the_max():
    assert dt.decide_renew(None, ALICE, 10, 1050, SETTINGS) == (Errors.DELEGATION_TOKEN_NOT_FOUND, None, -1)
    assert dt.decide_renew(_info(), CAROL, 10, 1050, SETTINGS).error == Errors.DELEGATION_TOKEN_OWNER_MISMATCH
    outcome = dt.decide_renew(_info(), BOB, 500, 1050, SETTINGS)
    assert outcome.error == Errors.NONE and outcome.expiry_timestamp == 1550 == outcome.info.expiry_timestamp
    assert dt.decide_renew(_info(), ALICE, -1, 1050, SETTINGS).expiry_timestamp == 1150  # expiry.time.ms
    assert dt.decide_renew(_info(), ALICE, 5000, 1050, SETTINGS).expiry_timestamp == 2000  # capped at max
    assert dt.decide_renew(_info(expiry=1100), ALICE, 10, 1101, SETTINGS).error == Errors.DELEGATION_TOKEN_EXPIRED
    assert dt.decide_renew(_info(expiry=1100), ALICE, 10, 1100, SETTINGS).error == Errors.NONE


def test_expire_with_a_negative_period_removes_the_token_now_even_when_expired():
    outcome = dt.decide_expire(_info(expiry=1100), ALICE, -1, 1500)
    assert outcome == (Errors.NONE, None, 1500)
    assert dt.decide_expire(_info(), CAROL, -1, 1050).error == Errors.DELEGATION_TOKEN_OWNER_MISMATCH
    assert dt.decide_expire(None, ALICE, -1, 1050).error == Errors.DELEGATION_TOKEN_NOT_FOUND


def test_expire_with_a_period_shortens_the_life_of_a_live_token():
    outcome = dt.decide_expire(_info(), BOB, 20, 1050)
    assert outcome.error == Errors.NONE and outcome.info.expiry_timestamp == 1070 == outcome.expiry_timestamp
    assert dt.decide_expire(_info(maximum=1060, expiry=1060), ALICE, 100, 1050).expiry_timestamp == 1060
    assert dt.decide_expire(_info(expiry=1100), ALICE, 10, 1200).error == Errors.DELEGATION_TOKEN_EXPIRED


def test_describe_shows_own_and_renewed_tokens_and_those_the_authorizer_allows():
    def deny(_token_id):
        return False

    assert dt.describable(ALICE, None, _info(), deny) and dt.describable(BOB, None, _info(), deny)
    assert not dt.describable(CAROL, None, _info(), deny)
    assert dt.describable(CAROL, None, _info(), lambda token_id: token_id == "tok")
    assert not dt.describable(ALICE, [CAROL], _info(), deny)  # not among the requested owners
    assert dt.describable(ALICE, [BOB], _info(), deny)  # a requested owner may be a renewer


def test_token_requests_are_refused_on_plaintext_anonymous_ssl_and_token_connections():
    assert not dt.token_requests_allowed("PLAINTEXT", ALICE)
    assert not dt.token_requests_allowed("SSL", ANONYMOUS)
    assert dt.token_requests_allowed("SSL", user("CN=client"))
    assert dt.token_requests_allowed("SASL_PLAINTEXT", ALICE)
    assert dt.token_requests_allowed("SASL_SSL", ALICE)
    assert not dt.token_requests_allowed("SASL_SSL", dt.TokenAuthenticatedPrincipal("User", "alice"))


def test_a_token_authenticated_principal_equals_its_plain_principal():
    principal = dt.TokenAuthenticatedPrincipal("User", "alice")
    assert principal == ALICE and hash(principal) == hash(ALICE) and str(principal) == "User:alice"
    assert dt.is_token_authenticated(principal) and not dt.is_token_authenticated(ALICE)
    assert not dt.is_token_authenticated(None)


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_a_tokens_scram_credential_accepts_the_token_id_and_base64_hmac(mechanism):
    token = dt.DelegationToken(_info(), dt.create_hmac("tok", "secret"))
    cache = dt.DelegationTokenCache()
    cache.update(token)
    credential = cache.scram_credential("tok", mechanism)
    assert credential.iterations == 4096 and credential.salt.isalnum()
    assert cache.scram_credential("tok", mechanism) is credential

    server = scramp.ScramMechanism(mechanism).make_server(
        lambda username: (credential.salt, credential.stored_key, credential.server_key, credential.iterations)
    )
    client = scramp.ScramClient([mechanism], "tok", token.hmac_base64)
    server.set_client_first(client.get_client_first())
    client.set_server_first(server.get_server_first())
    server.set_client_final(client.get_client_final())  # raises if the proof does not match
    client.set_server_final(server.get_server_final())


def test_the_cache_finds_tokens_by_id_and_hmac_and_forgets_removed_ones():
    cache = dt.DelegationTokenCache()
    token = dt.DelegationToken(_info(), b"mac")
    cache.update(token)
    assert cache.token("tok") == token and cache.token_for_hmac(b"mac") == token and cache.owner_of("tok") == ALICE
    assert cache.scram_credential("tok", "PLAIN") is None
    renewed = dt.DelegationToken(_info(expiry=1500), b"mac")
    cache.update(renewed)
    assert cache.tokens() == [renewed]
    cache.remove("tok")
    assert cache.token("tok") is None and cache.token_for_hmac(b"mac") is None and cache.owner_of("tok") is None
    assert cache.scram_credential("tok", "SCRAM-SHA-256") is None and cache.tokens() == []
