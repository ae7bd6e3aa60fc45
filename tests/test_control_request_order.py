"""Control requests in order: the controller's channel pipelines them; a broker applies them one at a time."""

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock

from kafka_zk.controller.channel_manager import BrokerChannel
from kafka_zk.net.broker_client import ConnectionClosed
from kafka_zk.server import apis
from kafka_zk.server.apis.control_requests import in_arrival_order


class ScriptedConnection:
    """Stands in for the BrokerConnection: records each request and hands out its Deferred."""

    def __init__(self):
        self.sent = []  # (api_key, body, Deferred)
        self.closed = 0

    def request(self, api_key, version, body):
        result = defer.Deferred()
        self.sent.append((api_key, body, result))
        return result

    def close(self):
        self.closed += 1


def _channel():
    reactor = MemoryReactorClock()
    channel = BrokerChannel(reactor, 7, "127.0.0.1", 1, "controller-1")
    assert [(host, port) for host, port, *_ in reactor.tcpClients] == [("127.0.0.1", 1)]  # connects at once
    channel.connection = ScriptedConnection()
    return channel, reactor


def test_requests_go_out_together_and_answers_are_delivered_in_order():
    channel, _ = _channel()
    answered = []
    for name in ("leader_and_isr", "update_metadata", "stop_replica"):
        channel.enqueue(1, 0, {"name": name}, lambda broker, response: answered.append((broker, response)))
    sent = channel.connection.sent
    assert [body["name"] for _, body, _ in sent] == ["leader_and_isr", "update_metadata", "stop_replica"]
    sent[0][2].callback("a")
    sent[1][2].callback("b")
    assert answered == [(7, "a"), (7, "b")] and len(channel.queue) == 1
    channel.enqueue(1, 0, {"name": "later"})
    assert len(sent) == 4  # sent at once, behind the one still unanswered
    sent[2][2].callback("c")
    sent[3][2].callback("d")
    assert answered[-1] == (7, "c") and not channel.queue


def test_a_failure_sends_every_unanswered_request_again_in_order_after_a_backoff():
    channel, clock = _channel()
    answered = []
    for name in ("first", "second", "third"):
        channel.enqueue(1, 0, {"name": name}, lambda broker, response: answered.append(response))
    sent = channel.connection.sent
    sent[0][2].callback("first answered")
    sent[1][2].errback(ConnectionClosed("gone"))
    sent[2][2].errback(ConnectionClosed("gone"))  # the same broken connection: one retry, not two
    assert channel.connection.closed == 1
    channel.enqueue(1, 0, {"name": "fourth"})
    assert len(sent) == 3  # nothing goes out during the backoff
    clock.advance(channel.backoff_s)
    assert [body["name"] for _, body, _ in sent[3:]] == ["second", "third", "fourth"]
    for _, body, result in sent[3:]:
        result.callback(body["name"] + " answered")
    assert answered == ["first answered", "second answered", "third answered"]
    assert not channel.queue


def test_a_broker_applies_a_control_request_only_after_the_ones_before_it():
    control_requests = defer.DeferredLock()
    applied = []
    configs_read = defer.Deferred()

    @in_arrival_order
    def waits_for_topic_configs(request, *, topic_configs):
        applied.append(("started", request))
        return topic_configs.addCallback(lambda _: applied.append(("done", request)) or {"error_code": 0})

    @in_arrival_order
    def applies_at_once(request):
        applied.append(("done", request))
        return {"error_code": 0}

    assert apis.collaborators(waits_for_topic_configs) == ["topic_configs", "control_requests"]
    first = waits_for_topic_configs("LeaderAndIsr", topic_configs=configs_read, control_requests=control_requests)
    second = applies_at_once("UpdateMetadata", control_requests=control_requests)
    assert applied == [("started", "LeaderAndIsr")] and not second.called
    configs_read.callback(None)
    assert applied == [("started", "LeaderAndIsr"), ("done", "LeaderAndIsr"), ("done", "UpdateMetadata")]
    assert first.result == second.result == {"error_code": 0}
    third = applies_at_once("StopReplica", control_requests=control_requests)
    assert third.called and applied[-1] == ("done", "StopReplica")


def test_answered_fires_once_the_requests_queued_before_it_are_answered_or_the_channel_closes():
    channel, _ = _channel()
    channel.enqueue(1, 0, {"name": "leader_and_isr"})
    channel.enqueue(1, 0, {"name": "update_metadata"})
    both = channel.answered()
    channel.enqueue(1, 0, {"name": "later"})
    sent = channel.connection.sent
    sent[0][2].callback("a")
    assert not both.called
    sent[1][2].callback("b")
    assert both.called  # the later request is not waited for
    pending = channel.answered()
    channel.close()
    assert pending.called and channel.answered().called
