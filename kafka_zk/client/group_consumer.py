"""GroupConsumer: a blocking consumer-group member (join, sync, heartbeats, commits, leave) over our Consumer.

Heartbeats come from a background thread (as the 2.5 Java client's heartbeat thread) with its own connections,
so a caller that processes records for longer than the session timeout between polls keeps its membership; the
thread only reports "rejoin needed" and the polling thread does the rejoin. Every group request goes to the
coordinator found with FindCoordinator, rediscovered on NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE or a lost
connection.
"""

import logging
import threading
import time

from kafka_zk.client.assignors import (
    ASSIGNOR_CLASSES,
    ASSIGNORS,
    PROTOCOL_TYPE,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from kafka_zk.client.cluster import ClusterClient
from kafka_zk.client.consumer import Consumer
from kafka_zk.client.coordinator import COORDINATOR_ERRORS, CoordinatorLocator
from kafka_zk.client.errors import KafkaClientError, KafkaConnectionError, KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import heartbeat, join_group, leave_group, offset_commit, offset_fetch, sync_group

log = logging.getLogger(__name__)

REJOIN_ERRORS = frozenset({Errors.REBALANCE_IN_PROGRESS, Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION})


class CommitFailedError(KafkaClientError):
    """The group rebalanced (or this member was evicted) before the commit; the partitions may have moved."""


class GroupConsumer:
    """Subscribes to topics as a member of ``group_id`` and fetches the partitions the group assigns it."""

    def __init__(
        self,
        bootstrap_servers,
        group_id,
        topics=(),
        client_id="kafka-zk-consumer",
        auto_offset_reset="latest",
        enable_auto_commit=True,
        auto_commit_interval_ms=5000,
        session_timeout_ms=10000,
        rebalance_timeout_ms=300000,
        heartbeat_interval_ms=3000,
        assignors=("range",),
        metadata_max_age_ms=300000,
        clock=time.monotonic,
        sleep=time.sleep,
        **consumer_options,
    ):
        if not group_id:
            raise ValueError("group.id is required for a group consumer")
        self.group_id = group_id
        self.assignors = [ASSIGNOR_CLASSES.get(a, a) for a in assignors]
        for name in self.assignors:
            if name not in ASSIGNORS:
                raise ValueError("Unknown partition assignment strategy: %s" % name)
        self.enable_auto_commit = enable_auto_commit
        self.auto_commit_interval = auto_commit_interval_ms / 1000.0
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.heartbeat_interval = heartbeat_interval_ms / 1000.0
        self._clock = clock
        self._sleep = sleep
        self.fetcher = Consumer(
            bootstrap_servers,
            client_id=client_id,
            auto_offset_reset=auto_offset_reset,
            clock=clock,
            sleep=sleep,
            **consumer_options,
        )
        self.cluster = self.fetcher.cluster
        self.coordinators = CoordinatorLocator(self.cluster)
        self.topics = sorted(set(topics))
        self.metadata_max_age = metadata_max_age_ms / 1000.0
        self._select_topics = None
        self._next_pattern_check = 0.0
        self.member_id = ""
        self.generation = -1
        self.protocol = None
        self.leader = False
        self._lock = threading.Lock()
        self._rejoin_needed = True
        self._next_auto_commit = clock() + self.auto_commit_interval
        self._closed = threading.Event()
        self._heartbeat_thread = None
        self._heartbeat_cluster = ClusterClient(
            bootstrap_servers, client_id=client_id, sleep=sleep, security=consumer_options.get("security")
        )
        self._heartbeat_coordinators = CoordinatorLocator(self._heartbeat_cluster)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # -- subscription and membership ----------------------------------------------------------

    def subscribe(self, topics):
        self.topics = sorted(set(topics))
        self._select_topics = None
        self._rejoin_needed = True

    def subscribe_pattern(self, select):
        """Subscribe to the topics ``select(names of all topics)`` returns, evaluated again every
        metadata.max.age.ms (as a Java consumer subscribed to a Pattern); the member rejoins when they change."""
        self._select_topics = select
        self._next_pattern_check = self._clock()
        self._rejoin_needed = True

    def _maybe_match_topics(self):
        if self._select_topics is None or self._clock() < self._next_pattern_check:
            return
        self._next_pattern_check = self._clock() + self.metadata_max_age
        self.cluster.metadata(None)
        topics = sorted(set(self._select_topics(sorted(self.cluster.topics))))
        if topics != self.topics:
            log.info("group %s: subscription now %s", self.group_id, topics)
            self.topics = topics
            self._rejoin_needed = True

    def assignment(self):
        return self.fetcher.assignment()

    def _request(self, api_key, body, error_of=lambda r: r.get("error_code", 0), timeout=None):
        return self.coordinators.request(self.group_id, api_key, body, error_of=error_of, timeout=timeout)

    def _mark_rejoin(self, error):
        with self._lock:
            if error == Errors.UNKNOWN_MEMBER_ID:
                self.member_id = ""
            self.generation = -1
            self._rejoin_needed = True

    def ensure_active(self, deadline=None):
        """Join (or rejoin) the group until a generation's assignment is in place or ``deadline`` passes."""
        while self._rejoin_needed and not self._closed.is_set():
            if deadline is not None and self._clock() >= deadline:
                return False
            if self.generation >= 0 and self.enable_auto_commit:
                self._commit_quietly()
            self._start_heartbeats()
            try:
                self._join_and_sync()
            except KafkaResponseError as exc:
                if exc.error not in REJOIN_ERRORS and exc.error not in COORDINATOR_ERRORS:
                    raise
                log.info("group %s: rejoining after %s", self.group_id, exc.error.name)
                self._mark_rejoin(exc.error)
                self._sleep(0.1)
        return True

    def _join_and_sync(self):
        metadata = encode_subscription(self.topics, owned_partitions=self.fetcher.assignment())
        body = {
            "group_id": self.group_id,
            "session_timeout_ms": self.session_timeout_ms,
            "rebalance_timeout_ms": self.rebalance_timeout_ms,
            "member_id": self.member_id,
            "group_instance_id": None,
            "protocol_type": PROTOCOL_TYPE,
            "protocols": [{"name": name, "metadata": metadata} for name in self.assignors],
        }
        timeout = self.rebalance_timeout_ms / 1000.0 + 5
        response = self._request(join_group.API_KEY, body, timeout=timeout)
        error = Errors.from_code(response["error_code"])
        if error == Errors.MEMBER_ID_REQUIRED:
            self.member_id = body["member_id"] = response["member_id"]
            response = self._request(join_group.API_KEY, body, timeout=timeout)
            error = Errors.from_code(response["error_code"])
        if error != Errors.NONE:
            raise KafkaResponseError(error, context="JoinGroup %s" % self.group_id)
        with self._lock:
            self.member_id = response["member_id"]
            self.generation = response["generation_id"]
            self.protocol = response["protocol_name"]
            self.leader = response["leader"] == self.member_id
        assignments = self._assign(response["members"]) if self.leader else {}
        sync = {
            "group_id": self.group_id,
            "generation_id": self.generation,
            "member_id": self.member_id,
            "group_instance_id": None,
            "protocol_type": PROTOCOL_TYPE,
            "protocol_name": self.protocol,
            "assignments": [
                {"member_id": m, "assignment": encode_assignment(tps)} for m, tps in sorted(assignments.items())
            ],
        }
        response = self._request(sync_group.API_KEY, sync, timeout=timeout)
        error = Errors.from_code(response["error_code"])
        if error != Errors.NONE:
            raise KafkaResponseError(error, context="SyncGroup %s" % self.group_id)
        partitions = decode_assignment(response["assignment"])
        self.fetcher.assign(partitions)
        committed = self.committed(partitions)
        for tp in partitions:
            if tp in committed:
                self.fetcher.seek(tp, committed[tp])
        with self._lock:
            self._rejoin_needed = False
        log.info("group %s generation %d: assigned %s", self.group_id, self.generation, partitions)

    def _assign(self, members):
        subscriptions = {m["member_id"]: decode_subscription(m["metadata"]).topics for m in members}
        topics = sorted({t for ts in subscriptions.values() for t in ts})
        counts = {}
        if topics:
            self.cluster.metadata(topics)
            counts = {t: len(self.cluster.topics[t].partitions) for t in topics if t in self.cluster.topics}
        return ASSIGNORS[self.protocol](counts, subscriptions)

    # -- heartbeats -----------------------------------------------------------------------------

    def _start_heartbeats(self):
        if self._heartbeat_thread is None:
            self._heartbeat_thread = threading.Thread(
                target=self._heartbeat_loop, daemon=True, name="heartbeat-%s" % self.group_id
            )
            self._heartbeat_thread.start()

    def _heartbeat_loop(self):
        while not self._closed.wait(self.heartbeat_interval):
            with self._lock:
                if self._rejoin_needed or self.generation < 0:
                    continue
                body = {
                    "group_id": self.group_id,
                    "generation_id": self.generation,
                    "member_id": self.member_id,
                    "group_instance_id": None,
                }
            try:
                response = self._heartbeat_coordinators.request(self.group_id, heartbeat.API_KEY, body)
            except KafkaClientError as exc:
                log.info("group %s: heartbeat failed: %s", self.group_id, exc)
                continue
            error = Errors.from_code(response["error_code"])
            if error in REJOIN_ERRORS:
                with self._lock:
                    if body["generation_id"] == self.generation:
                        self._mark_rejoin_locked(error)

    def _mark_rejoin_locked(self, error):
        if error == Errors.UNKNOWN_MEMBER_ID:
            self.member_id = ""
        self._rejoin_needed = True

    # -- fetching -------------------------------------------------------------------------------

    def poll(self, timeout_ms=0):
        """Records of the assigned partitions, waiting up to ``timeout_ms``; joins or rejoins the group first when
        needed, and checks between short fetches whether the heartbeat thread asked for a rejoin."""
        deadline = self._clock() + timeout_ms / 1000.0
        while True:
            self._maybe_match_topics()
            self.ensure_active()
            self._maybe_auto_commit()
            remaining = max(0, int((deadline - self._clock()) * 1000))
            if self.fetcher.assignment():
                records = self.fetcher.poll(min(remaining, 500))
                if records or self._clock() >= deadline:
                    return records
            elif remaining <= 0:
                return []
            else:
                self._sleep(min(remaining / 1000.0, 0.1))

    def position(self, tp):
        return self.fetcher.position(tp)

    # -- offsets --------------------------------------------------------------------------------

    def committed(self, partitions):
        """{(topic, partition): committed offset} for the partitions that have one."""
        partitions = list(partitions)
        if not partitions:
            return {}
        by_topic = {}
        for topic, partition in partitions:
            by_topic.setdefault(topic, []).append(partition)
        body = {
            "group_id": self.group_id,
            "require_stable": False,
            "topics": [{"name": t, "partition_indexes": ps} for t, ps in sorted(by_topic.items())],
        }
        response = self._request(offset_fetch.API_KEY, body)
        result = {}
        for topic in response["topics"]:
            for part in topic["partitions"]:
                if part["error_code"]:
                    raise KafkaResponseError(part["error_code"], context="OffsetFetch %s" % self.group_id)
                if part["committed_offset"] >= 0:
                    result[(topic["name"], part["partition_index"])] = part["committed_offset"]
        return result

    def commit(self, offsets=None):
        """Commit ``offsets`` ({tp: offset}; default: every assigned partition's position) synchronously.
        Raises CommitFailedError when the group moved on (the member then rejoins on the next poll)."""
        if offsets is None:
            offsets = self.fetcher.known_positions()
        if not offsets:
            return
        by_topic = {}
        for (topic, partition), offset in sorted(offsets.items()):
            by_topic.setdefault(topic, []).append(
                {
                    "partition_index": partition,
                    "committed_offset": offset,
                    "committed_leader_epoch": -1,
                    "committed_metadata": "",
                }
            )
        with self._lock:
            generation, member_id = self.generation, self.member_id
        body = {
            "group_id": self.group_id,
            "generation_id": generation,
            "member_id": member_id,
            "group_instance_id": None,
            "retention_time_ms": -1,
            "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()],
        }

        def first_error(response):
            codes = [p["error_code"] for t in response["topics"] for p in t["partitions"] if p["error_code"]]
            return codes[0] if codes else 0

        response = self._request(offset_commit.API_KEY, body, error_of=first_error)
        error = Errors.from_code(first_error(response))
        if error in REJOIN_ERRORS:
            self._mark_rejoin(error)
            raise CommitFailedError(
                "Commit cannot be completed since the group has already rebalanced (%s)" % error.name
            )
        if error != Errors.NONE:
            raise KafkaResponseError(error, context="OffsetCommit %s" % self.group_id)

    def _commit_quietly(self):
        try:
            self.commit()
        except (KafkaClientError, KafkaConnectionError) as exc:
            log.info("group %s: auto-commit failed: %s", self.group_id, exc)

    def _maybe_auto_commit(self):
        if self.enable_auto_commit and self._clock() >= self._next_auto_commit:
            self._next_auto_commit = self._clock() + self.auto_commit_interval
            self._commit_quietly()

    # -- leaving --------------------------------------------------------------------------------

    def close(self):
        """Commit (with auto-commit), leave the group, stop heartbeats and close connections. The commit is tried
        even while a rebalance is pending: the coordinator takes it from the current generation until the group
        moves on (as the Java consumer commits on close and before rejoining)."""
        if self._closed.is_set():
            return
        try:
            if self.generation >= 0 and self.enable_auto_commit:
                self._commit_quietly()
            if self.member_id:
                self._leave()
        finally:
            self._closed.set()
            if self._heartbeat_thread is not None:
                self._heartbeat_thread.join(timeout=5)
            self._heartbeat_cluster.close()
            self.fetcher.close()

    def _leave(self):
        body = {
            "group_id": self.group_id,
            "member_id": self.member_id,
            "members": [{"member_id": self.member_id, "group_instance_id": None}],
        }
        try:
            self._request(leave_group.API_KEY, body)
        except KafkaClientError as exc:
            log.info("group %s: LeaveGroup failed: %s", self.group_id, exc)
        with self._lock:
            self.member_id = ""
            self.generation = -1
