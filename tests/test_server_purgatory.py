from twisted.internet import defer, task

from kafka_zk.common.purgatory import DelayedOperation, DelayedOperationPurgatory
from kafka_zk.controller.event_manager import ControllerEventManager
from kafka_zk.controller.events import BrokerChange, IsrChangeNotification, TopicChange, TopicDeletion


class Waiting(DelayedOperation):
    def __init__(self, delay_ms, ready):
        super().__init__(delay_ms)
        self.ready = ready
        self.outcome = []

    def try_complete(self):
        if self.ready():
            return self.force_complete()
        return False

    def on_complete(self):
        self.outcome.append("complete")

    def on_expiration(self):
        self.outcome.append("expired")


def test_operation_completes_once_when_checked():
    clock = task.Clock()
    purgatory = DelayedOperationPurgatory("test", clock)
    flag = []
    operation = Waiting(1000, lambda: bool(flag))
    assert not purgatory.try_complete_else_watch(operation, ["a", "b"])
    assert purgatory.watched() == 2
    flag.append(1)
    assert purgatory.check_and_complete("a") == 1
    assert purgatory.check_and_complete("b") == 0
    clock.advance(2)
    assert operation.outcome == ["complete"]


def test_operation_expires_on_the_injected_clock():
    clock = task.Clock()
    purgatory = DelayedOperationPurgatory("test", clock)
    operation = Waiting(500, lambda: False)
    purgatory.try_complete_else_watch(operation, ["a"])
    clock.advance(0.499)
    assert operation.outcome == []
    clock.advance(0.002)
    assert operation.outcome == ["expired", "complete"]
    assert purgatory.check_and_complete("a") == 0


class ReactorLikeClock(task.Clock):
    """task.Clock that, like the real reactor, refuses a delay in the past."""

    def callLater(self, delay, *args, **kwargs):
        assert delay >= 0, "negative delay %r" % delay
        return super().callLater(delay, *args, **kwargs)


def test_operation_with_a_timeout_in_the_past_expires_at_once():
    clock = ReactorLikeClock()
    purgatory = DelayedOperationPurgatory("test", clock)
    operation = Waiting(-250, lambda: False)
    assert not purgatory.try_complete_else_watch(operation, ["a"])
    assert operation.outcome == []
    clock.advance(0)
    assert operation.outcome == ["expired", "complete"]


def test_one_timer_serves_every_deadline_in_order():
    clock = ReactorLikeClock()
    purgatory = DelayedOperationPurgatory("test", clock)
    late, early, done = Waiting(1000, lambda: False), Waiting(500, lambda: False), Waiting(250, lambda: False)
    expired = []
    for name, operation in (("late", late), ("early", early), ("done", done)):
        operation.on_expiration = lambda name=name: expired.append((name, clock.seconds()))
        purgatory.try_complete_else_watch(operation, [name])
    assert len(clock.getDelayedCalls()) == 1 and clock.getDelayedCalls()[0].getTime() == 0.25
    done.force_complete()  # the timer stays; its deadline passes without an expiry
    clock.advance(0.25)
    assert expired == [] and [call.getTime() for call in clock.getDelayedCalls()] == [0.5]
    clock.advance(0.25)
    assert expired == [("early", 0.5)] and early.outcome == ["complete"]
    clock.advance(0.5)
    assert expired == [("early", 0.5), ("late", 1.0)] and clock.getDelayedCalls() == []
    assert purgatory.delayed == 0


def test_operations_watched_while_expiring_expire_at_their_own_time():
    clock = ReactorLikeClock()
    purgatory = DelayedOperationPurgatory("test", clock)
    first, follow_up = Waiting(100, lambda: False), Waiting(0, lambda: False)
    first.on_expiration = lambda: purgatory.try_complete_else_watch(follow_up, ["b"])
    purgatory.try_complete_else_watch(first, ["a"])
    last = Waiting(500, lambda: False)
    purgatory.try_complete_else_watch(last, ["c"])
    clock.advance(0.1)  # task.Clock runs the follow-up's call of 0 s in the same advance, as it did its own timer
    assert first.outcome == ["complete"] and follow_up.outcome == ["expired", "complete"] and last.outcome == []
    assert purgatory.delayed == 1 and len(clock.getDelayedCalls()) == 1
    clock.advance(0.4)
    assert last.outcome == ["expired", "complete"] and clock.getDelayedCalls() == []


def test_completed_deadlines_are_swept_and_shutdown_stops_the_timer():
    clock = task.Clock()
    purgatory = DelayedOperationPurgatory("test", clock)
    purgatory.SWEEP_SLACK_DEADLINES = 10
    for _ in range(50):
        operation = Waiting(1000, lambda: False)
        purgatory.try_complete_else_watch(operation, ["a"])
        operation.force_complete()
    assert len(purgatory._deadlines) <= 11 and purgatory.delayed == 0
    purgatory.try_complete_else_watch(Waiting(1000, lambda: False), ["a"])
    purgatory.shutdown()
    assert clock.getDelayedCalls() == [] and purgatory._deadlines == []


def test_event_manager_runs_events_one_at_a_time_in_order():
    log = []
    gate = defer.Deferred()

    def process(event):
        log.append(event.name)
        if isinstance(event, BrokerChange):
            return gate.addCallback(lambda _: log.append("BrokerChange done"))
        if isinstance(event, TopicDeletion):
            raise RuntimeError("broken")
        return None

    events = ControllerEventManager(process)
    events.put(BrokerChange())
    events.put(TopicChange())
    events.put(TopicDeletion())
    events.put(IsrChangeNotification())
    assert log == ["BrokerChange"]
    gate.callback(None)
    assert log == ["BrokerChange", "BrokerChange done", "TopicChange", "TopicDeletion", "IsrChangeNotification"]


def test_completed_operations_watched_under_keys_nobody_checks_are_purged():
    clock = task.Clock()
    purgatory = DelayedOperationPurgatory("test", clock)
    keys = ["idle-%d" % i for i in range(1000)]
    for _ in range(100):  # e.g. long-polling fetches of idle partitions that all expire
        purgatory.try_complete_else_watch(Waiting(10, lambda: False), keys)
        clock.advance(0.02)
    entries = sum(len(ops) for ops in purgatory.watchers.values())
    assert entries <= 2 * DelayedOperationPurgatory.PURGE_SLACK_ENTRIES + len(keys)
    pending = Waiting(10000, lambda: False)
    purgatory.try_complete_else_watch(pending, keys)
    assert purgatory.purge_completed() > 0
    assert purgatory.watched() == len(keys) and sum(len(ops) for ops in purgatory.watchers.values()) == len(keys)


def test_checking_many_keys_tries_each_watching_operation_once():
    """A LeaderAndIsr for thousands of partitions checks them together: a fetch watching all of them is tried
    once, not once per partition."""
    clock = task.Clock()
    purgatory = DelayedOperationPurgatory("test", clock)
    tries = []
    keys = ["p%d" % i for i in range(1000)]
    wide = Waiting(1000, lambda: tries.append("wide") and False)
    narrow = Waiting(1000, lambda: tries.append("narrow") and False)
    purgatory.try_complete_else_watch(wide, keys)
    purgatory.try_complete_else_watch(narrow, keys[:1])
    tries.clear()
    assert purgatory.check_and_complete_keys(keys + ["unwatched"]) == 0
    assert sorted(tries) == ["narrow", "wide"]
    ready = []
    wide.ready = lambda: bool(ready)
    ready.append(1)
    assert purgatory.check_and_complete_keys(keys[500:]) == 1
    assert wide.outcome == ["complete"] and purgatory.watched() == 1  # only `narrow` is left, under p0
    assert purgatory.check_and_complete_keys(keys[:1]) == 0
