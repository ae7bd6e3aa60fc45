"""A TLS listener's transport in memory: many small TLS records (as librdkafka writes them) reach the protocol
intact and together, responses leave at once, and a close_notify, a broken record or a lost connection end it
as Twisted's would."""

import pytest
from OpenSSL import SSL
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.testing import StringTransport
from twisted.python import failure

from kafka_zk.security import tls_transport
from kafka_zk.security.ssl_config import ssl_settings
from tests.tls_support import PASSWORD, new_ca, server_leaf, write_keystore


class Recording(Protocol):
    def __init__(self):
        self.chunks = []
        self.lost = None

    def dataReceived(self, data):
        self.chunks.append(data)

    def connectionLost(self, reason):
        self.lost = reason


@pytest.fixture(scope="module")
def server_tls(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls-receive")
    return tls_transport.ServerTls(
        ssl_settings(
            {
                "ssl.keystore.type": "PKCS12",
                "ssl.keystore.password": PASSWORD,
                "ssl.keystore.location": write_keystore(server_leaf(new_ca()), folder / "server.p12", "PKCS12"),
            }
        )
    )


class Pair:
    """The listener's TLS protocol over a StringTransport, and a pyOpenSSL client over memory BIOs."""

    def __init__(self, server_tls):
        self.app = Recording()
        self.server = server_tls.wrap(Factory.forProtocol(lambda: self.app)).buildProtocol(None)
        self.wire = StringTransport()
        self.server.makeConnection(self.wire)
        self.client = SSL.Connection(SSL.Context(SSL.TLS_METHOD), None)
        self.client.set_connect_state()
        for _ in range(10):
            try:
                self.client.do_handshake()
            except SSL.WantReadError:
                pass
            self.to_server()
            back = self.wire.value()
            self.wire.clear()
            if back:
                self.client.bio_write(back)

    def client_bytes(self):
        data = b""
        while True:
            try:
                data += self.client.bio_read(65536)
            except SSL.WantReadError:
                return data

    def to_server(self):
        data = self.client_bytes()
        if data:
            self.server.dataReceived(data)


def test_the_listener_uses_the_gathering_transport(server_tls):
    assert isinstance(Pair(server_tls).server, tls_transport.GatheringTlsTransport)


def test_small_records_of_one_read_reach_the_protocol_in_one_call(server_tls):
    pair = Pair(server_tls)
    slices = [b"%04d" % index + b"v" * (index % 120) for index in range(500)]
    for piece in slices:
        pair.client.send(piece)  # one TLS record each
    pair.to_server()
    assert pair.app.chunks == [b"".join(slices)]


def test_records_larger_than_one_read_buffer_arrive_whole(server_tls):
    pair = Pair(server_tls)
    big = bytes(range(256)) * 300  # 76,800 bytes: five TLS records
    pair.client.sendall(big)
    data = pair.client_bytes()
    for start in range(0, len(data), 1000):  # the socket hands over arbitrary pieces
        pair.server.dataReceived(data[start : start + 1000])
    assert b"".join(pair.app.chunks) == big


def test_close_notify_ends_the_connection_after_the_data_before_it(server_tls):
    pair = Pair(server_tls)
    pair.client.send(b"last words")
    try:
        pair.client.shutdown()
    except SSL.Error:
        pass
    pair.to_server()
    assert pair.app.chunks == [b"last words"]
    assert pair.wire.disconnecting


def test_a_corrupted_record_drops_the_connection(server_tls):
    pair = Pair(server_tls)
    pair.client.send(b"fine")
    pair.to_server()
    pair.client.send(b"x" * 100)
    data = bytearray(pair.client_bytes())
    data[-5] ^= 0xFF  # a flipped bit fails the record's authentication tag
    pair.server.dataReceived(bytes(data))
    assert pair.app.chunks == [b"fine"]
    assert pair.wire.disconnecting
    pair.server.connectionLost(failure.Failure(ConnectionError("gone")))
    assert isinstance(pair.app.lost.value, SSL.Error)


def test_the_public_read_path_behaves_the_same(server_tls, monkeypatch):
    monkeypatch.setattr(tls_transport, "_read_record", tls_transport._public_read)
    pair = Pair(server_tls)
    for piece in (b"a", b"bc", b"def"):
        pair.client.send(piece)
    pair.to_server()
    assert pair.app.chunks == [b"abcdef"]


def test_a_response_is_encrypted_and_handed_to_the_socket_at_once(server_tls):
    pair = Pair(server_tls)
    pair.server.write(b"response frame")  # no reactor iteration in between
    pair.server.writeSequence([b" and ", b"another"])
    pair.client.bio_write(pair.wire.value())
    assert pair.client.recv(1000) + pair.client.recv(1000) == b"response frame and another"
