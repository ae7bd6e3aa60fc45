"""The client-facing listener: decodes request frames, dispatches them, and answers in request order."""

import itertools
import logging
import struct
from collections import deque
from functools import partial

from twisted.internet import defer, protocol

from kafka_zk.common.clock import milliseconds
from kafka_zk.net import request_log
from kafka_zk.net.framing import FramedProtocol, send_now
from kafka_zk.net.request_metrics import BODY, RESPONSE_DONE
from kafka_zk.protocol import api_keys
from kafka_zk.protocol.api_keys import HEADER_VERSIONS, encode_unsupported_api_versions
from kafka_zk.protocol.error_responses import error_response
from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.protocol.headers import decode_request_header, encode_response_frame
from kafka_zk.protocol.primitives import Reader
from kafka_zk.protocol.schema import StrictMessageError

log = logging.getLogger(__name__)

API_VERSIONS_KEY = 18
SASL_HANDSHAKE_KEY = 17


class Request:
    """One decoded request as handlers see it."""

    __slots__ = (
        "api_key",
        "api_version",
        "correlation_id",
        "client_id",
        "body",
        "client_host",
        "received_ms",
        "size",
        "principal",
        "listener_name",
        "security_protocol",
        "answer_later",
    )

    def __init__(
        self,
        header,
        body,
        client_host,
        received_ms,
        size,
        principal=None,
        listener_name="PLAINTEXT",
        security_protocol="PLAINTEXT",
    ):
        """``principal``: who sent it, as the listener's authentication established (a security.KafkaPrincipal;
        None where nothing authenticates, as in handler tests); ``listener_name`` and ``security_protocol``: the
        listener it came in on. ``answer_later``: whether the handler may answer later through an object with
        ``answer_to(listener, entry)`` instead of a Deferred (only the listener takes such answers)."""
        self.answer_later = False
        self.principal = principal
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.api_key = header.api_key
        self.api_version = header.api_version
        self.correlation_id = header.correlation_id
        self.client_id = header.client_id
        self.body = body
        self.client_host = client_host
        self.received_ms = received_ms
        self.size = size


def _error_answer(request, error):
    """What Kafka's KafkaApis.handleError answers for a handler's exception: the request's own error response with a
    KafkaError's code and message, else UNKNOWN_SERVER_ERROR and the exception's message; None where Kafka closes the
    connection instead (Produce with acks=0), or when even that response cannot be built."""
    if isinstance(error, KafkaError):
        code, message = error.code, error.message
    else:
        code, message = Errors.UNKNOWN_SERVER_ERROR, str(error) or None
    try:
        return error_response(request.api_key, request.api_version, request.body, code, message)
    except Exception:
        log.exception("cannot build the api %d v%d error response", request.api_key, request.api_version)
        return None


class KafkaServerProtocol(FramedProtocol):
    """One client connection. Responses leave in the order their requests arrived.

    The dispatcher has ``handlers`` ({api_key: handler}), ``handle(request)`` and ``supported_versions()``; the
    clock (the reactor) stamps receive times and times throttling. The listener says its name and security
    protocol, and how a connection's principal is found: ``principal_builder(transport)``, asked at the first
    request (a TLS handshake is over by then)."""

    def __init__(self, dispatcher, clock, max_frame_size, listener=None, metrics=None, connections=None):
        """``metrics``: the SocketServerMetrics that time each request (None: nothing is measured);
        ``connections``: the listener's ListenerConnections."""
        self.dispatcher = dispatcher
        self.clock = clock
        self.metrics = metrics
        self.connections = connections
        if metrics is not None:  # a request's RequestQueueTime starts when the read that completed it came
            self.stamp_reads = clock.seconds
        self.max_frame_size = self.listener_max_frame_size = max_frame_size
        self.listener = listener or Listener()
        self.principal = None
        self._principal_known = False
        # [payload: a whole frame as bytes, or chunks without its size; header; ready; metrics: None when off, a
        # timed request's timing (a list), else True]
        self._pending = deque()
        # SASL listeners: the connection's authenticator sees every frame until it has authenticated the client
        factory = self.listener.authenticator_factory
        self.authenticator = factory() if factory is not None else None
        self._failing_authentication = False
        if self.authenticator is not None:
            self.max_frame_size = min(max_frame_size, self.authenticator.max_receive_size)

    def connectionMade(self):
        super().connectionMade()
        peer = self.transport.getPeer()
        self.client_host = getattr(peer, "host", "")
        if self.connections is not None:
            self.connections.opened()

    def connectionLost(self, reason=protocol.connectionDone):
        if self.connections is not None:
            self.connections.lost()

    def frame_received(self, frame):
        if self.authenticator is not None and self._authentication_frame(frame):
            return
        # Fast path: a v1 request header (most requests) of an api version served before, read with one unpack
        # and one plan look-up; _decode_header covers every other header, and answers or closes when it must.
        plan = None
        frame_size = len(frame)
        if frame_size >= _V1_START_SIZE:
            api_key, api_version, correlation_id, size = _V1_START.unpack_from(frame)
            plan_key = api_key * 65536 + api_version
            # not dict.get: from a compiled module, its method call costs more than a second look-up
            plan = _V1_PLANS[plan_key] if plan_key in _V1_PLANS else None
            if plan is not None:
                if size == -1:
                    client_id = None
                    body_offset = _V1_START_SIZE
                elif 0 <= size <= frame_size - _V1_START_SIZE:
                    body_offset = _V1_START_SIZE + size
                    try:
                        client_id = str(frame[_V1_START_SIZE:body_offset], "utf-8")
                    except UnicodeDecodeError:
                        plan = None
                else:
                    plan = None
        if plan is None:
            decoded = self._decode_header(frame)
            if decoded is None:
                return
            plan, api_key, api_version, correlation_id, client_id, body_offset = decoded
        spec, read_body = plan
        try:
            handler = self.dispatcher.handlers[api_key]
        except KeyError:
            log.info("closing connection from %s: unknown api key %d", self.client_host, api_key)
            self.transport.abortConnection()
            return
        reader = _new_reader(Reader)  # Reader(frame, body_offset) without its checks: a frame is bytes
        reader.buf = memoryview(frame)
        reader.pos = body_offset
        reader.end = frame_size
        try:
            body = read_body(reader)
        except Exception as error:
            log.info(
                "closing connection from %s: cannot decode %s v%d request (%s)",
                self.client_host,
                spec.name,
                api_version,
                error,
            )
            self.transport.abortConnection()
            return
        if not self._principal_known:
            self.principal = self.listener.principal_builder(self.transport)
            self._principal_known = True
        listener = self.listener
        now = self.clock.seconds()
        request = _new_request(Request)  # Request.__init__'s work, without a call per request
        request.api_key = api_key
        request.api_version = api_version
        request.correlation_id = correlation_id
        request.client_id = client_id
        request.body = body
        request.client_host = self.client_host
        request.received_ms = int(now * 1000)
        request.size = frame_size
        request.principal = self.principal
        request.listener_name = listener.name
        request.security_protocol = listener.security_protocol
        dispatcher = self.dispatcher
        # the bound handler itself once the dispatcher serves every API (Dispatcher.handle then only calls it);
        # only then may it answer later without a Deferred (the dispatcher's held-back requests need one)
        request.answer_later = direct = dispatcher.serving is None
        try:
            result = handler(request) if direct else dispatcher.handle(request)
        except Exception as error:
            log.exception("error handling %s v%d from %s", spec.name, api_version, self.client_host)
            result = _error_answer(request, error)
            if result is None:
                self.transport.abortConnection()
                return
        # [payload, request, ready, timing] (the request stands for its header: api_key, api_version, correlation_id)
        metrics = self.metrics
        if metrics is None:
            entry = [None, request, False, None]
        elif metrics.arrived(request, body, now):  # its timing (a list) goes with it
            arrived = self.read_at
            entry = [
                None,
                request,
                False,
                metrics.timing(
                    api_key,
                    api_version,
                    api_key == 1 and body["replica_id"] >= 0,
                    frame_size - body_offset,
                    arrived if 0 < arrived <= now else now,
                    now,
                    self.clock.seconds(),
                ),
            ]
        else:  # its errors are counted when it is answered
            entry = [None, request, False, True]
        # [payload, request, ready, timing, RequestTimes] while kafka.request.logger is on
        # the logger's own cache of isEnabledFor(DEBUG), read without the call (None until first asked, or cleared)
        logging_on = None if _request_logger.disabled else _request_logger_cache.get(_DEBUG)
        if logging_on or (logging_on is None and _request_log_enabled(_DEBUG)):
            entry.append(self._request_times(request, spec.name, body))
        self._pending.append(entry)
        if result.__class__ is dict or result is None:
            self._completed(result, entry)
        elif isinstance(result, defer.Deferred):
            result.addCallbacks(self._completed, self._failed, callbackArgs=(entry,), errbackArgs=(entry,))
        elif hasattr(result, "answer_to"):  # a parked request's answer, given without a Deferred (see Request)
            result.answer_to(self, entry)
        else:
            self._completed(result, entry)

    def _decode_header(self, frame):
        """(plan, api_key, api_version, correlation_id, client_id, body_offset) of a frame the fast path did not
        take; None when the frame has been dealt with here (the connection closed, or ApiVersions answered)."""
        try:
            header, body_offset = decode_request_header(frame)
        except Exception as error:  # a header that does not parse: Kafka closes the connection
            log.info("closing connection from %s: invalid request header (%s)", self.client_host, error)
            self.transport.abortConnection()
            return None
        spec = api_keys.API_SPECS.get(header.api_key)
        if spec is None or self.dispatcher.handlers.get(header.api_key) is None:
            log.info("closing connection from %s: unknown api key %d", self.client_host, header.api_key)
            self.transport.abortConnection()
            return None
        if not spec.min_version <= header.api_version <= spec.max_version:
            if header.api_key == API_VERSIONS_KEY:
                self._enqueue_ready(
                    None, encode_unsupported_api_versions(header.correlation_id, self.dispatcher.supported_versions())
                )
                return None
            log.info(
                "closing connection from %s: unsupported version %d of api %s",
                self.client_host,
                header.api_version,
                spec.name,
            )
            self.transport.abortConnection()
            return None
        plan = (spec, spec.request.codec(header.api_version).read_body)
        if HEADER_VERSIONS[(header.api_key, header.api_version)][0] == 1:
            _V1_PLANS[header.api_key * 65536 + header.api_version] = plan
        return plan, header.api_key, header.api_version, header.correlation_id, header.client_id, body_offset

    def _authentication_frame(self, frame):
        """True when the authenticator took the frame (or the connection is closing); False when the frame goes
        the normal request path: ApiVersions before authentication, and requests of an authenticated session."""
        if self._failing_authentication:
            return True
        authenticator = self.authenticator
        now_ms = milliseconds(self.clock)
        if authenticator.complete:
            is_handshake = len(frame) >= 2 and int.from_bytes(frame[:2], "big") == SASL_HANDSHAKE_KEY
            if not (is_handshake and authenticator.begin_reauthentication(now_ms)):
                if not authenticator.session_expired(now_ms):
                    return False
                log.info("closing connection from %s: its SASL session has expired", self.client_host)
                self.transport.abortConnection()
                return True
        step = authenticator.receive(frame, now_ms)
        if step.close:
            log.info("closing connection from %s during SASL authentication: %s", self.client_host, step.reason)
            self.transport.abortConnection()
        elif step.failed:
            log.info("failed authentication from %s: %s", self.client_host, step.reason)
            self._failing_authentication = True
            self.transport.pauseProducing()
            self.clock.callLater(
                authenticator.settings.failed_authentication_delay_ms / 1000.0,
                self._close_after_failed_authentication,
                step.response,
            )
        elif step.dispatch:
            return False
        else:
            if step.principal is not None:
                self.principal = step.principal
                self._principal_known = True
                self.max_frame_size = self.listener_max_frame_size
            if step.response is not None:
                self._enqueue_ready(None, step.response)
        return True

    def _close_after_failed_authentication(self, response):
        if self.transport is None or not self.connected:
            return
        if response is not None:
            self._enqueue_ready(None, response)
        self.transport.loseConnection()

    def _enqueue_ready(self, header, payload):
        if payload.__class__ is bytes:  # a frame's payload: bytes go out whole, with their size
            payload = _SIZE.pack(len(payload)) + payload
        self._pending.append([payload, header, True, None])
        self._flush()

    def _completed(self, body, entry):
        header = entry[1]  # the Request
        timing = entry[3]
        if timing.__class__ is list:  # a timed request's response is ready now; it is counted when it is sent
            timing[RESPONSE_DONE] = self.clock.seconds()
            timing[BODY] = body
        elif timing is not None:
            self.metrics.answered(header.api_key, body)
        if body is None:
            entry[0] = None  # no response (e.g. acks=0)
        else:
            try:
                entry[0] = encode_response_frame(header.api_key, header.api_version, header.correlation_id, body)
            except StrictMessageError as error:  # a handler's mistake, caught by strict messages (tests only)
                log.error(
                    "closing connection from %s: the api %d v%d response breaks strict messages "
                    "(StrictMessageError: %s)",
                    self.client_host,
                    header.api_key,
                    header.api_version,
                    error,
                )
                entry[0] = None
                if self.transport is not None:
                    self.transport.abortConnection()
            except Exception as error:  # e.g. records a truncated segment no longer holds: the answer cannot go out
                log.warning(
                    "closing connection from %s: cannot encode the api %d v%d response (%s)",
                    self.client_host,
                    header.api_key,
                    header.api_version,
                    error,
                )
                entry[0] = None
                if self.transport is not None:
                    self.transport.abortConnection()
        entry[2] = True
        if len(entry) > 4:
            entry[4].completed_ms = milliseconds(self.clock)
            entry[4].response = body
        self._flush()
        if body is not None and body.get("throttle_time_ms", 0) > 0 and header.api_key in _QUOTA_APIS:
            self._mute(body["throttle_time_ms"])

    def _mute(self, throttle_ms):
        """Kafka's quota throttling: read nothing more from this client until its throttle time has passed."""
        if self.transport is None or not self.connected:
            return
        clock = self.clock
        until = clock.seconds() + throttle_ms / 1000.0
        if until <= getattr(self, "_muted_until", 0):
            return
        self._muted_until = until
        self.transport.pauseProducing()
        clock.callLater(throttle_ms / 1000.0, self._unmute, until)

    def _unmute(self, until):
        if until == self._muted_until and self.transport is not None and self.connected:
            self.transport.resumeProducing()

    def _failed(self, failure, entry):
        request = entry[1]
        log.error("error handling api %d v%d: %s", request.api_key, request.api_version, failure.getTraceback())
        answer = _error_answer(request, failure.value)
        if answer is not None:
            self._completed(answer, entry)
        elif self.transport is not None:
            self.transport.abortConnection()

    def _flush(self):
        pending = self._pending
        while pending and pending[0][2]:
            entry = pending.popleft()
            payload, timing = entry[0], entry[3]
            timed = timing.__class__ is list
            if timed:
                dequeued = self.clock.seconds()
            if payload is not None and self.transport is not None and self.connected:
                # ResponseSendTime runs until the last byte is handed over (records sent from a file may wait)
                # bytes: a whole frame, its size included (see encode_response_frame); else chunks without it
                if payload.__class__ is bytes and not timed and self._file_sender is None:
                    send_now(self.transport, payload)  # send_framed()'s work for most responses, without its call
                else:
                    send = self.send_framed if payload.__class__ is bytes else self.send_frame
                    send(payload, partial(self._sent, timing, dequeued) if timed else None)
            elif timed:
                self._sent(timing, dequeued)
            if len(entry) > 4:
                request_log.log_completed(
                    entry[4],
                    milliseconds(self.clock),
                    self._connection_id(),
                    getattr(self, "_client_information", UNKNOWN_CLIENT),
                )

    def _sent(self, timing, dequeued):
        self.metrics.sent(timing, dequeued, self.clock.seconds())

    def _request_times(self, request, api_name, body):
        if request.api_key == API_VERSIONS_KEY and body.get("client_software_name"):
            self._client_information = "ClientInformation(softwareName=%s, softwareVersion=%s)" % (
                body["client_software_name"],
                body.get("client_software_version"),
            )
        return request_log.RequestTimes(request, api_name, milliseconds(self.clock))

    def _connection_id(self):
        """Kafka's connection id: local host:port-remote host:port-index."""
        if self.transport is None:
            return "unknown"
        if getattr(self, "_connection_name", None) is None:
            local, peer = self.transport.getHost(), self.transport.getPeer()
            self._connection_name = "%s:%s-%s:%s-%d" % (
                getattr(local, "host", ""),
                getattr(local, "port", ""),
                getattr(peer, "host", ""),
                getattr(peer, "port", ""),
                next(_CONNECTION_INDEX),
            )
        return self._connection_name

    def frame_size_invalid(self, size):
        log.info(
            "closing connection from %s: frame size %d outside [0, %d]", self.client_host, size, self.max_frame_size
        )
        self.transport.abortConnection()


_QUOTA_APIS = (0, 1)  # Produce, Fetch
# A v1 request header up to its client id's bytes: api key, api version, correlation id, client id length.
_V1_START = struct.Struct(">hhih")
_V1_START_SIZE = _V1_START.size
# api_key * 65536 + api_version -> (its ApiSpec, its request codec's read_body), for the served versions whose
# request header is v1, filled as they first come (keys stay apart: a version is an int16)
_V1_PLANS = {}
_new_reader = Reader.__new__
_new_request = Request.__new__
_request_logger = request_log.logger
_request_log_enabled = _request_logger.isEnabledFor  # request_log.enabled() without its own call
_request_logger_cache = _request_logger._cache  # cleared in place by setLevel and logging's configuration
_DEBUG = logging.DEBUG
_SIZE = struct.Struct(">i")
UNKNOWN_CLIENT = "ClientInformation(softwareName=unknown, softwareVersion=unknown)"
_CONNECTION_INDEX = itertools.count()


def _no_principal(_transport):
    return None


class Listener:
    """What a connection knows of the listener it came in on: its name, its security protocol, and how to find a
    connection's principal (``principal_builder(transport)``)."""

    def __init__(
        self,
        name="PLAINTEXT",
        security_protocol="PLAINTEXT",
        principal_builder=_no_principal,
        authenticator_factory=None,
    ):
        """``authenticator_factory()``: a new SASL authenticator for each connection of a SASL listener (see
        security.sasl_server), None elsewhere."""
        self.name = name
        self.security_protocol = security_protocol
        self.principal_builder = principal_builder
        self.authenticator_factory = authenticator_factory


class KafkaServerFactory(protocol.ServerFactory):
    def __init__(self, dispatcher, clock, max_frame_size, listener=None, metrics=None):
        """``metrics``: the SocketServerMetrics of the broker's listeners (None: none measured)."""
        self.dispatcher = dispatcher
        self.clock = clock
        self.max_frame_size = max_frame_size
        self.listener = listener or Listener()
        self.metrics = metrics if metrics is not None and metrics.enabled else None
        self.connections = self.metrics.listener(self.listener.name) if self.metrics is not None else None

    def buildProtocol(self, addr):
        proto = KafkaServerProtocol(
            self.dispatcher, self.clock, self.max_frame_size, self.listener, self.metrics, self.connections
        )
        proto.factory = self
        return proto
