"""Zero-copy frame sending: file regions of a frame go from the segment file to a plain TCP socket with sendfile.

As Kafka's FileRecords.writeTo on a PlaintextTransportLayer: record data a Fetch response carries as a file region
(see protocol.primitives.FILE_REGION_COPY_BELOW) is not read into the process; the kernel copies it from the page
cache to the socket. Frames leave in the order they were given: bytes go through the transport (written at once
when its buffer is empty, see framing.send_now); a region waits until Twisted's buffer is empty, and when the socket
is full the sender waits for it to drain as the transport's pull producer (Twisted asks it to resume when the
transport's buffer is empty and the socket writable), so nothing busy-loops. Anything behind a region that is still
being sent queues behind it.

A region waiting for the socket holds a duplicate of its file's descriptor: a segment deleted, closed or let go
of meanwhile cannot take the data away (an unlinked file stays readable through it). Those duplicates count
against the process's descriptors beside the segments' budget (log.open_files), so there are at most
HELD_DESCRIPTORS.limit of them at once; past it a waiting region is read and waits as bytes (a copy, as before).
A region the file no longer holds whole (truncated under it) cannot complete its frame: as Kafka does, the
connection is then closed.
"""

import logging
import os
from collections import deque

from kafka_zk.log.open_files import SEGMENT_FILES
from kafka_zk.protocol.primitives import BYTES_LIKE

log = logging.getLogger(__name__)


class HeldDescriptors:
    """How many duplicated descriptors waiting regions hold, process-wide, and how many they may."""

    def __init__(self, limit):
        self.limit = limit
        self.count = 0


def _held_limit():
    capacity = SEGMENT_FILES.capacity
    return max(4, (capacity if capacity is not None else 4096) // 8)


HELD_DESCRIPTORS = HeldDescriptors(_held_limit())


class _Region:
    """What is left to send of one file region."""

    __slots__ = ("region", "position", "remaining", "fd")

    def __init__(self, region):
        self.region = region
        self.position = region.position
        self.remaining = len(region)
        self.fd = None

    def hold(self):
        """Own a duplicate descriptor of the region's file from now on; False (nothing done) when the process
        holds as many as it may."""
        if self.fd is None:
            if HELD_DESCRIPTORS.count >= HELD_DESCRIPTORS.limit:
                return False
            self.fd = os.dup(self.region.fileno())
            HELD_DESCRIPTORS.count += 1
            self.region = None
        return True

    def rest(self):
        """The bytes still to send, read from the file."""
        fd = self.fd if self.fd is not None else self.region.fileno()
        data = os.pread(fd, self.remaining, self.position)
        if len(data) != self.remaining:
            raise ValueError("the file ends %d bytes before the end of the region" % (self.remaining - len(data)))
        return data

    def release(self):
        fd, self.fd = self.fd, None
        if fd is not None:
            HELD_DESCRIPTORS.count -= 1
            os.close(fd)

    def send_to(self, socket_fd):
        """Send as much as the socket takes: True when all of it is sent, False when the socket is full."""
        fd = self.fd if self.fd is not None else self.region.fileno()
        while self.remaining:
            try:
                sent = os.sendfile(socket_fd, fd, self.position, self.remaining)
            except BlockingIOError:
                return False
            except InterruptedError:
                continue
            if sent == 0:
                raise ValueError("the file ends %d bytes before the end of the region" % self.remaining)
            self.position += sent
            self.remaining -= sent
        return True


class FileRegionSender:
    """Sends one plain TCP connection's frames in order, file regions with sendfile (an IPullProducer)."""

    def __init__(self, transport, send_bytes):
        """``send_bytes(transport, data)``: how bytes are written (framing.send_now)."""
        self.transport = transport
        self._send_bytes = send_bytes
        self._queue = deque()  # bytes-like, _Region, or a frame's callback (called once it is all sent)
        self._registered = False
        self._sending = False

    @property
    def busy(self):
        """Whether something is still queued: anything sent now must go behind it."""
        return bool(self._queue)

    def send(self, chunks, sent=None):
        """Queue one frame's chunks (bytes-like or file regions) and send what the socket takes now; ``sent()``
        is called once the whole frame has been handed to the socket or the transport's buffer, or dropped with
        the connection."""
        queue = self._queue
        for chunk in chunks:
            if isinstance(chunk, BYTES_LIKE):
                if len(chunk):
                    queue.append(chunk)
            elif len(chunk):
                queue.append(_Region(chunk))
        if sent is not None:
            queue.append(sent)
        if not self._registered:
            self._pump()

    # -- IPullProducer: called by the transport when its buffer is empty and the socket writable ----------

    def resumeProducing(self):
        self._pump()

    def stopProducing(self):
        """The connection is gone: drop what is queued."""
        self._registered = False
        self._drop()

    # -- internals -----------------------------------------------------------------------------------

    def _pump(self):
        if self._sending:  # registerProducer calls resumeProducing at once
            return
        self._sending = True
        try:
            self._drain()
        except (OSError, ValueError) as error:  # the socket broke, or the file cannot give the region's bytes
            log.info("closing connection to %s: cannot send a response (%s)", _peer(self.transport), error)
            self._drop()
            self.transport.abortConnection()
        finally:
            self._sending = False

    def _drain(self):
        queue = self._queue
        transport = self.transport
        while queue:
            if not transport.connected or transport.disconnected or getattr(transport, "_aborting", False):
                self._drop()
                return
            item = queue[0]
            if item.__class__ is _Region:
                if (
                    transport.offset != len(transport.dataBuffer)
                    or transport._tempDataLen
                    or not item.send_to(transport.fileno())
                ):
                    self._wait()
                    return
                queue.popleft()
                item.release()
            elif callable(item):
                queue.popleft()
                item()
            else:
                pieces = [queue.popleft()]
                while queue and isinstance(queue[0], BYTES_LIKE):
                    pieces.append(queue.popleft())
                self._send_bytes(transport, pieces[0] if len(pieces) == 1 else b"".join(pieces))
        if self._registered:
            self._registered = False
            transport.unregisterProducer()

    def _wait(self):
        """Resume when the transport's buffer is empty and the socket can take more."""
        queue = self._queue
        for index in range(len(queue)):
            item = queue[index]
            if item.__class__ is _Region and not item.hold():
                queue[index] = item.rest()
        transport = self.transport
        if not self._registered:
            self._registered = True
            transport.registerProducer(self, False)
        transport.startWriting()

    def _drop(self):
        queue = self._queue
        while queue:
            item = queue.popleft()
            if item.__class__ is _Region:
                item.release()
            elif callable(item):
                item()


def _peer(transport):
    try:
        peer = transport.getPeer()
        return "%s:%s" % (peer.host, peer.port)
    except Exception:
        return "?"
