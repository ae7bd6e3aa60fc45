"""The web console without a browser or a cluster: what its pages show (views), the chart series from scrapes,
the operator actions over fake admin clients, and the JSON API answering from the service on a fake reactor."""

import io
import json
from collections import namedtuple

import pytest
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.web.test.requesthelper import DummyRequest

from kafka_zk.client.admin import GroupDescription, GroupMember
from kafka_zk.console import views
from kafka_zk.console.actions import ConsoleActions, parse_configs, parse_partitions
from kafka_zk.console.metrics_history import MetricsHistory, chart_values
from kafka_zk.console.service import ConsoleService
from kafka_zk.console.web import ApiResource
from kafka_zk.protocol.errors import Errors

# -- views ----------------------------------------------------------------------------------------


def test_partition_health_under_replicated_and_offline():
    live = {0, 1, 2}
    assert views.partition_health([0, 1, 2], 0, [0, 1, 2], live) == (False, False)
    assert views.partition_health([0, 1, 2], 0, [0, 1], live) == (True, False)
    # an in-sync replica on a broker that is gone counts before the controller shrinks the ISR
    assert views.partition_health([0, 1, 2], 0, [0, 1, 2], {0, 1}) == (True, False)
    assert views.partition_health([0, 1], -1, [1], live) == (False, True)
    assert views.partition_health([0, 1], 1, [1, 0], {0}) == (False, True)
    # a replica a reassignment is still adding is not missing from the ISR yet
    assert views.partition_health([0, 1, 2], 0, [0, 1], live, adding=[2]) == (False, False)


def test_topic_rows_count_unhealthy_and_non_preferred_partitions():
    assignments = {
        "t": {0: {"replicas": [0, 1]}, 1: {"replicas": [1, 0]}, 2: {"replicas": [2, 0]}},
        "__consumer_offsets": {0: {"replicas": [0]}},
    }
    states = {
        ("t", 0): (0, 3, [0, 1]),
        ("t", 1): (0, 4, [0]),
        ("t", 2): (-1, 5, [2]),
        ("__consumer_offsets", 0): (0, 0, [0]),
    }
    rows = views.topic_rows(assignments, states, live={0, 1}, deleting={"t"})
    assert [r["name"] for r in rows] == ["__consumer_offsets", "t"]
    offsets, topic = rows
    assert offsets["internal"] and not topic["internal"] and topic["marked_for_deletion"]
    assert (topic["under_replicated"], topic["offline"], topic["not_preferred"], topic["replication_factor"]) == (
        1,
        1,
        2,
        2,
    )
    assert [
        (p["partition"], p["under_replicated"], p["offline"], p["preferred_leader"]) for p in topic["partitions"]
    ] == [(0, False, False, True), (1, True, False, False), (2, False, True, False)]


def test_broker_rows_keep_a_dead_broker_seen_before():
    registrations = {0: {"listeners": ["PLAINTEXT://h:9092"], "rack": "r0"}}
    known = {1: {"listeners": ["PLAINTEXT://h:9093"], "rack": None}}
    rows = views.broker_rows(registrations, known, controller_id=0, assigned_ids={2})
    assert rows == [
        {"id": 0, "listeners": ["PLAINTEXT://h:9092"], "rack": "r0", "alive": True, "controller": True},
        {"id": 1, "listeners": ["PLAINTEXT://h:9093"], "rack": None, "alive": False, "controller": False},
        {"id": 2, "listeners": [], "rack": None, "alive": False, "controller": False},
    ]


def test_reassignment_progress_counts_target_replicas_in_sync():
    requested = {("t", 0): [1, 2, 3]}
    listed = {("t", 0): ([0, 1, 2, 3], [3], [0]), ("t", 1): ([2, 1], [], [])}
    states = {("t", 0): (1, 2, [0, 1, 2]), ("t", 1): (2, 1, [2, 1])}
    rows = views.reassignment_rows(requested, listed, {}, states)
    assert [(r["partition"], r["target"], r["in_sync"], r["of"], r["progress"], r["source"]) for r in rows] == [
        (0, [1, 2, 3], 2, 3, 0.667, "zookeeper"),
        (1, [2, 1], 2, 2, 1.0, "api"),
    ]


def test_group_row_sums_lag_and_lists_members():
    member = GroupMember("m-1", None, "client-a", "/10.0.0.1", {"t": [1, 0]})
    description = GroupDescription("g", "Stable", "consumer", "range", [member], None)
    rows = [("t", 0, 4, 10, 6, "m-1", "/10.0.0.1", "client-a"), ("t", 1, None, 7, None, "m-1", "/10.0.0.1", "c")]
    row = views.group_row(description, rows)
    assert row["total_lag"] == 6 and row["members"][0]["assignment"] == {"t": [0, 1]}
    assert row["partitions"][0] == {
        "topic": "t",
        "partition": 0,
        "committed": 4,
        "log_end": 10,
        "lag": 6,
        "member": "m-1",
        "host": "/10.0.0.1",
        "client_id": "client-a",
    }


def test_pages_get_every_partition_of_a_small_cluster_and_only_those_needing_attention_of_a_big_one():
    assignments = {"t": {p: {"replicas": [p % 3, (p + 1) % 3]} for p in range(10)}}
    states = {("t", p): (p % 3, 0, [p % 3, (p + 1) % 3]) for p in range(10)}
    states[("t", 4)] = (1, 0, [1])  # under-replicated
    states[("t", 7)] = (2, 0, [2, 1])  # led by its second replica
    topics = views.topic_rows(assignments, states, live={0, 1, 2})
    brokers = views.count_replicas(views.broker_rows({0: {"listeners": [], "rack": None}}, {}, 0, {1, 2}), topics)
    assert [(b["id"], b["leaders"], b["replicas"]) for b in brokers] == [(0, 4, 7), (1, 2, 7), (2, 4, 6)]
    state = {"brokers": brokers, "topics": topics}
    small = views.page_state(state)
    assert small["partitions_complete"] and len(small["topics"][0]["partitions"]) == 10
    big = views.page_state(state, limit=5)
    assert not big["partitions_complete"] and big["partition_count"] == 10
    assert [p["partition"] for p in big["topics"][0]["partitions"]] == [4, 7]
    assert len(state["topics"][0]["partitions"]) == 10  # the service's own state is left whole


# -- chart series ---------------------------------------------------------------------------------


def _scrape(messages, bytes_in, p99=None, shrinks=0, per_topic=False):
    lines = ["# TYPE kafka_server_brokertopicmetrics_messagesin counter"]
    if per_topic:
        lines.append('kafka_server_brokertopicmetrics_messagesin_total{topic="a"} %s' % (messages - 1))
        lines.append('kafka_server_brokertopicmetrics_messagesin_total{topic="b"} 1')
    lines.append("kafka_server_brokertopicmetrics_messagesin_total %s" % messages)
    lines += [
        "# TYPE kafka_server_brokertopicmetrics_bytesin counter",
        'kafka_server_brokertopicmetrics_bytesin_total{topic="a"} %s' % bytes_in,
        "# TYPE kafka_server_replicamanager_isrshrinks counter",
        "kafka_server_replicamanager_isrshrinks_total %s" % shrinks,
        "# TYPE kafka_server_replicamanager_underreplicatedpartitions gauge",
        "kafka_server_replicamanager_underreplicatedpartitions 2.0",
    ]
    if p99 is not None:
        lines += [
            "# TYPE kafka_network_requestmetrics_totaltimems summary",
            'kafka_network_requestmetrics_totaltimems{request="Produce",quantile="0.99"} %s' % p99,
            'kafka_network_requestmetrics_totaltimems{request="Fetch",quantile="0.99"} 500.0',
            'kafka_network_requestmetrics_totaltimems_count{request="Produce"} 9',
        ]
    return "\n".join(lines) + "\n"


def test_chart_values_prefer_the_all_topics_meter_and_pick_the_produce_p99():
    values = chart_values(_scrape(100, 2048, p99=12.5, per_topic=True))
    assert values == {
        "messages_in": 100,
        "bytes_in": 2048,
        "isr_shrinks": 0,
        "under_replicated": 2.0,
        "produce_p99": 12.5,
    }


def test_history_turns_counters_into_rates_and_starts_over_after_a_reset():
    history = MetricsHistory()
    url = "http://127.0.0.1:9404/metrics"
    history.record_scrape(url, 10.0, _scrape(100, 1000))
    history.record_scrape(url, 12.0, _scrape(300, 1000, shrinks=4))
    history.record_scrape(url, 14.0, _scrape(5, 0))  # the broker restarted: no negative rate
    history.record_scrape(url, 16.0, _scrape(45, 0))
    charts = {c["id"]: c for c in history.charts()}
    assert charts["messages_in"]["series"] == [{"label": "127.0.0.1:9404", "points": [[12.0, 100.0], [16.0, 20.0]]}]
    assert charts["isr_shrinks"]["series"][0]["points"][0] == [12.0, 2.0]
    assert charts["under_replicated"]["series"][0]["points"][0] == [10.0, 2.0]
    assert charts["produce_p99"]["series"] == [] and charts["replica_lag"]["series"] == []


def test_history_notes_failed_scrapes_and_records_consumer_lag():
    history = MetricsHistory(keep=2)
    history.record_scrape("http://b:1/metrics", 1.0, error="connection refused")
    history.record_scrape("http://c:1/metrics", 1.0, "not { prometheus")
    for at in (1.0, 2.0, 3.0):
        history.record_lag(at, {"g": int(at * 10)})
    data = history.to_json()
    assert [(s["url"], s["ok"]) for s in data["scrapes"]] == [
        ("http://b:1/metrics", False),
        ("http://c:1/metrics", False),
    ]
    lag = next(c for c in data["charts"] if c["id"] == "consumer_lag")
    assert lag["series"] == [{"label": "g", "points": [[2.0, 20], [3.0, 30]]}]


# -- actions --------------------------------------------------------------------------------------


class FakeAdmin:
    def __init__(self, calls, answers):
        self.calls = calls
        self.answers = answers

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.calls.append(("close",))

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self.calls.append((name,) + args)
            answer = self.answers[name]
            if isinstance(answer, Exception):
                raise answer
            return answer

        return call


def _actions(answers, backend=None):
    calls = []
    actions = ConsoleActions(
        "b:9092",
        {"client_id": "kafka-zk-console"},
        admin_factory=lambda bootstrap, **options: FakeAdmin(calls, answers),
        backend_factory=lambda bootstrap, config: backend,
    )
    return actions, calls


def test_parsing_the_forms():
    assert parse_configs("a=1, b = x=y\nc=") == {"a": "1", "b": "x=y", "c": ""}
    assert parse_partitions("my-topic-0, t-12") == [("my-topic", 0), ("t", 12)]
    with pytest.raises(ValueError):
        parse_configs("novalue")
    with pytest.raises(ValueError):
        parse_partitions("topic")


def test_create_topic_goes_through_create_topics_and_reports_the_brokers_error():
    actions, calls = _actions({"create_topics": {"t": (Errors.NONE, None)}})
    assert actions.run(
        "create-topic", {"topic": "t", "partitions": "3", "replication_factor": "2", "configs": "retention.ms=1"}
    ) == {"ok": True, "message": "Created topic t."}
    new = calls[0][1][0]
    assert (new.name, new.num_partitions, new.replication_factor, new.configs) == ("t", 3, 2, {"retention.ms": "1"})
    actions, _ = _actions({"create_topics": {"t": (Errors.TOPIC_ALREADY_EXISTS, "Topic 't' already exists.")}})
    assert actions.run("create-topic", {"topic": "t"}) == {"ok": False, "message": "t: Topic 't' already exists."}
    assert actions.run("create-topic", {"topic": "t", "partitions": "x"})["ok"] is False
    assert actions.run("create-topic", {}) == {"ok": False, "message": "topic is required"}
    assert actions.run("no-such-thing", {})["ok"] is False


def test_preferred_election_of_a_topic_ignores_partitions_already_led_by_their_preferred_replica():
    TopicInfo = namedtuple("TopicInfo", "partitions")
    actions, calls = _actions(
        {
            "describe_topics": {"t": TopicInfo({0: None, 1: None})},
            "elect_leaders": {("t", 0): (Errors.NONE, None), ("t", 1): (Errors.ELECTION_NOT_NEEDED, None)},
        }
    )
    outcome = actions.run("preferred-election", {"topic": "t"})
    assert outcome["ok"] and outcome["elected"] == ["t-0"]
    assert ("elect_leaders", 0, [("t", 0), ("t", 1)]) in calls


def test_config_changes_run_kafka_configs_alter_itself():
    actions, calls = _actions(
        {
            "describe_resource_configs": [],
            "incremental_alter_configs": None,
            "alter_resource_configs": None,
            "close": None,
        }
    )
    assert actions.run(
        "alter-topic-config", {"topic": "t", "set": "retention.ms=1,cleanup.policy=[compact,delete]"}
    ) == {"ok": True, "message": "Completed updating config for topic t."}
    assert ("incremental_alter_configs", "t", {"retention.ms": "1", "cleanup.policy": "compact,delete"}, [], 2) in calls
    refused = actions.run("alter-topic-config", {"topic": "t", "set": "no.such.config=1"})
    assert refused == {"ok": False, "message": "Unknown topic config name: no.such.config"}
    assert actions.run("alter-broker-config", {"broker": "", "set": "log.cleaner.threads=2"}) == {
        "ok": True,
        "message": "Completed updating default config for brokers in the cluster.",
    }
    assert ("alter_resource_configs", 4, "", {"log.cleaner.threads": "2"}) in calls
    assert actions.run("alter-broker-config", {"broker": "x", "set": "a=1"})["ok"] is False
    assert actions.run("alter-topic-config", {"topic": "t"}) == {"ok": False, "message": "nothing to set or delete"}


def test_generate_and_execute_a_reassignment_plan_as_the_tool_does():
    class Backend:
        started = None

        def brokers(self):
            return {0: None, 1: None, 2: None}

        def assignment(self, topics):
            return {("t", 0): [0, 1], ("t", 1): [1, 0]}

        def ongoing(self):
            return {}

        def start(self, proposed, additional, timeout_ms):
            Backend.started = proposed

        def close(self):
            pass

    actions, _ = _actions({}, Backend())
    generated = actions.run("generate-reassignment", {"topics": "t", "brokers": "1,2"})
    plan = json.loads(generated["proposed"])
    assert generated["ok"] and {p["partition"] for p in plan["partitions"]} == {0, 1}
    assert all(set(p["replicas"]) == {1, 2} for p in plan["partitions"])
    executed = actions.run("execute-reassignment", {"plan": generated["proposed"]})
    assert executed["ok"] and Backend.started == {("t", p["partition"]): p["replicas"] for p in plan["partitions"]}
    assert json.loads(executed["rollback"])["partitions"][0]["replicas"] == [0, 1]
    assert actions.run("execute-reassignment", {"plan": "{}"})["ok"] is False
    assert actions.run("generate-reassignment", {"topics": "t", "brokers": "1,1"})["ok"] is False


# -- the service and its JSON API on a fake reactor -----------------------------------------------


class InlinePool:
    """A thread pool that runs the work at once, on the caller's thread."""

    def callInThreadWithCallback(self, on_result, function, *args, **kwargs):
        try:
            result = function(*args, **kwargs)
        except Exception:
            on_result(False, Failure())
        else:
            on_result(True, result)


class FakeReactor(Clock):
    def __init__(self):
        super().__init__()
        self.pool = InlinePool()

    def callFromThread(self, function, *args, **kwargs):
        function(*args, **kwargs)

    def getThreadPool(self):
        return self.pool


class FakeReader:
    def __init__(self):
        self.leader = 0
        self.watcher = None

    def watch_brokers(self, callback):
        self.watcher = callback

    def cluster_state(self, listed):
        topics = views.topic_rows({"t": {0: {"replicas": [0, 1]}}}, {("t", 0): (self.leader, 1, [0, 1])}, {0, 1})
        return {"brokers": [], "controller": {"id": 0, "epoch": 1}, "topics": topics, "reassignments": []}

    def broker_view(self):
        return {
            "listed": {},
            "listed_error": None,
            "groups_error": None,
            "groups": [{"group": "g", "total_lag": 5, "members": [], "partitions": []}],
        }

    def topic_configs(self, topic):
        return {"retention.ms": "1"}, [{"name": "retention.ms", "value": "1", "default": False, "sensitive": False}]


class FakeActions:
    def run(self, name, fields):
        return {"ok": True, "message": "%s %s" % (name, fields.get("topic"))}


@pytest.fixture
def service():
    reactor = FakeReactor()
    running = ConsoleService(reactor, FakeReader(), FakeActions(), reader_pool=InlinePool())
    running.start()
    yield running
    running.stop()


def _get(service, *path, args=None):
    request = DummyRequest([p.encode() for p in path])
    request.args = {k.encode(): [v.encode()] for k, v in (args or {}).items()}
    ApiResource(service).render(request)
    return request


def _body(request):
    return json.loads(b"".join(request.written))


def test_state_is_answered_at_once_for_a_new_page_and_on_change_or_after_two_seconds(service):
    first = _get(service, "state")
    assert first.finished and _body(first)["version"] == 1
    assert _body(first)["groups"][0]["total_lag"] == 5

    waiting = _get(service, "state", args={"after": "1"})
    service.reactor.advance(1.0)  # the refresh finds nothing new
    assert not waiting.finished
    service.reactor.advance(1.0)
    assert waiting.finished and _body(waiting)["version"] == 1

    changed = _get(service, "state", args={"after": "1"})
    service.reader.leader = 1
    service.reader.watcher()  # a broker came or went: read again at once
    assert changed.finished and _body(changed)["version"] == 2
    assert _body(changed)["state"]["topics"][0]["partitions"][0]["leader"] == 1


def test_topic_detail_metrics_and_unknown_paths(service):
    detail = _get(service, "topics", "t")
    assert _body(detail)["overrides"] == {"retention.ms": "1"} and _body(detail)["partitions"][0]["leader"] == 0
    missing = _get(service, "topics", "nope")
    assert missing.responseCode == 404
    request = DummyRequest([b"metrics"])
    body = ApiResource(service).render(request)
    assert [c["id"] for c in json.loads(body)["charts"]][-1] == "consumer_lag"
    assert json.loads(ApiResource(service).render(DummyRequest([b"nothing"])))["error"].startswith("no such API")


def test_actions_take_only_json_bodies(service):
    def post(content_type, body):
        request = DummyRequest([b"actions", b"create-topic"])
        request.method = b"POST"
        request.requestHeaders.setRawHeaders(b"content-type", [content_type])
        request.content = io.BytesIO(body)
        result = ApiResource(service).render(request)
        return request, result

    request, _ = post(b"application/json", b'{"topic": "t"}')
    assert _body(request) == {"ok": True, "message": "create-topic t"}
    request, result = post(b"application/x-www-form-urlencoded", b"topic=t")
    assert request.responseCode == 415 and json.loads(result)["ok"] is False
    request, result = post(b"application/json", b"[1]")
    assert request.responseCode == 400
