"""A Twisted Kafka protocol client for broker-to-broker requests (controller channel, replica fetchers)."""

import logging
from collections import deque
from typing import Any, NamedTuple

from twisted.internet import defer, protocol
from twisted.internet import error as twisted_error

from kafka_zk.common.reauthentication import reauthenticate_after
from kafka_zk.net.framing import FramedProtocol
from kafka_zk.protocol.headers import decode_response, encode_request

log = logging.getLogger(__name__)


class ConnectionClosed(Exception):
    pass


class RequestTimedOut(ConnectionClosed):
    """No answer within the connection's request timeout: the connection is dropped (as Kafka's NetworkClient
    disconnects on a request timeout), so the caller's retry goes out on a fresh one."""


class KafkaClientProtocol(FramedProtocol):
    """Sends requests and fires each request's Deferred with the decoded response body."""

    max_frame_size = 1 << 30

    def __init__(self, client_id, reactor=None, request_timeout_s=None):
        """``request_timeout_s``: how long a request may go unanswered before the connection is dropped (never,
        when None); ``reactor`` times it."""
        self.client_id = client_id
        self.reactor = reactor
        self.request_timeout_s = request_timeout_s
        self._correlation = 0
        self._in_flight = deque()
        self._deadline = None  # the timer of the oldest unanswered request
        self.reauthenticate_at = None  # reactor seconds: when the SASL session must be renewed (never, when None)
        self.reauthenticating = None  # the waiters for the login again in progress

    def connectionMade(self):
        super().connectionMade()
        self.factory.connected(self)

    def request(self, api_key, version, body, expect_response=True):
        self._correlation = (self._correlation + 1) & 0x7FFFFFFF
        correlation_id = self._correlation
        payload = encode_request(api_key, version, correlation_id, self.client_id, body)
        self.send_frame(payload)
        if not expect_response:
            return defer.succeed(None)
        result = defer.Deferred()
        sent_at = self.reactor.seconds() if self.request_timeout_s is not None else None
        self._in_flight.append((correlation_id, api_key, version, result, sent_at))
        if self._deadline is None:
            self._watch_oldest()
        return result

    def _watch_oldest(self):
        """Time the oldest unanswered request: answers come in order, so only it can be the first to time out."""
        self._deadline = None
        if self.request_timeout_s is None or not self._in_flight:
            return
        remaining = self._in_flight[0][4] + self.request_timeout_s - self.reactor.seconds()
        self._deadline = self.reactor.callLater(max(remaining, 0), self._timed_out)

    def _timed_out(self):
        self._deadline = None
        if not self._in_flight:
            return
        _, api_key, _, result, _ = self._in_flight.popleft()
        log.info(
            "no answer to api %d from %s:%d within %.1fs; disconnecting",
            api_key,
            self.factory.host,
            self.factory.port,
            self.request_timeout_s,
        )
        self.transport.abortConnection()
        self.factory.disconnected(self)  # what the caller sends next goes out on a new connection
        result.errback(RequestTimedOut("api %d request timed out after %.1fs" % (api_key, self.request_timeout_s)))

    def frame_received(self, frame):
        if not self._in_flight:
            self.transport.abortConnection()
            return
        expected, api_key, version, result, sent_at = self._in_flight.popleft()
        if self._deadline is not None:
            self._deadline.cancel()
            self._watch_oldest()
        try:
            correlation_id, body = decode_response(api_key, version, frame)
            if correlation_id != expected:
                raise ValueError("correlation id %d does not match %d" % (correlation_id, expected))
        except Exception as failure:  # a broken peer: fail this and everything behind it
            self._in_flight.appendleft((expected, api_key, version, result, sent_at))
            self.transport.abortConnection()
            log.warning("bad response from broker: %s", failure)
            return
        result.callback(body)

    def connectionLost(self, reason=protocol.connectionDone):
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        in_flight, self._in_flight = self._in_flight, deque()
        for _, _, _, result, _ in in_flight:
            result.errback(ConnectionClosed(str(reason.value)))
        self.factory.disconnected(self)


class ListenerSecurity(NamedTuple):
    """How a broker reaches another broker's listener. ``tls``: on SSL and SASL_SSL listeners, what gives the TLS
    connection creator of a host (``tls.creator(host)``, a security.tls_transport.ClientTls); ``authenticate(
    protocol)``: on SASL listeners, a Deferred that fires with the session lifetime (ms, 0: none) once a connection
    has logged in, before it carries requests (see security.inter_broker); run again on the live connection before
    that lifetime runs out. None where the listener needs neither."""

    tls: Any = None
    authenticate: Any = None


PLAINTEXT = ListenerSecurity()


class BrokerConnection(protocol.ClientFactory):
    """One lazily opened connection to a broker; connect() returns a Deferred of the protocol."""

    def __init__(self, reactor, host, port, client_id, connect_timeout=10, security=None, request_timeout_s=None):
        """``security``: how to reach the listener (a ListenerSecurity; plain TCP without a login when None);
        ``request_timeout_s``: Kafka's request timeout of the connection's user (replica.socket.timeout.ms,
        controller.socket.timeout.ms): a request unanswered that long drops the connection."""
        security = security or PLAINTEXT
        self.tls = security.tls
        self.authenticate = security.authenticate
        self.reactor = reactor
        self.host = host
        self.port = port
        self.client_id = client_id
        self.connect_timeout = connect_timeout
        self.request_timeout_s = request_timeout_s
        self.protocol_instance = None
        self._waiting = []
        self._connecting = False

    def buildProtocol(self, addr):
        proto = KafkaClientProtocol(self.client_id, self.reactor, self.request_timeout_s)
        proto.factory = self
        return proto

    def connect(self):
        if self.protocol_instance is not None:
            return defer.succeed(self.protocol_instance)
        waiter = defer.Deferred()
        self._waiting.append(waiter)
        if not self._connecting:
            self._connecting = True
            if self.tls is not None:
                self.reactor.connectSSL(
                    self.host, self.port, self, self.tls.creator(self.host), timeout=self.connect_timeout
                )
            else:
                self.reactor.connectTCP(self.host, self.port, self, timeout=self.connect_timeout)
        return waiter

    def request(self, api_key, version, body):
        return (
            self.connect()
            .addCallback(self._session_renewed)
            .addCallback(lambda proto: proto.request(api_key, version, body))
        )

    def connected(self, proto):
        if self.authenticate is not None:
            self.authenticate(proto).addCallbacks(
                self._logged_in, self._login_failed, callbackArgs=(proto,), errbackArgs=(proto,)
            )
            return
        self._ready(proto)

    def _logged_in(self, lifetime_ms, proto):
        self._schedule_reauthentication(proto, lifetime_ms)
        self._ready(proto)

    def _schedule_reauthentication(self, proto, lifetime_ms):
        after = reauthenticate_after(lifetime_ms or 0)
        proto.reauthenticate_at = None if after is None else self.reactor.seconds() + after

    def _session_renewed(self, proto):
        """The connection, once its SASL session is good for the request about to go (KIP-368): when the time to
        renew it has come, the requests wait for the login again on the same connection."""
        if proto.reauthenticating is None:
            if proto.reauthenticate_at is None or self.reactor.seconds() < proto.reauthenticate_at:
                return proto
            proto.reauthenticating = []
            self.authenticate(proto).addCallbacks(
                self._relogged_in, self._relogin_failed, callbackArgs=(proto,), errbackArgs=(proto,)
            )
        if proto.reauthenticating is None:  # the login again has completed already
            return proto
        waiter = defer.Deferred()
        proto.reauthenticating.append(waiter)
        return waiter

    def _relogged_in(self, lifetime_ms, proto):
        self._schedule_reauthentication(proto, lifetime_ms)
        waiting, proto.reauthenticating = proto.reauthenticating, None
        for waiter in waiting:
            waiter.callback(proto)

    def _relogin_failed(self, failure, proto):
        log.warning("cannot log in again to broker %s:%d: %s", self.host, self.port, failure.getErrorMessage())
        if proto.transport is not None:
            proto.transport.abortConnection()
        self.disconnected(proto)
        waiting, proto.reauthenticating = proto.reauthenticating, None
        for waiter in waiting:
            waiter.errback(
                ConnectionClosed("cannot log in again to %s:%d: %s" % (self.host, self.port, failure.getErrorMessage()))
            )

    def _login_failed(self, failure, proto):
        log.warning("cannot log in to broker %s:%d: %s", self.host, self.port, failure.getErrorMessage())
        if proto.transport is not None:
            proto.transport.abortConnection()
        self._connecting = False
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            waiter.errback(
                ConnectionClosed("cannot log in to %s:%d: %s" % (self.host, self.port, failure.getErrorMessage()))
            )

    def _ready(self, proto):
        self._connecting = False
        self.protocol_instance = proto
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            waiter.callback(proto)

    def disconnected(self, proto):
        if self.protocol_instance is proto:
            self.protocol_instance = None

    def clientConnectionFailed(self, connector, reason):
        self._connecting = False
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            waiter.errback(ConnectionClosed("cannot connect to %s:%d: %s" % (self.host, self.port, reason.value)))

    def close(self):
        if self.protocol_instance is not None and self.protocol_instance.transport is not None:
            self.protocol_instance.transport.loseConnection()
        self.protocol_instance = None


def is_connection_error(failure):
    return (
        failure.check(
            ConnectionClosed,
            twisted_error.ConnectError,
            twisted_error.ConnectionLost,
            twisted_error.ConnectionDone,
            twisted_error.TimeoutError,
        )
        is not None
    )
