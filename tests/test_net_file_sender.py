"""Zero-copy Fetch sending: file regions in the protocol Writer, and FramedProtocol.send_frame sending them with
sendfile on a real socket (a socketpair with small buffers, so sends are partial), in order, through a real
twisted tcp.Connection driven by a minimal reactor; other transports (TLS) get the bytes read."""

import os
import select
import socket
import struct

import pytest
from twisted.internet import tcp
from twisted.internet.testing import StringTransport
from twisted.python import failure

from kafka_zk.log.open_files import SegmentFile
from kafka_zk.log.segment import FileSlice
from kafka_zk.net.framing import FramedProtocol
from kafka_zk.protocol.primitives import FILE_REGION_COPY_BELOW, Writer


@pytest.fixture
def segment(tmp_path):
    """A 3 MB segment file of random bytes and its SegmentFile."""
    path = tmp_path / "00000000000000000000.log"
    data = os.urandom(3 << 20)
    path.write_bytes(data)
    file = SegmentFile(str(path))
    yield file, data, path
    file.close()


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


# -- the Writer --------------------------------------------------------------------------------------------------


def test_a_large_region_stays_a_chunk_and_a_small_one_is_copied(segment):
    file, data, _ = segment
    large, small = FileSlice(file, 100, 1 << 20), FileSlice(file, 7, FILE_REGION_COPY_BELOW - 1)
    writer = Writer()
    writer.write_int32(1)
    writer.write_records(large)
    writer.write_records(small)
    chunks = writer.chunks()
    assert [type(chunk) for chunk in chunks] == [bytes, FileSlice, bytes, bytes]  # the copy is a chunk of its own
    assert chunks[1] is large
    assert writer.size() == sum(map(len, chunks)) == 4 + 4 + len(large) + 4 + len(small)
    expected = (
        struct.pack(">ii", 1, len(large))
        + data[100 : 100 + len(large)]
        + struct.pack(">i", len(small))
        + data[7 : 7 + len(small)]
    )
    assert writer.getvalue() == expected


def test_getvalue_refuses_a_region_its_file_no_longer_holds(segment):
    file, _, path = segment
    writer = Writer()
    writer.write_records(FileSlice(file, (3 << 20) - 100, 1 << 20))  # past the end of the file
    with pytest.raises(ValueError):
        writer.getvalue()


# -- sending on a real socket ------------------------------------------------------------------------------------


class MinimalReactor:
    """What a tcp.Connection asks of its reactor, with the test deciding when it is writable."""

    def __init__(self):
        self.readers, self.writers, self.later = set(), set(), []

    def addReader(self, reader):
        self.readers.add(reader)

    def removeReader(self, reader):
        self.readers.discard(reader)

    def addWriter(self, writer):
        self.writers.add(writer)

    def removeWriter(self, writer):
        self.writers.discard(writer)

    def callLater(self, _delay, function, *args):
        self.later.append((function, args))


class Connection:
    """A FramedProtocol on one end of a socketpair (small send buffer), the test reading the other end."""

    def __init__(self):
        ours, self.peer = socket.socketpair()
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        self.peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.reactor = MinimalReactor()
        self.protocol = FramedProtocol()
        self.transport = tcp.Connection(ours, self.protocol, self.reactor)
        self.transport.connected = 1
        self.protocol.makeConnection(self.transport)
        self.received = bytearray()
        self.writes = 0
        self.reads = 0

    def run(self, until, limit=100000):
        """Read the peer end and let the transport write when the socket is writable, until ``until()``."""
        for _ in range(limit):
            if until():
                return
            while self.reactor.later:
                function, args = self.reactor.later.pop(0)
                function(*args)
            writing = self.transport in self.reactor.writers
            readable, writable, _ = select.select([self.peer], [self.transport.socket] if writing else [], [], 1.0)
            if readable:
                chunk = self.peer.recv(8192)
                if not chunk:
                    return
                self.received += chunk
                self.reads += 1
            if writable and self.transport in self.reactor.writers:
                self.writes += 1
                why = self.transport.doWrite()
                if why:
                    self.transport.connectionLost(failure.Failure(why))
        raise AssertionError("not done after %d rounds" % limit)

    def close(self):
        self.peer.close()
        if not self.transport.disconnected:
            self.transport.connectionLost(failure.Failure(ConnectionError("test over")))


@pytest.fixture
def connection():
    made = Connection()
    yield made
    made.close()


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_regions_go_out_with_sendfile_in_order_over_partial_sends(segment, connection, monkeypatch):
    file, data, _ = segment
    calls = []
    real_sendfile = os.sendfile

    def counting_sendfile(*args):
        calls.append(args[3])
        return real_sendfile(*args)

    monkeypatch.setattr(os, "sendfile", counting_sendfile)
    monkeypatch.setattr(FileSlice, "read_bytes", lambda self: pytest.fail("a region was read into the process"))
    sent = []
    first = [b"head-1", FileSlice(file, 1000, 2 << 20), b"tail-1"]
    connection.protocol.send_frame(first, lambda: sent.append(1))
    connection.protocol.send_frame([b"second frame, bytes only"], lambda: sent.append(2))
    connection.protocol.send_frame([FileSlice(file, 0, 100000), FileSlice(file, 5, 70000)], lambda: sent.append(3))
    assert sent == []  # the socket took only part of the first region
    expected = (
        frame(b"head-1" + data[1000 : 1000 + (2 << 20)] + b"tail-1")
        + frame(b"second frame, bytes only")
        + frame(data[:100000] + data[5:70005])
    )
    connection.run(lambda: len(connection.received) >= len(expected))
    assert bytes(connection.received) == expected
    assert sent == [1, 2, 3]
    assert len(calls) > 10  # partial sends, resumed when the socket drained
    assert connection.writes <= connection.reads + 5  # woken by writability, never spinning
    assert connection.transport.producer is None and connection.transport not in connection.reactor.writers


def test_a_region_waiting_for_the_socket_survives_its_segment_being_closed_and_deleted(segment, connection):
    file, data, path = segment
    before = open_fds()
    connection.protocol.send_frame([FileSlice(file, 0, 3 << 20)])
    file.close()  # as a deleted or abandoned segment closes its file
    path.unlink()
    expected = frame(data)
    connection.run(lambda: len(connection.received) >= len(expected))
    assert bytes(connection.received) == expected
    assert open_fds() == before - 1  # the duplicate descriptor is closed again (the segment's is closed too)


def test_a_region_truncated_under_a_waiting_send_closes_the_connection(segment, connection):
    file, _, path = segment
    sent = []
    connection.protocol.send_frame([FileSlice(file, 0, 3 << 20)], lambda: sent.append(1))
    connection.protocol.send_frame([b"behind it"], lambda: sent.append(2))
    os.truncate(path, 1 << 20)
    connection.run(lambda: connection.transport.disconnected)
    assert len(connection.received) < 1 << 20  # never the promised 3 MB: the frame is cut off with the connection
    assert sent == [1, 2]  # dropped with the connection, so their requests are still counted
    assert connection.transport.producer is None


def test_losing_the_connection_mid_send_drops_the_queue_and_its_descriptors(segment, connection):
    file, _, _ = segment
    before = open_fds()
    sent = []
    connection.protocol.send_frame([FileSlice(file, 0, 3 << 20)], lambda: sent.append(1))
    assert open_fds() == before + 1  # the waiting region's own descriptor
    connection.transport.connectionLost(failure.Failure(ConnectionError("peer went away")))
    assert sent == [1] and open_fds() == before - 1  # its descriptor closed, and the socket's


def test_other_transports_get_the_regions_read(segment):
    file, data, _ = segment
    protocol = FramedProtocol()
    transport = StringTransport()
    protocol.makeConnection(transport)
    sent = []
    protocol.send_frame([b"x", FileSlice(file, 10, 1 << 20), b"y"], lambda: sent.append(1))
    assert transport.value() == frame(b"x" + data[10 : 10 + (1 << 20)] + b"y") and sent == [1]


def test_another_transport_closes_when_the_region_is_gone(segment):
    file, _, _ = segment
    protocol = FramedProtocol()
    transport = StringTransport()
    protocol.makeConnection(transport)
    region = FileSlice(file, 0, 1 << 20)
    file.close()
    protocol.send_frame([b"x", region])
    assert transport.value() == b"" and transport.disconnecting


def test_past_the_limit_of_held_descriptors_a_waiting_region_is_copied(segment, connection, monkeypatch):
    from kafka_zk.net import file_sender

    monkeypatch.setattr(file_sender.HELD_DESCRIPTORS, "limit", 0)
    file, data, path = segment
    before = open_fds()
    connection.protocol.send_frame([FileSlice(file, 0, 3 << 20)])
    assert open_fds() == before  # no duplicate: the rest of the region was read instead
    file.close()
    path.unlink()
    expected = frame(data)
    connection.run(lambda: len(connection.received) >= len(expected))
    assert bytes(connection.received) == expected and file_sender.HELD_DESCRIPTORS.count == 0
