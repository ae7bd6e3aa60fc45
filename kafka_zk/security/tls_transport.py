"""TLS on the Twisted reactor: listeners' server connections (their certificate replaceable at runtime),
broker-to-broker client connections with Kafka's hostname check, and each listener's principal builder."""

import ipaddress
import logging

from OpenSSL import SSL
from service_identity import VerificationError
from service_identity.cryptography import verify_certificate_hostname, verify_certificate_ip_address
from twisted.internet.interfaces import IOpenSSLClientConnectionCreator, IOpenSSLServerConnectionCreator
from twisted.protocols.policies import ProtocolWrapper
from twisted.protocols.tls import TLSMemoryBIOFactory, TLSMemoryBIOProtocol
from twisted.python.failure import Failure
from zope.interface import implementer

from kafka_zk.net.framing import send_now
from kafka_zk.security.principal import ANONYMOUS
from kafka_zk.security.ssl_config import hostname_verification, is_tls
from kafka_zk.security.ssl_context import client_context, server_context
from kafka_zk.security.ssl_principal import SslPrincipalMapper, ssl_principal

log = logging.getLogger(__name__)


@implementer(IOpenSSLServerConnectionCreator)
class ServerTls:
    """The TLS side of one listener. ``reconfigure(settings)`` builds a new context: connections accepted from
    then on present the new certificate, open ones keep theirs."""

    def __init__(self, settings):
        self.context = server_context(settings)

    def reconfigure(self, settings):
        self.context = server_context(settings)

    def serverConnectionForTLS(self, tls_protocol):
        return SSL.Connection(self.context, None)

    def wrap(self, factory):
        tls_factory = TLSMemoryBIOFactory(self, False, factory)
        tls_factory.protocol = GatheringTlsTransport
        return tls_factory


# The most application data one TLS record holds.
_RECORD_SIZE = 2**14


def _public_read(connection):
    return connection.recv(_RECORD_SIZE)


try:  # pyOpenSSL's own cffi bindings, for its recv() without the per-call costs
    from OpenSSL._util import ffi as _ffi
    from OpenSSL._util import lib as _lib

    _READ_BUFFER = _ffi.new("char[]", _RECORD_SIZE)  # the reactor reads on one thread; bytes leave it at once

    def _read_record(connection):
        """``connection.recv(16 KiB)`` into one reused buffer (pyOpenSSL allocates one per call), asking
        pyOpenSSL's error check (WantReadError, ZeroReturnError, Error, ...) only when SSL_read returns no data:
        on data it would only re-raise a callback's failure, which fails the handshake and so a later read."""
        ssl = connection._ssl
        size = _lib.SSL_read(ssl, _READ_BUFFER, _RECORD_SIZE)
        if size <= 0:
            connection._raise_ssl_error(ssl, size)
            raise SSL.Error("SSL_read returned %d" % size)
        return _ffi.buffer(_READ_BUFFER, size)[:]

    if not (hasattr(_lib, "SSL_read") and hasattr(SSL.Connection, "_raise_ssl_error")):
        _read_record = _public_read
except ImportError:
    _read_record = _public_read


class GatheringTlsTransport(TLSMemoryBIOProtocol):
    """The TLS transport of a listener's connections: Twisted's, receiving and sending with fewer steps.

    Receiving: librdkafka writes each slice of a request as its own TLS record (a 100-byte value, a record
    header of a dozen bytes), so one socket read can hold hundreds of records; Twisted's transport reads each
    with a fresh 32 KiB buffer, checks it for errors and passes it to the protocol by itself. Here the protocol
    gets everything one read decrypts in one call. Sending: a response (one write of a whole frame) is
    encrypted and sent at once, as ``send_now`` sends on PLAINTEXT, rather than held for the next reactor
    iteration (Twisted's BufferingTLSTransport aggregates small writes) and then for a writable poll."""

    def _flushReceiveBIO(self):
        chunks = []
        closed, failure = False, None
        while not self._lostTLSConnection:
            try:
                chunks.append(_read_record(self._tlsConnection))
            except SSL.WantReadError:
                break
            except SSL.ZeroReturnError:
                closed = True
                break
            except SSL.Error:
                failure = Failure()
                break
        if chunks and not self._aborted:
            ProtocolWrapper.dataReceived(self, chunks[0] if len(chunks) == 1 else b"".join(chunks))
        if closed:
            self._shutdownTLS()
            self._tlsShutdownFinished(None)  # the protocol's connectionLost hears the transport's reason
        elif failure is not None:
            self._tlsShutdownFinished(failure)
        self._flushSendBIO()  # what the bytes received call for (handshake, alerts) goes out now

    def _flushSendBIO(self):
        try:
            data = self._tlsConnection.bio_read(2**15)
        except SSL.WantReadError:  # nothing to send
            return
        send_now(self.transport, data)


def _is_ip(host):
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def certificate_names_host(certificate, host):
    """Kafka's "https" endpoint identification: the certificate's subjectAltName names the host (an IP address
    as an iPAddress entry, a host name as a dNSName)."""
    try:
        if _is_ip(host):
            verify_certificate_ip_address(certificate, host)
        else:
            verify_certificate_hostname(certificate, host)
        return True
    except VerificationError:
        return False


class ClientTls:
    """Client connections to one kind of listener (one set of ssl.* settings): ``creator(host)`` gives what
    reactor.connectSSL takes. The context is built once, at the first connection."""

    def __init__(self, settings):
        self.settings = settings
        self._context = None

    def context(self):
        if self._context is None:
            self._context = client_context(self.settings)
        return self._context

    def creator(self, host):
        return _ClientConnectionCreator(self.context(), host, hostname_verification(self.settings))


@implementer(IOpenSSLClientConnectionCreator)
class _ClientConnectionCreator:
    def __init__(self, context, host, verify_host):
        self.context = context
        self.host = host
        self.verify_host = verify_host

    def clientConnectionForTLS(self, tls_protocol):
        connection = SSL.Connection(self.context, None)
        connection.set_app_data(tls_protocol)
        if not _is_ip(self.host):
            connection.set_tlsext_host_name(self.host.encode("idna"))
        if self.verify_host:
            connection.set_verify(SSL.VERIFY_PEER, _host_checker(self.host))
        connection.set_connect_state()
        return connection


def _host_checker(host):
    def verify(_connection, certificate, _errno, depth, ok):
        if not ok or depth != 0:
            return bool(ok)
        try:
            if certificate_names_host(certificate.to_cryptography(), host):
                return True
            log.warning("TLS peer certificate does not name %s (ssl.endpoint.identification.algorithm=https)", host)
        except Exception:  # an exception escaping an OpenSSL callback would be lost
            log.exception("checking the TLS peer certificate for %s", host)
        return False

    return verify


def peer_certificate(transport):
    """The cryptography certificate the peer of a TLS transport presented, or None."""
    get = getattr(transport, "getPeerCertificate", None)
    certificate = get() if get is not None else None
    if certificate is None:
        return None
    return certificate.to_cryptography() if hasattr(certificate, "to_cryptography") else certificate


def principal_builder(security_protocol, settings):
    """The principal builder of a listener: ANONYMOUS on PLAINTEXT, the mapped certificate subject on SSL
    (ANONYMOUS without a client certificate); None for SASL listeners, whose principal the SASL exchange sets."""
    if security_protocol == "PLAINTEXT":
        return lambda _transport: ANONYMOUS
    if security_protocol == "SSL":
        mapper = SslPrincipalMapper(settings["ssl.principal.mapping.rules"])
        return lambda transport: ssl_principal(peer_certificate(transport), mapper)
    return None


def client_tls_for(security_protocol, settings):
    """A ClientTls for connections to a listener of that security protocol, or None without TLS."""
    return ClientTls(settings) if is_tls(security_protocol) else None
