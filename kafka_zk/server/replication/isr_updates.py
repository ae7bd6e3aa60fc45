"""A led partition's ISR changes: the periodic shrink of lagging followers, an expansion, their write to ZooKeeper
and Kafka's ISR meters."""

import logging

from kafka_zk.common.clock import milliseconds

log = logging.getLogger(__name__)


class IsrUpdates:
    def __init__(self, broker_id, clock, isr_writer, registry, replica_lag_time_max_ms, isr_applied):
        """``isr_writer(partition, new_isr)``: a Deferred of the partition state's new zk version, or None when the
        write lost a race; ``registry``: where kafka.server:type=ReplicaManager's ISR meters go;
        ``isr_applied(partition, now_ms)``: called once a written ISR is the partition's."""
        self.broker_id = broker_id
        self.clock = clock
        self.isr_writer = isr_writer
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.isr_applied = isr_applied
        self.shrinks = registry.meter("kafka.server", "ReplicaManager", "IsrShrinksPerSec")
        self.expands = registry.meter("kafka.server", "ReplicaManager", "IsrExpandsPerSec")
        self.failed_updates = registry.meter("kafka.server", "ReplicaManager", "FailedIsrUpdatesPerSec")

    def shrink_lagging(self, partitions):
        """Drop the followers that have not caught up within replica.lag.time.max.ms from each partition's ISR."""
        now = milliseconds(self.clock)
        for partition in partitions:
            shrunk = partition.isr_to_shrink(now, self.replica_lag_time_max_ms)
            if shrunk is not None:
                self.change(partition, shrunk, "shrink")

    def change(self, partition, new_isr, reason):
        """Write ``new_isr`` (``reason``: "shrink" or "expand") and apply it once written, unless leadership moved
        meanwhile."""
        log.info(
            "[ReplicaManager broker=%d] %s ISR of %s-%d from %s to %s",
            self.broker_id,
            reason,
            partition.topic,
            partition.partition,
            partition.isr,
            new_isr,
        )
        partition.isr_update_in_flight = True
        leader_epoch = partition.leader_epoch

        def written(zk_version):
            # As Kafka's ZkPartitionStateStore: a written ISR change counts, a lost race is a failed update.
            (self.failed_updates if zk_version is None else self.shrinks if reason == "shrink" else self.expands).mark()
            if partition.leader_epoch != leader_epoch or not partition.is_leader:
                return  # leadership moved while the write was in flight
            partition.isr_update_in_flight = False
            if zk_version is None:
                log.info(
                    "[ReplicaManager broker=%d] ISR update of %s-%d lost a race; waiting for the controller",
                    self.broker_id,
                    partition.topic,
                    partition.partition,
                )
                return
            partition.apply_isr(new_isr, zk_version)
            self.isr_applied(partition, milliseconds(self.clock))

        def failed(failure):
            partition.isr_update_in_flight = False
            log.error("ISR update of %s-%d failed: %s", partition.topic, partition.partition, failure.getErrorMessage())

        self.isr_writer(partition, new_isr).addCallbacks(written, failed)
