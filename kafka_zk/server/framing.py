"""Int32 length-prefixed framing shared by the server and client protocols."""

import struct

from twisted.internet import protocol

_SIZE = struct.Struct(">i")


class FrameTooLarge(Exception):
    pass


class FramedProtocol(protocol.Protocol):
    """Splits the byte stream into frames; subclasses implement frame_received(bytes)."""

    max_frame_size = 104857600

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

    def send_frame(self, payload):
        """Write one frame; payload is bytes or a list of byte chunks."""
        if isinstance(payload, (list, tuple)):
            chunks = [chunk if isinstance(chunk, bytes) else bytes(chunk) for chunk in payload]
            self.transport.writeSequence([_SIZE.pack(sum(map(len, chunks)))] + chunks)
        else:
            self.transport.writeSequence([_SIZE.pack(len(payload)), payload])

    def frame_received(self, frame):
        raise NotImplementedError
