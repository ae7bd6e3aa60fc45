"""One partition on this broker: leadership, ISR, high watermark, producer state, and its Log."""

import logging
from collections import namedtuple

from kafka_zk.log.producer_state import (
    OutOfOrderSequenceError, ProducerFencedError, ProducerStateManager, UnknownProducerIdError)
from kafka_zk.protocol.errors import Errors, KafkaError

log = logging.getLogger(__name__)

NO_LEADER = -1

AppendResult = namedtuple("AppendResult", "base_offset last_offset log_append_time log_start_offset")


class Partition:
    def __init__(self, topic, partition, broker_id, log_provider):
        self.topic = topic
        self.partition = partition
        self.broker_id = broker_id
        self._log_provider = log_provider  # callable(topic, partition) -> Log (created if missing)
        self.log = None
        self.leader_id = NO_LEADER
        self.leader_epoch = -1
        self.isr = []
        self.replicas = []
        self.zk_version = -1
        self.controller_epoch = -1
        self.high_watermark = 0
        self.producer_state = ProducerStateManager()
        self.follower_leos = {}

    @property
    def tp(self):
        return (self.topic, self.partition)

    @property
    def is_leader(self):
        return self.leader_id == self.broker_id

    def _ensure_log(self, initial_high_watermark):
        if self.log is None:
            self.log = self._log_provider(self.topic, self.partition)
            self.high_watermark = min(max(initial_high_watermark, self.log.log_start_offset),
                                      self.log.log_end_offset)
            self.rebuild_producer_state()

    def rebuild_producer_state(self):
        self.producer_state.truncate()
        for header in self.log.iter_batch_headers(self.log.log_start_offset):
            self.producer_state.record_header(header)

    def make_leader(self, state, initial_high_watermark=0):
        """Apply a LeaderAndIsr naming this broker leader. Returns True if leadership changed."""
        self._ensure_log(initial_high_watermark)
        changed = not self.is_leader or state["leader_epoch"] > self.leader_epoch
        self._apply_state(state)
        self.follower_leos = {replica: -1 for replica in self.replicas if replica != self.broker_id}
        if changed:
            self.log.leader_epoch_cache.assign(self.leader_epoch, self.log.log_end_offset)
        self.maybe_advance_high_watermark()
        return changed

    def make_follower(self, state, initial_high_watermark=0):
        self._ensure_log(initial_high_watermark)
        changed = self.leader_id != state["leader"] or state["leader_epoch"] > self.leader_epoch
        self._apply_state(state)
        self.follower_leos = {}
        return changed

    def _apply_state(self, state):
        self.leader_id = state["leader"]
        self.leader_epoch = state["leader_epoch"]
        self.isr = list(state["isr"])
        self.replicas = list(state.get("replicas") or state["isr"])
        self.zk_version = state.get("zk_version", -1)
        self.controller_epoch = state.get("controller_epoch", -1)

    def check_leader(self, current_leader_epoch=-1):
        if not self.is_leader or self.log is None:
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        if current_leader_epoch >= 0:
            if current_leader_epoch < self.leader_epoch:
                raise KafkaError(Errors.FENCED_LEADER_EPOCH)
            if current_leader_epoch > self.leader_epoch:
                raise KafkaError(Errors.UNKNOWN_LEADER_EPOCH)

    def append_as_leader(self, validated, required_acks, min_insync_replicas, log_append_time_ms):
        """Assign offsets in place and append. Raises KafkaError for leader/ISR/sequence failures."""
        self.check_leader()
        if required_acks == -1 and len(self.isr) < min_insync_replicas:
            raise KafkaError(Errors.NOT_ENOUGH_REPLICAS,
                             "The size of the current ISR %s is insufficient to satisfy the min.isr "
                             "requirement of %d for partition %s-%d"
                             % (self.isr, min_insync_replicas, self.topic, self.partition))
        producer_id = validated.producer_id
        if producer_id >= 0:
            duplicate = self.producer_state.find_duplicate(
                producer_id, validated.producer_epoch, validated.base_sequence, validated.last_sequence)
            if duplicate is not None:
                return AppendResult(duplicate.first_offset, duplicate.last_offset, -1,
                                    self.log.log_start_offset)
            try:
                self.producer_state.check(producer_id, validated.producer_epoch, validated.base_sequence)
            except ProducerFencedError as error:
                raise KafkaError(Errors.INVALID_PRODUCER_EPOCH, str(error)) from None
            except OutOfOrderSequenceError as error:
                raise KafkaError(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, str(error)) from None
            except UnknownProducerIdError as error:
                raise KafkaError(Errors.UNKNOWN_PRODUCER_ID, str(error)) from None
        base_offset = self.log.log_end_offset
        last_offset = validated.assign_offsets(base_offset, self.leader_epoch, log_append_time_ms)
        # For v2 batches Kafka indexes the batch's last offset under its max timestamp.
        self.log.append(validated.buffer, last_offset, validated.max_timestamp, last_offset)
        if producer_id >= 0:
            self.producer_state.record(producer_id, validated.producer_epoch, validated.base_sequence,
                                       validated.last_sequence, base_offset, last_offset,
                                       validated.max_timestamp)
        self.maybe_advance_high_watermark()
        return AppendResult(base_offset, last_offset,
                            log_append_time_ms if log_append_time_ms is not None else -1,
                            self.log.log_start_offset)

    def maybe_advance_high_watermark(self):
        """HW = the smallest log end offset among ISR members. Returns True if it moved."""
        if not self.is_leader:
            return False
        candidates = [self.log.log_end_offset]
        for replica in self.isr:
            if replica != self.broker_id:
                candidates.append(self.follower_leos.get(replica, -1))
        new_hw = min(candidates)
        if new_hw > self.high_watermark:
            self.high_watermark = new_hw
            return True
        return False

    def read(self, fetch_offset, max_bytes, for_follower, min_one_message=True):
        """Return (FetchDataInfo or None, high_watermark, log_start_offset, log_end_offset)."""
        upper = None if for_follower else self.high_watermark
        info = self.log.read(fetch_offset, max_bytes, max_offset=upper, min_one_message=min_one_message)
        return info, self.high_watermark, self.log.log_start_offset, self.log.log_end_offset

    def close(self):
        self.log = None
