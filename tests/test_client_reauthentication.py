"""KIP-368 on the client side, in memory: a connection logs in again on the same socket at 85 to 95 % of the
session lifetime the broker granted, both the blocking client connection (tools, admin, producer, consumer) and the
brokers' Twisted connections (replica fetchers, the controller's channel, transaction markers); requests wait for
the new login, and a failed one drops the connection."""

import struct

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock, StringTransport

from kafka_zk.client import connection as client_connection
from kafka_zk.net.broker_client import BrokerConnection, ConnectionClosed, ListenerSecurity
from kafka_zk.protocol.errors import Errors

METADATA = (3, 1)
LIFETIME_MS = 10000
PLAIN_LOGIN = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}


class Logins:
    """An authenticate hook whose logins the test completes: each call's Deferred, in order."""

    def __init__(self):
        self.pending = []

    def __call__(self, proto):
        self.pending.append(defer.Deferred())
        return self.pending[-1]


def _connected(connection):
    proto = connection.buildProtocol(None)
    transport = StringTransport()
    proto.makeConnection(transport)
    return proto, transport


def _sent(transport):
    data, count = transport.value(), 0
    while data:
        data = data[4 + struct.unpack(">i", data[:4])[0] :]
        count += 1
    return count


def test_a_broker_connection_logs_in_again_before_its_session_ends_and_requests_wait_for_it():
    clock = MemoryReactorClock()
    logins = Logins()
    connection = BrokerConnection(clock, "h", 9092, "replica-fetcher-0-1", security=ListenerSecurity(None, logins))
    connection.request(*METADATA, {"topics": []})
    proto, transport = _connected(connection)
    assert len(logins.pending) == 1 and _sent(transport) == 0
    logins.pending[0].callback(LIFETIME_MS)
    assert _sent(transport) == 1 and len(proto._in_flight) == 1
    clock.advance(LIFETIME_MS / 1000 * 0.85 - 0.01)
    connection.request(*METADATA, {"topics": []})
    assert len(logins.pending) == 1 and _sent(transport) == 2  # not yet: no login again
    clock.advance(LIFETIME_MS / 1000 * 0.10 + 0.02)
    for _ in range(2):
        connection.request(*METADATA, {"topics": []})
    assert len(logins.pending) == 2 and _sent(transport) == 2  # one login again; both requests wait for it
    logins.pending[1].callback(LIFETIME_MS)
    assert _sent(transport) == 4 and connection.protocol_instance is proto and not transport.disconnecting
    assert len(proto._in_flight) == 4  # every request sent on the one connection, awaiting its answer
    clock.advance(LIFETIME_MS / 1000 * 0.85 - 0.01)
    connection.request(*METADATA, {"topics": []})
    assert len(logins.pending) == 2  # the new session's lifetime counts from the login again


def test_a_failed_login_again_drops_the_connection_and_fails_the_waiting_requests():
    clock = MemoryReactorClock()
    logins = Logins()
    connection = BrokerConnection(clock, "h", 9092, "controller-1", security=ListenerSecurity(None, logins))
    connection.request(*METADATA, {"topics": []})
    proto, transport = _connected(connection)
    logins.pending[0].callback(LIFETIME_MS)
    clock.advance(LIFETIME_MS / 1000)
    failures = []
    connection.request(*METADATA, {"topics": []}).addErrback(failures.append)
    logins.pending[1].errback(ConnectionClosed("SASL authentication failed"))
    assert failures and failures[0].check(ConnectionClosed)
    assert transport.disconnecting and connection.protocol_instance is None


def test_a_session_without_a_lifetime_is_never_renewed():
    clock = MemoryReactorClock()
    logins = Logins()
    connection = BrokerConnection(clock, "h", 9092, "replica-fetcher-0-1", security=ListenerSecurity(None, logins))
    connection.request(*METADATA, {"topics": []})
    _connected(connection)
    logins.pending[0].callback(0)
    clock.advance(365 * 86400)
    connection.request(*METADATA, {"topics": []})
    assert len(logins.pending) == 1


def test_the_client_connection_logs_in_again_on_the_same_socket(monkeypatch):
    now = [100.0]
    connection = client_connection.BrokerConnection(
        "h", 9092, security=dict(PLAIN_LOGIN, **{"sasl.username": "u", "sasl.password": "p"}), monotonic=lambda: now[0]
    )
    sent = []

    def round_trip(api_key, version, body, timeout):
        sent.append(api_key)
        if api_key == 17:
            return {"error_code": Errors.NONE, "mechanisms": ["PLAIN"]}
        if api_key == 36:
            return {"error_code": Errors.NONE, "auth_bytes": b"", "session_lifetime_ms": LIFETIME_MS}
        return {"api": api_key}

    socket_in_use = object()
    monkeypatch.setattr(connection, "_round_trip", round_trip)
    connection._sock, connection._broker_versions = socket_in_use, {3: (0, 9)}
    connection._authenticate()
    assert sent == [17, 36]
    now[0] += LIFETIME_MS / 1000 * 0.85 - 0.01
    connection.request(3, {"topics": []}, version=1)
    assert sent == [17, 36, 3]
    now[0] += LIFETIME_MS / 1000 * 0.10 + 0.02
    connection.request(3, {"topics": []}, version=1)
    assert sent == [17, 36, 3, 17, 36, 3] and connection._sock is socket_in_use
