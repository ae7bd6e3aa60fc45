"""The broker-to-broker client's request timeout (replica.socket.timeout.ms, controller.socket.timeout.ms): an
unanswered request drops its connection, as Kafka's NetworkClient does, so a peer whose packets vanished (a cut
network) is retried on a fresh connection instead of waiting on TCP retransmissions."""

import struct

from twisted.internet.error import ConnectionAborted
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.python.failure import Failure

from kafka_zk.net.broker_client import BrokerConnection, RequestTimedOut, is_connection_error
from kafka_zk.protocol.headers import encode_response

METADATA = (3, 1)


def _connected(connection):
    """Complete the connection the factory asked the reactor for, on an in-memory transport."""
    proto = connection.buildProtocol(None)
    transport = StringTransport()
    proto.makeConnection(transport)
    return proto, transport


def _answer(proto, correlation_id):
    payload = encode_response(3, 1, correlation_id, {"brokers": [], "controller_id": 1, "topics": []})
    proto.dataReceived(struct.pack(">i", len(payload)) + payload)


def test_an_unanswered_request_fails_after_the_timeout_and_drops_the_connection():
    clock = MemoryReactorClock()
    connection = BrokerConnection(clock, "198.18.0.21", 9092, "replica-fetcher-0-0", request_timeout_s=3.0)
    first = connection.request(*METADATA, {"topics": []})
    proto, transport = _connected(connection)
    failures = []
    first.addErrback(failures.append)
    second = proto.request(*METADATA, {"topics": []})
    second.addErrback(failures.append)
    clock.advance(2.9)
    assert not failures and not transport.disconnecting
    clock.advance(0.2)
    assert failures and failures[0].check(RequestTimedOut) and is_connection_error(failures[0])
    assert "timed out after 3.0s" in failures[0].getErrorMessage()
    assert transport.disconnecting and connection.protocol_instance is None
    proto.connectionLost(Failure(ConnectionAborted()))
    assert len(failures) == 2  # the request behind it fails with the connection
    connection.request(*METADATA, {"topics": []})
    assert len(clock.tcpClients) == 2  # the next request goes out on a new connection


def test_answers_in_time_keep_the_connection_and_restart_the_clock_for_the_next_request():
    clock = MemoryReactorClock()
    connection = BrokerConnection(clock, "198.18.0.21", 9092, "controller-1", request_timeout_s=3.0)
    connection.request(*METADATA, {"topics": []})
    proto, transport = _connected(connection)
    answered = []
    proto._in_flight[0][3].addCallback(answered.append)
    clock.advance(2.0)
    later = proto.request(*METADATA, {"topics": []})
    later.addErrback(answered.append)
    _answer(proto, 1)
    clock.advance(2.5)  # 4.5 s after the first request, 2.5 s after the second
    assert len(answered) == 1 and not transport.disconnecting
    clock.advance(0.6)
    assert answered[-1].check(RequestTimedOut) and transport.disconnecting


def test_without_a_timeout_a_request_waits_for_as_long_as_the_connection_lives():
    clock = MemoryReactorClock()
    connection = BrokerConnection(clock, "198.18.0.21", 9092, "tool")
    connection.request(*METADATA, {"topics": []})
    proto, transport = _connected(connection)
    clock.advance(3600)
    assert len(proto._in_flight) == 1 and not transport.disconnecting and not clock.getDelayedCalls()
