"""Sends the controller's request batches to the brokers over its channels, and logs the errors they answer."""

import logging

from twisted.internet import defer

from kafka_zk.common import state_change_log
from kafka_zk.controller.requests import ControllerRequestBatch

log = logging.getLogger(__name__)


class ControllerRequestSender:
    """Open (holding a channel manager) while this broker is the controller; closed, it sends nothing."""

    def __init__(self, context, controller_id, inter_broker_listener, response_handlers):
        self.context = context
        self.controller_id = controller_id
        self.inter_broker_listener = inter_broker_listener
        self.response_handlers = response_handlers  # {api: handler(broker, response)}, called after errors are logged
        self.channels = None

    @property
    def is_open(self):
        return self.channels is not None

    def open(self, channels):
        self.channels = channels

    def close(self):
        if self.channels is not None:
            self.channels.shutdown()
            self.channels = None

    def new_batch(self):
        return ControllerRequestBatch(self.context, self.controller_id, self.inter_broker_listener)

    def send(self, batch):
        if self.channels is None:
            return
        requests = batch.requests()
        state_change_log.log_controller_requests(self.controller_id, self.context.epoch, requests)
        for broker, api, body in requests:
            self.channels.send(
                broker, api[0], api[1], body, lambda broker, response, api=api: self._on_response(api, broker, response)
            )

    def send_and_wait(self, batch, timeout_s):
        """Send, then fire once the brokers have answered everything queued so far (or after timeout_s)."""
        self.send(batch)
        return self.channels.answered(timeout_s) if self.channels is not None else defer.succeed(None)

    def _on_response(self, api, broker, response):
        errors = [p for p in response.get("partition_errors") or [] if p["error_code"]]
        if response.get("error_code") or errors:
            log.warning(
                "[Controller id=%d] broker %d answered with errors: %s %s",
                self.controller_id,
                broker,
                response.get("error_code"),
                errors[:5],
            )
        handler = self.response_handlers.get(api)
        if handler is not None:
            handler(broker, response)
