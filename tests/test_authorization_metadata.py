"""Metadata under an authorizer, as Kafka 2.5: topics the principal may not Describe are left out of the
all-topics answer and answer TOPIC_AUTHORIZATION_FAILED when named; auto-creation needs Create on the cluster
or the topic; v8+ reports the authorized operations when asked."""

from twisted.internet import defer

from kafka_zk.protocol.errors import Errors
from kafka_zk.security.authorizer import AclOperation as Op
from kafka_zk.security.authorizer import ResourceType as Rt
from kafka_zk.server.apis import metadata
from kafka_zk.server.apis.authorization import SUPPORTED_OPERATIONS
from kafka_zk.server.metadata_cache import BrokerEndpoints, MetadataCache, PartitionInfo
from tests.authorization_support import GrantedAuthorizer, Spy, cluster, grant, request, result_of

OMITTED = -2147483648


def _cache():
    cache = MetadataCache(1)
    cache.update(
        1,
        1,
        [BrokerEndpoints(1, {"PLAINTEXT": ("localhost", 9092)}, None)],
        [(topic, 0, PartitionInfo(1, 0, [1], [1], [], 1, 0)) for topic in ("public", "secret")],
    )
    return cache


def _metadata(authorizer, topics, version=9, auto_create=True, **flags):
    admin = Spy(auto_create_topic=lambda name: defer.succeed(Errors.LEADER_NOT_AVAILABLE))
    body = {
        "topics": None if topics is None else [{"name": name} for name in topics],
        "allow_auto_topic_creation": True,
        **flags,
    }
    answer = result_of(
        metadata.handle(
            request(3, version, body),
            metadata_cache=_cache(),
            config={"auto.create.topics.enable": auto_create},
            admin=admin,
            cluster_id=lambda: "cluster",
            authorizer=authorizer,
        )
    )
    return answer, admin


def _errors(answer):
    return {topic["name"]: topic["error_code"] for topic in answer["topics"]}


def test_undescribable_topics_are_hidden_from_the_all_topics_answer():
    describe_public = GrantedAuthorizer(grant(Op.DESCRIBE, Rt.TOPIC, "public"))
    assert _errors(_metadata(describe_public, None)[0]) == {"public": Errors.NONE}
    assert _errors(_metadata(describe_public, [], version=0)[0]) == {"public": Errors.NONE}
    assert _errors(_metadata(None, None)[0]) == {"public": Errors.NONE, "secret": Errors.NONE}


def test_a_named_undescribable_topic_answers_topic_authorization_failed_whether_it_exists_or_not():
    answer, admin = _metadata(
        GrantedAuthorizer(grant(Op.DESCRIBE, Rt.TOPIC, "public")), ["public", "secret", "missing"]
    )
    assert _errors(answer) == {
        "public": Errors.NONE,
        "secret": Errors.TOPIC_AUTHORIZATION_FAILED,
        "missing": Errors.TOPIC_AUTHORIZATION_FAILED,
    }
    assert [t["partitions"] for t in answer["topics"] if t["name"] != "public"] == [[], []]
    assert admin.calls == []  # nothing is created for a topic the principal may not even Describe


def test_auto_creation_needs_create_on_the_cluster_or_on_the_topic():
    describe = grant(Op.DESCRIBE, Rt.TOPIC, "new")
    answer, admin = _metadata(GrantedAuthorizer(describe), ["new"])
    assert _errors(answer) == {"new": Errors.TOPIC_AUTHORIZATION_FAILED} and admin.calls == []
    for create in (grant(Op.CREATE, Rt.TOPIC, "new"), cluster(Op.CREATE)):
        answer, admin = _metadata(GrantedAuthorizer(describe, create), ["new"])
        assert _errors(answer) == {"new": Errors.LEADER_NOT_AVAILABLE} and admin.calls == ["auto_create_topic"]
    answer, admin = _metadata(GrantedAuthorizer(describe), ["new"], auto_create=False)
    assert _errors(answer) == {"new": Errors.UNKNOWN_TOPIC_OR_PARTITION}  # no creation asked: no Create needed


def test_authorized_operations_are_reported_from_v8_when_asked():
    authorizer = GrantedAuthorizer(grant(Op.DESCRIBE, Rt.TOPIC, "public"), grant(Op.READ, Rt.TOPIC, "public"))
    answer, _ = _metadata(
        authorizer, ["public"], include_cluster_authorized_operations=True, include_topic_authorized_operations=True
    )
    assert answer["cluster_authorized_operations"] == 0  # no Describe on the cluster
    assert answer["topics"][0]["topic_authorized_operations"] == (1 << Op.READ) | (1 << Op.DESCRIBE)
    answer, _ = _metadata(
        GrantedAuthorizer(cluster(Op.DESCRIBE), cluster(Op.CREATE)), None, include_cluster_authorized_operations=True
    )
    assert answer["cluster_authorized_operations"] == (1 << Op.DESCRIBE) | (1 << Op.CREATE)
    answer, _ = _metadata(
        None, ["public"], include_cluster_authorized_operations=True, include_topic_authorized_operations=True
    )
    assert answer["cluster_authorized_operations"] == sum(1 << op for op in SUPPORTED_OPERATIONS[Rt.CLUSTER])
    assert answer["topics"][0]["topic_authorized_operations"] == sum(1 << op for op in SUPPORTED_OPERATIONS[Rt.TOPIC])
    answer, _ = _metadata(None, ["public"])
    assert (answer["cluster_authorized_operations"], answer["topics"][0]["topic_authorized_operations"]) == (
        OMITTED,
        OMITTED,
    )
