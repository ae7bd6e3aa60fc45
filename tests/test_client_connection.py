"""BrokerConnection: version negotiation, framing, correlation ids and connection failures."""

import socket
import struct
import threading

import pytest

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import KafkaConnectionError, UnsupportedVersionError
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.headers import decode_request, encode_response
from tests.client_fake_broker import FakeCluster
from tests.raw_wire import produce_body


@pytest.fixture
def fake():
    cluster = FakeCluster()
    cluster.create_topic("t", 2)
    yield cluster
    cluster.stop()


def _connect(fake):
    return BrokerConnection("127.0.0.1", fake.brokers[0].port, client_id="test", timeout=5)


def test_negotiates_the_highest_common_version(fake):
    fake.brokers[0].api_versions = [(18, 0, 3), (0, 0, 3), (3, 1, 12)]
    conn = _connect(fake)
    try:
        assert conn.api_version(0) == 3
        assert conn.api_version(3) == API_SPECS[3].max_version
        with pytest.raises(UnsupportedVersionError):
            conn.api_version(1)  # the broker does not advertise Fetch
    finally:
        conn.close()
    # The handshake is ApiVersions v0, sent once.
    assert [(key, version) for _, key, version, _ in fake.requests] == [(18, 0)]


def test_no_common_version_is_a_clear_error(fake):
    fake.brokers[0].api_versions = [(18, 0, 3), (0, 9, 12)]
    conn = _connect(fake)
    try:
        with pytest.raises(UnsupportedVersionError, match="Produce"):
            conn.api_version(0)
    finally:
        conn.close()


def test_request_round_trip_uses_negotiated_version(fake):
    conn = _connect(fake)
    try:
        response = conn.request(3, {"topics": [{"name": "t"}]})
        assert [t["name"] for t in response["topics"]] == ["t"]
        response = conn.request(3, {"topics": None}, version=1)
        assert response["controller_id"] == 0
    finally:
        conn.close()
    versions = [version for _, key, version, _ in fake.requests if key == 3]
    assert versions == [API_SPECS[3].max_version, 1]


def test_refused_connection_raises_connection_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    conn = BrokerConnection("127.0.0.1", port, timeout=2)
    with pytest.raises(KafkaConnectionError, match="cannot connect"):
        conn.request(3, {"topics": []})


def _one_shot_server(reply):
    """A server that answers ApiVersions properly, then calls reply(conn, header) for the next request."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def serve():
        conn, _ = server.accept()
        with conn:
            for handler in ("versions", "reply"):
                size = struct.unpack(">i", conn.recv(4, socket.MSG_WAITALL))[0]
                header, _ = decode_request(conn.recv(size, socket.MSG_WAITALL))
                if handler == "versions":
                    body = {
                        "error_code": 0,
                        "api_keys": [
                            {"api_key": 18, "min_version": 0, "max_version": 3},
                            {"api_key": 3, "min_version": 0, "max_version": 9},
                        ],
                    }
                    payload = encode_response(18, 0, header.correlation_id, body)
                    conn.sendall(struct.pack(">i", len(payload)) + payload)
                else:
                    reply(conn, header)
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1]


def test_mismatched_correlation_id_closes_the_connection():
    def reply(conn, header):
        body = {"throttle_time_ms": 0, "brokers": [], "topics": []}
        payload = encode_response(3, header.api_version, header.correlation_id + 5, body)
        conn.sendall(struct.pack(">i", len(payload)) + payload)

    conn = BrokerConnection("127.0.0.1", _one_shot_server(reply), timeout=5)
    with pytest.raises(KafkaConnectionError, match="correlation id"):
        conn.request(3, {"topics": []})
    assert not conn.connected


def test_broker_closing_mid_request_raises_and_next_request_reconnects(fake):
    port = _one_shot_server(lambda conn, header: None)
    conn = BrokerConnection("127.0.0.1", port, timeout=5)
    with pytest.raises(KafkaConnectionError, match="closed"):
        conn.request(3, {"topics": []})
    assert not conn.connected
    # Same object, pointed at a live broker now: it reconnects on the next request.
    conn.port = fake.brokers[0].port
    assert conn.request(3, {"topics": []})["cluster_id"] == "fake"


def test_send_no_response_then_request_keeps_frames_aligned(fake):
    from kafka_zk.record.records import encode_batch

    conn = _connect(fake)
    try:
        conn.send_no_response(0, produce_body("t", 0, encode_batch([(None, b"x")]), acks=0, timeout_ms=1000))
        assert conn.request(3, {"topics": [{"name": "t"}]})["topics"][0]["name"] == "t"
    finally:
        conn.close()
    assert [r.value for r in fake.records("t", 0)] == [b"x"]
