"""Every handler's answer through the strict encoder: at every version we advertise (ApiVersions is derived from the
registered handlers), each handler answers a request with every field set from a client the authorizer allows
nothing, and its answer carries every field Kafka 2.5's spec requires, no key it does not know, and survives the
wire. The answers a granted client gets are checked by the rest of the suite, which runs strict throughout."""

import pytest
from twisted.internet import defer, task

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.headers import decode_response, encode_response
from kafka_zk.server import apis
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from kafka_zk.server.replication.fetch_session import FetchManager, FetchSessionCache
from tests.authorization_support import Spy, request, result_of
from tests.test_protocol_roundtrip import SampleMaker

SERVED = [(key, version) for key, low, high in apis.supported_versions() for version in range(low, high + 1)]


class AllowsNothing:
    def authorize(self, principal, host, operation, resource_type, resource_name):
        return False


def _answers(value):
    return lambda *args, **kwargs: value


def _collaborator(name):
    """What each handler uses, as little as a refused request needs: plain values, empty answers, spies."""
    if name == "authorizer":
        return AllowsNothing()
    if name == "clock":
        return task.Clock()
    if name == "config":
        return KafkaConfig({"zookeeper.connect": "zk:2181", "broker.id": "0"})
    if name == "broker_id":
        return 0
    if name == "broker_epoch":
        return _answers(1)
    if name == "cluster_id":
        return _answers("cluster")
    if name == "controller":  # the active controller: the request is refused by the authorizer, not redirected
        return _answers(Spy(is_active=True))
    if name == "fetch_manager":
        return FetchManager(FetchSessionCache(10))
    if name == "fetch_quotas":
        return ClientQuotaManager("consumer_byte_rate")
    if name == "group_coordinator":
        return Spy(handle_list_groups=_answers((0, [])), handle_delete_groups=_answers({}))
    if name == "admin":
        return Spy(
            create_topics=_answers(defer.succeed([])),
            delete_topics=_answers(defer.succeed([])),
            create_partitions=_answers(defer.succeed([])),
            alter_configs=lambda changes, *rest: defer.succeed([(0, None)] * len(changes)),
        )
    if name == "metadata_cache":
        return Spy(
            topics=_answers([]),
            contains_topic=_answers(False),
            alive_broker_ids=_answers([]),
            brokers={},
            controller_id=1,
        )
    if name == "control_requests":  # the controller's requests, applied at once
        return Spy(run=lambda apply, request, **collaborators: apply(request, **collaborators))
    if name == "replica_manager":
        return Spy(delete_records=_answers(defer.succeed({})))
    return Spy()


def test_every_registered_api_is_answered():
    assert {key for key, _ in SERVED} == set(API_SPECS)


@pytest.mark.parametrize("key, version", SERVED)
def test_a_refused_request_gets_a_whole_answer(key, version):
    handle = apis.HANDLERS[key]
    body = SampleMaker(version, use_nulls=False).struct(API_SPECS[key].request.fields)
    outcome = result_of(
        handle(request(key, version, body), **{name: _collaborator(name) for name in apis.collaborators(handle)})
    )
    if hasattr(outcome, "raiseException"):
        outcome.raiseException()
    response = API_SPECS[key].response
    assert response.strict_problems(outcome, version) == []
    _, decoded = decode_response(key, version, encode_response(key, version, 1, outcome))
    assert decoded == response.decode(response.encode(outcome, version), version)
