"""Int32 length-prefixed framing shared by the server and client protocols."""

import logging
import struct
from collections import deque

from twisted.internet import protocol, tcp

from kafka_zk.net.file_sender import FileRegionSender
from kafka_zk.protocol.primitives import chunk_bytes, is_file_region

_SIZE = struct.Struct(">i")
log = logging.getLogger(__name__)


class FrameTooLarge(Exception):
    pass


class FramedProtocol(protocol.Protocol):
    """Splits the byte stream into frames; subclasses implement frame_received(bytes).

    Received data is held as it came (views of the chunks the transport read) until a whole frame is there; the
    frame is then copied out once, whatever the number of reads it took (a Produce request of a megabyte arrives
    in dozens)."""

    max_frame_size = 104857600
    _file_sender = None  # a FileRegionSender once a frame with a file region has been sent on plain TCP
    stamp_reads = None  # a clock's seconds(): each read's time is kept in read_at
    read_at = 0.0

    def connectionMade(self):
        # As Kafka's sockets: without TCP_NODELAY the last part of a large response waits for the peer's delayed
        # ACK (40 ms on Linux) whenever earlier data is unacknowledged, which stalls follower fetches and acks=-1.
        set_no_delay = getattr(self.transport, "setTcpNoDelay", None)
        if set_no_delay is not None:
            try:
                set_no_delay(True)
            except OSError:  # not a TCP socket
                pass
        self._chunks = deque()  # memoryviews of what has been received and not yet taken, in order
        self._buffered = 0  # bytes in _chunks
        self._frame_size = None  # the size of the frame being received, once its size field has been read
        self._refused = False
        self.stamp_reads = self.stamp_reads  # held by the instance: dataReceived's look-up is then the fast one

    def dataReceived(self, data):
        if not data or self._refused:
            return
        if self.stamp_reads is not None:
            self.read_at = self.stamp_reads()
        if data.__class__ is not bytes:  # held past this call: nothing may change it meanwhile
            data = bytes(data)
        start = 0
        if self._frame_size is None and not self._buffered:
            # most reads begin at a frame: the frames whole in them are sliced straight out
            end = len(data)
            while end - start >= 4:
                size = _SIZE.unpack_from(data, start)[0]
                if not 0 <= size <= end - start - 4 or size > self.max_frame_size:
                    break  # a partial frame (or an impossible size, which the loop below reports)
                start += 4 + size
                self.frame_received(data[start - size : start])
                if self.transport is None or getattr(self.transport, "disconnecting", False):
                    return
            if start == end:
                return
        self._chunks.append(memoryview(data)[start:])
        self._buffered += len(data) - start
        while True:
            size = self._frame_size
            if size is None:
                if self._buffered < 4:
                    return
                size = _SIZE.unpack(self._take(4))[0]
                if size < 0 or size > self.max_frame_size:
                    self.frame_size_invalid(size)
                    self._chunks.clear()
                    self._buffered = 0
                    self._refused = True  # whatever more the peer sends before the connection is gone
                    return
                self._frame_size = size
            if self._buffered < size:
                return
            self._frame_size = None
            self.frame_received(self._take(size))
            if self.transport is None or getattr(self.transport, "disconnecting", False):
                return

    def _take(self, size):
        """The next ``size`` bytes received (no more than are buffered), as bytes, copied once."""
        if not size:
            return b""
        chunks = self._chunks
        self._buffered -= size
        first = chunks[0]
        if len(first) >= size:  # within one read: most frames
            if len(first) == size:
                chunks.popleft()
            else:
                chunks[0] = first[size:]
            return bytes(first[:size])
        pieces = []
        while size:
            chunk = chunks[0]
            if len(chunk) <= size:
                pieces.append(chunks.popleft())
                size -= len(chunk)
            else:
                pieces.append(chunk[:size])
                chunks[0] = chunk[size:]
                size = 0
        return b"".join(pieces)

    def frame_size_invalid(self, size):
        self.transport.abortConnection()

    def send_frame(self, payload, sent=None):
        """Write one frame; payload is bytes or a list of chunks: bytes-like, or file regions (see
        protocol.primitives.Writer), which a plain TCP connection sends with sendfile and any other transport
        (TLS) reads and writes. ``sent()``: called once the whole frame is handed to the socket or the
        transport's buffer (at once, unless a file region waits for the socket)."""
        chunks = payload if isinstance(payload, (list, tuple)) else (payload,)
        head = _SIZE.pack(sum(map(len, chunks)))
        sender = self._file_sender
        if sender is not None and sender.busy:
            sender.send([head, *chunks], sent)
            return
        if any(map(is_file_region, chunks)):
            transport = self.transport
            if isinstance(transport, tcp.Connection):
                if sender is None:
                    sender = self._file_sender = FileRegionSender(transport, send_now)
                sender.send([head, *chunks], sent)
                return
            try:
                chunks = [chunk_bytes(chunk) for chunk in chunks]
            except (OSError, ValueError) as error:  # its file is gone: the frame cannot be completed
                log.info("closing connection: cannot read a response's records (%s)", error)
                transport.abortConnection()
                chunks = None
        if chunks is not None:
            send_now(self.transport, b"".join([head, *chunks]))
        if sent is not None:
            sent()

    def send_framed(self, frame, sent=None):
        """send_frame() of a payload that is one bytes object already carrying its size: what most responses are."""
        sender = self._file_sender
        if sender is not None and sender.busy:
            sender.send([frame], sent)
            return
        send_now(self.transport, frame)
        if sent is not None:
            sent()

    def frame_received(self, frame):
        raise NotImplementedError


def send_now(transport, data):
    """Send ``data`` on the socket at once when the transport has nothing buffered, and leave the rest to it.

    Twisted holds every write until the reactor's next poll reports the socket writable: a request handled
    now would reach a follower or a client only after whatever else this poll round does, and each write
    costs two epoll updates and a poll round of its own. Sending here keeps request order (anything
    already buffered goes first, so ``data`` then queues behind it)."""
    # Only a plain TCP transport: a TLS transport wraps one and passes its attributes (the raw socket) through.
    # A closed tcp.Connection has dropped its socket attribute (a response can complete after the client left).
    sock = getattr(transport, "socket", None) if isinstance(transport, tcp.Connection) else None
    if (
        sock is None
        or not transport.connected
        or transport.disconnecting
        or getattr(transport, "_aborting", False)
        or getattr(transport, "offset", 0) != len(getattr(transport, "dataBuffer", b""))
        or getattr(transport, "_tempDataLen", 1)
    ):
        transport.write(data)
        return
    try:
        sent = sock.send(data)
    except OSError:  # EAGAIN, or a broken connection the transport discovers and reports itself
        sent = 0
    if sent < len(data):
        transport.write(data[sent:] if sent else data)
