"""Controller-to-broker channels: one ordered queue and connection per broker, retried with backoff."""

import logging
from collections import deque

from kafka_zk.server.broker_client import BrokerConnection

log = logging.getLogger(__name__)


class BrokerChannel:
    """Sends queued requests to one broker strictly one after another; a failed send is retried."""

    def __init__(self, reactor, broker_id, host, port, client_id, backoff_s=0.3, max_backoff_s=5.0):
        self.reactor = reactor
        self.broker_id = broker_id
        self.connection = BrokerConnection(reactor, host, port, client_id)
        self.queue = deque()
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._current_backoff = backoff_s
        self._busy = False
        self._retry_call = None
        self.closed = False

    def enqueue(self, api_key, version, body, callback=None):
        self.queue.append((api_key, version, body, callback))
        self._send_next()

    def _send_next(self):
        if self._busy or not self.queue or self.closed:
            return
        self._busy = True
        api_key, version, body, callback = self.queue[0]
        result = self.connection.request(api_key, version, body)
        result.addCallbacks(self._sent, self._failed, callbackArgs=(callback,))

    def _sent(self, response, callback):
        self._busy = False
        self._current_backoff = self.backoff_s
        if self.queue:
            self.queue.popleft()
        if callback is not None:
            try:
                callback(self.broker_id, response)
            except Exception:
                log.exception("controller response callback failed")
        self._send_next()

    def _failed(self, failure):
        self._busy = False
        if self.closed:
            return
        log.info("request to broker %d failed (%s); retrying in %.1fs", self.broker_id,
                 failure.getErrorMessage(), self._current_backoff)
        self.connection.close()
        self._retry_call = self.reactor.callLater(self._current_backoff, self._retry)
        self._current_backoff = min(self._current_backoff * 2, self.max_backoff_s)

    def _retry(self):
        self._retry_call = None
        self._send_next()

    def close(self):
        self.closed = True
        self.queue.clear()
        if self._retry_call is not None and self._retry_call.active():
            self._retry_call.cancel()
        self.connection.close()


class ControllerChannelManager:
    def __init__(self, reactor, controller_id, listener_name):
        self.reactor = reactor
        self.client_id = "controller-%d" % controller_id
        self.listener_name = listener_name
        self.channels = {}

    def add_broker(self, broker_id, host, port):
        self.remove_broker(broker_id)
        self.channels[broker_id] = BrokerChannel(self.reactor, broker_id, host, port, self.client_id)

    def remove_broker(self, broker_id):
        channel = self.channels.pop(broker_id, None)
        if channel is not None:
            channel.close()

    def send(self, broker_id, api_key, version, body, callback=None):
        channel = self.channels.get(broker_id)
        if channel is None:
            log.info("no channel to broker %d; dropping api %d request", broker_id, api_key)
            return
        channel.enqueue(api_key, version, body, callback)

    def shutdown(self):
        for broker_id in list(self.channels):
            self.remove_broker(broker_id)
