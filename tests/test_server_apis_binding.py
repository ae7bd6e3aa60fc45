"""Handlers name their collaborators: the registry binds them from the broker once, when it starts listening,
refuses a handler whose collaborator is missing, and reads what changes later (the broker epoch) per request."""

from types import SimpleNamespace

import pytest
from twisted.internet import task

from kafka_zk.protocol.errors import Errors
from kafka_zk.server import apis
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.kafka_server import KafkaServer

# What KafkaServer.start() creates before the listener opens (the rest exists from the constructor).
STARTED_COLLABORATORS = [
    "zk",
    "log_manager",
    "metadata_cache",
    "replica_manager",
    "admin",
    "group_coordinator",
    "producer_ids",
    "txn_coordinator",
    "token_manager",
]


def _started_server(tmp_path):
    server = KafkaServer(
        KafkaConfig({"zookeeper.connect": "127.0.0.1:1", "broker.id": "0", "log.dirs": str(tmp_path)}), task.Clock()
    )
    for name in STARTED_COLLABORATORS:
        setattr(server, name, SimpleNamespace(name=name))
    return server


def test_every_handler_binds_to_a_started_broker(tmp_path):
    server = _started_server(tmp_path)
    handlers = server.request_dispatcher().handlers
    assert set(handlers) == set(apis.HANDLERS)
    assert handlers[1].keywords["replica_manager"] is server.replica_manager
    assert handlers[1].keywords["clock"] is server.reactor
    assert handlers[18].keywords == {}  # ApiVersions uses nothing


def test_a_missing_collaborator_fails_the_binding_naming_it():
    provider = SimpleNamespace(
        **{
            name: object()
            for handle in apis.HANDLERS.values()
            for name in apis.collaborators(handle)
            if name != "fetch_manager"
        }
    )
    with pytest.raises(apis.MissingCollaborator, match="Fetch handler .*'fetch_manager'.*SimpleNamespace"):
        apis.bind_handlers(provider)


def test_control_requests_are_fenced_by_the_broker_epoch_of_the_moment(tmp_path):
    server = _started_server(tmp_path)
    stopped = []
    server.replica_manager = SimpleNamespace(
        controller_epoch=1,
        check_controller_epoch=lambda epoch: None,
        stop_replica=lambda topic, index, delete: stopped.append((topic, index)) or Errors.NONE,
    )
    dispatcher = server.request_dispatcher()
    server.broker_epoch = 20  # registered after the listener opened
    dispatcher.serve(apis.CONTROLLER_APIS)
    request = SimpleNamespace(
        api_key=5,
        api_version=1,
        body={
            "controller_id": 1,
            "controller_epoch": 1,
            "broker_epoch": 10,
            "delete_partitions": False,
            "ungrouped_partitions": [{"topic_name": "t", "partition_index": 0}],
        },
    )
    assert dispatcher.handle(request).result["error_code"] == Errors.STALE_BROKER_EPOCH
    request.body["broker_epoch"] = 20
    assert dispatcher.handle(request).result["error_code"] == Errors.NONE and stopped == [("t", 0)]


def test_a_starting_broker_answers_the_controller_once_registered_and_clients_once_it_knows_the_cluster():
    """A restarted broker listens while it waits for its previous incarnation's registration to expire: what the
    controller sent that incarnation waits for the new broker epoch, and clients wait for the cluster's view."""
    answered = []
    handlers = {key: (lambda request, key=key: answered.append(key) or {"api_key": key}) for key in apis.HANDLERS}
    dispatcher = apis.Dispatcher(handlers, serving=apis.CONNECTION_APIS)
    requests = {
        name: SimpleNamespace(api_key=key)
        for name, key in [("ApiVersions", 18), ("OffsetCommit", 8), ("UpdateMetadata", 6), ("Heartbeat", 12)]
    }
    results = {name: dispatcher.handle(request) for name, request in requests.items()}
    assert answered == [18]
    dispatcher.serve(apis.CONTROLLER_APIS)  # registered
    assert answered == [18, 6]
    dispatcher.serve()  # the controller's first UpdateMetadata applied
    assert answered == [18, 6, 8, 12]  # the waiting ones in arrival order
    assert {name: getattr(result, "result", result) for name, result in results.items()} == {
        name: {"api_key": request.api_key} for name, request in requests.items()
    }
    dispatcher.serve(apis.CONTROLLER_APIS)  # a later registration (a new session) holds nothing back
    assert dispatcher.handle(requests["OffsetCommit"]) == {"api_key": 8}
