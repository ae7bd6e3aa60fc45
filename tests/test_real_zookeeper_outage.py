"""Brokers while their ZooKeeper is down: produce and fetch go on, a SIGTERM still stops a broker (the controller, a
freshly elected controller or another broker), and once ZooKeeper is back the cluster heals with every acknowledged
record."""

import signal
import time

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient

from tests.cluster_support import start_cluster, wait_for
from tests.raw_wire import create_topic, metadata, read_all
from tests.zk_support import controller_id, start_zookeeper

SESSION_TIMEOUT_S = 6
# One controlled-shutdown attempt of 3 s: with ZooKeeper down the controller cannot move leaders, and Kafka's
# defaults (3 attempts of 30 s, 5 s apart) would only make the broker wait longer before its unclean shutdown.
SETTINGS = {
    "zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_S * 1000),
    "controlled.shutdown.max.retries": "1",
    "controller.socket.timeout.ms": "3000",
}
RECORDS = 50


def produce_acknowledged(bootstrap, topic, prefix):
    """RECORDS values acknowledged with acks=all; fails the test on any delivery error."""
    failures = []
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "message.timeout.ms": 20000,
            "on_delivery": lambda err, msg: err and failures.append(err),
        }
    )
    values = [b"%s-%d" % (prefix, index) for index in range(RECORDS)]
    for value in values:
        producer.produce(topic, value)
    assert producer.flush(30) == 0 and not failures, failures[:3]
    return values


def isr_of(broker, topic):
    partitions = metadata(broker.bootstrap, [topic])["topics"][0]["partitions"]
    return sorted(partitions[0]["isr_nodes"]) if partitions else []


def read_zookeeper(zk_connect, read):
    """read(client) with a short-lived ZooKeeper client: a long-lived one (ReplicationCluster's) loses its session
    during the outage, and its first call after it fails with SessionExpiredError."""
    client = KazooClient(hosts=zk_connect)
    client.start(10)
    try:
        return read(client)
    finally:
        client.stop()
        client.close()


def elected_controller(zk_connect, other_than=None):
    """The controller's broker id once one other than ``other_than`` holds /controller."""

    def found():
        broker_id = read_zookeeper(zk_connect, controller_id)
        return [broker_id] if broker_id not in (None, other_than) else None

    return wait_for(found, 30, message="a controller other than %s" % other_than)[0]


def wait_for_full_isr(cluster, topic, message):
    wait_for(lambda: all(isr_of(broker, topic) == [0, 1, 2] for broker in cluster.brokers), 60, message=message)


@pytest.fixture(scope="module")
def outage_cluster(tmp_path_factory):
    """A ZooKeeper of the module's own (the tests stop it) and three brokers on it, shared by the tests: each leaves
    ZooKeeper running and every broker back in the ISR."""
    folder = tmp_path_factory.mktemp("zookeeper-outage")
    zookeeper = start_zookeeper(folder / "zookeeper")
    cluster = None
    try:
        cluster = start_cluster(folder / "cluster", zookeeper, overrides=SETTINGS)
        yield zookeeper, cluster
    finally:
        if cluster is not None:
            cluster.kill()
        zookeeper.stop()


@pytest.fixture
def healed(outage_cluster):
    """The shared cluster whole again, should a test before have failed midway: ZooKeeper up, every broker running."""
    zookeeper, cluster = outage_cluster
    if not zookeeper.is_running():
        zookeeper.start(timeout=30)
    for broker in cluster.brokers:
        if not broker.is_running():
            broker.start(timeout=60)
    return zookeeper, cluster


@pytest.mark.timeout(240)
@pytest.mark.parametrize("victim_role", ["controller", "freshly elected controller", "another broker"])
def test_a_broker_stops_on_sigterm_while_zookeeper_is_down_and_no_acknowledged_record_is_lost(healed, victim_role):
    zookeeper, cluster = healed
    topic = "outage-" + victim_role.replace(" ", "-")
    assert create_topic(cluster.brokers[0].bootstrap, topic, replication_factor=3) == 0
    wait_for_full_isr(cluster, topic, "the topic's ISR on every broker")
    written = produce_acknowledged(cluster.bootstrap_servers, topic, b"before")
    controller = elected_controller(cluster.zk_connect)
    if victim_role == "freshly elected controller":
        former = cluster.broker(controller)
        former.stop()
        controller = elected_controller(cluster.zk_connect, other_than=former.broker_id)
        former.start(timeout=60)
        wait_for_full_isr(cluster, topic, "the ISR full again after the controller moved")

    zookeeper.stop()
    written += produce_acknowledged(cluster.bootstrap_servers, topic, b"during")  # the data plane goes on
    victim = next(
        broker for broker in cluster.brokers if (broker.broker_id == controller) == (victim_role != "another broker")
    )
    log_start = victim.log_file.stat().st_size
    controller_log = victim.log_path("controller.log")
    controller_log_start = controller_log.stat().st_size if controller_log.exists() else 0
    victim.signal(signal.SIGTERM)
    stopped_at = time.monotonic()
    wait_for(lambda: not victim.is_running(), 30, message="broker %d to exit" % victim.broker_id)
    # one 3 s controlled-shutdown attempt, and for the controller at most a session timeout more
    assert time.monotonic() - stopped_at < 3 + SESSION_TIMEOUT_S + 10
    log = victim.log_file.read_text()[log_start:]
    assert "proceeding to do an unclean shutdown" in log and "shut down completed" in log
    if victim_role != "another broker":  # its own ControlledShutdown event waited on ZooKeeper
        assert (
            "the controller event ControlledShutdown has not finished after 6s (is ZooKeeper reachable?)"
            in controller_log.read_text()[controller_log_start:]
        )

    zookeeper.start(timeout=30)
    registration = "/brokers/ids/%d" % victim.broker_id
    wait_for(
        lambda: read_zookeeper(cluster.zk_connect, lambda client: client.exists(registration) is None),
        SESSION_TIMEOUT_S + 30,
        message="broker %d's old session to expire" % victim.broker_id,
    )
    victim.start(timeout=60)
    wait_for_full_isr(cluster, topic, "the ISR full again on every broker")
    leader = cluster.broker(metadata(cluster.brokers[0].bootstrap, [topic])["topics"][0]["partitions"][0]["leader_id"])
    assert [record.value for record in read_all(leader.bootstrap, topic, 0)] == written
    assert produce_acknowledged(cluster.bootstrap_servers, topic, b"after")
