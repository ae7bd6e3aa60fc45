"""Kafka frames over a plain socket, for the tests that speak to a broker below any client (SASL exchanges, fuzz)."""

import struct


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


def read_frame(sock):
    def exactly(count):
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            assert chunk, "connection closed"
            data += chunk
        return data

    return exactly(struct.unpack(">i", exactly(4))[0])


def closed_by_broker(sock):
    """Reads until the broker closes the connection (True), then closes the socket."""
    try:
        while sock.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    finally:
        sock.close()
