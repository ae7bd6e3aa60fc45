"""The fetcher's side of a fetch session with one broker: full then incremental requests, and falling back.

build() turns the partitions the fetcher wants now into what to send (all of them in a full request; only
the new and changed ones in an incremental one) and what to forget; handle_response() checks the answer and
moves the session on; a session error or a broken connection makes the next request a full one.
Pure code (the replica fetcher's shell sends the requests).
"""

from kafka_zk.protocol.errors import Errors
from kafka_zk.server.replication.fetch_session import INITIAL_EPOCH, INVALID_SESSION_ID, is_full, next_epoch


class FetchRequestData:
    __slots__ = ("session_id", "epoch", "to_send", "to_forget", "session_partitions")

    def __init__(self, session_id, epoch, to_send, to_forget, session_partitions):
        self.session_id = session_id
        self.epoch = epoch
        self.to_send = to_send  # {(topic, partition): PartitionRequest} to put in the request
        self.to_forget = to_forget  # [(topic, partition)] for forgotten_topics_data
        self.session_partitions = session_partitions  # every partition the session fetches after this request

    @property
    def is_full(self):
        return is_full(self.epoch)


class FetchSessionHandler:
    """One fetcher's session with one broker (Kafka's FetchSessionHandler)."""

    def __init__(self):
        self.session_id = INVALID_SESSION_ID
        self.epoch = INITIAL_EPOCH
        self.session_partitions = {}  # {(topic, partition): PartitionRequest} as last sent

    def build(self, wanted):
        """wanted: {(topic, partition): PartitionRequest}, every partition to fetch now."""
        if is_full(self.epoch):
            self.session_partitions = dict(wanted)
            return FetchRequestData(self.session_id, self.epoch, dict(wanted), [], self.session_partitions)
        to_send = {}
        to_forget = []
        session = self.session_partitions
        for tp, previous in list(session.items()):
            request = wanted.get(tp)
            if request is previous:
                continue
            if request is None:
                del session[tp]
                to_forget.append(tp)
            elif request != previous:
                session[tp] = request
                to_send[tp] = request
        if len(session) != len(wanted):
            for tp, request in wanted.items():
                if tp not in session:
                    session[tp] = request
                    to_send[tp] = request
        return FetchRequestData(self.session_id, self.epoch, to_send, to_forget, self.session_partitions)

    @property
    def next_is_full(self):
        return is_full(self.epoch)

    def build_changes(self, changes):
        """An incremental request from only what changed since the last build: changes {(topic, partition):
        PartitionRequest, or None for a partition no longer fetched}; the others stay as last sent."""
        assert not is_full(self.epoch), "a full request needs every partition: use build()"
        to_send = {}
        to_forget = []
        session = self.session_partitions
        for tp, request in changes.items():
            previous = session.get(tp)
            if request is None:
                if previous is not None:
                    del session[tp]
                    to_forget.append(tp)
            elif request is not previous and request != previous:
                session[tp] = request
                to_send[tp] = request
        return FetchRequestData(self.session_id, self.epoch, to_send, to_forget, self.session_partitions)

    def handle_response(self, error_code, session_id, answered, throttle_time_ms=0):
        """Move the session on after an answer to the last build(); answered: the (topic, partition)s in it.
        Returns False when the answer is not to be used: a session error, partitions not asked for, or a full
        answer that leaves some out (an empty throttled full answer just gets the full request repeated)."""
        if error_code != Errors.NONE:
            if error_code == Errors.FETCH_SESSION_ID_NOT_FOUND:
                self.session_id, self.epoch = INVALID_SESSION_ID, INITIAL_EPOCH
            else:
                self.epoch = INITIAL_EPOCH  # a full request that closes the session and opens a new one
            return False
        answered = set(answered)
        if is_full(self.epoch) and not answered and throttle_time_ms > 0:
            return False
        extra = any(tp not in self.session_partitions for tp in answered)
        if extra or (is_full(self.epoch) and len(answered) != len(self.session_partitions)):
            if is_full(self.epoch):
                self.session_id, self.epoch = INVALID_SESSION_ID, INITIAL_EPOCH
            else:
                self.epoch = INITIAL_EPOCH
            return False
        if session_id == INVALID_SESSION_ID:  # no session made, or the broker closed it
            self.session_id, self.epoch = INVALID_SESSION_ID, INITIAL_EPOCH
        elif is_full(self.epoch):
            self.session_id, self.epoch = session_id, next_epoch(INITIAL_EPOCH)
        else:
            self.epoch = next_epoch(self.epoch)
        return True

    def handle_error(self):
        """The request failed without an answer (connection trouble): start over with a full request."""
        self.epoch = INITIAL_EPOCH
