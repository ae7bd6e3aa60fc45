"""One partition on this broker: leadership, ISR, high watermark, producer state, and its Log."""

import logging
from collections import namedtuple
from functools import partial

from kafka_zk.log.future_log import follow_truncation
from kafka_zk.log.producer_state import (
    CoordinatorFencedError,
    InvalidTxnStateError,
    OutOfOrderSequenceError,
    ProducerFencedError,
)
from kafka_zk.protocol.errors import Errors, KafkaError
from kafka_zk.protocol.primitives import chunk_bytes
from kafka_zk.record.batch_header import check_crc, iter_batch_headers

log = logging.getLogger(__name__)

NO_LEADER = -1

AppendResult = namedtuple("AppendResult", "base_offset last_offset log_append_time log_start_offset")
# AppendResult from a tuple in one C call (the namedtuple's __new__ is Python code): one at every append.
_new_append_result = partial(tuple.__new__, AppendResult)


class FollowerState:
    """What the leader knows of one follower, from its fetches (Kafka's Replica).

    While the partition is quiet in the follower's fetch session (``quiet_in``), every fetch of that session
    is a fetch of this partition at the log end: the session's last fetch time is this follower's last fetch
    and last caught-up time, without the leader touching this state at each fetch."""

    __slots__ = (
        "log_end_offset",
        "log_start_offset",
        "_last_caught_up_ms",
        "last_fetch_leader_leo",
        "_last_fetch_ms",
        "quiet_in",
    )

    def __init__(self, last_caught_up_ms=0):
        self.log_end_offset = -1
        self.log_start_offset = -1
        self._last_caught_up_ms = last_caught_up_ms
        self.last_fetch_leader_leo = -1
        self._last_fetch_ms = 0
        self.quiet_in = None  # the fetch session (anything with a last_fetch_ms) this partition is quiet in

    def _or_session_fetch(self, ms):
        session = self.quiet_in
        return ms if session is None else max(ms, session.last_fetch_ms)

    @property
    def last_caught_up_ms(self):
        return self._or_session_fetch(self._last_caught_up_ms)

    @property
    def last_fetch_ms(self):
        return self._or_session_fetch(self._last_fetch_ms)

    def unlink(self):
        """Stop following the session's fetches, keeping what they told."""
        if self.quiet_in is not None:
            self._last_caught_up_ms = self.last_caught_up_ms
            self._last_fetch_ms = self.last_fetch_ms
            self.quiet_in = None

    def update(self, fetch_offset, log_start_offset, now_ms, leader_leo):
        self.unlink()
        if fetch_offset >= leader_leo:
            self._last_caught_up_ms = max(self._last_caught_up_ms, now_ms)
        elif fetch_offset >= self.last_fetch_leader_leo:
            self._last_caught_up_ms = max(self._last_caught_up_ms, self._last_fetch_ms)
        self.log_end_offset = fetch_offset
        self.log_start_offset = log_start_offset
        self.last_fetch_leader_leo = leader_leo
        self._last_fetch_ms = now_ms


class Partition:
    # slotted: attribute reads on the produce and fetch paths are cheaper in the compiled twin
    __slots__ = (
        "topic",
        "partition",
        "broker_id",
        "_log_provider",
        "log",
        "future_log",
        "leader_id",
        "leader_epoch",
        "leader_epoch_start_offset",
        "isr",
        "replicas",
        "zk_version",
        "controller_epoch",
        "high_watermark",
        "followers",
        "isr_update_in_flight",
        "append_checks",
    )

    def __init__(self, topic, partition, broker_id, log_provider):
        self.topic = topic
        self.partition = partition
        self.broker_id = broker_id
        self._log_provider = log_provider  # callable(topic, partition) -> Log (created if missing)
        self.log = None
        self.future_log = None  # set while the replica moves to another log dir of this broker
        self.leader_id = NO_LEADER
        self.leader_epoch = -1
        self.leader_epoch_start_offset = -1
        self.isr = []
        self.replicas = []
        self.zk_version = -1
        self.controller_epoch = -1
        self.high_watermark = 0
        self.followers = {}
        self.isr_update_in_flight = False
        # the replica manager's: (the log's LogConfig, what an append to it is checked against), kept here to spare
        # an append a second look-up by (topic, partition)
        self.append_checks = None

    @property
    def tp(self):
        return (self.topic, self.partition)

    @property
    def producer_state(self):
        return self.log.producer_state

    @property
    def last_stable_offset(self):
        return self.log.last_stable_offset(self.high_watermark)

    @property
    def is_leader(self):
        return self.leader_id == self.broker_id

    def _ensure_log(self, initial_high_watermark):
        if self.log is None:
            self.log = self._log_provider(self.topic, self.partition)
            self.high_watermark = min(max(initial_high_watermark, self.log.log_start_offset), self.log.log_end_offset)

    # -- leadership changes ----------------------------------------------------------------------

    def make_leader(self, state, now_ms, initial_high_watermark=0):
        """Apply a LeaderAndIsr naming this broker leader. Returns True if leadership changed."""
        self._ensure_log(initial_high_watermark)
        changed = not self.is_leader or state["leader_epoch"] > self.leader_epoch
        self._apply_state(state)
        if changed:
            self.isr_update_in_flight = False  # a write of the old epoch's ISR no longer counts (nor blocks)
            self.leader_epoch_start_offset = self.log.log_end_offset
            self.log.leader_epoch_cache.assign(self.leader_epoch, self.log.log_end_offset)
            self.followers = {
                replica: FollowerState(now_ms if replica in self.isr else 0)
                for replica in self.replicas
                if replica != self.broker_id
            }
        self.maybe_advance_high_watermark(now_ms, 0)
        return changed

    def make_follower(self, state, initial_high_watermark=0):
        """Apply a LeaderAndIsr naming another leader. Returns True if the leader or epoch changed."""
        self._ensure_log(initial_high_watermark)
        changed = self.leader_id != state["leader"] or state["leader_epoch"] > self.leader_epoch
        self._apply_state(state)
        self.followers = {}
        self.isr_update_in_flight = False
        return changed

    def _apply_state(self, state):
        self.leader_id = state["leader"]
        self.leader_epoch = state["leader_epoch"]
        self._set_isr(state["isr"])
        self.replicas = list(state.get("replicas") or state["isr"])
        self.zk_version = state.get("zk_version", -1)
        self.controller_epoch = state.get("controller_epoch", -1)

    def check_leader(self, current_leader_epoch=-1):
        if not self.is_leader or self.log is None:
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        self.check_epoch(current_leader_epoch)

    def check_readable(self, current_leader_epoch=-1, leader_only=True):
        """Kafka's getLocalLog: the epoch check first, then (``leader_only``) leadership, then a local log;
        raises KafkaError when this replica may not serve the read."""
        self.check_epoch(current_leader_epoch)
        if leader_only and not self.is_leader:
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        if self.log is None:
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION if leader_only else Errors.REPLICA_NOT_AVAILABLE)

    def check_epoch(self, current_leader_epoch):
        if current_leader_epoch >= 0:
            if current_leader_epoch < self.leader_epoch:
                raise KafkaError(Errors.FENCED_LEADER_EPOCH)
            if current_leader_epoch > self.leader_epoch:
                raise KafkaError(Errors.UNKNOWN_LEADER_EPOCH)

    # -- leader: appends and the high watermark ---------------------------------------------------

    def append_as_leader(
        self,
        validated,
        required_acks,
        min_insync_replicas,
        log_append_time_ms,
        now_ms,
        marker=None,
        from_coordinator=False,
    ):
        """Assign offsets in place and append. Raises KafkaError for leader/ISR/sequence failures.

        ``marker`` is the coordinator epoch of a transaction marker batch (WriteTxnMarkers), else None;
        ``from_coordinator`` marks a coordinator's transactional write (TxnOffsetCommit): epoch checked only."""
        log = self.log
        if self.leader_id != self.broker_id or log is None:  # check_leader without an epoch to check
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        if required_acks == -1 and len(self.isr) < min_insync_replicas:
            raise KafkaError(
                Errors.NOT_ENOUGH_REPLICAS,
                "The size of the current ISR %s is insufficient to satisfy the min.isr "
                "requirement of %d for partition %s-%d" % (self.isr, min_insync_replicas, self.topic, self.partition),
            )
        producer_id = validated.producer_id
        if producer_id >= 0 and marker is None and not from_coordinator:
            duplicate = self.producer_state.find_duplicate(
                producer_id, validated.producer_epoch, validated.base_sequence, validated.last_sequence
            )
            if duplicate is not None:
                # as Kafka 2.5's Log.append: a duplicate answers the cached batch's timestamp as its append time
                return AppendResult(
                    duplicate.first_offset, duplicate.last_offset, duplicate.timestamp, self.log.log_start_offset
                )
        try:
            if marker is not None:
                self.producer_state.check_marker(producer_id, validated.producer_epoch, marker)
            elif from_coordinator and producer_id >= 0:
                self.producer_state.check_epoch(producer_id, validated.producer_epoch)
            elif producer_id >= 0:
                self.producer_state.check(
                    producer_id, validated.producer_epoch, validated.base_sequence, validated.is_transactional
                )
        except ProducerFencedError as error:
            raise KafkaError(Errors.INVALID_PRODUCER_EPOCH, str(error)) from None
        except OutOfOrderSequenceError as error:
            raise KafkaError(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, str(error)) from None
        except InvalidTxnStateError as error:
            raise KafkaError(Errors.INVALID_TXN_STATE, str(error)) from None
        except CoordinatorFencedError as error:
            raise KafkaError(Errors.TRANSACTION_COORDINATOR_FENCED, str(error)) from None
        base_offset = log.log_end_offset
        last_offset = validated.assign_offsets(base_offset, self.leader_epoch, log_append_time_ms)
        # For v2 batches Kafka indexes the batch's last offset under its max timestamp; the log
        # applies the batch to the producer state (and a marker to the transaction index).
        log.append_as_leader(validated.buffer, validated.header, validated.max_timestamp)
        if self.followers:
            self.maybe_advance_high_watermark(now_ms, None)
        elif last_offset >= self.high_watermark:  # a leader without followers: the HW is the log end offset
            self.high_watermark = last_offset + 1
        return _new_append_result(
            (
                base_offset,
                last_offset,
                log_append_time_ms if log_append_time_ms is not None else -1,
                log.log_start_offset,
            )
        )

    def delete_records_on_leader(self, offset, now_ms):
        """DeleteRecords: move the log start offset to ``offset`` (-1: the high watermark) and delete the
        segments wholly below it. Returns the offset the low watermark must reach (Kafka's
        Partition.deleteRecordsOnLeader)."""
        if not self.is_leader or self.log is None:
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        if not self.log.config.delete_enabled:
            raise KafkaError(
                Errors.POLICY_VIOLATION,
                "Records of partition %s-%d can not be deleted due to "
                "the configured policy" % (self.topic, self.partition),
            )
        requested = self.high_watermark if offset == -1 else offset
        if requested < 0:
            raise KafkaError(
                Errors.OFFSET_OUT_OF_RANGE,
                "The offset %d for partition %s-%d is not valid" % (requested, self.topic, self.partition),
            )
        if requested > self.high_watermark:
            raise KafkaError(
                Errors.OFFSET_OUT_OF_RANGE,
                "Cannot increment the log start offset to %d of partition %s-%d since it is "
                "larger than the high watermark %d" % (requested, self.topic, self.partition, self.high_watermark),
            )
        if self.log.maybe_increment_log_start_offset(requested):
            self.log.delete_segments_below_log_start(now_ms)
        return requested

    def low_watermark(self, is_alive=lambda broker_id: True):
        """The smallest log start offset of the leader and its live followers (-1 while one is unknown)."""
        if not self.is_leader or self.log is None:
            raise KafkaError(Errors.NOT_LEADER_FOR_PARTITION)
        starts = [follower.log_start_offset for replica, follower in self.followers.items() if is_alive(replica)]
        return min(starts + [self.log.log_start_offset])

    def maybe_advance_high_watermark(self, now_ms, max_lag_ms):
        """HW = the smallest log end offset among the leader, the ISR and followers caught up within
        max_lag_ms (None: ISR only). Returns True if it moved."""
        if self.leader_id != self.broker_id:
            return False
        # The minimum, taken so that it stops as soon as the high watermark cannot move (a follower still
        # behind, the common case after an append) and asks a follower its lag only when that matters.
        high_watermark = self.high_watermark
        new_hw = self.log.log_end_offset
        if new_hw <= high_watermark:
            return False
        isr = self.isr
        for replica, follower in self.followers.items():
            follower_end = follower.log_end_offset
            if follower_end < new_hw and (
                replica in isr or (max_lag_ms is not None and now_ms - follower.last_caught_up_ms <= max_lag_ms)
            ):
                if follower_end <= high_watermark:
                    return False
                new_hw = follower_end
        self.high_watermark = new_hw
        return True

    def update_follower(self, replica_id, fetch_offset, log_start_offset, now_ms):
        """Record a follower's fetch position. Returns the follower state, or None if not a replica."""
        follower = self.followers.get(replica_id)
        if follower is not None:
            follower.update(fetch_offset, log_start_offset, now_ms, self.log.log_end_offset)
        return follower

    def note_idle_follower_fetch(self, replica_id, fetch_offset, log_start_offset, now_ms):
        """The cheap case of update_follower: an in-sync follower fetching again from the log end with the
        same positions as last time. Notes the fetch and returns True; returns False (nothing done) otherwise.
        Nothing else can follow from such a fetch: no ISR expansion, and (as in Kafka, which moves the high
        watermark only when a follower's log end moves) no high watermark or low watermark change."""
        follower = self.followers.get(replica_id)
        leo = self.log.log_end_offset
        if (
            follower is None
            or fetch_offset != leo
            or follower.log_end_offset != fetch_offset
            or follower.log_start_offset != log_start_offset
            or replica_id not in self.isr
        ):
            return False
        follower.update(fetch_offset, log_start_offset, now_ms, leo)
        return True

    def link_quiet_follower(self, replica_id, session):
        """Tie an in-sync follower at the log end to its fetch session (see FollowerState); False if it is
        not such a follower (then the partition is not quiet in that session)."""
        follower = self.followers.get(replica_id)
        if (
            follower is None
            or not self.is_leader
            or self.log is None
            or replica_id not in self.isr
            or follower.log_end_offset != self.log.log_end_offset
        ):
            return False
        follower.quiet_in = session
        return True

    def read_replica_candidates(self, fetch_offset, now_ms):
        """(broker id, log end offset, ms since caught up) of each in-sync follower whose log holds
        ``fetch_offset``: the replicas a leader may send a consumer to (Kafka's findPreferredReadReplica, which
        since KAFKA-14372 leaves out followers outside the ISR)."""
        isr = self.isr
        return [
            (replica, follower.log_end_offset, now_ms - follower.last_caught_up_ms)
            for replica, follower in self.followers.items()
            if replica in isr and follower.log_start_offset <= fetch_offset <= follower.log_end_offset
        ]

    def isr_to_expand(self, replica_id):
        """The ISR with replica_id added, if it has caught up to the HW within this leader epoch."""
        follower = self.followers.get(replica_id)
        if (
            follower is None
            or replica_id in self.isr
            or self.isr_update_in_flight
            or follower.log_end_offset < self.high_watermark
            or follower.log_end_offset < self.leader_epoch_start_offset
        ):
            return None
        return sorted(self.isr + [replica_id])

    def isr_to_shrink(self, now_ms, max_lag_ms):
        """The ISR without followers that have not caught up for max_lag_ms, or None."""
        if not self.is_leader or self.isr_update_in_flight:
            return None
        lagging = [
            replica
            for replica in self.isr
            if replica != self.broker_id
            and now_ms - self.followers.get(replica, FollowerState()).last_caught_up_ms > max_lag_ms
        ]
        if not lagging:
            return None
        return [replica for replica in self.isr if replica not in lagging]

    def apply_isr(self, isr, zk_version):
        self._set_isr(isr)
        self.zk_version = zk_version

    def _set_isr(self, isr):
        self.isr = list(isr)
        for replica, follower in self.followers.items():
            if replica not in self.isr:
                follower.unlink()  # only an in-sync follower's state follows its session (link_quiet_follower)

    # -- follower: appends from the leader --------------------------------------------------------

    def append_as_follower(self, records, leader_high_watermark, leader_log_start_offset):
        """Append whole batches fetched from the leader (offsets already assigned). Returns bytes appended.

        A trailing partial batch is dropped; a batch with a bad CRC raises InvalidRecordError.
        """
        view = memoryview(records)
        leo = self.log.log_end_offset
        start = end = None
        headers = []  # (position from start, header)
        for pos, header in iter_batch_headers(view):
            if header.last_offset < leo:
                continue
            check_crc(view, pos, header)
            if start is None:
                start = pos
            end = pos + header.size
            headers.append((pos - start, header))
        appended = 0
        if headers:
            newest = max((header for _, header in headers), key=lambda header: header.max_timestamp)
            # the fetched bytes are written as they are, uncopied (one write for all the batches)
            self.log.append_copied(
                view[start:end],
                headers[0][1].base_offset,
                headers[-1][1].last_offset,
                newest.max_timestamp,
                newest.last_offset,
                headers,
            )
            appended = end - start
        if leader_log_start_offset > self.log.log_start_offset:
            if self.log.maybe_increment_log_start_offset(min(leader_log_start_offset, self.log.log_end_offset)):
                self.log.delete_segments_below_log_start()
        self.high_watermark = max(self.high_watermark, min(leader_high_watermark, self.log.log_end_offset))
        return appended

    def truncate_to(self, offset):
        if offset < self.log.log_end_offset:
            log.info(
                "[Partition %s-%d broker=%d] truncating from %d to %d",
                self.topic,
                self.partition,
                self.broker_id,
                self.log.log_end_offset,
                offset,
            )
            self.log.truncate_to(offset)
            if self.future_log is not None:
                follow_truncation(self.future_log, offset)
        self.high_watermark = min(self.high_watermark, self.log.log_end_offset)

    def truncate_fully_and_start_at(self, offset):
        self.log.truncate_fully_and_start_at(offset)
        if self.future_log is not None:
            self.future_log.truncate_fully_and_start_at(offset)
        self.high_watermark = offset

    # -- reads ------------------------------------------------------------------------------------

    def read(self, fetch_offset, max_bytes, for_follower, min_one_message=True, read_committed=False):
        """Return (FetchDataInfo, high_watermark, log_start_offset, log_end_offset); consumers read up to
        the high watermark, read_committed ones up to the last stable offset."""
        if for_follower:
            upper = None
        else:
            upper = self.last_stable_offset if read_committed else self.high_watermark
        log = self.log
        info = log.read(fetch_offset, max_bytes, upper, min_one_message)
        return info, self.high_watermark, log.log_start_offset, log.log_end_offset

    def aborted_transactions(self, fetch_offset, records):
        """[(producer_id, first_offset)] of aborted transactions overlapping a read from ``fetch_offset``
        that returned ``records`` (bytes or a FileSlice); up to the offset after the last whole batch read."""
        if not records or not self.log.collect_aborted_transactions(fetch_offset, self.log.log_end_offset):
            return []  # none from fetch_offset on at all: the batches need not be walked for the exact bound
        records = chunk_bytes(records)
        last = None
        for _, header in iter_batch_headers(records):
            last = header.last_offset
        if last is None:
            return []
        return self.log.collect_aborted_transactions(fetch_offset, last + 1)

    def close(self):
        self.log = None
        self.future_log = None
