"""Controller-to-broker channels: one ordered queue and connection per broker, retried with backoff."""

import logging
from collections import deque

from twisted.internet import defer

from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.net.broker_client import BrokerConnection

log = logging.getLogger(__name__)

METRICS_GROUP, METRICS_TYPE = "kafka.controller", "ControllerChannelManager"


class BrokerChannel:
    """Sends queued requests to one broker in order, pipelined on one connection (the broker applies control
    requests in arrival order); after a failure the unanswered ones go again, in order, after a backoff."""

    def __init__(
        self,
        reactor,
        broker_id,
        host,
        port,
        client_id,
        backoff_s=0.3,
        max_backoff_s=5.0,
        security=None,
        queue_time=None,
        request_timeout_s=None,
    ):
        """``queue_time``: the timer of how long each request waited before it first went out
        (RequestRateAndQueueTimeMs); ``request_timeout_s``: controller.socket.timeout.ms, after which an unanswered
        request drops the connection and goes again."""
        self.reactor = reactor
        self.broker_id = broker_id
        self.connection = BrokerConnection(
            reactor, host, port, client_id, security=security, request_timeout_s=request_timeout_s
        )
        self.queue = deque()  # unanswered (api_key, version, body, callback), oldest first
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._current_backoff = backoff_s
        self._sent = 0  # how many of the queue's oldest are on the wire
        self._attempt = 0  # a failure starts a new attempt; answers to older ones are ignored
        self._retry_call = None
        self._answer_waiters = []  # (Deferred, how many requests it still waits for)
        self.closed = False
        self.queue_time = queue_time
        self._waiting_since = deque()  # when each request never sent yet (the queue's newest) was queued, in seconds
        # Connected now, so that the first batch (a failover's, 10,000 partitions) goes out as soon as it is built.
        self.connection.connect().addErrback(lambda _: None)

    def enqueue(self, api_key, version, body, callback=None):
        self.queue.append((api_key, version, body, callback))
        self._waiting_since.append(self.reactor.seconds())
        self._send_next()

    def _send_next(self):
        if self.closed or self._retry_call is not None:
            return
        while self._sent < len(self.queue):
            api_key, version, body, callback = self.queue[self._sent]
            if self._sent >= len(self.queue) - len(self._waiting_since):  # its first send
                waited_s = self.reactor.seconds() - self._waiting_since.popleft()
                if self.queue_time is not None:
                    self.queue_time.update(waited_s * 1000.0)
            self._sent += 1
            result = self.connection.request(api_key, version, body)
            result.addCallbacks(
                self._answered, self._failed, callbackArgs=(self._attempt, callback), errbackArgs=(self._attempt,)
            )

    def _answered(self, response, attempt, callback):
        if attempt != self._attempt or self.closed:
            return
        self.queue.popleft()
        self._sent -= 1
        self._current_backoff = self.backoff_s
        if callback is not None:
            try:
                callback(self.broker_id, response)
            except Exception:
                log.exception("controller response callback failed")
        if self._answer_waiters:
            self._wake_answer_waiters(1)

    def _failed(self, failure, attempt):
        if attempt != self._attempt or self.closed:
            return
        self._attempt += 1
        self._sent = 0
        log.info(
            "request to broker %d failed (%s); retrying in %.1fs",
            self.broker_id,
            failure.getErrorMessage(),
            self._current_backoff,
        )
        self.connection.close()
        self._retry_call = self.reactor.callLater(self._current_backoff, self._retry)
        self._current_backoff = min(self._current_backoff * 2, self.max_backoff_s)

    def _retry(self):
        self._retry_call = None
        self._send_next()

    def answered(self):
        """Fires once every request queued so far has been answered, or the channel is closed."""
        if self.closed or not self.queue:
            return defer.succeed(None)
        waiter = defer.Deferred()
        self._answer_waiters.append((waiter, len(self.queue)))
        return waiter

    def _wake_answer_waiters(self, answered):
        waiting, self._answer_waiters = self._answer_waiters, []
        for waiter, pending in waiting:
            if pending <= answered or self.closed:
                waiter.callback(None)
            else:
                self._answer_waiters.append((waiter, pending - answered))

    def close(self):
        self.closed = True
        self.queue.clear()
        self._waiting_since.clear()
        if self._retry_call is not None and self._retry_call.active():
            self._retry_call.cancel()
        self.connection.close()
        self._wake_answer_waiters(0)


class ControllerChannelManager:
    def __init__(self, reactor, controller_id, listener_name, security=None, metrics=None, request_timeout_s=None):
        """``listener_name``: the brokers' listener the controller connects to (control plane, else
        inter-broker); ``security``: how to reach it (net.broker_client.ListenerSecurity); ``metrics``: the registry
        of each broker's QueueSize (requests not answered yet) and RequestRateAndQueueTimeMs; ``request_timeout_s``:
        controller.socket.timeout.ms."""
        self.reactor = reactor
        self.request_timeout_s = request_timeout_s
        self.metrics = metrics if metrics is not None else MetricsRegistry()
        self.client_id = "controller-%d" % controller_id
        self.listener_name = listener_name
        self.security = security
        self.channels = {}

    def add_broker(self, broker_id, host, port):
        self.remove_broker(broker_id)
        tags = {"broker-id": broker_id}
        channel = self.channels[broker_id] = BrokerChannel(
            self.reactor,
            broker_id,
            host,
            port,
            self.client_id,
            security=self.security,
            request_timeout_s=self.request_timeout_s,
            queue_time=self.metrics.timer(METRICS_GROUP, METRICS_TYPE, "RequestRateAndQueueTimeMs", tags),
        )
        self.metrics.gauge(METRICS_GROUP, METRICS_TYPE, "QueueSize", lambda: len(channel.queue), tags)

    def remove_broker(self, broker_id):
        channel = self.channels.pop(broker_id, None)
        if channel is not None:
            channel.close()
            for name in ("QueueSize", "RequestRateAndQueueTimeMs"):
                self.metrics.remove(METRICS_GROUP, METRICS_TYPE, name, {"broker-id": broker_id})

    def send(self, broker_id, api_key, version, body, callback=None):
        channel = self.channels.get(broker_id)
        if channel is None:
            log.info("no channel to broker %d; dropping api %d request", broker_id, api_key)
            return
        channel.enqueue(api_key, version, body, callback)

    def answered(self, timeout_s):
        """Fires once every channel's requests queued so far have been answered, or after timeout_s (a broker
        that does not answer must not hold the controller up)."""
        waiting = defer.DeferredList([channel.answered() for channel in self.channels.values()], consumeErrors=True)
        return waiting.addTimeout(timeout_s, self.reactor).addErrback(lambda _: None)

    def shutdown(self):
        for broker_id in list(self.channels):
            self.remove_broker(broker_id)
