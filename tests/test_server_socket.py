"""The listener protocol in memory: framing, ordering, and what happens to bad input."""

import socket
import struct

import pytest
from twisted.internet import defer, task, tcp
from twisted.internet.error import ConnectionDone
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.python import failure

from kafka_zk.net.framing import FramedProtocol
from kafka_zk.net.socket_server import KafkaServerFactory
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.server import apis
from kafka_zk.server.apis.fetch import ParkedAnswer


def connect(dispatcher, max_frame=1024 * 1024):
    """A connection to a listener; these tests dispatch only ApiVersions, which needs no collaborator, so the
    registry's unbound handlers serve as they are."""
    protocol = KafkaServerFactory(dispatcher, task.Clock(), max_frame).buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    return protocol, transport


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


def responses(transport):
    data = transport.value()
    out = []
    while data:
        size = struct.unpack(">i", data[:4])[0]
        out.append(data[4 : 4 + size])
        data = data[4 + size :]
    return out


SOFTWARE = {"client_software_name": "kafka-zk-tests", "client_software_version": "1.0"}


def api_versions_request(version, correlation_id=1, body=None):
    """ApiVersions at ``version``, naming its software from v3 on as every client does (KIP-511)."""
    return frame(encode_request(18, version, correlation_id, "test", SOFTWARE if body is None else body))


def test_api_versions_advertises_exactly_the_registered_handlers():
    protocol, transport = connect(apis.Dispatcher(apis.HANDLERS))
    protocol.dataReceived(api_versions_request(3))
    [payload] = responses(transport)
    correlation_id, body = decode_response(18, 3, payload)
    assert correlation_id == 1 and body["error_code"] == Errors.NONE
    advertised = {entry["api_key"]: (entry["min_version"], entry["max_version"]) for entry in body["api_keys"]}
    assert advertised == {key: (low, high) for key, low, high in apis.supported_versions()}
    assert advertised[0] == (0, 8) and advertised[1] == (0, 11) and advertised[3] == (0, 9)


@pytest.mark.parametrize(
    "software",
    [
        {},
        {"client_software_name": "kafka-zk-tests", "client_software_version": ""},
        {"client_software_name": "-leading-dash", "client_software_version": "1.0"},
        {"client_software_name": "kafka-zk-tests", "client_software_version": "1.0 beta"},
    ],
)
def test_api_versions_v3_without_valid_software_names_is_an_invalid_request(software):
    """Kafka 2.5 answers INVALID_REQUEST with no API versions when a v3 request's software name or version does
    not match [a-zA-Z0-9](?:[a-zA-Z0-9-.]*[a-zA-Z0-9])?; v0-v2 carry no names."""
    protocol, transport = connect(apis.Dispatcher(apis.HANDLERS))
    protocol.dataReceived(api_versions_request(3, body=software))
    protocol.dataReceived(api_versions_request(2, correlation_id=2))
    first, second = [decode_response(18, version, payload) for version, payload in zip((3, 2), responses(transport))]
    assert first[1]["error_code"] == Errors.INVALID_REQUEST and first[1]["api_keys"] == []
    assert second[1]["error_code"] == Errors.NONE and second[1]["api_keys"]


def test_unsupported_api_versions_version_gets_error_35_in_v0_layout():
    protocol, transport = connect(apis.Dispatcher(apis.HANDLERS))
    request = bytearray(encode_request(18, 0, 7, "test", {}))
    struct.pack_into(">h", request, 2, 99)
    protocol.dataReceived(frame(bytes(request)))
    [payload] = responses(transport)
    correlation_id, body = decode_response(18, 0, payload)
    assert correlation_id == 7
    assert body["error_code"] == Errors.UNSUPPORTED_VERSION
    assert [(e["api_key"], e["min_version"], e["max_version"]) for e in body["api_keys"]] == [(18, 0, 3)]


def test_frames_split_across_reads_and_pipelined_requests_are_answered_in_order():
    gate = defer.Deferred()

    def slow(request):
        return gate.addCallback(lambda _: {"error_code": 0, "api_keys": [], "throttle_time_ms": 0})

    handlers = dict(apis.HANDLERS)
    protocol, transport = connect(apis.Dispatcher(handlers))
    handlers[18] = slow
    first = api_versions_request(0, correlation_id=1)
    protocol.dataReceived(first[:3])
    protocol.dataReceived(first[3:])
    handlers[18] = apis.HANDLERS[18]
    protocol.dataReceived(api_versions_request(0, correlation_id=2))
    assert responses(transport) == []  # the second waits for the first
    gate.callback(None)
    assert [decode_response(18, 0, payload)[0] for payload in responses(transport)] == [1, 2]


def _answering_later(parked, build):
    """An ApiVersions handler that answers later as a parked Fetch does for the listener: with a ParkedAnswer."""

    def later(request):
        assert request.answer_later  # the listener calls it directly, so it takes an answer without a Deferred
        parked.append(ParkedAnswer(build))
        return parked[-1]

    return later


def test_an_answer_given_later_without_a_deferred_keeps_the_request_order():
    parked = []
    handlers = dict(apis.HANDLERS)
    protocol, transport = connect(apis.Dispatcher(handlers))
    handlers[18] = _answering_later(parked, lambda body: body)
    protocol.dataReceived(api_versions_request(0, correlation_id=1))
    handlers[18] = apis.HANDLERS[18]
    protocol.dataReceived(api_versions_request(0, correlation_id=2))
    assert responses(transport) == []  # the second waits for the first
    parked[0].complete({"error_code": 0, "api_keys": [], "throttle_time_ms": 0})
    answers = [decode_response(18, 0, payload) for payload in responses(transport)]
    assert [correlation_id for correlation_id, _ in answers] == [1, 2]
    assert answers[0][1]["api_keys"] == [] and answers[1][1]["api_keys"]
    assert not transport.disconnecting


def test_an_answer_given_later_that_fails_to_build_answers_unknown_server_error():
    def broken(_results):
        raise RuntimeError("boom")

    parked = []
    protocol, transport = connect(apis.Dispatcher({**apis.HANDLERS, 18: _answering_later(parked, broken)}))
    protocol.dataReceived(api_versions_request(0))
    assert transport.value() == b""
    parked[0].complete({})
    [answer] = responses(transport)
    body = decode_response(18, 0, answer)[1]
    assert body["error_code"] == Errors.UNKNOWN_SERVER_ERROR and body["api_keys"] == []
    assert not transport.disconnecting


def test_bad_input_closes_the_connection():
    for data in [
        struct.pack(">i", -1),
        struct.pack(">i", 10 * 1024 * 1024),  # negative, oversize
        frame(struct.pack(">hhi", 999, 0, 1) + b"\x00\x00"),  # unknown api key
        frame(encode_request(3, 0, 1, "c", {"topics": [{"name": "t"}]})[:-2]),  # truncated
        frame(b"\x01"),  # header too short
        frame(struct.pack(">hhi", 3, 42, 1) + b"\x00\x00"),
    ]:  # unsupported Metadata version
        protocol, transport = connect(apis.Dispatcher(apis.HANDLERS))
        protocol.dataReceived(data)
        assert transport.disconnecting, data
        assert transport.value() == b""


METADATA_REQUEST = {"topics": [{"name": "t"}, {"name": "u"}], "allow_auto_topic_creation": True}


@pytest.mark.parametrize("later", [False, True], ids=["raised", "deferred"])
def test_a_handler_exception_answers_unknown_server_error_in_the_requests_own_response(later):
    """Kafka's KafkaApis.handleError: the request's getErrorResponse, and the connection goes on."""

    def broken(request):
        if later:
            return defer.fail(RuntimeError("boom"))
        raise RuntimeError("boom")

    protocol, transport = connect(apis.Dispatcher({**apis.HANDLERS, 3: broken}))
    protocol.dataReceived(frame(encode_request(3, 4, 7, "c", METADATA_REQUEST)) + api_versions_request(1, 8))
    metadata, versions = responses(transport)
    correlation_id, body = decode_response(3, 4, metadata)
    assert correlation_id == 7 and body["brokers"] == [] and body["controller_id"] == -1
    assert [(topic["name"], topic["error_code"]) for topic in body["topics"]] == [
        ("t", Errors.UNKNOWN_SERVER_ERROR),
        ("u", Errors.UNKNOWN_SERVER_ERROR),
    ]
    assert decode_response(18, 1, versions)[1]["error_code"] == Errors.NONE
    assert not transport.disconnecting


def test_a_handler_exception_on_an_acks_0_produce_closes_the_connection():
    """ProduceRequest.getErrorResponse is null for acks=0: Kafka closes the connection instead."""

    def broken(request):
        raise RuntimeError("boom")

    protocol, transport = connect(apis.Dispatcher({**apis.HANDLERS, 0: broken}))
    produce = {"transactional_id": None, "acks": 0, "timeout_ms": 1000, "topics": [{"name": "t", "partitions": []}]}
    protocol.dataReceived(frame(encode_request(0, 8, 1, "c", produce)))
    assert transport.disconnecting and transport.value() == b""


def _framed_on(sock, reactor):
    """A FramedProtocol on a real Twisted TCP transport over ``sock``, driven by hand."""
    framed = FramedProtocol()
    transport = tcp.Connection(sock, framed, reactor)
    transport.connected = 1
    framed.makeConnection(transport)
    return framed, transport


def test_frames_leave_at_once_when_nothing_is_buffered_and_queue_in_order_behind_a_partial_send():
    ours, peer = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    ours.setblocking(False)
    peer.settimeout(5)
    reactor = MemoryReactorClock()
    framed, transport = _framed_on(ours, reactor)

    def received(size):
        data = b""
        while len(data) < size:
            data += peer.recv(size - len(data))
        return data

    framed.send_frame([b"ab", memoryview(b"cd")])
    assert received(8) == frame(b"abcd")  # on the socket without a reactor round
    assert transport not in reactor.writers

    big, small = b"x" * 4_000_000, b"after"
    framed.send_frame(big)  # far more than the socket takes: the rest waits in the transport
    framed.send_frame(small)
    assert transport in reactor.writers
    expected = frame(big) + frame(small)
    data = b""
    while len(data) < len(expected):
        data += peer.recv(1 << 20)
        transport.doWrite()
    assert data == expected
    ours.close()
    peer.close()


def test_an_aborted_connection_sends_nothing_more_before_its_connection_lost():
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    peer.setblocking(False)
    framed, transport = _framed_on(ours, MemoryReactorClock())
    transport.abortConnection()
    framed.send_frame(b"late")
    try:
        assert peer.recv(100) == b""
    except BlockingIOError:
        pass
    ours.close()
    peer.close()


def test_a_response_completing_after_the_connection_was_lost_is_dropped_quietly():
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    framed, transport = _framed_on(ours, MemoryReactorClock())
    transport.connectionLost(failure.Failure(ConnectionDone()))  # a tcp.Connection drops its socket attribute here
    assert not hasattr(transport, "socket")
    framed.send_frame(b"late")  # a slow handler answering now must not raise
    ours.close()
    peer.close()


def test_a_response_that_cannot_be_encoded_closes_the_connection_instead_of_stalling_it():
    # e.g. a Fetch response whose records a truncated segment no longer holds (see protocol.primitives)
    handlers = dict(apis.HANDLERS)
    handlers[18] = lambda request: {"error_code": 0, "api_keys": [{"api_key": "not a number"}], "throttle_time_ms": 0}
    protocol, transport = connect(apis.Dispatcher(handlers))
    protocol.dataReceived(api_versions_request(2))
    assert transport.value() == b"" and transport.disconnecting
