"""The broker's side of controlled shutdown: before it leaves, it asks the controller to move its leaderships away."""

import logging

from twisted.application import service
from twisted.internet import defer, task

from kafka_zk.net.broker_client import BrokerConnection
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)

CONTROLLED_SHUTDOWN = (7, 3)


class ControlledShutdown(service.Service):
    """Nothing to do while the broker runs; stopping it asks the active controller (Kafka's controlled shutdown),
    up to controlled.shutdown.max.retries times, and goes on with an unclean shutdown when every attempt failed."""

    def __init__(self, config, reactor, metadata_cache, broker_id, broker_epoch, security=None):
        """``broker_epoch()``: this broker's registration epoch now (a new ZooKeeper session moves it);
        ``security``: how to reach the controller's inter-broker listener (a net.broker_client.ListenerSecurity)."""
        self.security = security
        self.setName("controlled shutdown")
        self.config = config
        self.reactor = reactor
        self.metadata_cache = metadata_cache
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch

    def stopService(self):
        super().stopService()
        return self._shut_down()

    @defer.inlineCallbacks
    def _shut_down(self):
        config = self.config
        for attempt in range(1, config["controlled.shutdown.max.retries"] + 1):
            controller_id = self.metadata_cache.controller_id
            endpoint = (
                self.metadata_cache.endpoint(controller_id, config.inter_broker_listener_name)
                if controller_id is not None
                else None
            )
            if endpoint is not None:
                connection = BrokerConnection(
                    self.reactor,
                    endpoint[0],
                    endpoint[1],
                    "controlled-shutdown-%d" % self.broker_id,
                    security=self.security,
                )
                try:
                    response = yield connection.request(
                        *CONTROLLED_SHUTDOWN, {"broker_id": self.broker_id, "broker_epoch": self.broker_epoch()}
                    ).addTimeout(config["controller.socket.timeout.ms"] / 1000.0, self.reactor)
                    if response["error_code"] == Errors.NONE and not response["remaining_partitions"]:
                        log.info("[KafkaServer id=%d] controlled shutdown succeeded", self.broker_id)
                        return
                    log.info(
                        "[KafkaServer id=%d] controlled shutdown attempt %d: error %s, %d partitions still led here",
                        self.broker_id,
                        attempt,
                        Errors.from_code(response["error_code"]).name,
                        len(response["remaining_partitions"]),
                    )
                except Exception as error:
                    log.info(
                        "[KafkaServer id=%d] controlled shutdown attempt %d failed: %r", self.broker_id, attempt, error
                    )
                finally:
                    connection.close()
            if attempt < config["controlled.shutdown.max.retries"]:
                yield task.deferLater(
                    self.reactor, config["controlled.shutdown.retry.backoff.ms"] / 1000.0, lambda: None
                )
        log.warning(
            "[KafkaServer id=%d] proceeding to do an unclean shutdown as all the controlled shutdown attempts failed",
            self.broker_id,
        )
