"""One blocking connection to one broker: framing, correlation ids and per-API version negotiation."""

import os
import socket
import ssl
import struct
import tempfile
import time

from cryptography.hazmat.primitives import serialization

from kafka_zk.client.errors import (  # noqa: F401  (KafkaClientError re-exported for callers)
    KafkaClientError,
    KafkaConnectionError,
    SaslAuthenticationError,
    SslAuthenticationError,
    UnsupportedVersionError,
    raise_for_error,
)
from kafka_zk.common.reauthentication import reauthenticate_after
from kafka_zk.protocol.api_keys import API_KEY_API_VERSIONS, API_SPECS
from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.protocol.primitives import ProtocolDecodeError
from kafka_zk.security.sasl_client import SaslClientError, client_sasl, exchange
from kafka_zk.security.ssl_config import hostname_verification, is_tls, ssl_settings, validate
from kafka_zk.security.ssl_context import cipher_list_of, enabled_protocols, key_material, trusted_certificates

_SIZE = struct.Struct(">i")
_MAX_CORRELATION_ID = 0x7FFFFFFF


class BrokerConnection:
    """A synchronous request/response channel to ``host:port``; connects lazily on first use.

    The first request on a fresh socket is ApiVersions v0; afterwards every API goes out at the highest
    version both sides support unless the caller pins one. Any socket or framing failure closes the
    connection and raises KafkaConnectionError; the next request reconnects.

    ``security``: Kafka client properties (``security.protocol``, ``ssl.truststore.*``, ``ssl.keystore.*``,
    ``ssl.key.password``, ``ssl.endpoint.identification.algorithm``, ``ssl.enabled.protocols``,
    ``ssl.cipher.suites``, librdkafka's ``ssl.ca.location``; ``sasl.mechanism``, ``sasl.jaas.config``); SSL and
    SASL_SSL connect over TLS; on SASL_PLAINTEXT and SASL_SSL every new socket logs in after ApiVersions, and logs
    in again before the session lifetime the broker granted (connections.max.reauth.ms) runs out.
    """

    def __init__(
        self,
        host,
        port,
        client_id="kafka-zk-client",
        timeout=30.0,
        security=None,
        wall_clock=time.time,
        monotonic=time.monotonic,
    ):
        """``wall_clock()``: seconds, for the issue and expiry times of unsecured OAUTHBEARER tokens;
        ``monotonic()``: seconds, for when to log in again."""
        self.security = dict(security or {})
        try:
            self._sasl = client_sasl(self.security)
        except SaslClientError as error:
            raise KafkaClientError(str(error)) from None
        self._wall_clock = wall_clock
        self._monotonic = monotonic
        self._reauthenticate_at = None
        self.host = host
        self.port = int(port)
        self.client_id = client_id
        self.timeout = timeout
        self._tls = tls_context(self.security)
        self._sock = None
        self._correlation_id = 0
        self._broker_versions = None

    def __repr__(self):
        return "BrokerConnection(%s:%d)" % (self.host, self.port)

    @property
    def connected(self):
        return self._sock is not None

    def connect(self):
        if self._sock is not None:
            if self._reauthenticate_at is not None and self._monotonic() >= self._reauthenticate_at:
                self._authenticate()
            return
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise KafkaConnectionError("cannot connect to %s:%d: %s" % (self.host, self.port, exc)) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._tls is not None:
            sock = self._handshake(sock)
        self._sock = sock
        if self._broker_versions is None:
            response = self._round_trip(API_KEY_API_VERSIONS, 0, {}, None)
            raise_for_error(response["error_code"], context="ApiVersions from %s:%d" % (self.host, self.port))
            self._broker_versions = {
                entry["api_key"]: (entry["min_version"], entry["max_version"]) for entry in response["api_keys"]
            }
        if self._sasl is not None:
            self._authenticate()

    def _authenticate(self):
        """The SASL login of a fresh socket, or the login again of a live one; a failed login closes it and raises
        SaslAuthenticationError."""
        self._reauthenticate_at = None
        steps = exchange(self._sasl, lambda: int(self._wall_clock() * 1000), self.host)
        request = next(steps)
        while True:
            api_key, version, body = request
            response = self._round_trip(api_key, version, body, None)
            try:
                request = steps.send(response)
            except StopIteration as done:
                after = reauthenticate_after(done.value or 0)
                if after is not None:
                    self._reauthenticate_at = self._monotonic() + after
                return
            except SaslClientError as error:
                self.close()
                raise SaslAuthenticationError("%s: %s" % (self._who(), error)) from None

    def _handshake(self, sock):
        try:
            return self._tls.wrap_socket(sock, server_hostname=self.host)
        except ssl.SSLError as exc:
            sock.close()
            raise SslAuthenticationError("SSL handshake with %s:%d failed: %s" % (self.host, self.port, exc)) from None
        except OSError as exc:
            sock.close()
            raise KafkaConnectionError("SSL handshake with %s:%d failed: %s" % (self.host, self.port, exc)) from None

    def close(self):
        self._reauthenticate_at = None
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def broker_versions(self):
        """{api_key: (min, max)} the broker advertised; connects if needed."""
        self.connect()
        return dict(self._broker_versions)

    def api_version(self, api_key):
        """The highest version of ``api_key`` both we and the broker support."""
        self.connect()
        ours = API_SPECS.get(api_key)
        theirs = self._broker_versions.get(api_key)
        if ours is None:
            raise UnsupportedVersionError("API key %d is unknown to this client" % api_key)
        if theirs is None:
            raise UnsupportedVersionError("The %s does not support %s (API key %d)" % (self._who(), ours.name, api_key))
        version = min(ours.max_version, theirs[1])
        if version < max(ours.min_version, theirs[0]):
            raise UnsupportedVersionError(
                "%s: no common version with %s (ours %d-%d, broker %d-%d)"
                % (ours.name, self._who(), ours.min_version, ours.max_version, theirs[0], theirs[1])
            )
        return version

    def _resolve_version(self, api_key, version):
        if version is None:
            return self.api_version(api_key)
        self.connect()
        theirs = self._broker_versions.get(api_key)
        if theirs is None or not theirs[0] <= version <= theirs[1]:
            raise UnsupportedVersionError(
                "The %s does not support API key %d at version %d" % (self._who(), api_key, version)
            )
        return version

    def request(self, api_key, body, version=None, timeout=None):
        """Send one request and return the decoded response body (a dict)."""
        self.connect()
        return self._round_trip(api_key, self._resolve_version(api_key, version), body, timeout)

    def request_with_version(self, api_key, body_for_version, timeout=None):
        """Like request, with the body built by ``body_for_version(version)``; returns (version, response)."""
        self.connect()
        version = self.api_version(api_key)
        return version, self._round_trip(api_key, version, body_for_version(version), timeout)

    def send_no_response(self, api_key, body, version=None):
        """Send a request the broker will not answer (Produce with acks=0)."""
        self.connect()
        self._send(api_key, self._resolve_version(api_key, version), body)

    def _who(self):
        return "broker %s:%d" % (self.host, self.port)

    def _next_correlation_id(self):
        self._correlation_id = (self._correlation_id + 1) & _MAX_CORRELATION_ID
        return self._correlation_id

    def _send(self, api_key, version, body):
        correlation_id = self._next_correlation_id()
        payload = encode_request(api_key, version, correlation_id, self.client_id, body)
        try:
            self._sock.sendall(_SIZE.pack(len(payload)) + payload)
        except OSError as exc:
            self._fail("send failed: %s" % exc)
        return correlation_id

    def _round_trip(self, api_key, version, body, timeout):
        correlation_id = self._send(api_key, version, body)
        if timeout is not None:
            self._sock.settimeout(timeout)
        try:
            size = _SIZE.unpack(self._recv_exact(4))[0]
            if size < 4:
                self._fail("invalid response size %d" % size)
            frame = self._recv_exact(size)
        finally:
            if timeout is not None and self._sock is not None:
                self._sock.settimeout(self.timeout)
        try:
            received_id, response = decode_response(api_key, version, frame)
        except ProtocolDecodeError as exc:
            self._fail("undecodable %s v%d response: %s" % (API_SPECS[api_key].name, version, exc))
        if received_id != correlation_id:
            self._fail("correlation id %d does not match request %d" % (received_id, correlation_id))
        return response

    def _recv_exact(self, size):
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            try:
                n = self._sock.recv_into(view[got:])
            except OSError as exc:
                self._fail("receive failed: %s" % (exc or type(exc).__name__))
            if n == 0:
                self._fail("connection closed by the broker")
            got += n
        return buf

    def _fail(self, reason):
        self.close()
        raise KafkaConnectionError("%s: %s" % (self._who(), reason))


_TLS_VERSIONS = {
    "TLSv1": ssl.TLSVersion.TLSv1,
    "TLSv1.1": ssl.TLSVersion.TLSv1_1,
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
    "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}


def tls_context(security):
    """An ssl.SSLContext from Kafka client properties, or None unless security.protocol is SSL or SASL_SSL."""
    protocol = str(security.get("security.protocol", "PLAINTEXT")).upper()
    if not is_tls(protocol):
        return None
    settings = ssl_settings(security)
    validate(settings)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    versions = enabled_protocols(settings)
    context.minimum_version = _TLS_VERSIONS[versions[0]]
    context.maximum_version = _TLS_VERSIONS[versions[-1]]
    ciphers = cipher_list_of(settings)
    if ciphers:
        context.set_ciphers(ciphers)
    trusted = trusted_certificates(settings)
    if trusted is None:
        context.load_default_certs()
    else:
        context.load_verify_locations(
            cadata="".join(cert.public_bytes(serialization.Encoding.PEM).decode() for cert in trusted)
        )
    context.check_hostname = hostname_verification(settings)
    context.verify_mode = ssl.CERT_REQUIRED
    material = key_material(settings)
    if material is not None:
        _load_key_material(context, material)
    return context


def _load_key_material(context, material):
    """The stdlib loads a client certificate from files only: write key and chain to a private temporary file."""
    pem = material.key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    pem += b"".join(cert.public_bytes(serialization.Encoding.PEM) for cert in material.chain)
    descriptor, path = tempfile.mkstemp(suffix=".pem")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(pem)
        context.load_cert_chain(path)
    finally:
        os.unlink(path)
