"""ChangeNotificationListener: follows one path of sequential change notifications, one pass at a time."""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.zk.notification_sequence import CHANGE_EXPIRATION_MS, NotificationSequence
from kafka_zk.zk.session import CONNECTED, LOST

log = logging.getLogger(__name__)


class ChangeNotificationListener:
    """Kafka's ZkNodeChangeNotificationListener over a ReactorZkClient.

    A pass reads every notification under ``parent``, hands the data of those numbered above the last processed,
    decoded, in sequence order, to ``process``, then deletes those older than ``expiration_ms``. A pass runs when
    the children watch fires (kazoo fires it once when it is registered: the pass at start) and after a new session
    replaces an expired one. Passes run on the reactor one at a time; what fires during a pass asks for exactly
    one more.
    """

    def __init__(self, zk, clock, parent, prefix, decode, process, expiration_ms=CHANGE_EXPIRATION_MS):
        """``decode(data)``: what a notification says (one that raises is logged and skipped);
        ``process(decoded list)``: acts on the fresh notifications of a pass, may return a Deferred; its failure is
        logged and the notifications stay processed. ``clock``: the age of notifications."""
        self.zk = zk
        self.clock = clock
        self.parent = parent
        self.decode = decode
        self.process = process
        self.sequence = NotificationSequence(prefix, expiration_ms)
        self._watch = None
        self._session_lost = False
        self._stopped = False
        self._pass_requested = False
        self._running = False

    @defer.inlineCallbacks
    def start(self):
        """Follow ``parent`` (which must exist) and the ZooKeeper session."""
        self.zk.add_session_listener(self._on_session_state)
        self._watch = yield self.zk.watch_children(self.parent, self.zk.on_reactor(self.request_pass))

    def stop(self):
        self._stopped = True
        if self._watch is not None:
            self._watch.cancel()

    def _on_session_state(self, state):
        if state == LOST:
            self._session_lost = True
        elif state == CONNECTED and self._session_lost:
            self._session_lost = False
            self.request_pass()

    def request_pass(self, *_):
        """Process the notifications now, or once more after the pass under way."""
        if self._stopped:
            return
        self._pass_requested = True
        if not self._running:
            self._run_passes().addErrback(
                lambda failure: log.error(
                    "processing the notifications of %s failed: %s", self.parent, failure.getTraceback()
                )
            )

    @defer.inlineCallbacks
    def _run_passes(self):
        self._running = True
        try:
            while self._pass_requested and not self._stopped:
                self._pass_requested = False
                yield self._one_pass()
        finally:
            self._running = False

    @defer.inlineCallbacks
    def _one_pass(self):
        now_ms = milliseconds(self.clock)
        notifications = yield self.zk.get_notifications(self.parent)
        this_pass = self.sequence.next_pass(notifications, now_ms)
        decoded = []
        for notification in this_pass.fresh:
            try:
                decoded.append(self.decode(notification.data))
            except Exception as error:  # noqa: BLE001 - one unreadable notification must not stop the others
                log.error("ignoring unreadable change notification %s/%s: %s", self.parent, notification.name, error)
        if decoded:
            try:
                yield self.process(decoded)
            except Exception:  # noqa: BLE001 - as Kafka, a failed change is logged and left behind
                log.exception("processing change notifications of %s failed", self.parent)
        if this_pass.expired:
            yield self.zk.delete_notifications(self.parent, this_pass.expired)
