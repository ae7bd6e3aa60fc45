"""Follower replication: fetchers that truncate to the leader's epoch boundary, then fetch and append."""

import contextlib
import functools
import logging

from twisted.internet import defer

from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.log.dir_failure import KafkaStorageError
from kafka_zk.log.leader_epoch_cache import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_zk.net.broker_client import BrokerConnection
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.batch_header import InvalidRecordError
from kafka_zk.server.metrics.broker_topic_stats import BrokerTopicStats
from kafka_zk.server.quota.replication_quota import should_throttle
from kafka_zk.server.replication.fetch_session import PartitionRequest
from kafka_zk.server.replication.fetch_session_handler import FetchSessionHandler
from kafka_zk.server.replication.replica_metrics import OneMinuteRate, register_fetcher_manager_gauges

log = logging.getLogger(__name__)

FETCH = (1, 11)
LIST_OFFSETS = (2, 5)
OFFSET_FOR_LEADER_EPOCH = (23, 3)
_WAIT_FOR_LEADER_AND_ISR = {
    Errors.NOT_LEADER_FOR_PARTITION,
    Errors.FENCED_LEADER_EPOCH,
    Errors.UNKNOWN_LEADER_EPOCH,
    Errors.UNKNOWN_TOPIC_OR_PARTITION,
}


# How often a fetcher rebuilds its request from every partition, not only from those it saw change (a safety net).
FULL_REBUILD_S = 30.0


class PartitionFetchState:
    __slots__ = ("partition", "leader_epoch", "truncating", "lag", "_request", "last_error")

    def __init__(self, partition):
        self.partition = partition
        self.leader_epoch = partition.leader_epoch
        self.truncating = True
        self.lag = None  # the leader's high watermark minus our log end after the last fetch
        self._request = None
        self.last_error = Errors.NONE  # the error of the last answer (logged when it changes)

    def request(self, tp, max_bytes):
        """This partition's part of the next Fetch; the same object while nothing in it changes, so that the
        fetch session finds unchanged partitions at the cost of an identity check."""
        log = self.partition.log
        request = self._request
        if (
            request is None
            or request.fetch_offset != log.log_end_offset
            or request.log_start_offset != log.log_start_offset
            or request.max_bytes != max_bytes
            or request.current_leader_epoch != self.leader_epoch
        ):
            request = self._request = PartitionRequest(
                tp, log.log_end_offset, max_bytes, self.leader_epoch, log.log_start_offset
            )
        return request

    @property
    def in_sync(self):
        return self.lag is not None and self.lag <= 0


def truncation_offset(log, high_watermark, leader_epoch, leader_end_offset):
    """Kafka's follower truncation rule. Returns (offset to truncate to, truncation complete?)."""
    leo = log.log_end_offset
    if leader_end_offset == UNDEFINED_EPOCH_OFFSET:
        return min(high_watermark, leo), True
    if leader_epoch == UNDEFINED_EPOCH:
        return min(leader_end_offset, leo), True
    follower_epoch, follower_end = log.end_offset_for_epoch(leader_epoch)
    if follower_epoch == UNDEFINED_EPOCH:
        return min(leader_end_offset, leo), True
    if follower_epoch != leader_epoch:
        return min(follower_end, leo), False
    return min(leader_end_offset, follower_end), True


class ReplicaFetcher:
    """Fetches a set of partitions from one leader over one connection, in one loop.

    The loop's work follows what changed, not how many partitions it fetches: partitions being truncated
    and those backing off after an error are kept apart, and each request is built from the partitions whose
    fetch position changed since the last one (all of them for a full request, under a replication quota, and
    every FULL_REBUILD_S)."""

    def __init__(self, manager, leader_id, host, port, fetcher_id):
        self.manager = manager
        self.config = manager.config
        self.reactor = manager.reactor
        self.broker_id = manager.broker_id
        self.leader_id = leader_id
        self.endpoint = (host, port)
        self.connection = BrokerConnection(
            self.reactor,
            host,
            port,
            "replica-fetcher-%d-%d" % (self.broker_id, fetcher_id),
            security=manager.security,
            request_timeout_s=self.config["replica.socket.timeout.ms"] / 1000.0,
        )
        self.partitions = {}
        self.truncating = set()  # (topic, partition)s still to truncate before they fetch
        self.delayed = {}  # {(topic, partition): reactor time} backing off after an error until then
        self.changed = set()  # partitions whose part of the next request may differ from the last one
        self.session = FetchSessionHandler()  # this fetcher's fetch session with the leader
        self._next_rebuild = 0.0
        self.running = False
        self._wakeup = None
        self.backoff_s = self.config["replica.fetch.backoff.ms"] / 1000.0
        self.request_rate = OneMinuteRate(self.reactor.seconds())  # fetches answered (MinFetchRate)
        self._stats_tags = {
            "clientId": "ReplicaFetcherThread-%d-%d" % (fetcher_id, leader_id),
            "brokerHost": host,
            "brokerPort": port,
        }
        self.requests_meter = manager.metrics.meter("kafka.server", "FetcherStats", "RequestsPerSec", self._stats_tags)
        self.bytes_meter = manager.metrics.meter("kafka.server", "FetcherStats", "BytesPerSec", self._stats_tags)

    def add(self, partition):
        tp = partition.tp
        self.partitions[tp] = PartitionFetchState(partition)
        self.truncating.add(tp)
        self.delayed.pop(tp, None)
        self.changed.add(tp)
        self._wake()

    def remove(self, tps):
        for tp in tps:
            if self.partitions.pop(tp, None) is not None:
                self.truncating.discard(tp)
                self.delayed.pop(tp, None)
                self.changed.add(tp)

    def start(self):
        self.running = True
        self._loop().addErrback(lambda failure: log.error("fetcher loop died: %s", failure.getTraceback()))

    def stop(self):
        self.running = False
        self.connection.close()
        self._wake()
        for name in ("RequestsPerSec", "BytesPerSec"):
            self.manager.metrics.remove("kafka.server", "FetcherStats", name, self._stats_tags)

    def _wake(self):
        if self._wakeup is not None and not self._wakeup.called:
            waiter, self._wakeup = self._wakeup, None
            waiter.callback(None)

    def _sleep(self, seconds):
        self._wakeup = defer.Deferred()
        timer = self.reactor.callLater(seconds, self._wake)
        return self._wakeup.addBoth(lambda _: timer.cancel() if timer.active() else None)

    @defer.inlineCallbacks
    def _loop(self):
        while self.running:
            now = self.reactor.seconds()
            self._release_delayed(now)
            if len(self.delayed) >= len(self.partitions):
                yield self._sleep(self.backoff_s if self.partitions else 3600)
                continue
            try:
                partitions = self.partitions
                truncating = {tp: partitions[tp] for tp in self.truncating if tp not in self.delayed}
                if truncating:
                    yield self._truncate(truncating)
                over_quota = self.manager.quota.is_quota_exceeded()
                fetched = yield self._fetch(over_quota)
                if not fetched and not truncating:
                    yield self._sleep(self.backoff_s)  # every ready partition is throttled: back off
            except Exception as error:  # connection trouble: back off and try again
                if self.running:
                    log.info(
                        "[ReplicaFetcher broker=%d leader=%d] %s; retrying in %.1fs",
                        self.broker_id,
                        self.leader_id,
                        error,
                        self.backoff_s,
                    )
                    self.connection.close()
                    yield self._sleep(self.backoff_s)

    def _release_delayed(self, now):
        if self.delayed:
            for tp in [tp for tp, until in self.delayed.items() if until <= now]:
                del self.delayed[tp]
                self.changed.add(tp)

    def _fetching(self, tp):
        return tp in self.partitions and tp not in self.truncating and tp not in self.delayed

    def _throttled(self, tp, state):
        """Kafka's shouldFollowerThrottle: an out-of-sync throttled partition sits out while over the quota."""
        return should_throttle(self.manager.quota, tp, state.in_sync)

    def _delay(self, tp):
        self.delayed[tp] = self.reactor.seconds() + self.backoff_s
        self.changed.add(tp)

    @contextlib.contextmanager
    def _writing(self, tp, state):
        """Around work on a replica's log: an I/O error takes its log dir offline (the replica manager then stops
        the replicas there) and this fetcher stops fetching it, instead of retrying the same error."""
        try:
            self.manager.failures.check_log(state.partition.log, "replicating")
            yield
        except KafkaStorageError:
            self.remove([tp])
        except OSError as error:
            self.manager.failures.report_log(state.partition.log, "replicating", error)
            self.remove([tp])

    def _grouped(self, states, fields):
        topics = {}
        for (topic, index), state in sorted(states.items()):
            topics.setdefault(topic, []).append(dict(fields(state), partition=index))
        return [{"topic": topic, "partitions": partitions} for topic, partitions in topics.items()]

    @defer.inlineCallbacks
    def _truncate(self, states):
        needs_request = {}
        for tp, state in states.items():
            latest = state.partition.log.leader_epoch_cache.latest_epoch
            if latest is None:
                with self._writing(tp, state):
                    self._finish_truncation(state, state.partition.high_watermark)
            else:
                needs_request[tp] = (state, latest)
        if not needs_request:
            return
        body = {
            "replica_id": self.broker_id,
            "topics": self._grouped(
                {tp: entry for tp, entry in needs_request.items()},
                lambda entry: {"current_leader_epoch": entry[0].leader_epoch, "leader_epoch": entry[1]},
            ),
        }
        response = yield self.connection.request(*OFFSET_FOR_LEADER_EPOCH, body)
        for topic in response["topics"]:
            for answer in topic["partitions"]:
                tp = (topic["topic"], answer["partition"])
                state = needs_request.get(tp, (None,))[0]
                if state is None or self.partitions.get(tp) is not state:
                    continue
                if answer["error_code"] != Errors.NONE:
                    log.info(
                        "[ReplicaFetcher broker=%d leader=%d] OffsetsForLeaderEpoch of %s-%d (epoch %d): %s; "
                        "retrying in %.1fs",
                        self.broker_id,
                        self.leader_id,
                        tp[0],
                        tp[1],
                        state.leader_epoch,
                        Errors.from_code(answer["error_code"]).name,
                        self.backoff_s,
                    )
                    self._delay(tp)
                    continue
                with self._writing(tp, state):
                    offset, complete = truncation_offset(
                        state.partition.log,
                        state.partition.high_watermark,
                        answer["leader_epoch"],
                        answer["end_offset"],
                    )
                    if complete:
                        self._finish_truncation(state, offset)
                    else:
                        log.info(
                            "[ReplicaFetcher broker=%d leader=%d] %s-%d: the leader's epoch %d is not ours; "
                            "truncating to %d and asking again",
                            self.broker_id,
                            self.leader_id,
                            tp[0],
                            tp[1],
                            answer["leader_epoch"],
                            offset,
                        )
                        state.partition.truncate_to(offset)

    def _finish_truncation(self, state, offset):
        state.partition.truncate_to(offset)
        state.truncating = False
        self.truncating.discard(state.partition.tp)
        self.changed.add(state.partition.tp)

    def _request_data(self, over_quota):
        """What the next Fetch sends and forgets: rebuilt from every partition for a full request, under a
        quota and every FULL_REBUILD_S; from the changed partitions otherwise."""
        max_bytes = self.config["replica.fetch.max.bytes"]
        now = self.reactor.seconds()
        changed, self.changed = self.changed, set()
        if over_quota or self.session.next_is_full or now >= self._next_rebuild:
            self._next_rebuild = now + FULL_REBUILD_S
            if over_quota:
                self.changed = set(self.partitions)  # the throttled ones come back once under the quota
            wanted = {
                tp: state.request(tp, max_bytes)
                for tp, state in self.partitions.items()
                if self._fetching(tp) and not (over_quota and self._throttled(tp, state))
            }
            return self.session.build(wanted)
        partitions = self.partitions
        return self.session.build_changes(
            {tp: partitions[tp].request(tp, max_bytes) if self._fetching(tp) else None for tp in changed}
        )

    @defer.inlineCallbacks
    def _fetch(self, over_quota):
        """One Fetch in this fetcher's session with the leader: a full request first, then incremental ones
        naming only the partitions whose fetch position changed. Returns False when there was nothing to fetch."""
        config = self.config
        data = self._request_data(over_quota)
        if not data.session_partitions:
            if data.to_forget or not data.is_full:
                self.session.handle_error()  # nothing left to fetch: the next request starts a new session
            return False
        forgotten = {}
        for topic, index in sorted(data.to_forget):
            forgotten.setdefault(topic, []).append(index)
        body = {
            "replica_id": self.broker_id,
            "max_wait_ms": config["replica.fetch.wait.max.ms"],
            "min_bytes": config["replica.fetch.min.bytes"],
            "max_bytes": config["replica.fetch.response.max.bytes"],
            "isolation_level": 0,
            "session_id": data.session_id,
            "session_epoch": data.epoch,
            "forgotten_topics_data": [{"topic": topic, "partitions": indexes} for topic, indexes in forgotten.items()],
            "rack_id": "",
            "topics": self._grouped(
                data.to_send,
                lambda request: {
                    "current_leader_epoch": request.current_leader_epoch,
                    "fetch_offset": request.fetch_offset,
                    "log_start_offset": request.log_start_offset,
                    "partition_max_bytes": request.max_bytes,
                },
            ),
        }
        try:
            response = yield self.connection.request(*FETCH, body)
        except Exception:
            self.session.handle_error()
            raise
        self.request_rate.mark(self.reactor.seconds())
        self.requests_meter.mark()
        answered = [
            (topic["topic"], answer["partition_index"])
            for topic in response["responses"]
            for answer in topic["partitions"]
        ]
        error = response["error_code"]
        if not self.session.handle_response(error, response["session_id"], answered, response["throttle_time_ms"]):
            if error in (Errors.FETCH_SESSION_ID_NOT_FOUND, Errors.INVALID_FETCH_SESSION_EPOCH, Errors.NONE):
                log.info(
                    "[ReplicaFetcher broker=%d leader=%d] fetch session %d epoch %d: %s; the next fetch is a full one",
                    self.broker_id,
                    self.leader_id,
                    data.session_id,
                    data.epoch,
                    Errors.from_code(error).name if error else "unexpected partitions in the answer",
                )
                return True
            raise RuntimeError("fetch failed with error %d" % error)
        sent = data.session_partitions  # as sent: the next build is the first to change it
        moved = []  # partitions whose high watermark or log start offset moved here
        for topic in response["responses"]:
            for answer in topic["partitions"]:
                tp = (topic["topic"], answer["partition_index"])
                state = self.partitions.get(tp)
                request = sent.get(tp)
                # an answer to a request made before the partition was re-added, truncated or backed off
                if state is None or request is None or not self._fetching(tp) or state._request is not request:
                    continue
                with self._writing(tp, state):
                    resetting = self._handle_partition(tp, state, answer, moved)
                    if resetting is not None:
                        yield resetting
        if moved:
            self.manager.fetchable_changed(moved)
        return True

    def _handle_partition(self, tp, state, answer, moved):
        """Apply one partition's answer; returns a Deferred only when the answer needs more requests (an offset
        out of range), None otherwise (most answers: no generator and no Deferred per partition)."""
        partition = state.partition
        error = answer["error_code"]
        if error == Errors.NONE:
            records = answer["records"] or b""
            log_start, high_watermark = partition.log.log_start_offset, partition.high_watermark
            try:
                partition.append_as_follower(records, answer["high_watermark"], answer["log_start_offset"])
            except InvalidRecordError as failure:
                log.error(
                    "[ReplicaFetcher broker=%d] corrupt batch from leader %d for %s-%d: %s",
                    self.broker_id,
                    self.leader_id,
                    tp[0],
                    tp[1],
                    failure,
                )
                self._delay(tp)
                return None
            start_moved = partition.log.log_start_offset != log_start
            # The leader learns our new log end or log start offset (which a DeleteRecords waits for) only from
            # a request naming the partition.
            if records or start_moved:
                self.changed.add(tp)
                self.bytes_meter.mark(len(records))
            if start_moved or partition.high_watermark != high_watermark:
                moved.append(tp)
            state.lag = max(0, answer["high_watermark"] - partition.log.log_end_offset)
            if records:
                self.manager.topic_stats.replicated(len(records))
                quota = self.manager.quota
                if quota.is_throttled(tp):
                    quota.record(len(records))
        elif error == Errors.OFFSET_OUT_OF_RANGE:
            return self._reset_out_of_range(tp, state)
        elif error in _WAIT_FOR_LEADER_AND_ISR:
            if error != state.last_error:
                log.info(
                    "[ReplicaFetcher broker=%d leader=%d] fetch of %s-%d at leader epoch %d: %s; retrying every "
                    "%.1fs until a LeaderAndIsr",
                    self.broker_id,
                    self.leader_id,
                    tp[0],
                    tp[1],
                    state.leader_epoch,
                    Errors.from_code(error).name,
                    self.backoff_s,
                )
            self._delay(tp)
        else:
            log.warning(
                "[ReplicaFetcher broker=%d] fetch of %s-%d from %d failed with %s",
                self.broker_id,
                tp[0],
                tp[1],
                self.leader_id,
                Errors.from_code(error).name,
            )
            self._delay(tp)
        state.last_error = error

    @defer.inlineCallbacks
    def _reset_out_of_range(self, tp, state):
        self.changed.add(tp)
        partition = state.partition
        leader_end = yield self._leader_offset(tp, state, -1)
        if leader_end is None:
            return
        if leader_end < partition.log.log_end_offset:
            log.warning(
                "[ReplicaFetcher broker=%d] truncating %s-%d to the leader's end offset %d",
                self.broker_id,
                tp[0],
                tp[1],
                leader_end,
            )
            partition.truncate_to(leader_end)
            return
        leader_start = yield self._leader_offset(tp, state, -2)
        if leader_start is not None and leader_start > partition.log.log_end_offset:
            partition.truncate_fully_and_start_at(leader_start)

    @defer.inlineCallbacks
    def _leader_offset(self, tp, state, timestamp):
        body = {
            "replica_id": self.broker_id,
            "isolation_level": 0,
            "topics": [
                {
                    "name": tp[0],
                    "partitions": [
                        {"partition_index": tp[1], "current_leader_epoch": state.leader_epoch, "timestamp": timestamp}
                    ],
                }
            ],
        }
        response = yield self.connection.request(*LIST_OFFSETS, body)
        answer = response["topics"][0]["partitions"][0]
        if answer["error_code"] != Errors.NONE:
            self._delay(tp)
            return None
        return answer["offset"]


@functools.lru_cache(maxsize=100_000)
def _topic_hash(topic):
    """Spreads a topic's partitions over the fetchers (num.replica.fetchers); computed once per topic."""
    return sum(map(ord, topic)) * 31


class ReplicaFetcherManager:
    """Assigns follower partitions to fetchers: one per (leader, fetcher id) as num.replica.fetchers says."""

    def __init__(
        self,
        config,
        reactor,
        broker_id,
        failures,
        quota,
        fetchable_changed=lambda tps: None,
        security=None,
        metrics=None,
        topic_stats=None,
    ):
        """``failures``: the LogDirFailureChannel a follower's I/O errors are reported to; ``quota``: the follower
        ReplicationQuota; ``fetchable_changed(tps)``: a follower's high watermark or log start offset moved, which
        consumers reading from this follower (KIP-392) may be waiting for; ``security``: how to reach the
        leaders' inter-broker listener (a net.broker_client.ListenerSecurity); ``metrics``: the MetricsRegistry
        that gets MaxLag and MinFetchRate (kafka.server:type=ReplicaFetcherManager,clientId=Replica) and each
        fetcher's FetcherStats RequestsPerSec and BytesPerSec (clientId=ReplicaFetcherThread-<id>-<leader>,
        brokerHost, brokerPort); ``topic_stats``: the BrokerTopicStats whose ReplicationBytesInPerSec counts what
        followers append."""
        self.config = config
        self.security = security
        self.reactor = reactor
        self.broker_id = broker_id
        self.failures = failures
        self.quota = quota
        self.fetchable_changed = fetchable_changed
        self.topic_stats = topic_stats if topic_stats is not None else BrokerTopicStats(MetricsRegistry(enabled=False))
        self.fetchers = {}
        self.metrics = metrics if metrics is not None else MetricsRegistry()  # also each fetcher's FetcherStats
        register_fetcher_manager_gauges(self.metrics, self, reactor)

    def add_partitions(self, leader_id, endpoint, partitions):
        log.info(
            "[ReplicaFetcherManager on broker %d] Added fetcher to broker %d for partitions %s",
            self.broker_id,
            leader_id,
            ", ".join("%s-%d (epoch %d)" % (p.topic, p.partition, p.leader_epoch) for p in partitions),
        )
        fetcher_count = self.config["num.replica.fetchers"]
        for partition in partitions:
            key = (leader_id, (_topic_hash(partition.topic) + partition.partition) % fetcher_count)
            fetcher = self.fetchers.get(key)
            if fetcher is not None and fetcher.endpoint != tuple(endpoint):
                fetcher.stop()
                fetcher = None
            if fetcher is None:
                fetcher = self.fetchers[key] = ReplicaFetcher(self, leader_id, endpoint[0], endpoint[1], key[1])
                fetcher.start()
            fetcher.add(partition)

    def log_starts_moved(self, tps):
        """Retention moved these partitions' log start offsets: their next fetch tells the leader."""
        for fetcher in self.fetchers.values():
            fetcher.changed.update(tp for tp in tps if tp in fetcher.partitions)

    def remove_partitions(self, tps):
        for key, fetcher in list(self.fetchers.items()):
            fetcher.remove(tps)
            if not fetcher.partitions:
                fetcher.stop()
                del self.fetchers[key]

    def shutdown(self):
        for fetcher in self.fetchers.values():
            fetcher.stop()
        self.fetchers = {}
