"""Kafka's request log (`kafka.request.logger`): a line per completed request at DEBUG, the whole request at TRACE.

The line is RequestChannel's: "Completed request:RequestHeader(apiKey=FETCH, apiVersion=11, clientId=c,
correlationId=7) -- {...},response:{...} from connection 127.0.0.1:9092-127.0.0.1:51234-3;totalTime:1.2,
requestQueueTime:0.0,localTime:1.0,remoteTime:0.0,throttleTime:0,responseQueueTime:0.1,sendTime:0.1,
securityProtocol:PLAINTEXT,principal:User:ANONYMOUS,listener:PLAINTEXT,clientInformation:ClientInformation(...)".
Off (WARN) by default: callers test ``enabled()`` once per request and keep nothing otherwise.
"""

import logging
import re

REQUEST_LOGGER = "kafka.request.logger"
TRACE = 5
DEBUG_BUDGET = 1000  # characters of a request or response at DEBUG; TRACE shows the whole request

logger = logging.getLogger(REQUEST_LOGGER)


def enabled():
    return logger.isEnabledFor(logging.DEBUG)


def api_key_name(name):
    """ "LeaderAndIsr" -> "LEADER_AND_ISR" (Kafka's ApiKeys names)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


class _Budget(Exception):
    pass


def render(value, budget=None):
    """A decoded message as Kafka's Struct prints it ({name=value,...}, [a,b]); byte fields as the ByteBuffer
    Kafka would print. With a ``budget`` of characters the text stops there with "..."."""
    out = []
    used = [0]

    def put(text):
        out.append(text)
        used[0] += len(text)
        if budget is not None and used[0] > budget:
            raise _Budget()

    def walk(item):
        if isinstance(item, dict):
            put("{")
            for index, (key, inner) in enumerate(item.items()):
                put(("," if index else "") + str(key) + "=")
                walk(inner)
            put("}")
        elif isinstance(item, (list, tuple)):
            put("[")
            for index, inner in enumerate(item):
                if index:
                    put(",")
                walk(inner)
            put("]")
        elif isinstance(item, (bytes, bytearray, memoryview)):
            size = len(item) if not isinstance(item, memoryview) else item.nbytes
            put("java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]" % (size, size))
        elif item is None:
            put("null")
        elif item is True or item is False:
            put("true" if item else "false")
        else:
            put(str(item))

    try:
        walk(value)
    except _Budget:
        return "".join(out)[:budget] + "..."
    return "".join(out)


class RequestTimes:
    """What the request line needs, kept for a request only while the log is enabled."""

    __slots__ = ("request", "api_name", "local_done_ms", "completed_ms", "response")

    def __init__(self, request, api_name, local_done_ms):
        self.request = request
        self.api_name = api_name
        self.local_done_ms = local_done_ms
        self.completed_ms = None
        self.response = None


def log_completed(times, sent_ms, connection_id, client_information):
    """One line for a request whose response has just been written (``sent_ms``)."""
    request = times.request
    details = logger.isEnabledFor(TRACE)
    budget = None if details else DEBUG_BUDGET
    completed_ms = times.completed_ms if times.completed_ms is not None else sent_ms
    local_ms = max(0.0, times.local_done_ms - request.received_ms)
    remote_ms = max(0.0, completed_ms - times.local_done_ms)
    response_queue_ms = max(0.0, sent_ms - completed_ms)
    total_ms = max(0.0, sent_ms - request.received_ms)
    response = times.response
    throttle_ms = response.get("throttle_time_ms", 0) if isinstance(response, dict) else 0
    principal = request.principal if request.principal is not None else "User:ANONYMOUS"
    logger.debug(
        "Completed request:RequestHeader(apiKey=%s, apiVersion=%d, clientId=%s, correlationId=%d) -- %s,"
        "response:%s from connection %s;totalTime:%.3f,requestQueueTime:%.3f,localTime:%.3f,remoteTime:%.3f,"
        "throttleTime:%d,responseQueueTime:%.3f,sendTime:%.3f,securityProtocol:%s,principal:%s,listener:%s,"
        "clientInformation:%s",
        api_key_name(times.api_name),
        request.api_version,
        request.client_id,
        request.correlation_id,
        render(request.body, budget),
        render(response, DEBUG_BUDGET) if response is not None else "null",
        connection_id,
        total_ms,
        0.0,
        local_ms,
        remote_ms,
        throttle_ms,
        response_queue_ms,
        0.0,
        request.security_protocol,
        principal,
        request.listener_name,
        client_information,
    )
