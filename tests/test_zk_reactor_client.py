"""ReactorZkClient stays KafkaZkClient's twin: every method it offers has KafkaZkClient's name, parameters and
defaults, and hands the call, arguments as given, to the client."""

import inspect

import pytest

from kafka_zk.zk.client import KafkaZkClient
from kafka_zk.zk.reactor_client import ReactorZkClient
from tests.fake_zk import FakeZk

REACTOR_ONLY = {"on_reactor", "add_session_listener"}
MIRRORED = sorted(
    name
    for name, member in vars(ReactorZkClient).items()
    if inspect.isfunction(member) and not name.startswith("_") and name not in REACTOR_ONLY
)


def test_every_mirrored_method_exists_on_kafka_zk_client():
    assert MIRRORED and [name for name in MIRRORED if not hasattr(KafkaZkClient, name)] == []


@pytest.mark.parametrize("name", MIRRORED)
def test_a_mirrored_method_has_the_clients_parameters_and_defaults(name):
    def shape(function):
        return [(p.name, p.default) for p in list(inspect.signature(function).parameters.values())[1:]]

    assert shape(getattr(ReactorZkClient, name)) == shape(getattr(KafkaZkClient, name))


def test_a_call_reaches_the_client_with_its_arguments_and_answers_a_deferred():
    seen = []
    zk = FakeZk({"create_topic_assignment": lambda *args: seen.append(args) or "created"})
    answers = []
    zk.create_topic_assignment("t", {0: [1]}).addCallback(answers.append)
    assert seen == [("t", {0: [1]}, None)] and answers == ["created"]
