"""What the broker does when a log dir fails (Kafka's LogDirFailureHandler): stop its replicas, give up the
coordinators' partitions there, tell the controller, and shut down once no log dir is left."""

import logging

from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC

log = logging.getLogger(__name__)


class LogDirFailureHandler:
    def __init__(
        self, broker_id, replica_manager, log_manager, zk, group_coordinator, txn_coordinator, shut_down_broker
    ):
        """``shut_down_broker()``: called once every log dir has failed."""
        self.broker_id = broker_id
        self.replica_manager = replica_manager
        self.log_manager = log_manager
        self.zk = zk
        self.group_coordinator = group_coordinator
        self.txn_coordinator = txn_coordinator
        self.shut_down_broker = shut_down_broker

    def on_log_dir_offline(self, log_dir):
        """On the reactor: the replicas of the dir stop, and the controller learns of it through
        /log_dir_event_notification."""
        offline = self.replica_manager.handle_log_dir_failure(log_dir)
        for topic, partition in offline:
            if topic == OFFSETS_TOPIC:
                self.group_coordinator.on_resignation(partition)
            elif topic == TRANSACTION_STATE_TOPIC:
                self.txn_coordinator.on_resignation(partition)
        if not self.log_manager.live_log_dirs:
            log.error(
                "[KafkaServer id=%d] Shutdown broker because all log dirs in %s have failed",
                self.broker_id,
                ", ".join(self.log_manager.log_dirs),
            )
            self.shut_down_broker()
            return
        self.zk.create_log_dir_event_notification(self.broker_id).addCallbacks(
            lambda name: log.info(
                "[KafkaServer id=%d] log dir %s is offline: %d replicas stopped; controller told through %s",
                self.broker_id,
                log_dir,
                len(offline),
                name,
            ),
            lambda failure: log.error(
                "[KafkaServer id=%d] could not write the log dir event notification: %s",
                self.broker_id,
                failure.getErrorMessage(),
            ),
        )
