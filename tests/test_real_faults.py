"""Real brokers under faults: kill -9 during produce, damaged segments, controller failover, znode shapes."""

import collections
import json
import random
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafka_zk.record.records import encode_batch
from tests.cluster_support import start_cluster, wait_for
from tests.raw_wire import create_topic, latest_offset, metadata, partition_leaders, produce, read_all, request
from tests.replication_support import shell_get

SESSION_TIMEOUT_S = 6
STALE_CONTROLLER_EPOCH = 11
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fast_cluster(tmp_path, zookeeper_server):
    """Three fresh brokers per test whose ZooKeeper sessions expire after 6 s, so a kill is noticed fast."""
    running = start_cluster(
        tmp_path, zookeeper_server, overrides={"zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_S * 1000)}
    )
    yield running
    running.stop()


@pytest.fixture
def zk(fast_cluster):
    client = KazooClient(hosts=fast_cluster.zk_connect)
    client.start(10)
    yield client
    client.stop()
    client.close()


def _json_at(zk, path):
    data, _ = zk.get(path)
    return json.loads(data.decode())


def _controller_id(zk):
    try:
        return _json_at(zk, "/controller")["brokerid"]
    except NoNodeError:  # between controllers
        return None


def _wait_controller(zk, not_id=None, timeout=30):
    """The id of the controller once one other than not_id holds /controller."""

    def current():
        found = _controller_id(zk)
        return (found,) if found not in (None, not_id) else None

    return wait_for(current, timeout, message="a controller other than %s" % not_id)[0]


def _non_controller(cluster, zk):
    controller = _wait_controller(zk)
    return next(broker for broker in reversed(cluster.brokers) if broker.broker_id != controller)


def _pinned_topic(cluster, broker_id, prefix):
    topic = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    assert create_topic(cluster.brokers[0].bootstrap, topic, assignments={0: [broker_id]}) == 0
    for broker in cluster.brokers:
        if broker.is_running():
            wait_for(
                lambda b=broker: partition_leaders(b.bootstrap, topic) == {0: broker_id},
                30,
                message="broker %d to learn %s's leader" % (broker.broker_id, topic),
            )
    return topic


def _restart(cluster, broker, zk, killed):
    """Start a stopped broker again (after a kill, once ZooKeeper has expired its old session)."""
    if killed:
        wait_for(
            lambda: zk.exists("/brokers/ids/%d" % broker.broker_id) is None,
            SESSION_TIMEOUT_S + 10,
            message="broker %d's registration to expire" % broker.broker_id,
        )
    broker.start(timeout=60)


def _wait_leading(cluster, broker, topic):
    wait_for(
        lambda: all(partition_leaders(b.bootstrap, topic) == {0: broker.broker_id} for b in cluster.brokers),
        30,
        message="%s led by broker %d" % (topic, broker.broker_id),
    )


@pytest.mark.timeout(150)
def test_kill9_during_acks1_produce_keeps_every_acknowledged_record_once(fast_cluster, zk):
    victim = _non_controller(fast_cluster, zk)
    topic = _pinned_topic(fast_cluster, victim.broker_id, "kill-produce")
    acked, failed = [], []

    def delivered(error, message):
        (acked if error is None else failed).append(message.value())

    producer = Producer(
        {
            "bootstrap.servers": fast_cluster.bootstrap_servers,
            "acks": 1,
            "message.send.max.retries": 0,
            "linger.ms": 2,
            "message.timeout.ms": 4000,
            "log_level": 0,
        }
    )
    produced = 0
    killed_at = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            producer.produce(topic, value=b"v-%07d" % produced, partition=0, on_delivery=delivered)
            produced += 1
        except BufferError:
            producer.poll(0.01)
        producer.poll(0)
        if killed_at is None and len(acked) >= 3000:
            victim.kill()
            killed_at = produced
        if killed_at is not None and produced >= killed_at + 2000:
            break
    assert killed_at is not None, "only %d acknowledged before the deadline" % len(acked)
    assert producer.flush(30) == 0
    assert len(acked) + len(failed) == produced
    assert failed, "nothing failed although the only replica was killed"

    _restart(fast_cluster, victim, zk, killed=True)
    _wait_leading(fast_cluster, victim, topic)
    records = read_all(victim.bootstrap, topic, 0)
    assert [r.offset for r in records] == list(range(len(records)))
    counts = collections.Counter(r.value for r in records)
    assert set(acked) <= set(counts), "%d acknowledged records lost" % len(set(acked) - set(counts))
    assert [value for value in acked if counts[value] != 1] == []
    assert produce(victim.bootstrap, topic, 0, encode_batch([(None, b"after")])) == (0, len(records))


def _random_garbage(_next_offset):
    return bytes(random.Random(7).getrandbits(8) for _ in range(777))


def _torn_batch(next_offset):
    batch = encode_batch([(None, b"torn-%d" % i) for i in range(10)], base_offset=next_offset)
    return batch[: len(batch) // 2]


@pytest.mark.timeout(90)
@pytest.mark.parametrize(
    "how,damage",
    [("stop", _random_garbage), ("stop", _torn_batch), ("kill", _random_garbage)],
    ids=["stop-random", "stop-torn", "kill-random"],
)
def test_damaged_segment_tail_is_truncated_on_restart(fast_cluster, zk, how, damage):
    broker = _non_controller(fast_cluster, zk)
    topic = _pinned_topic(fast_cluster, broker.broker_id, "damaged")
    values = []
    for batch_number in range(5):
        batch_values = [b"rec-%d-%d" % (batch_number, i) for i in range(20)]
        assert produce(broker.bootstrap, topic, 0, encode_batch([(None, v) for v in batch_values])) == (0, len(values))
        values += batch_values
    segment = broker.log_dir / ("%s-0" % topic) / "00000000000000000000.log"
    good_size = segment.stat().st_size

    if how == "stop":
        broker.stop()
    else:
        broker.kill()
    with open(segment, "ab") as handle:
        handle.write(damage(len(values)))
    assert segment.stat().st_size > good_size
    _restart(fast_cluster, broker, zk, killed=how == "kill")
    _wait_leading(fast_cluster, broker, topic)

    records = read_all(broker.bootstrap, topic, 0)
    assert [(r.offset, r.value) for r in records] == list(enumerate(values))
    assert produce(broker.bootstrap, topic, 0, encode_batch([(None, b"new")])) == (0, len(values))
    assert latest_offset(broker.bootstrap, topic, 0) == len(values) + 1
    assert [r.value for r in read_all(broker.bootstrap, topic, 0)] == values + [b"new"]
    assert segment.stat().st_size == good_size + len(encode_batch([(None, b"new")]))


def _stale_update_metadata(bootstrap, controller_id, epoch):
    return request(
        bootstrap,
        6,
        6,
        {
            "controller_id": controller_id,
            "controller_epoch": epoch,
            "broker_epoch": -1,
            "topic_states": [],
            "live_brokers": [],
        },
    )


def _stale_leader_and_isr(bootstrap, controller_id, epoch, topic, new_leader, leader_epoch):
    state = {
        "partition_index": 0,
        "controller_epoch": epoch,
        "leader": new_leader,
        "leader_epoch": leader_epoch,
        "isr": [new_leader],
        "zk_version": 99,
        "replicas": [new_leader],
        "adding_replicas": [],
        "removing_replicas": [],
        "is_new": False,
    }
    return request(
        bootstrap,
        4,
        4,
        {
            "controller_id": controller_id,
            "controller_epoch": epoch,
            "broker_epoch": -1,
            "topic_states": [{"topic_name": topic, "partition_states": [state]}],
            "live_leaders": [],
        },
    )


def _assert_controller_shape(value):
    assert set(value) == {"version", "brokerid", "timestamp"}
    assert value["version"] == 1 and type(value["brokerid"]) is int
    assert isinstance(value["timestamp"], str) and value["timestamp"].isdigit()


@pytest.mark.timeout(120)
def test_kill9_controller_fails_over_and_the_old_epoch_is_fenced(fast_cluster, zk):
    old_id = _wait_controller(zk)
    _assert_controller_shape(_json_at(zk, "/controller"))
    old_epoch = int(zk.get("/controller_epoch")[0])
    survivor = next(b for b in fast_cluster.brokers if b.broker_id != old_id)
    topic = _pinned_topic(fast_cluster, survivor.broker_id, "fenced")
    victim = fast_cluster.broker(old_id)

    killed = time.monotonic()
    victim.kill()
    new_id = _wait_controller(zk, not_id=old_id, timeout=SESSION_TIMEOUT_S + 5)
    assert time.monotonic() - killed < SESSION_TIMEOUT_S + 5
    _assert_controller_shape(_json_at(zk, "/controller"))
    new_epoch = int(zk.get("/controller_epoch")[0])
    assert new_epoch > old_epoch

    for broker in fast_cluster.brokers:
        if broker.broker_id != old_id:
            wait_for(
                lambda b=broker: metadata(b.bootstrap, [])["controller_id"] == new_id,
                20,
                message="broker %d to hear from controller %d" % (broker.broker_id, new_id),
            )
            response = _stale_update_metadata(broker.bootstrap, old_id, old_epoch)
            assert response["error_code"] == STALE_CONTROLLER_EPOCH
    response = _stale_leader_and_isr(survivor.bootstrap, old_id, old_epoch, topic, old_id, 1000)
    assert response["error_code"] == STALE_CONTROLLER_EPOCH
    assert {e["error_code"] for e in response["partition_errors"]} <= {STALE_CONTROLLER_EPOCH}

    # Neither stale request was applied: the survivor still leads its partition and knows its peers.
    assert produce(survivor.bootstrap, topic, 0, encode_batch([(None, b"still leader")])) == (0, 0)
    live = {b["node_id"] for b in metadata(survivor.bootstrap, [])["brokers"]}
    assert live == {b.broker_id for b in fast_cluster.brokers} - {old_id}

    _restart(fast_cluster, victim, zk, killed=True)
    wait_for(lambda: len(zk.get_children("/brokers/ids")) == 3, 30, message="the old controller to rejoin")
    assert _controller_id(zk) == new_id


@pytest.mark.timeout(120)
def test_zookeeper_shell_shows_kafka_znode_shapes(fast_cluster, zk):
    topic = _pinned_topic(fast_cluster, 1, "shapes")
    connect = fast_cluster.zk_connect

    broker = shell_get(connect, "/brokers/ids/0")
    assert set(broker) == {
        "version",
        "host",
        "port",
        "endpoints",
        "jmx_port",
        "timestamp",
        "listener_security_protocol_map",
    }
    first = fast_cluster.brokers[0]
    assert (broker["version"], broker["host"], broker["port"], broker["jmx_port"]) == (4, first.host, first.port, -1)
    assert broker["endpoints"] == ["PLAINTEXT://%s:%d" % (first.host, first.port)]
    assert isinstance(broker["timestamp"], str) and broker["timestamp"].isdigit()
    assert broker["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT"}

    _assert_controller_shape(shell_get(connect, "/controller"))
    epoch = shell_get(connect, "/controller_epoch")
    assert type(epoch) is int and epoch >= 1

    cluster_id = shell_get(connect, "/cluster/id")
    assert set(cluster_id) == {"version", "id"} and cluster_id["version"] == "1"
    assert isinstance(cluster_id["id"], str) and len(cluster_id["id"]) == 22

    assert shell_get(connect, "/brokers/topics/%s" % topic) == {
        "version": 2,
        "partitions": {"0": [1]},
        "adding_replicas": {},
        "removing_replicas": {},
    }

    state = shell_get(connect, "/brokers/topics/%s/partitions/0/state" % topic)
    assert set(state) == {"controller_epoch", "leader", "version", "leader_epoch", "isr"}
    assert all(type(state[key]) is int for key in ("controller_epoch", "leader", "version", "leader_epoch"))
    assert (state["version"], state["leader"], state["isr"]) == (1, 1, [1])
    assert 1 <= state["controller_epoch"] <= epoch
