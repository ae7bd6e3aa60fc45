"""Int32 length-prefixed framing shared by the server and client protocols."""

import logging
import struct

from twisted.internet import protocol, tcp

from kafka_zk.net.file_sender import FileRegionSender
from kafka_zk.protocol.primitives import is_file_region, region_bytes

_SIZE = struct.Struct(">i")
log = logging.getLogger(__name__)


class FrameTooLarge(Exception):
    pass


class FramedProtocol(protocol.Protocol):
    """Splits the byte stream into frames; subclasses implement frame_received(bytes)."""

    max_frame_size = 104857600
    _file_sender = None  # a FileRegionSender once a frame with a file region has been sent on plain TCP

    def connectionMade(self):
        self._buffer = bytearray()

    def dataReceived(self, data):
        buffer = self._buffer
        buffer += data
        while len(buffer) >= 4:
            size = _SIZE.unpack_from(buffer, 0)[0]
            if size < 0 or size > self.max_frame_size:
                self.frame_size_invalid(size)
                return
            if len(buffer) < 4 + size:
                return
            frame = bytes(buffer[4:4 + size])
            del buffer[:4 + size]
            self.frame_received(frame)
            if self.transport is None or getattr(self.transport, "disconnecting", False):
                return

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
                chunks = [region_bytes(chunk) if is_file_region(chunk) else chunk for chunk in chunks]
            except (OSError, ValueError) as error:  # its file is gone: the frame cannot be completed
                log.info("closing connection: cannot read a response's records (%s)", error)
                transport.abortConnection()
                chunks = None
        if chunks is not None:
            send_now(self.transport, b"".join([head, *chunks]))
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
    if (sock is None or not transport.connected or transport.disconnecting or getattr(transport, "_aborting", False)
            or getattr(transport, "offset", 0) != len(getattr(transport, "dataBuffer", b""))
            or getattr(transport, "_tempDataLen", 1)):
        transport.write(data)
        return
    try:
        sent = sock.send(data)
    except OSError:  # EAGAIN, or a broken connection the transport discovers and reports itself
        sent = 0
    if sent < len(data):
        transport.write(data[sent:] if sent else data)
