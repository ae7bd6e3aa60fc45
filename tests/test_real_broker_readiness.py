"""A broker restarted after kill -9 serves nothing but a connection's set-up until it is ready: requests of every API
key it advertises, sent while it waits for its previous session's registration to expire, are answered well once
it has registered and heard from the controller, and none of them reaches a part of it not built yet."""

import select

import pytest

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.record.records import encode_batch
from kafka_zk.server import apis
from tests.cluster_support import wait_for
from tests.raw_wire import RawConnection, request
from tests.replication_support import fast_overrides, module_replication_cluster, produce_when_led

cluster = module_replication_cluster(
    overrides=fast_overrides(
        offsets_topic_num_partitions=3,
        transaction_state_log_num_partitions=3,
        group_initial_rebalance_delay_ms=0,
    )
)

GROUP, TRANSACTIONAL_ID = "readiness-group", "readiness-txn"
ANY, LITERAL, TOPIC_RESOURCE = 1, 3, 2  # ACL filters' ANY; the LITERAL pattern; a config resource's type (topic)
NO_SUCH_BROKER = 999


def bodies(topic):
    """{api key: a minimal valid request body at its highest version}: nothing in them changes the cluster
    (the controller's requests carry a stale broker epoch, the others name no topic, group or token that exists,
    or only read) but for a record produced (where the broker leads) and a producer id allocated."""
    one_partition = [{"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}]
    return {
        0: {
            "transactional_id": None,
            "acks": 1,
            "timeout_ms": 10000,
            "topics": [
                {"name": topic, "partitions": [{"partition_index": 0, "records": encode_batch([(b"k", b"v")])}]}
            ],
        },
        1: {
            "replica_id": -1,
            "max_wait_ms": 0,
            "min_bytes": 0,
            "max_bytes": 1 << 20,
            "isolation_level": 0,
            "session_id": 0,
            "session_epoch": -1,
            "topics": [
                {
                    "topic": topic,
                    "partitions": [
                        {"partition": 0, "current_leader_epoch": -1, "fetch_offset": 0, "partition_max_bytes": 1 << 20}
                    ],
                }
            ],
            "forgotten_topics_data": [],
            "rack_id": "",
        },
        2: {"replica_id": -1, "isolation_level": 0, "topics": one_partition},
        3: {"topics": [{"name": topic}], "allow_auto_topic_creation": False},
        4: {"controller_id": 0, "controller_epoch": 0, "broker_epoch": 0, "topic_states": [], "live_leaders": []},
        5: {"controller_id": 0, "controller_epoch": 0, "broker_epoch": 0, "delete_partitions": False, "topics": []},
        6: {"controller_id": 0, "controller_epoch": 0, "broker_epoch": 0, "topic_states": [], "live_brokers": []},
        7: {"broker_id": NO_SUCH_BROKER, "broker_epoch": -1},
        8: {"group_id": GROUP, "generation_id": -1, "member_id": "", "topics": []},
        9: {"group_id": GROUP, "topics": None, "require_stable": False},
        10: {"key": GROUP, "key_type": 0},
        11: {
            "group_id": GROUP,
            "session_timeout_ms": 10000,
            "rebalance_timeout_ms": 10000,
            "member_id": "",
            "group_instance_id": None,
            "protocol_type": "consumer",
            "protocols": [{"name": "range", "metadata": b""}],
        },
        12: {"group_id": GROUP, "generation_id": 1, "member_id": "nobody", "group_instance_id": None},
        13: {"group_id": GROUP, "members": [{"member_id": "nobody", "group_instance_id": None}]},
        14: {
            "group_id": GROUP,
            "generation_id": 1,
            "member_id": "nobody",
            "group_instance_id": None,
            "protocol_type": "consumer",
            "protocol_name": "range",
            "assignments": [],
        },
        15: {"groups": [GROUP], "include_authorized_operations": False},
        16: {},
        17: {"mechanism": "PLAIN"},
        18: {"client_software_name": "readiness-test", "client_software_version": "1.0"},
        19: {"topics": [], "timeout_ms": 5000, "validate_only": False},
        20: {"topic_names": [], "timeout_ms": 5000},
        21: {"topics": [], "timeout_ms": 5000},
        22: {"transactional_id": None, "transaction_timeout_ms": 60000, "producer_id": -1, "producer_epoch": -1},
        23: {
            "replica_id": -1,
            "topics": [
                {"topic": topic, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]}
            ],
        },
        24: {"transactional_id": TRANSACTIONAL_ID, "producer_id": 0, "producer_epoch": 0, "topics": []},
        25: {"transactional_id": TRANSACTIONAL_ID, "producer_id": 0, "producer_epoch": 0, "group_id": GROUP},
        26: {"transactional_id": TRANSACTIONAL_ID, "producer_id": 0, "producer_epoch": 0, "committed": False},
        27: {"markers": []},
        28: {
            "transactional_id": TRANSACTIONAL_ID,
            "group_id": GROUP,
            "producer_id": 0,
            "producer_epoch": 0,
            "generation_id": -1,
            "member_id": "",
            "group_instance_id": None,
            "topics": [],
        },
        29: {
            "resource_type_filter": ANY,
            "resource_name_filter": None,
            "pattern_type_filter": ANY,
            "principal_filter": None,
            "host_filter": None,
            "operation": ANY,
            "permission_type": ANY,
        },
        30: {"creations": []},
        31: {"filters": []},
        32: {
            "resources": [{"resource_type": TOPIC_RESOURCE, "resource_name": topic, "configuration_keys": None}],
            "include_synonyms": False,
        },
        33: {"resources": [], "validate_only": True},
        34: {"dirs": []},
        35: {"topics": None},
        36: {"auth_bytes": b""},
        37: {"topics": [], "timeout_ms": 5000, "validate_only": True},
        38: {"renewers": [], "max_lifetime_ms": -1},
        39: {"hmac": b"no-such-token", "renew_period_ms": 1000},
        40: {"hmac": b"no-such-token", "expiry_time_period_ms": 1000},
        41: {"owners": None},
        42: {"groups_names": ["readiness-no-such-group"]},
        43: {"election_type": 0, "topic_partitions": [], "timeout_ms": 5000},
        44: {"resources": [], "validate_only": True},
        45: {"timeout_ms": 5000, "topics": []},
        46: {"timeout_ms": 5000, "topics": None},
        47: {"group_id": "readiness-no-such-group", "topics": []},
    }


@pytest.fixture(scope="module")
def topic(cluster):
    """A topic of 3 replicas with a record in it, and the internal topics already made (FindCoordinator makes
    them), so that the group and transaction APIs reach coordinators the restarted broker reloads."""
    name = cluster.new_topic("readiness", replication_factor=3)
    cluster.wait_full_isr(name, [0], sorted(b.broker_id for b in cluster.brokers))
    leader = cluster.broker(cluster.state(name)["leader"]).bootstrap
    assert produce_when_led(leader, name, encode_batch([(b"k", b"v")]), acks=-1)[0] == 0
    bootstrap = cluster.brokers[0].bootstrap
    for key_type, key in ((0, GROUP), (1, TRANSACTIONAL_ID)):
        wait_for(
            lambda: request(bootstrap, 10, 3, {"key": key, "key_type": key_type})["error_code"] == 0,
            60,
            message="the coordinator of %r" % key,
        )
    return name


def unknown_server_errors(value, path="response"):
    """The paths of every error code in a decoded response that is UNKNOWN_SERVER_ERROR (what a handler's
    unexpected exception becomes in Kafka)."""
    found = []
    if isinstance(value, dict):
        for name, item in value.items():
            if name.endswith("error_code") and item == Errors.UNKNOWN_SERVER_ERROR:
                found.append("%s.%s" % (path, name))
            found += unknown_server_errors(item, "%s.%s" % (path, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += unknown_server_errors(item, "%s[%d]" % (path, index))
    return found


def registration_owner(cluster, broker_id):
    """The session that owns /brokers/ids/<id>, or None while the broker is not registered."""
    stat = cluster.zk.exists("/brokers/ids/%d" % broker_id)
    return None if stat is None else stat.ephemeralOwner


def log_sizes(broker):
    return {path: path.stat().st_size for path in broker.folder.iterdir() if path.is_file()}


def tracebacks_since(broker, sizes):
    """{file: what it gained past ``sizes``} for each file of the broker's folder (server.log, controller.log,
    state-change.log, ...) whose new text holds a Python traceback."""
    found = {}
    for path in broker.folder.iterdir():
        if path.is_file():
            with open(path, "rb") as handle:
                handle.seek(sizes.get(path, 0))
                text = handle.read().decode(errors="replace")
            if "Traceback" in text or "has no attribute" in text:
                found[path.name] = text[-4000:]
    return found


def bounce_under_every_api(cluster, topic, victim):
    """Kill -9 ``victim``, start it again at once, and while it waits for its old registration to expire send it,
    on a connection of each, one request of every API key it advertises; then check every answer."""
    ids = sorted(b.broker_id for b in cluster.brokers)
    old_session = registration_owner(cluster, victim.broker_id)
    assert old_session is not None
    sizes = log_sizes(victim)
    victim.kill()
    victim.start(wait=False)

    def listening():
        try:
            return request(victim.bootstrap, 18, 3, bodies(topic)[18])
        except OSError:
            return None

    versions = wait_for(listening, 30, message="broker %d to listen again" % victim.broker_id)
    assert versions["error_code"] == 0, versions
    assert registration_owner(cluster, victim.broker_id) == old_session, (
        "broker %d registered before it listened: the window was not exercised" % victim.broker_id
    )
    advertised = {entry["api_key"]: entry["max_version"] for entry in versions["api_keys"]}
    requests = bodies(topic)
    assert set(advertised) == set(apis.HANDLERS), advertised
    assert set(advertised) <= set(requests), "no request body for %s" % sorted(set(advertised) - set(requests))

    connections = {}
    try:
        for correlation_id, (api_key, version) in enumerate(sorted(advertised.items()), start=1):
            connection = RawConnection(victim.bootstrap, timeout=45)
            connections[api_key] = (connection, version, correlation_id)
            connection.send_frame(encode_request(api_key, version, correlation_id, "readiness", requests[api_key]))
        early = [
            API_SPECS[key].name
            for key, (connection, _, _) in connections.items()
            if key not in apis.CONNECTION_APIS and select.select([connection.sock], [], [], 0)[0]
        ]
        # every request was sent, and nothing but a connection's set-up answered, while the old session lived on
        assert registration_owner(cluster, victim.broker_id) == old_session, (
            "broker %d registered while the requests were sent: the window closed too soon" % victim.broker_id
        )
        assert early == [], "answered before the broker registered: %s" % early

        problems, answers = [], {}
        for api_key, (connection, version, correlation_id) in connections.items():
            name = "%s v%d" % (API_SPECS[api_key].name, version)
            frame = connection.recv_frame()
            if frame is None:
                problems.append("%s: connection closed without an answer" % name)
                continue
            got, answers[api_key] = decode_response(api_key, version, frame)
            if got != correlation_id:
                problems.append("%s: correlation id %d, sent %d" % (name, got, correlation_id))
            problems += [
                "%s: %s is UNKNOWN_SERVER_ERROR" % (name, path) for path in unknown_server_errors(answers[api_key])
            ]
    finally:
        for connection, _, _ in connections.values():
            connection.close()

    assert problems == [], problems
    assert victim.is_running(), victim.log_tail()
    new_session = registration_owner(cluster, victim.broker_id)
    assert new_session not in (None, old_session)
    # Metadata waited until the controller had told the broker about the cluster: it knows every broker
    assert sorted(broker["node_id"] for broker in answers[3]["brokers"]) == ids, answers[3]
    # ControlledShutdown reached a controller that exists: not the active one, or one that knows no such broker
    assert answers[7]["error_code"] in (Errors.STALE_CONTROLLER_EPOCH, Errors.BROKER_NOT_AVAILABLE), answers[7]
    cluster.wait_full_isr(topic, [0], ids)
    assert tracebacks_since(victim, sizes) == {}
    return answers


def test_restarted_follower_answers_every_api_only_when_ready(cluster, topic):
    controller = cluster.wait_controller()
    victim = next(b for b in cluster.brokers if b.broker_id != controller)
    answers = bounce_under_every_api(cluster, topic, victim)
    # the controller's first UpdateMetadata to a broker that comes back carries every partition (Kafka 2.5's
    # onBrokerStartup): the Metadata that waited for it knows the topic
    assert [(entry["name"], entry["error_code"]) for entry in answers[3]["topics"]] == [(topic, 0)], answers[3]


def test_restarted_controller_answers_every_api_only_when_ready(cluster, topic):
    victim = cluster.broker(cluster.wait_controller())
    answers = bounce_under_every_api(cluster, topic, victim)
    assert cluster.wait_controller() in {b.broker_id for b in cluster.brokers}
    # A new controller's failover first tells every live broker of the brokers alone (Kafka 2.5 does so too): when
    # the restarted broker registered before the failover read /brokers/ids, that partitionless UpdateMetadata is
    # its first, and what waited for it is answered from a view without topics, as a Kafka broker would be.
    assert [entry["name"] for entry in answers[3]["topics"]] == [topic], answers[3]
    assert answers[3]["topics"][0]["error_code"] in (Errors.NONE, Errors.UNKNOWN_TOPIC_OR_PARTITION), answers[3]
