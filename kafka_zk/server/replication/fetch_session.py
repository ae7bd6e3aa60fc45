"""Fetch sessions (KIP-227) as a Kafka 2.5 broker keeps them: the session cache, its eviction, fetch contexts.

A full fetch (epoch 0) may create a session; incremental fetches (epoch > 0) then name only the partitions
whose request changed and are answered only with the partitions whose data, high watermark, log start offset
or error changed, or that name a preferred read replica. Epoch -1 asks for a sessionless fetch (and closes the
session named, if any).

A follower's session also skips reading its quiet partitions: those the last read found caught up, with
nothing to send. The broker reports every change of a partition that a fetch could see (an append, a high
watermark, a leadership change) through FetchSessionCache.mark_changed, which puts the partition back among
the session's changed ones; an idle follower's fetch then costs next to nothing, however many partitions it
follows. A full sweep every FULL_SWEEP_MS reads every partition anyway, as a safety net.
Pure code: no reactor, no ZooKeeper; time comes in as now_ms arguments and session ids from an injected rng.
"""

import random
from collections import namedtuple

from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.protocol.errors import NO_ERROR, Errors

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0
FINAL_EPOCH = -1
_INT32_MAX = 0x7FFFFFFF
# Kafka 2.5 hard-codes this (KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS); it is not a broker config.
MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120000
FULL_SWEEP_MS = 30000

# One partition of a Fetch request (the replica manager reads with these as they are).
PartitionRequest = namedtuple("PartitionRequest", "tp fetch_offset max_bytes current_leader_epoch log_start_offset")


def next_epoch(epoch):
    """The epoch after `epoch`: -1 stays -1, and the largest int32 wraps around to 1 (0 means a new session)."""
    if epoch < 0:
        return FINAL_EPOCH
    if epoch == _INT32_MAX:
        return 1
    return epoch + 1


def is_full(epoch):
    return epoch in (INITIAL_EPOCH, FINAL_EPOCH)


class CachedPartition:
    """One partition of a session: the last request parameters, and what the last answer told the fetcher."""

    __slots__ = ("request", "high_watermark", "local_log_start_offset")

    def __init__(self, request, high_watermark=-1, local_log_start_offset=-1):
        self.request = request
        self.high_watermark = high_watermark
        self.local_log_start_offset = local_log_start_offset

    def must_respond(self, result, update):
        """Whether an incremental answer has to carry this partition's result (and remember it when update)."""
        respond = bool(result.records)
        if self.high_watermark != result.high_watermark:
            respond = True
            if update:
                self.high_watermark = result.high_watermark
        if self.local_log_start_offset != result.log_start_offset:
            respond = True
            if update:
                self.local_log_start_offset = result.log_start_offset
        if result.preferred_read_replica >= 0:
            respond = True
        if result.error != NO_ERROR:
            respond = True
            if update:  # so that the partition is sent again once the error is gone
                self.high_watermark = -1
        return respond


class FetchSession:
    """A session's partitions (in the order answers rotate through them), its epoch and its cache bookkeeping.

    A follower's session (``privileged``) tracks changes: ``changed`` holds the partitions the next fetch
    reads (in rotation order); the others are quiet, and ``last_fetch_ms`` is the last time the follower
    fetched them all (what the leader takes as their followers' last fetch while they stay quiet)."""

    def __init__(self, session_id, privileged, partitions, creation_ms, epoch):
        self.id = session_id
        self.privileged = privileged  # created by a follower
        self.partitions = partitions  # {(topic, partition): CachedPartition}, in insertion order
        self.creation_ms = creation_ms
        self.last_used_ms = creation_ms
        self.epoch = epoch
        self.cached_size = -1  # the size the cache last accounted for; -1 while not in the cache
        self.tracks_changes = privileged
        self.changed = dict.fromkeys(partitions)  # an insertion-ordered set
        self.last_fetch_ms = creation_ms
        self.last_sweep_ms = creation_ms

    def mark_changed(self, tp):
        if tp not in self.changed:
            self.changed[tp] = None

    def settle(self, quiet):
        """The partitions just read that were quiet leave the changed ones."""
        changed = self.changed
        for tp in quiet:
            changed.pop(tp, None)

    def __len__(self):
        return len(self.partitions)

    def evictable_key(self):
        return (self.privileged, self.cached_size, self.id)

    def update(self, fetch_data, to_forget):
        """Apply an incremental request: add or update its partitions, drop the forgotten ones.
        Returns (added, updated, removed) lists of partitions."""
        added, updated, removed = [], [], []
        for tp, request in fetch_data.items():
            cached = self.partitions.get(tp)
            if cached is None:
                self.partitions[tp] = CachedPartition(request)
                added.append(tp)
            else:
                cached.request = request
                updated.append(tp)
            self.changed[tp] = None
        for tp in to_forget:
            if self.partitions.pop(tp, None) is not None:
                self.changed.pop(tp, None)
                removed.append(tp)
        return added, updated, removed

    def __repr__(self):
        return "FetchSession(id=%d, privileged=%s, partitions=%d, creation_ms=%d, last_used_ms=%d, epoch=%d)" % (
            self.id,
            self.privileged,
            len(self.partitions),
            self.creation_ms,
            self.last_used_ms,
            self.epoch,
        )


class FetchSessionCache:
    """Up to max.incremental.fetch.session.cache.slots sessions. A new session takes a free slot, else evicts
    (1) the least recently used session if unused for longer than eviction_ms, else (2) the least valuable
    evictable session if it is worth less than the new one: followers' sessions rank above consumers', then
    bigger sessions above smaller. A follower's session is evictable by size only once older than eviction_ms;
    a consumer's is evictable by a follower's at once, by another consumer's once older than eviction_ms."""

    def __init__(self, max_entries, eviction_ms=MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, rng=None, metrics=None):
        """``metrics``: the MetricsRegistry that gets kafka.server:type=FetchSessionCache's
        NumIncrementalFetchSessions, NumIncrementalFetchPartitionsCached and IncrementalFetchSessionEvictionsPerSec."""
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self.rng = rng or random.Random()
        self.sessions = {}
        self.evictable_by_all = set()  # session ids
        self.evictable_by_privileged = set()
        self.total_partitions = 0
        self.evictions = 0
        self.watchers = {}  # {(topic, partition): {session id: session}} for sessions that track changes
        registry = metrics if metrics is not None else MetricsRegistry()
        registry.gauge("kafka.server", "FetchSessionCache", "NumIncrementalFetchSessions", self.__len__)
        registry.gauge(
            "kafka.server", "FetchSessionCache", "NumIncrementalFetchPartitionsCached", lambda: self.total_partitions
        )
        self._evictions_meter = registry.meter(
            "kafka.server", "FetchSessionCache", "IncrementalFetchSessionEvictionsPerSec"
        )

    def get(self, session_id):
        return self.sessions.get(session_id)

    def __len__(self):
        return len(self.sessions)

    def new_session_id(self):
        while True:
            session_id = self.rng.randint(1, _INT32_MAX - 1)
            if session_id not in self.sessions:
                return session_id

    def maybe_create_session(self, now_ms, privileged, size, create_partitions):
        """A new session's id, or INVALID_SESSION_ID when there is no slot for it."""
        if len(self.sessions) >= self.max_entries and not self.try_evict(privileged, (privileged, size, 0), now_ms):
            return INVALID_SESSION_ID
        session = FetchSession(
            self.new_session_id(), privileged, create_partitions(), now_ms, next_epoch(INITIAL_EPOCH)
        )
        self.sessions[session.id] = session
        self.watch(session, session.partitions, ())
        self.touch(session, now_ms)
        return session.id

    def watch(self, session, added, removed):
        if not session.tracks_changes:
            return
        watchers = self.watchers
        for tp in added:
            watchers.setdefault(tp, {})[session.id] = session
        for tp in removed:
            watching = watchers.get(tp)
            if watching is not None:
                watching.pop(session.id, None)
                if not watching:
                    del watchers[tp]

    def mark_changed(self, tps):
        """Partitions whose fetchable state changed; returns the ids of the sessions that hold any of them."""
        touched = set()
        watchers = self.watchers
        for tp in tps:
            watching = watchers.get(tp)
            if watching:
                for session in watching.values():
                    changed = session.changed  # session.mark_changed(tp), inlined: called at every append
                    if tp not in changed:
                        changed[tp] = None
                touched.update(watching)
        return touched

    def try_evict(self, privileged, key, now_ms):
        """Evict one session to make room for a new one described by key (privileged, size, 0)."""
        if not self.sessions:
            return False
        least_recent = min(self.sessions.values(), key=lambda s: (s.last_used_ms, s.id))
        if now_ms - least_recent.last_used_ms > self.eviction_ms:
            self._evict(least_recent)
            return True
        candidates = self.evictable_by_privileged if privileged else self.evictable_by_all
        if not candidates:
            return False
        victim = min((self.sessions[i] for i in candidates), key=FetchSession.evictable_key)
        if key < victim.evictable_key():
            return False
        self._evict(victim)
        return True

    def _evict(self, session):
        self.remove(session.id)
        self.evictions += 1
        self._evictions_meter.mark()

    def remove(self, session_id):
        """Drop a session; returns it, or None when there was none."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            return None
        self.evictable_by_all.discard(session_id)
        self.evictable_by_privileged.discard(session_id)
        self.watch(session, (), session.partitions)
        self.total_partitions -= session.cached_size
        session.cached_size = -1
        return session

    def touch(self, session, now_ms):
        """Note a use of the session: its last-used time, its size and which evictable sets it belongs to."""
        session.last_used_ms = now_ms
        size = len(session.partitions)
        if session.cached_size != -1:
            self.total_partitions += size - session.cached_size
        else:
            self.total_partitions += size
        session.cached_size = size
        old = now_ms - session.creation_ms > self.eviction_ms
        if not session.privileged or old:
            self.evictable_by_privileged.add(session.id)
        else:
            self.evictable_by_privileged.discard(session.id)
        if old:
            self.evictable_by_all.add(session.id)
        else:
            self.evictable_by_all.discard(session.id)


class SessionErrorContext:
    """An incremental request naming an unknown session or the wrong epoch: answered with the error alone."""

    def __init__(self, error):
        self.error = error

    session = None

    def partitions(self):
        return []

    def fetched(self, now_ms):
        pass

    def update_and_generate(self, results, now_ms):
        return self.error, INVALID_SESSION_ID, {}

    def throttled(self):
        return self.error, INVALID_SESSION_ID, {}


class SessionlessFetchContext:
    """A fetch without a session (Fetch v0-6, epoch -1, or the last partition of a session forgotten)."""

    session = None

    def __init__(self, fetch_data):
        self.fetch_data = fetch_data

    def partitions(self):
        return list(self.fetch_data.items())

    def fetched(self, now_ms):
        pass

    def update_and_generate(self, results, now_ms):
        return NO_ERROR, INVALID_SESSION_ID, results

    def throttled(self):
        return NO_ERROR, INVALID_SESSION_ID, {}


class FullFetchContext(SessionlessFetchContext):
    """A full fetch (epoch 0): answered in full, and the start of a new session if the cache has room."""

    def __init__(self, cache, fetch_data, privileged):
        super().__init__(fetch_data)
        self.cache = cache
        self.privileged = privileged
        self.fetched_ms = None

    def fetched(self, now_ms):
        self.fetched_ms = now_ms  # the session this fetch creates was last fetched then

    def update_and_generate(self, results, now_ms):
        def create_partitions():
            return {
                tp: CachedPartition(self.fetch_data[tp], result.high_watermark, result.log_start_offset)
                for tp, result in results.items()
            }

        session_id = self.cache.maybe_create_session(now_ms, self.privileged, len(results), create_partitions)
        if session_id != INVALID_SESSION_ID:
            self.session = self.cache.get(session_id)
            if self.fetched_ms is not None:
                self.session.last_fetch_ms = self.fetched_ms
        return NO_ERROR, session_id, results


class IncrementalFetchContext:
    """An incremental fetch: reads the session's partitions (only the changed ones of a session that tracks
    changes, unless a full sweep is due), answers only those whose answer changed."""

    def __init__(self, request_epoch, session, now_ms=0):
        self.request_epoch = request_epoch
        self.session = session
        self.sweep = not session.tracks_changes or now_ms - session.last_sweep_ms >= FULL_SWEEP_MS
        if self.sweep:
            session.last_sweep_ms = now_ms

    def partitions(self):
        session = self.session
        if self.sweep:
            return [(tp, cached.request) for tp, cached in session.partitions.items()]
        partitions = session.partitions
        return [(tp, partitions[tp].request) for tp in session.changed]

    def changed_since(self, known):
        """Partitions of a tracking session that changed and are not in ``known`` (a parked fetch's own)."""
        partitions = self.session.partitions
        return [(tp, partitions[tp].request) for tp in self.session.changed if tp not in known]

    def fetched(self, now_ms):
        """The follower fetched every partition of the session now (the quiet ones included)."""
        self.session.last_fetch_ms = now_ms

    def _epoch_moved(self):
        """True when another request of this session came in between (a duplicate or concurrent request)."""
        return self.session.epoch != next_epoch(self.request_epoch)

    def update_and_generate(self, results, now_ms):
        session = self.session
        if session.epoch != next_epoch(self.request_epoch):  # self._epoch_moved()
            return Errors.INVALID_FETCH_SESSION_EPOCH, session.id, {}
        answer = {}
        changed = session.changed
        partitions = session.partitions
        for tp, result in results.items():
            cached = partitions.get(tp)
            if cached is None:  # forgotten by a later request of the session: not ours to report
                continue
            if cached.must_respond(result, True):
                answer[tp] = result
                # Answered partitions go to the back, so that a response size limit rotates through them.
                del partitions[tp]
                partitions[tp] = cached
                if tp in changed:
                    del changed[tp]
                    changed[tp] = None
        return NO_ERROR, session.id, answer

    def throttled(self):
        if self._epoch_moved():
            return Errors.INVALID_FETCH_SESSION_EPOCH, self.session.id, {}
        return NO_ERROR, self.session.id, {}


class FetchManager:
    """Turns a Fetch request's session id, epoch, partitions and forgotten partitions into a fetch context."""

    def __init__(self, cache):
        self.cache = cache

    def new_context(self, session_id, epoch, fetch_data, to_forget, is_follower, now_ms):
        """fetch_data: {(topic, partition): PartitionRequest} in request order; to_forget: [(topic, partition)]."""
        cache = self.cache
        if epoch == INITIAL_EPOCH or epoch == FINAL_EPOCH:  # is_full(epoch)
            if session_id != INVALID_SESSION_ID:
                cache.remove(session_id)  # a full request closes the session it names
            if epoch == FINAL_EPOCH:
                return SessionlessFetchContext(fetch_data)
            return FullFetchContext(cache, fetch_data, is_follower)
        session = cache.sessions.get(session_id)
        if session is None:
            return SessionErrorContext(Errors.FETCH_SESSION_ID_NOT_FOUND)
        if session.epoch != epoch:
            return SessionErrorContext(Errors.INVALID_FETCH_SESSION_EPOCH)
        if fetch_data or to_forget:  # a follower's incremental fetch usually names no partition: nothing to update
            added, _, removed = session.update(fetch_data, to_forget)
            if added or removed:
                cache.watch(session, added, removed)
        if not session.partitions:
            cache.remove(session.id)
            return SessionlessFetchContext(fetch_data)
        cache.touch(session, now_ms)
        session.epoch = epoch + 1 if 0 < epoch < _INT32_MAX else next_epoch(epoch)
        return IncrementalFetchContext(epoch, session, now_ms)
