"""Mixed clusters: kafka-zk brokers (0, 1) and Apache Kafka 2.5.1's JVM brokers (2, 3) in one cluster on one
ZooKeeper. Each kind as controller drives the other (LeaderAndIsr, UpdateMetadata, StopReplica through controlled
shutdown, reassignment with throttles, preferred election and topic deletion), the controller moved from one kind to
the other by kill -9; each kind follows the other, and a leader of each kind killed -9 with records only it holds is
truncated by leader epoch against a leader of the other kind. An idempotent acks=all producer writes all along, and
every record it had acknowledged is read back once and in order."""

import json
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.protocol.errors import Errors
from tests.cluster_support import log_bytes, module_cluster, wait_for
from tests.delivery_checker import DeliveryChecker, read_partitions
from tests.mixed_support import INTERNAL_TOPICS
from tests.test_real_tools import tool

OURS, KAFKAS = (0, 1), (2, 3)
BROKER_IDS = OURS + KAFKAS
SETTINGS = {
    "zookeeper.session.timeout.ms": "6000",
    "replica.lag.time.max.ms": "10000",
    "replica.fetch.wait.max.ms": "200",
    "replica.fetch.backoff.ms": "200",
    "controlled.shutdown.retry.backoff.ms": "200",
    "auto.leader.rebalance.enable": "false",  # preferred elections are the tests' to make
    **INTERNAL_TOPICS,
}
TOPIC_CONFIGS = {"min.insync.replicas": "2"}
PRODUCER_CONFIG = {"log_level": 3, "request.timeout.ms": 5000}
THROTTLE = 2_000_000
LONE_VALUE = b"only-on-the-old-leader-"
FETCH_PARKED_BOUND_S = 5 * int(SETTINGS["replica.fetch.wait.max.ms"]) / 1000

cluster = module_cluster(brokers=len(BROKER_IDS), kafka_brokers=len(KAFKAS), overrides=SETTINGS)


@pytest.fixture(scope="module")
def zk(cluster):
    client = KazooClient(hosts=cluster.zk_connect)
    client.start(15)
    yield client
    client.stop()
    client.close()


@pytest.fixture(autouse=True)
def every_broker_running(cluster, zk):
    """A test that failed midway may have left a broker frozen or down: the next one starts with all four."""
    down = []
    for broker_id in BROKER_IDS:
        broker = cluster.broker(broker_id)
        if broker.is_running():
            broker.signal(signal.SIGCONT)
        else:
            down.append(broker_id)
    start_together(cluster, down)
    wait_registered(zk, BROKER_IDS)


def start_together(cluster, broker_ids):
    """Start the brokers side by side (a JVM broker's start is mostly its own CPU), each waited for."""
    with ThreadPoolExecutor(max(1, len(broker_ids))) as pool:
        list(pool.map(lambda broker_id: cluster.broker(broker_id).start(timeout=120), broker_ids))


def kind(broker_id):
    return "kafka-zk" if broker_id in OURS else "Apache Kafka"


def znode_json(zk, path):
    """The znode's JSON; None when it is absent or empty (an ephemeral like /controller may go between two reads)."""
    try:
        data = zk.get(path)[0]
    except NoNodeError:
        return None
    return json.loads(data) if data else None


def controller(zk):
    found = znode_json(zk, "/controller")
    return None if found is None else found["brokerid"]


def partition_state(zk, topic, partition):
    return znode_json(zk, "/brokers/topics/%s/partitions/%d/state" % (topic, partition))


def assignment(zk, topic):
    return {int(p): replicas for p, replicas in znode_json(zk, "/brokers/topics/" + topic)["partitions"].items()}


def wait_full_isr(zk, topic, timeout=90):
    def full():
        return all(
            sorted((partition_state(zk, topic, p) or {}).get("isr", [])) == sorted(replicas)
            for p, replicas in assignment(zk, topic).items()
        )

    wait_for(full, timeout, message="every replica of %s back in its ISR" % topic)


def wait_registered(zk, broker_ids, timeout=60):
    wanted = sorted(broker_ids)
    wait_for(
        lambda: sorted(map(int, zk.get_children("/brokers/ids"))) == wanted, timeout, message="brokers %s" % wanted
    )


def move_controller_to(cluster, zk, kind_ids):
    """The controller, one of ``kind_ids``: when it is of the other kind, kill -9 every broker of that kind (the
    controller among them), wait for one of ``kind_ids`` to be elected, and start the dead again."""
    current = controller(zk)
    if current in kind_ids:
        return current
    others = [broker_id for broker_id in BROKER_IDS if broker_id not in kind_ids]
    for broker_id in others:
        cluster.broker(broker_id).kill()
    wait_for(lambda: controller(zk) in kind_ids, 60, message="a controller among %s" % (kind_ids,))
    elected = controller(zk)
    start_together(cluster, others)
    wait_registered(zk, BROKER_IDS)
    for name in zk.get_children("/brokers/topics"):
        wait_full_isr(zk, name)
    return elected


def create_topic(cluster, name, replicas):
    with AdminClient(cluster.bootstrap_servers) as admin:
        created = admin.create_topics([NewTopic(name, replica_assignment=replicas, configs=TOPIC_CONFIGS)])
    assert created[name][0] == Errors.NONE, created


def wait_same_bytes(cluster, zk, topic):
    def same():
        return all(
            len({log_bytes(cluster.broker(b), topic, p) for b in replicas}) == 1
            for p, replicas in assignment(zk, topic).items()
        )

    wait_for(same, 60, message="every replica of %s holding the same bytes" % topic)


def checked_traffic(cluster, topic, partitions):
    checker = DeliveryChecker(
        cluster.bootstrap_servers, topic, partitions, rate=150, name=topic, producer_config=PRODUCER_CONFIG
    )
    checker.start()
    checker.wait_acked(100, timeout=60)
    return checker


def finish(checker, zk, cluster, topic):
    """More acknowledged writes after the last fault, then everything acknowledged read back once and in order."""
    wait_full_isr(zk, topic)
    try:
        checker.wait_acked(100, timeout=60)
    finally:
        checker.stop(timeout=120)
    report = checker.verify(timeout=60)
    print(report.line())
    report.assert_intact()
    wait_same_bytes(cluster, zk, topic)
    return report


@pytest.mark.parametrize("controller_ids", [OURS, KAFKAS], ids=["kafka-zk-controller", "kafka-controller"])
@pytest.mark.timeout(420)
def test_a_controller_of_one_kind_drives_brokers_of_the_other(cluster, zk, controller_ids, tmp_path):
    """Controlled shutdown, throttled reassignment, preferred election and deletion of a topic whose replicas are
    brokers of the kind the controller is not."""
    elected = move_controller_to(cluster, zk, controller_ids)
    driven = [b for b in BROKER_IDS if b not in controller_ids]
    helper = [b for b in controller_ids if b != elected][0]
    topic = "driven-by-%d" % elected
    # Partition 0's replicas are the driven kind; partition 1 is led by the other kind with driven followers.
    create_topic(cluster, topic, {0: [driven[0], driven[1], helper], 1: [helper, driven[0], driven[1]]})
    wait_full_isr(zk, topic)
    checker = checked_traffic(cluster, topic, 2)

    # Controlled shutdown of a driven leader: the controller moves its leadership away before it exits.
    shut = cluster.broker(driven[0])
    shut.stop(timeout=90)
    assert partition_state(zk, topic, 0)["leader"] != driven[0]
    # Kafka's controller may move the leader first (its ISR unchanged) and take the broker out once it is gone.
    wait_for(lambda: driven[0] not in partition_state(zk, topic, 0)["isr"], 30, message="the ISR without it")
    shut.start(timeout=120)
    wait_full_isr(zk, topic)
    checker.wait_acked(100, timeout=60)

    # Preferred election brings leadership of partition 0 back to the driven broker.
    elected_back = tool(
        "kafka-leader-election.sh",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--election-type",
        "preferred",
        "--topic",
        topic,
        "--partition",
        "0",
    )
    assert elected_back.returncode == 0, elected_back.stdout + elected_back.stderr
    wait_for(lambda: partition_state(zk, topic, 0)["leader"] == driven[0], 30, message="the preferred leader back")

    # A throttled reassignment moves partition 1 off the controller's kind onto the driven kind only.
    moved = [driven[1], driven[0], elected]
    move_file = tmp_path / "move.json"
    move_file.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 1, "replicas": moved}]})
    )
    executed = tool(
        "kafka-reassign-partitions.sh",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--execute",
        "--reassignment-json-file",
        move_file,
        "--throttle",
        THROTTLE,
    )
    assert executed.returncode == 0, executed.stdout + executed.stderr

    wait_for(
        lambda: assignment(zk, topic)[1] == moved and zk.exists("/admin/reassign_partitions") is None,
        120,
        interval=0.2,
        message="the reassignment of %s-1 to %s" % (topic, moved),
    )
    verified = tool(
        "kafka-reassign-partitions.sh",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--verify",
        "--reassignment-json-file",
        move_file,
    )  # as an operator: --verify once it is done also takes the throttles off
    assert "Reassignment of partition %s-1 completed successfully" % topic in verified.stdout, verified.stdout
    assert assignment(zk, topic)[1] == moved
    assert not (cluster.broker(helper).log_dir / ("%s-1" % topic)).exists(), "StopReplica deleted the old replica"
    finish(checker, zk, cluster, topic)

    # Deleting the topic: every replica of both kinds deletes its log (StopReplica with deletion).
    with AdminClient(cluster.bootstrap_servers) as admin:
        assert admin.delete_topics([topic]) == {topic: Errors.NONE}
    wait_for(lambda: zk.exists("/brokers/topics/" + topic) is None, 60, message="the topic's deletion")
    # A deleted log's dir is renamed <topic>-<partition>.<id>-delete at once, and removed file.delete.delay.ms later.
    wait_for(
        lambda: (
            not any(
                name.startswith(topic + "-") and not name.endswith("-delete")
                for broker in cluster.brokers
                for name in os.listdir(broker.log_dir)
            )
        ),
        60,
        message="every broker to delete %s's logs" % topic,
    )


@pytest.mark.parametrize(
    "leader_ids, controller_dies",
    [(KAFKAS, True), (OURS, False), (OURS, True), (KAFKAS, False)],
    ids=["kafka-leader-and-controller", "kafka-zk-leader", "kafka-zk-leader-and-controller", "kafka-leader"],
)
@pytest.mark.timeout(300)
def test_a_leader_killed_with_records_only_it_holds_truncates_against_the_other_kind(
    cluster, zk, leader_ids, controller_dies
):
    """Followers of the other kind frozen, the leader takes acks=1 records nobody else has, then dies (kill -9); a
    follower takes over, and the old leader, started again, truncates those records by leader epoch and follows it.
    The controller dies with the leader (it is the leader), or lives on as a broker of the followers' kind."""
    follower_ids = KAFKAS if leader_ids == OURS else OURS
    if controller_dies:
        leader_id = move_controller_to(cluster, zk, leader_ids)
    else:
        move_controller_to(cluster, zk, follower_ids)
        leader_id = leader_ids[0]
    topic = "truncated-%d-%s" % (leader_id, "with-controller" if controller_dies else "alone")
    create_topic(cluster, topic, {0: [leader_id, *follower_ids]})
    wait_full_isr(zk, topic)
    checker = checked_traffic(cluster, topic, 1)
    wait_same_bytes(cluster, zk, topic)
    leader = cluster.broker(leader_id)
    followers = [cluster.broker(b) for b in follower_ids]
    lone = Producer({"bootstrap.servers": leader.bootstrap, "acks": 1, "log_level": 3})
    try:
        for follower in followers:
            follower.signal(signal.SIGSTOP)
        # A fetch the followers sent before they froze is parked at the leader for at most replica.fetch.wait.max.ms;
        # records arriving meanwhile would complete it into their sockets' buffers, to be appended once they thaw.
        time.sleep(FETCH_PARKED_BOUND_S)
        for index in range(200):
            lone.produce(topic, value=LONE_VALUE + b"%d" % index, partition=0)
        assert lone.flush(30) == 0
        held = {broker.broker_id: log_bytes(broker, topic, 0) for broker in [leader, *followers]}
        leader.kill()
    finally:
        for follower in followers:
            follower.signal(signal.SIGCONT)
    assert held[leader_id] > max(held[b] for b in follower_ids), held
    wait_for(
        lambda: (partition_state(zk, topic, 0) or {}).get("leader") in follower_ids,
        60,
        message="a follower of the other kind to lead",
    )
    new_leader = cluster.broker(partition_state(zk, topic, 0)["leader"])
    if controller_dies:
        assert controller(zk) not in (None, leader_id)
    checker.wait_acked(100, timeout=60)
    leader.start(timeout=120)
    finish(checker, zk, cluster, topic)
    assert log_bytes(leader, topic, 0) == log_bytes(new_leader, topic, 0)
    kept = [r for r in read_partitions(cluster.bootstrap_servers, topic, [0], {}, 60) if r.value.startswith(LONE_VALUE)]
    assert kept == [], "records only the killed leader held survived its truncation"
    print(
        "%s leader %d killed holding %d bytes (its followers %s); it truncated and follows %s leader %d"
        % (kind(leader_id), leader_id, held[leader_id], held, kind(new_leader.broker_id), new_leader.broker_id)
    )
