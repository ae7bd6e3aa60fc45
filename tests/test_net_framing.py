"""FramedProtocol's receive side: frames however the stream is cut into reads, each handed over as bytes."""

import random
import struct

from twisted.internet.testing import StringTransport

from kafka_zk.net.framing import FramedProtocol


class Collecting(FramedProtocol):
    max_frame_size = 1 << 20

    def __init__(self):
        self.frames = []
        self.invalid = []

    def frame_received(self, frame):
        assert type(frame) is bytes
        self.frames.append(frame)

    def frame_size_invalid(self, size):
        self.invalid.append(size)
        self.transport.loseConnection()


def connected():
    framed = Collecting()
    framed.makeConnection(StringTransport())
    return framed


def framed(payload):
    return struct.pack(">i", len(payload)) + payload


def test_frames_come_out_whole_however_the_stream_is_cut():
    rng = random.Random(7)
    payloads = [bytes(rng.randrange(256) for _ in range(size)) for size in (0, 1, 3, 4, 5, 100, 70000, 2, 300000)]
    stream = b"".join(framed(payload) for payload in payloads)
    for cuts in ([], [1, 2, 3], [4], [5, 6, 7, 8], sorted(rng.sample(range(1, len(stream)), 200)), list(range(1, 200))):
        protocol = connected()
        for start, end in zip([0] + cuts, cuts + [len(stream)]):
            protocol.dataReceived(stream[start:end])
        assert protocol.frames == payloads
        assert protocol._buffered == 0 and not protocol._chunks


def test_a_read_passed_as_a_bytearray_may_change_afterwards():
    protocol = connected()
    data = bytearray(framed(b"abcdef"))
    protocol.dataReceived(data[:7])
    data[4:10] = b"XXXXXX"
    protocol.dataReceived(bytes(data[7:]))
    assert protocol.frames == [b"abcXXX"]


def test_an_impossible_size_refuses_the_rest_of_the_stream():
    protocol = connected()
    protocol.dataReceived(framed(b"ok") + struct.pack(">i", (1 << 20) + 1) + b"junk")
    protocol.dataReceived(framed(b"later"))
    assert protocol.frames == [b"ok"] and protocol.invalid == [(1 << 20) + 1]
    negative = connected()
    negative.dataReceived(struct.pack(">i", -5))
    assert negative.invalid == [-5] and negative.frames == []


def test_nothing_is_read_after_the_frame_that_closed_the_connection():
    class ClosingOnFirst(Collecting):
        def frame_received(self, frame):
            super().frame_received(frame)
            self.transport.loseConnection()

    protocol = ClosingOnFirst()
    protocol.makeConnection(StringTransport())
    protocol.dataReceived(framed(b"one") + framed(b"two"))
    assert protocol.frames == [b"one"]


class TcpTransport(StringTransport):
    """What a TCP connection offers besides bytes: its TCP_NODELAY switch (Twisted's ITCPTransport)."""

    def __init__(self, refuse=False):
        super().__init__()
        self.no_delay = False
        self.refuse = refuse

    def setTcpNoDelay(self, enabled):
        if self.refuse:
            raise OSError(95, "Operation not supported")
        self.no_delay = bool(enabled)


def test_a_tcp_connection_sends_without_nagles_delay_as_kafkas_sockets_do():
    transport = TcpTransport()
    Collecting().makeConnection(transport)
    assert transport.no_delay


def test_a_connection_that_cannot_switch_nagle_off_still_works():
    for transport in (StringTransport(), TcpTransport(refuse=True)):
        protocol = Collecting()
        protocol.makeConnection(transport)
        protocol.dataReceived(framed(b"abc"))
        assert protocol.frames == [b"abc"]
