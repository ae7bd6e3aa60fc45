"""A Twisted Kafka protocol client for broker-to-broker requests (controller channel, replica fetchers)."""

import logging
from collections import deque
from typing import Any, NamedTuple

from twisted.internet import defer, protocol, error as twisted_error

from kafka_zk.net.framing import FramedProtocol
from kafka_zk.protocol.headers import decode_response, encode_request

log = logging.getLogger(__name__)


class ConnectionClosed(Exception):
    pass


class KafkaClientProtocol(FramedProtocol):
    """Sends requests and fires each request's Deferred with the decoded response body."""

    max_frame_size = 1 << 30

    def __init__(self, client_id):
        self.client_id = client_id
        self._correlation = 0
        self._in_flight = deque()

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
        self._in_flight.append((correlation_id, api_key, version, result))
        return result

    def frame_received(self, frame):
        if not self._in_flight:
            self.transport.abortConnection()
            return
        expected, api_key, version, result = self._in_flight.popleft()
        try:
            correlation_id, body = decode_response(api_key, version, frame)
            if correlation_id != expected:
                raise ValueError("correlation id %d does not match %d" % (correlation_id, expected))
        except Exception as failure:  # a broken peer: fail this and everything behind it
            self._in_flight.appendleft((expected, api_key, version, result))
            self.transport.abortConnection()
            log.warning("bad response from broker: %s", failure)
            return
        result.callback(body)

    def connectionLost(self, reason=protocol.connectionDone):
        in_flight, self._in_flight = self._in_flight, deque()
        for _, _, _, result in in_flight:
            result.errback(ConnectionClosed(str(reason.value)))
        self.factory.disconnected(self)


class ListenerSecurity(NamedTuple):
    """How a broker reaches another broker's listener. ``tls``: on SSL and SASL_SSL listeners, what gives the TLS
    connection creator of a host (``tls.creator(host)``, a security.tls_transport.ClientTls); ``authenticate(
    protocol)``: on SASL listeners, a Deferred that fires once a new connection has logged in, before it carries
    requests (see security.inter_broker). None where the listener needs neither."""

    tls: Any = None
    authenticate: Any = None


PLAINTEXT = ListenerSecurity()


class BrokerConnection(protocol.ClientFactory):
    """One lazily opened connection to a broker; connect() returns a Deferred of the protocol."""

    def __init__(self, reactor, host, port, client_id, connect_timeout=10, security=None):
        """``security``: how to reach the listener (a ListenerSecurity; plain TCP without a login when None)."""
        security = security or PLAINTEXT
        self.tls = security.tls
        self.authenticate = security.authenticate
        self.reactor = reactor
        self.host = host
        self.port = port
        self.client_id = client_id
        self.connect_timeout = connect_timeout
        self.protocol_instance = None
        self._waiting = []
        self._connecting = False

    def buildProtocol(self, addr):
        proto = KafkaClientProtocol(self.client_id)
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
                self.reactor.connectSSL(self.host, self.port, self, self.tls.creator(self.host),
                                        timeout=self.connect_timeout)
            else:
                self.reactor.connectTCP(self.host, self.port, self, timeout=self.connect_timeout)
        return waiter

    def request(self, api_key, version, body):
        return self.connect().addCallback(lambda proto: proto.request(api_key, version, body))

    def connected(self, proto):
        if self.authenticate is not None:
            self.authenticate(proto).addCallbacks(lambda _: self._ready(proto), self._login_failed,
                                                  errbackArgs=(proto,))
            return
        self._ready(proto)

    def _login_failed(self, failure, proto):
        log.warning("cannot log in to broker %s:%d: %s", self.host, self.port, failure.getErrorMessage())
        if proto.transport is not None:
            proto.transport.abortConnection()
        self._connecting = False
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            waiter.errback(ConnectionClosed("cannot log in to %s:%d: %s"
                                            % (self.host, self.port, failure.getErrorMessage())))

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
            waiter.errback(ConnectionClosed("cannot connect to %s:%d: %s"
                                            % (self.host, self.port, reason.value)))

    def close(self):
        if self.protocol_instance is not None and self.protocol_instance.transport is not None:
            self.protocol_instance.transport.loseConnection()
        self.protocol_instance = None


def is_connection_error(failure):
    return failure.check(ConnectionClosed, twisted_error.ConnectError, twisted_error.ConnectionLost,
                         twisted_error.ConnectionDone, twisted_error.TimeoutError) is not None
