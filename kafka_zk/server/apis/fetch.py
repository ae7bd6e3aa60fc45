"""Fetch (key 1): records below the high watermark for consumers, below the last stable offset (with the
aborted transactions) for read_committed ones, and to the log end for followers; in fetch sessions (v7+),
incremental fetches are answered with only the partitions that changed. From v11 a consumer may read from a
follower, and a leader with a replica selector may name the replica it should read from (KIP-392)."""

from twisted.internet import defer
from twisted.python import failure

from kafka_zk.common.clock import milliseconds
from kafka_zk.protocol.errors import NO_ERROR, Errors
from kafka_zk.protocol.primitives import chunk_bytes
from kafka_zk.record.batch_header import iter_batch_headers
from kafka_zk.record.validation import down_convert
from kafka_zk.security.authorizer import AclOperation, ResourceType
from kafka_zk.server.apis.authorization import authorized_names, cluster_authorized
from kafka_zk.server.quota.client_quotas import ANONYMOUS
from kafka_zk.server.replication.delayed import DelayedFetch
from kafka_zk.server.replication.fetch_session import FINAL_EPOCH, INVALID_SESSION_ID, PartitionRequest
from kafka_zk.server.replication.results import FetchResult
from kafka_zk.zk.znodes import sanitize

API_KEY = 1
_NO_LIMIT = 0x7FFFFFFF
_SESSIONS_FROM_VERSION = 7
_CLIENT_RACK_FROM_VERSION = 11
_new_tuple = tuple.__new__
_TUPLE_REQUESTS = issubclass(PartitionRequest, tuple)


def handle(
    request, *, fetch_manager, metadata_cache, replica_manager, fetch_quotas, clock, authorizer=None, topic_stats=None
):
    """``topic_stats``: the BrokerTopicStats whose BytesOutPerSec / ReplicationBytesOutPerSec count what the
    response carries (Kafka's updateBytesOut), and FetchMessageConversionsPerSec what old versions made convert."""
    body = request.body
    version = request.api_version
    is_follower = body["replica_id"] >= 0
    if version >= _SESSIONS_FROM_VERSION:
        session_id, epoch = body["session_id"], body["session_epoch"]
        forgotten_topics = body["forgotten_topics_data"]
        forgotten = (
            [(entry["topic"], index) for entry in forgotten_topics for index in entry["partitions"] or []]
            if forgotten_topics
            else []
        )
    else:
        session_id, epoch, forgotten = INVALID_SESSION_ID, FINAL_EPOCH, []
    fetch_data = {}
    for topic_data in body["topics"]:
        for partition_data in topic_data["partitions"]:
            tp = (topic_data["topic"], partition_data["partition"])
            values = (
                tp,
                partition_data["fetch_offset"],
                partition_data["partition_max_bytes"],
                partition_data["current_leader_epoch"],
                partition_data["log_start_offset"],
            )
            # a namedtuple's __new__ runs in Python: tuple.__new__ makes the same PartitionRequest without it
            fetch_data[tp] = _new_tuple(PartitionRequest, values) if _TUPLE_REQUESTS else PartitionRequest(*values)
    now_ms = milliseconds(clock)  # the handling's one reading (new_context and fetched below)
    context = fetch_manager.new_context(session_id, epoch, fetch_data, forgotten, is_follower, now_ms)
    partitions = list(context.partitions())
    order = []
    names = []
    for tp, _ in partitions:
        order.append(tp)
        names.append(tp[0])
    if is_follower:  # a follower needs ClusterAction on the cluster; otherwise nothing of it is read or recorded
        denied_follower = not cluster_authorized(authorizer, request, AclOperation.CLUSTER_ACTION)
        readable = set() if denied_follower else set(names)
    else:  # a consumer needs Read on each topic it fetches
        denied_follower = False
        readable = (
            set(names)  # authorized_names()'s answer when nothing authorizes, without its call
            if authorizer is None
            else authorized_names(authorizer, request, AclOperation.READ, ResourceType.TOPIC, names)
        )
    fetch_infos = []
    failed = {}
    for tp, data in partitions:
        if tp[0] not in readable:
            failed[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
        elif not metadata_cache.contains_topic(tp[0]) and replica_manager.get_partition(*tp) is None:
            failed[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
        else:
            fetch_infos.append(data)  # a PartitionRequest reads as the replica manager's FetchInfo
    max_bytes = body["max_bytes"] if version >= 3 else _NO_LIMIT
    # Kafka's ClientMetadata: with it (v11+) a consumer's fetch is not bound to the leader.
    client_rack = (body["rack_id"] or "") if version >= _CLIENT_RACK_FROM_VERSION and not is_follower else None
    isolation_level = body.get("isolation_level", 0) if version >= 4 else 0
    session = context.session
    tracking = not denied_follower and session is not None and session.tracks_changes  # only a follower's does
    if denied_follower:
        result = {}
    else:
        if is_follower and forgotten:
            replica_manager.unlink_followers(body["replica_id"], forgotten)
        result = replica_manager.fetch_messages_or_park(
            body["max_wait_ms"],
            body["min_bytes"],
            max_bytes,
            fetch_infos,
            body["replica_id"],
            isolation_level,
            session=context if tracking else None,
            client_rack=client_rack,
        )
    context.fetched(now_ms)

    def build(results):
        throttle_ms = 0
        now = milliseconds(clock)
        # consumers, when a quota is set (without one record() measures nothing and answers 0); followers are
        # subject to replication quotas instead
        if not is_follower and fetch_quotas.enabled:
            client = sanitize(request.client_id or "")
            size = sum(len(outcome.records or b"") for outcome in results.values())
            throttle_ms = fetch_quotas.record(ANONYMOUS, client, size, now)
            if throttle_ms > 0:  # as Kafka: a throttled fetch answers without data, which is not counted
                fetch_quotas.unrecord(ANONYMOUS, client, size, now)
        if throttle_ms > 0:
            error, response_session_id, answer = context.throttled()
        else:
            if not failed:  # the common case: results hold the partitions in request order (a parked
                merged = results  # fetch's extra ones of its session after them)
            else:
                merged = {
                    tp: FetchResult(failed[tp]) if tp in failed else results[tp]
                    for tp in order
                    if tp in failed or tp in results
                }
            if tracking and failed:  # a parked fetch of the session may also have read partitions that changed since
                merged.update((tp, outcome) for tp, outcome in results.items() if tp not in merged)
            error, response_session_id, answer = context.update_and_generate(merged, now)
            session = context.session  # a full fetch may just have created one
            if error == NO_ERROR and not denied_follower and _tracks_changes(session):
                session.settle(replica_manager.link_quiet_followers(body["replica_id"], merged, session))
        topics = {}  # topic -> its partitions' list, in responses
        responses = []
        counting = topic_stats is not None and topic_stats.enabled
        for tp, outcome in answer.items():
            records = outcome.records
            if version <= 3 and records:
                records = chunk_bytes(records)
                if counting:
                    topic_stats.fetch_converted(tp[0], _record_count(records))
                records = down_convert(records, 0 if version <= 1 else 1)
            if counting and records:
                topic_stats.sent(tp[0], len(records), is_follower)
            error_code = outcome.error
            if error_code != NO_ERROR:  # as Kafka 2.5: a partition in error tells none of its offsets
                entry = _partition(tp[1], error_code)
            else:  # _partition()'s dict, built here: the one every partition read gets
                aborted = outcome.aborted_transactions
                entry = {
                    "partition_index": tp[1],
                    "error_code": error_code,
                    "high_watermark": outcome.high_watermark,
                    "last_stable_offset": outcome.last_stable_offset,
                    "log_start_offset": outcome.log_start_offset,
                    "aborted_transactions": None if aborted is None else _aborted(aborted),
                    "preferred_read_replica": outcome.preferred_read_replica,
                    "records": records,
                }
            partitions = topics.get(tp[0])
            if partitions is None:
                partitions = topics[tp[0]] = [entry]
                responses.append({"topic": tp[0], "partitions": partitions})
            else:
                partitions.append(entry)
        return {
            "throttle_time_ms": throttle_ms,
            "error_code": error,
            "session_id": response_session_id,
            "responses": responses,
        }

    if result.__class__ is not DelayedFetch:
        return build(result)
    # A parked fetch. Its listener takes the answer as a call (no Deferred) when it asked for one; other callers
    # (tests, requests the dispatcher held back) get a Deferred.
    if getattr(request, "answer_later", False):
        answer = ParkedAnswer(build)
        result.done = answer.complete
        return answer
    done = defer.Deferred()
    result.done = done.callback
    return done.addCallback(build)


def bind(*, fetch_manager, metadata_cache, replica_manager, fetch_quotas, clock, authorizer=None, topic_stats=None):
    """``handle`` with its collaborators bound, as a closure of this compiled module: bind_handlers' generic
    wrapper is exec'd, so it would run interpreted on every request."""

    def bound(request):
        return handle(
            request,
            fetch_manager=fetch_manager,
            metadata_cache=metadata_cache,
            replica_manager=replica_manager,
            fetch_quotas=fetch_quotas,
            clock=clock,
            authorizer=authorizer,
            topic_stats=topic_stats,
        )

    return bound


class ParkedAnswer:
    """A parked fetch's answer for a listener that takes it as a call: ``answer_to(listener, entry)`` names who
    gets it, ``listener._completed(body, entry)`` or, when building it fails, ``listener._failed(failure, entry)``."""

    __slots__ = ("build", "listener", "entry")

    def __init__(self, build):
        self.build = build
        self.listener = self.entry = None

    def answer_to(self, listener, entry):
        self.listener = listener
        self.entry = entry

    def complete(self, results):
        build, listener, entry = self.build, self.listener, self.entry
        self.build = self.listener = self.entry = None  # a completed answer keeps nothing of the request
        try:
            body = build(results)
        except Exception:
            listener._failed(failure.Failure(), entry)
            return
        listener._completed(body, entry)


def _record_count(records):
    return sum(header.record_count for _, header in iter_batch_headers(records) if not header.is_control)


def _tracks_changes(session):
    return session is not None and session.tracks_changes


def _partition(
    index,
    error,
    high_watermark=-1,
    log_start_offset=-1,
    records=b"",
    last_stable_offset=-1,
    aborted_transactions=None,
    preferred_read_replica=-1,
):
    """One partition's answer; ``aborted_transactions`` is None (null on the wire) for read_uncommitted."""
    return {
        "partition_index": index,
        "error_code": error,
        "high_watermark": high_watermark,
        "last_stable_offset": last_stable_offset,
        "log_start_offset": log_start_offset,
        "aborted_transactions": None if aborted_transactions is None else _aborted(aborted_transactions),
        "preferred_read_replica": preferred_read_replica,
        "records": records,
    }


def _aborted(aborted_transactions):
    return [
        {"producer_id": producer_id, "first_offset": first_offset} for producer_id, first_offset in aborted_transactions
    ]
