"""The broker's DelegationTokenManager: tokens kept in ZooKeeper and in the broker's cache, kept in step through
/delegation_token/token_changes, and what the token APIs and the SCRAM server ask of them.

Every broker loads the tokens at start and follows the change notifications (a kazoo watch only posts to the
reactor). A broker that creates, renews or expires a token writes its znode, updates its own cache, and announces
the token id. Expired tokens are removed by ``expire_tokens``, which Kafka 2.5 runs on the active controller only,
every delegation.token.expiry.check.interval.ms. Without delegation.token.master.key tokens are disabled.
"""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.protocol.errors import Errors
from kafka_zk.security import delegation_tokens as tokens
from kafka_zk.security.delegation_tokens import DelegationToken, DelegationTokenCache, TokenInformation, TokenSettings
from kafka_zk.zk.change_notification_listener import ChangeNotificationListener
from kafka_zk.zk.security_znodes import DelegationTokenChangeNotificationSequenceZNode as TokenChangeZNode
from kafka_zk.zk.security_znodes import DelegationTokenChangeNotificationZNode

log = logging.getLogger(__name__)


DEFAULT_TOKEN_SETTINGS = TokenSettings()


class DelegationTokenManager:
    def __init__(
        self,
        zk,
        clock,
        broker_id,
        master_key,
        settings=DEFAULT_TOKEN_SETTINGS,
        cache=None,
        generate_token_id=tokens.generate_token_id,
    ):
        """``master_key``: delegation.token.master.key (None or empty: tokens disabled); ``settings``: the
        lifetimes; ``cache``: the DelegationTokenCache the SCRAM server also reads."""
        self.zk = zk
        self.clock = clock
        self.broker_id = broker_id
        self.master_key = master_key or None
        self.settings = settings
        self.cache = cache if cache is not None else DelegationTokenCache()
        self.generate_token_id = generate_token_id
        self._lock = defer.DeferredLock()  # one create/renew/expire/expiry scan at a time, as Kafka's lock
        self.notifications = ChangeNotificationListener(
            zk,
            clock,
            DelegationTokenChangeNotificationZNode.PATH,
            TokenChangeZNode.PREFIX,
            TokenChangeZNode.decode,
            self._reload,
        )

    @classmethod
    def from_config(cls, zk, clock, config, cache=None):
        settings = TokenSettings(config["delegation.token.max.lifetime.ms"], config["delegation.token.expiry.time.ms"])
        return cls(zk, clock, config.broker_id, config["delegation.token.master.key"], settings, cache)

    @property
    def enabled(self):
        return self.master_key is not None

    # -- what the SCRAM server asks (tokenauth=true) ------------------------------------------------

    def scram_credential(self, token_id, mechanism):
        """The SCRAM credential of a token for SCRAM-SHA-256 or SCRAM-SHA-512, or None."""
        return self.cache.scram_credential(token_id, mechanism)

    def owner_of(self, token_id):
        """The KafkaPrincipal that owns a token, or None: the authenticated connection's principal."""
        return self.cache.owner_of(token_id)

    # -- start and follow --------------------------------------------------------------------------

    @defer.inlineCallbacks
    def start(self):
        """Create the paths, load every token and follow the notifications (nothing when disabled)."""
        if not self.enabled:
            return
        yield self.zk.create_delegation_token_paths()
        token_ids = yield self.zk.get_delegation_token_ids()
        stored = yield self.zk.get_delegation_tokens(token_ids)
        for token_id, found in stored.items():
            self._apply(token_id, found)
        log.info("[Token Manager on Broker %d]: loaded %d delegation tokens", self.broker_id, len(self.cache.tokens()))
        yield self.notifications.start()

    def _apply(self, token_id, stored):
        if stored is None:
            self.cache.remove(token_id)
        else:
            info = TokenInformation.from_stored(stored)
            self.cache.update(DelegationToken(info, tokens.create_hmac(token_id, self.master_key)))

    @defer.inlineCallbacks
    def _reload(self, changed_token_ids):
        token_ids = sorted(set(changed_token_ids))
        stored = yield self.zk.get_delegation_tokens(token_ids)
        for token_id in token_ids:
            self._apply(token_id, stored.get(token_id))

    # -- the APIs ----------------------------------------------------------------------------------

    @defer.inlineCallbacks
    def _store(self, info):
        token = DelegationToken(info, tokens.create_hmac(info.token_id, self.master_key))
        yield self.zk.set_or_create_delegation_token(info.to_stored())
        self.cache.update(token)
        yield self.zk.create_token_change_notification(info.token_id)
        return token

    @defer.inlineCallbacks
    def _remove(self, token_id):
        yield self.zk.delete_delegation_token(token_id)
        self.cache.remove(token_id)
        yield self.zk.create_token_change_notification(token_id)

    def create_token(self, owner, renewers, max_lifetime_ms):
        """Deferred DelegationToken (None when disabled: DELEGATION_TOKEN_AUTH_DISABLED)."""
        if not self.enabled:
            return defer.succeed(None)

        def create():
            info = tokens.new_token_info(
                self.generate_token_id(), owner, renewers, max_lifetime_ms, milliseconds(self.clock), self.settings
            )
            log.info(
                "[Token Manager on Broker %d]: created a delegation token %s for owner %s",
                self.broker_id,
                info.token_id,
                owner,
            )
            return self._store(info)

        return self._lock.run(create)

    def renew_token(self, principal, hmac, renew_period_ms):
        """Deferred (Errors member, new expiry timestamp or -1)."""
        return self._change(
            lambda info, now: tokens.decide_renew(info, principal, renew_period_ms, now, self.settings), hmac
        )

    def expire_token(self, principal, hmac, expiry_period_ms):
        """Deferred (Errors member, new expiry timestamp or -1); a negative period removes the token now."""
        return self._change(lambda info, now: tokens.decide_expire(info, principal, expiry_period_ms, now), hmac)

    def _change(self, decide, hmac):
        if not self.enabled:
            return defer.succeed((Errors.DELEGATION_TOKEN_AUTH_DISABLED, tokens.ERROR_TIMESTAMP))

        @defer.inlineCallbacks
        def change():
            token = self.cache.token_for_hmac(hmac)
            info = None if token is None else token.info
            outcome = decide(info, milliseconds(self.clock))
            if outcome.error == Errors.NONE:
                if outcome.info is None:
                    yield self._remove(info.token_id)
                else:
                    yield self._store(outcome.info)
            return outcome.error, outcome.expiry_timestamp

        return self._lock.run(change)

    def describe_tokens(self, eligible):
        """The tokens whose information ``eligible(info)`` accepts."""
        return [token for token in self.cache.tokens() if eligible(token.info)]

    def expire_tokens(self):
        """Remove every token past its expiry or max timestamp (the controller's periodic scan)."""

        @defer.inlineCallbacks
        def scan():
            now = milliseconds(self.clock)
            for token in self.cache.tokens():
                if token.info.expired(now):
                    log.info(
                        "[Token Manager on Broker %d]: delegation token %s of %s expired",
                        self.broker_id,
                        token.info.token_id,
                        token.info.owner,
                    )
                    yield self._remove(token.info.token_id)

        if not self.enabled:
            return defer.succeed(None)
        return self._lock.run(scan)
