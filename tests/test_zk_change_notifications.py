"""The change-notification listener: which notifications a pass processes and purges (the pure sequence), and the
reactor shell over an in-memory notification path (passes one at a time, a new session asks for one more)."""

from twisted.internet import defer, task

from kafka_zk.zk.change_notification_listener import ChangeNotificationListener
from kafka_zk.zk.notification_sequence import CHANGE_EXPIRATION_MS, Notification, NotificationSequence, sequence_number
from kafka_zk.zk.session import CONNECTED, LOST, SUSPENDED
from tests.fake_zk import FakeZk

PARENT, PREFIX = "/config/changes", "config_change_"


def _named(number, ctime_ms=0, data=b""):
    return Notification("%s%010d" % (PREFIX, number), data, ctime_ms)


# -- the pure sequence -------------------------------------------------------------------------------


def test_the_sequence_number_follows_the_prefix():
    assert sequence_number("config_change_0000000042", PREFIX) == 42
    assert sequence_number("acl_changes_0000000007", "acl_changes_") == 7
    assert sequence_number("token_change_0000000042", PREFIX) is None
    assert sequence_number("config_change_x", PREFIX) is None


def test_a_pass_takes_the_notifications_above_the_last_processed_in_sequence_order():
    sequence = NotificationSequence(PREFIX)
    first = sequence.next_pass([_named(2), _named(0), _named(1)], now_ms=0)
    assert [n.name for n in first.fresh] == [_named(0).name, _named(1).name, _named(2).name]
    assert sequence.last_processed == 2
    second = sequence.next_pass([_named(0), _named(1), _named(2), _named(3)], now_ms=0)
    assert [n.name for n in second.fresh] == [_named(3).name]
    assert sequence.next_pass([_named(3)], now_ms=0).fresh == []


def test_numbers_compare_as_numbers_and_other_names_are_ignored():
    sequence = NotificationSequence(PREFIX)
    sequence.last_processed = 9
    odd = Notification("something_else", b"", 0)
    assert [n.name for n in sequence.next_pass([_named(10), odd, _named(8)], now_ms=0).fresh] == [_named(10).name]


def test_notifications_created_more_than_the_expiration_before_the_pass_are_purged():
    sequence = NotificationSequence(PREFIX)
    now = 10 * CHANGE_EXPIRATION_MS
    this_pass = sequence.next_pass(
        [_named(0, now - CHANGE_EXPIRATION_MS - 1), _named(1, now - CHANGE_EXPIRATION_MS), _named(2, now)], now_ms=now
    )
    assert this_pass.expired == [_named(0).name]  # purged, once processed: it is fresh in this very pass
    assert [n.name for n in this_pass.fresh] == [_named(0).name, _named(1).name, _named(2).name]
    assert NotificationSequence(PREFIX, expiration_ms=10).next_pass([_named(0, 0)], now_ms=11).expired == [
        _named(0).name
    ]


# -- the reactor shell -------------------------------------------------------------------------------


class NotificationPath:
    """One notification path in memory, and what the listener did with it, in order."""

    def __init__(self, clock):
        self.clock = clock
        self.notifications = []
        self.created = 0  # ZooKeeper's sequence counter of the parent
        self.events = []

    def add(self, text, age_ms=0):
        ctime = int(self.clock.seconds() * 1000) - age_ms
        self.notifications.append(_named(self.created, ctime, text.encode()))
        self.created += 1

    def answers(self):
        def get_notifications(parent):
            assert parent == PARENT
            self.events.append("read")
            return list(self.notifications)

        def delete_notifications(parent, names, epoch_zk_version=None):
            assert parent == PARENT and epoch_zk_version is None
            self.events.append(("purge", sorted(names)))
            self.notifications = [n for n in self.notifications if n.name not in names]

        return {"get_notifications": get_notifications, "delete_notifications": delete_notifications}


class Harness:
    def __init__(self, process=None, decode=lambda data: data.decode()):
        self.clock = task.Clock()
        self.clock.advance(CHANGE_EXPIRATION_MS)  # seconds: far enough from 0 for aged notifications
        self.path = NotificationPath(self.clock)
        self.zk = FakeZk(self.path.answers())
        self.processed = []
        self.listener = ChangeNotificationListener(self.zk, self.clock, PARENT, PREFIX, decode, process or self.record)
        self.listener.start()

    def record(self, decoded):
        self.path.events.append(("process", list(decoded)))
        self.processed.append(list(decoded))

    def fire_watch(self):
        self.zk.watches[PARENT]([n.name for n in self.path.notifications])

    def session(self, state):
        for listener in self.zk.session_listeners:
            listener(state)


def test_a_watch_fire_processes_the_fresh_notifications_in_order_then_purges_the_expired():
    harness = Harness()
    harness.path.add("topics/old", age_ms=CHANGE_EXPIRATION_MS + 1)
    harness.path.add("topics/a")
    harness.fire_watch()
    assert harness.path.events == ["read", ("process", ["topics/old", "topics/a"]), ("purge", [_named(0).name])]
    harness.path.add("brokers/1")
    harness.fire_watch()
    assert harness.processed[-1] == ["brokers/1"]
    harness.fire_watch()  # nothing new: nothing processed, nothing old left
    assert len(harness.processed) == 2 and harness.path.events[-1] == "read"


def test_a_fire_during_a_pass_asks_for_exactly_one_more_pass():
    answers = []

    def slow(decoded):
        answers.append(defer.Deferred())
        harness.processed.append(list(decoded))
        return answers[-1]

    harness = Harness(process=slow)
    harness.path.add("topics/a")
    harness.fire_watch()
    harness.path.add("topics/b")
    harness.fire_watch()
    harness.fire_watch()
    harness.session(LOST)
    harness.session(CONNECTED)
    assert harness.processed == [["topics/a"]] and harness.path.events == ["read"]
    answers[0].callback(None)
    assert harness.processed == [["topics/a"], ["topics/b"]] and harness.path.events == ["read", "read"]
    answers[1].callback(None)
    assert harness.path.events == ["read", "read"]  # the second pass was the only one asked for


def test_a_new_session_after_an_expired_one_processes_again():
    harness = Harness()
    harness.path.add("topics/a")
    harness.session(SUSPENDED)
    harness.session(CONNECTED)  # the same session again: kazoo's watch covers it
    assert harness.path.events == []
    harness.session(LOST)
    harness.session(CONNECTED)
    assert harness.processed == [["topics/a"]]
    harness.session(CONNECTED)
    assert harness.path.events == ["read", ("process", ["topics/a"])]


def test_an_unreadable_notification_is_skipped_and_a_failed_one_is_not_retried():
    def decode(data):
        if data == b"garbage":
            raise ValueError("unreadable")
        return data.decode()

    failures = []

    def failing(decoded):
        failures.append(list(decoded))
        raise RuntimeError("the reload failed")

    harness = Harness(process=failing, decode=decode)
    harness.path.add("garbage")
    harness.path.add("topics/a", age_ms=CHANGE_EXPIRATION_MS + 1)
    harness.fire_watch()
    assert failures == [["topics/a"]]
    assert harness.path.events == ["read", ("purge", [_named(1).name])]  # purged after the failure, as Kafka
    harness.fire_watch()
    assert failures == [["topics/a"]]


def test_a_stopped_listener_processes_nothing_and_cancels_its_watch():
    harness = Harness()
    harness.path.add("topics/a")
    harness.listener.stop()
    harness.fire_watch()
    harness.session(LOST)
    harness.session(CONNECTED)
    assert harness.path.events == []
