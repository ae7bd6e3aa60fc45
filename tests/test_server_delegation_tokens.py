"""The broker's delegation tokens: the token manager over an in-memory ZooKeeper (two brokers sharing it follow
each other's changes), the controller's expiry scan, and the four token APIs as their handlers answer them."""

from types import SimpleNamespace

import pytest
from twisted.internet import task

from kafka_zk.protocol.errors import Errors
from kafka_zk.security import delegation_tokens as dt
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.security.principal import ANONYMOUS, KafkaPrincipal, user
from kafka_zk.server.apis import (
    create_delegation_token,
    describe_delegation_token,
    expire_delegation_token,
    renew_delegation_token,
)
from kafka_zk.server.config.dynamic_broker_config import is_sensitive
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.delegation_token_manager import DelegationTokenManager
from kafka_zk.zk.notification_sequence import CHANGE_EXPIRATION_MS, Notification
from kafka_zk.zk.security_znodes import (
    DelegationTokenChangeNotificationSequenceZNode,
    DelegationTokenChangeNotificationZNode,
    DelegationTokenInfoZNode,
)
from tests.fake_zk import FakeZk

ALICE, BOB, CAROL = user("alice"), user("bob"), user("carol")
SETTINGS = dt.TokenSettings(max_lifetime_ms=10_000, expiry_time_ms=1_000)
CHANGES = DelegationTokenChangeNotificationZNode.PATH


class TokenStore:
    """The /delegation_token subtree, in memory: znode bytes by token id and the change notifications."""

    def __init__(self, clock):
        self.clock = clock
        self.znodes = {}
        self.notifications = []  # [Notification(name, data, ctime ms)]

    def announced_token_ids(self):
        return [DelegationTokenChangeNotificationSequenceZNode.decode(n.data) for n in self.notifications]

    def answers(self):
        def create_notification(token_id):
            name = "token_change_%010d" % len(self.notifications)
            data = DelegationTokenChangeNotificationSequenceZNode.encode(token_id)
            self.notifications.append(Notification(name, data, int(self.clock.seconds() * 1000)))
            return name

        def get_notifications(parent):
            assert parent == CHANGES
            return list(self.notifications)

        def delete_notifications(parent, names, epoch_zk_version=None):
            assert parent == CHANGES and epoch_zk_version is None
            self.notifications = [n for n in self.notifications if n.name not in names]

        return {
            "create_delegation_token_paths": None,
            "get_delegation_token_ids": lambda: sorted(self.znodes),
            "get_delegation_tokens": lambda ids: {i: DelegationTokenInfoZNode.decode(self.znodes.get(i)) for i in ids},
            "set_or_create_delegation_token": lambda token: self.znodes.__setitem__(
                token.token_id, DelegationTokenInfoZNode.encode(token)
            ),
            "delete_delegation_token": lambda token_id: self.znodes.pop(token_id, None) and None,
            "create_token_change_notification": create_notification,
            "get_notifications": get_notifications,
            "delete_notifications": delete_notifications,
        }


@pytest.fixture
def clock():
    clock = task.Clock()
    clock.advance(1_000_000)
    return clock


@pytest.fixture
def store(clock):
    return TokenStore(clock)


def _manager(store, clock, broker_id=1, master_key="secret", ids=None):
    ids = iter(ids or ["tok-%d" % n for n in range(100)])
    manager = DelegationTokenManager(
        FakeZk(store.answers()), clock, broker_id, master_key, SETTINGS, generate_token_id=lambda: next(ids)
    )
    manager.start()
    return manager


def _now(clock):
    return int(clock.seconds() * 1000)


def _result(deferred):
    results = []
    deferred.addBoth(results.append)
    assert results, "the deferred did not fire"
    return results[0]


def _request(body, principal=ALICE, protocol="SASL_PLAINTEXT"):
    return SimpleNamespace(body=body, principal=principal, security_protocol=protocol, client_host="127.0.0.1")


def _create(manager, principal=ALICE, renewers=(), max_lifetime_ms=-1, protocol="SASL_PLAINTEXT"):
    body = {
        "renewers": [{"principal_type": r.principal_type, "principal_name": r.name} for r in renewers],
        "max_lifetime_ms": max_lifetime_ms,
    }
    return _result(create_delegation_token.handle(_request(body, principal, protocol), token_manager=manager))


def _renew(manager, hmac, period, principal=ALICE):
    request = _request({"hmac": hmac, "renew_period_ms": period}, principal)
    return _result(renew_delegation_token.handle(request, token_manager=manager))


def _expire(manager, hmac, period, principal=ALICE):
    request = _request({"hmac": hmac, "expiry_time_period_ms": period}, principal)
    return _result(expire_delegation_token.handle(request, token_manager=manager))


def _describe(manager, owners=None, principal=ALICE, authorizer=None, protocol="SASL_PLAINTEXT"):
    body = {
        "owners": None
        if owners is None
        else [{"principal_type": o.principal_type, "principal_name": o.name} for o in owners]
    }
    return describe_delegation_token.handle(
        _request(body, principal, protocol), token_manager=manager, authorizer=authorizer
    )


# -- the manager -----------------------------------------------------------------------------------


def test_a_created_token_is_stored_announced_and_cached(store, clock):
    manager = _manager(store, clock)
    token = _result(manager.create_token(ALICE, [BOB], -1))
    now = _now(clock)
    assert token.info == dt.TokenInformation("tok-0", ALICE, (BOB,), now, now + 10_000, now + 1_000)
    assert token.hmac == dt.create_hmac("tok-0", "secret")
    assert DelegationTokenInfoZNode.decode(store.znodes["tok-0"]) == token.info.to_stored()
    assert store.announced_token_ids() == ["tok-0"]
    assert manager.owner_of("tok-0") == ALICE
    assert manager.scram_credential("tok-0", "SCRAM-SHA-512").iterations == 4096
    assert manager.owner_of("nope") is None and manager.scram_credential("nope", "SCRAM-SHA-256") is None


def test_another_broker_loads_tokens_at_start_and_follows_their_changes(store, clock):
    first = _manager(store, clock, broker_id=1)
    token = _result(first.create_token(ALICE, [], -1))
    second = _manager(store, clock, broker_id=2)
    assert second.cache.token("tok-0") == token  # loaded at start
    watch = second.zk.watches[CHANGES]

    renewed = _result(first.renew_token(ALICE, token.hmac, 500))
    watch(None)
    assert renewed == (Errors.NONE, _now(clock) + 500)
    assert second.cache.token("tok-0").info.expiry_timestamp == _now(clock) + 500

    assert _result(first.expire_token(ALICE, token.hmac, -1)) == (Errors.NONE, _now(clock))
    watch(None)
    assert second.cache.token("tok-0") is None and "tok-0" not in store.znodes
    assert second.owner_of("tok-0") is None


def test_old_notifications_are_deleted_by_a_follower(store, clock):
    manager = _manager(store, clock)
    _result(manager.create_token(ALICE, [], -1))
    clock.advance(CHANGE_EXPIRATION_MS / 1000 + 1)
    _result(manager.create_token(ALICE, [], -1))
    manager.zk.watches[CHANGES](None)
    assert store.announced_token_ids() == ["tok-1"]


def test_the_expiry_scan_removes_expired_tokens_everywhere(store, clock):
    manager = _manager(store, clock)
    short = _result(manager.create_token(ALICE, [], 100))
    lasting = _result(manager.create_token(ALICE, [], -1))
    clock.advance(0.5)
    _result(manager.expire_tokens())
    assert manager.cache.token(short.info.token_id) is None and short.info.token_id not in store.znodes
    assert manager.cache.token(lasting.info.token_id) is not None


def test_without_a_master_key_tokens_are_disabled(store, clock):
    manager = _manager(store, clock, master_key="")
    assert not manager.enabled and manager.zk.calls == []
    assert _result(manager.create_token(ALICE, [], -1)) is None
    assert _result(manager.renew_token(ALICE, b"x", -1)) == (Errors.DELEGATION_TOKEN_AUTH_DISABLED, -1)
    assert _result(manager.expire_tokens()) is None


# -- the APIs --------------------------------------------------------------------------------------


def test_create_answers_the_new_token_owned_by_the_requester(store, clock):
    manager = _manager(store, clock)
    response = _create(manager, ALICE, [BOB], max_lifetime_ms=5_000)
    now = _now(clock)
    assert response == {
        "error_code": Errors.NONE,
        "principal_type": "User",
        "principal_name": "alice",
        "issue_timestamp_ms": now,
        "expiry_timestamp_ms": now + 1_000,
        "max_timestamp_ms": now + 5_000,
        "token_id": "tok-0",
        "hmac": dt.create_hmac("tok-0", "secret"),
        "throttle_time_ms": 0,
    }


@pytest.mark.parametrize(
    "protocol, principal",
    [("PLAINTEXT", ANONYMOUS), ("SSL", ANONYMOUS), ("SASL_SSL", dt.TokenAuthenticatedPrincipal("User", "alice"))],
)
def test_every_token_api_refuses_plaintext_anonymous_ssl_and_token_connections(store, clock, protocol, principal):
    manager = _manager(store, clock)
    token = _result(manager.create_token(ALICE, [], -1))
    refused = Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
    created = _create(manager, principal, protocol=protocol)
    assert (created["error_code"], created["token_id"], created["hmac"], created["max_timestamp_ms"]) == (
        refused,
        "",
        b"",
        -1,
    )
    for handler, period in (
        (renew_delegation_token, "renew_period_ms"),
        (expire_delegation_token, "expiry_time_period_ms"),
    ):
        request = _request({"hmac": token.hmac, period: -1}, principal, protocol)
        assert _result(handler.handle(request, token_manager=manager)) == {
            "error_code": refused,
            "expiry_timestamp_ms": -1,
            "throttle_time_ms": 0,
        }
    assert _describe(manager, protocol=protocol, principal=principal)["error_code"] == refused
    assert store.znodes.keys() == {"tok-0"}


def test_create_refuses_renewers_that_are_not_users(store, clock):
    response = _create(_manager(store, clock), renewers=[KafkaPrincipal("Group", "ops")])
    assert response["error_code"] == Errors.INVALID_PRINCIPAL_TYPE and store.znodes == {}


def test_every_token_api_answers_auth_disabled_without_a_master_key(store, clock):
    manager = _manager(store, clock, master_key=None)
    disabled = Errors.DELEGATION_TOKEN_AUTH_DISABLED
    created = _create(manager)
    assert (created["error_code"], created["principal_name"], created["token_id"]) == (disabled, "alice", "")
    assert _renew(manager, b"x", -1)["error_code"] == disabled
    assert _expire(manager, b"x", -1)["error_code"] == disabled
    assert _describe(manager) == {"error_code": disabled, "tokens": [], "throttle_time_ms": 0}


def test_renew_and_expire_by_owner_renewer_or_neither(store, clock):
    manager = _manager(store, clock)
    hmac = _create(manager, ALICE, [BOB])["hmac"]
    now = _now(clock)
    assert _renew(manager, hmac, 300, BOB) == {
        "error_code": Errors.NONE,
        "expiry_timestamp_ms": now + 300,
        "throttle_time_ms": 0,
    }
    assert _renew(manager, hmac, -1, CAROL)["error_code"] == Errors.DELEGATION_TOKEN_OWNER_MISMATCH
    assert _renew(manager, b"unknown", -1)["error_code"] == Errors.DELEGATION_TOKEN_NOT_FOUND
    assert _expire(manager, hmac, 50)["expiry_timestamp_ms"] == now + 50
    clock.advance(0.1)
    assert _renew(manager, hmac, -1)["error_code"] == Errors.DELEGATION_TOKEN_EXPIRED
    assert _expire(manager, hmac, 10)["error_code"] == Errors.DELEGATION_TOKEN_EXPIRED
    assert _expire(manager, hmac, -1, CAROL)["error_code"] == Errors.DELEGATION_TOKEN_OWNER_MISMATCH
    assert _expire(manager, hmac, -1) == {
        "error_code": Errors.NONE,
        "expiry_timestamp_ms": _now(clock),
        "throttle_time_ms": 0,
    }
    assert _expire(manager, hmac, -1)["error_code"] == Errors.DELEGATION_TOKEN_NOT_FOUND


class OnlyTokenAllowed:
    def __init__(self, token_id):
        self.token_id = token_id
        self.asked = []

    def authorize(self, principal, host, operation, resource_type, resource_name):
        self.asked.append((principal, host, operation, resource_type, resource_name))
        return resource_name == self.token_id


def test_describe_shows_owned_renewed_and_authorized_tokens(store, clock):
    manager = _manager(store, clock)
    _create(manager, ALICE, [BOB])
    _create(manager, CAROL)
    deny_all = OnlyTokenAllowed(None)
    owned = _describe(manager, principal=ALICE, authorizer=deny_all)
    assert [t["token_id"] for t in owned["tokens"]] == ["tok-0"]
    entry = owned["tokens"][0]
    assert entry["renewers"] == [{"principal_type": "User", "principal_name": "bob"}]
    assert (entry["principal_type"], entry["principal_name"], entry["hmac"]) == (
        "User",
        "alice",
        dt.create_hmac("tok-0", "secret"),
    )
    assert [t["token_id"] for t in _describe(manager, principal=BOB, authorizer=deny_all)["tokens"]] == ["tok-0"]
    assert _describe(manager, owners=[], principal=ALICE) == {
        "error_code": Errors.NONE,
        "tokens": [],
        "throttle_time_ms": 0,
    }
    assert _describe(manager, owners=[CAROL], principal=ALICE, authorizer=deny_all)["tokens"] == []

    authorizer = OnlyTokenAllowed("tok-1")
    seen = _describe(manager, principal=BOB, authorizer=authorizer)
    assert [t["token_id"] for t in seen["tokens"]] == ["tok-0", "tok-1"]
    assert (BOB, "127.0.0.1", AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, "tok-1") in authorizer.asked
    # without an authorizer every action is allowed, so every token is described
    assert [t["token_id"] for t in _describe(manager, principal=user("dave"))["tokens"]] == ["tok-0", "tok-1"]


def test_the_token_configs_have_kafkas_defaults_and_the_master_key_is_never_described():
    config = KafkaConfig({"zookeeper.connect": "zk:2181"})
    assert (
        config["delegation.token.master.key"],
        config["delegation.token.max.lifetime.ms"],
        config["delegation.token.expiry.time.ms"],
        config["delegation.token.expiry.check.interval.ms"],
    ) == (None, 604800000, 86400000, 3600000)
    manager = DelegationTokenManager.from_config(
        None,
        None,
        KafkaConfig(
            {"zookeeper.connect": "zk:2181", "delegation.token.master.key": "k", "delegation.token.expiry.time.ms": "5"}
        ),
    )
    assert manager.enabled and manager.settings == dt.TokenSettings(604800000, 5)
    assert is_sensitive("delegation.token.master.key")
