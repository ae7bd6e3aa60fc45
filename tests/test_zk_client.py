"""KafkaZkClient and the ZooKeeper launcher against a real ZooKeeper server."""

import json
import queue
import subprocess
import threading
from pathlib import Path

import pytest
from kazoo.exceptions import BadVersionError, ConnectionClosedError, NodeExistsError

from kafka_zk.zk.client import (
    CONNECTED,
    SUSPENDED,
    ControllerMovedError,
    CreateOp,
    KafkaZkClient,
    TopicExistsError,
)
from kafka_zk.zk.znodes import (
    BrokerInfo,
    ConfigEntityChangeNotificationSequenceZNode,
    EndPoint,
    LeaderIsrAndControllerEpoch,
)
from tests.ports import free_port
from tests.zk_support import create_chroot
from zookeeper.launcher import ZooKeeperServer, four_letter_word

ROOT = Path(__file__).resolve().parent.parent
WAIT = 10.0


@pytest.fixture
def new_client(zk_connect):
    """Factory of started KafkaZkClients on this test's chroot; all closed at the end."""
    clients = []

    def make() -> KafkaZkClient:
        client = KafkaZkClient(zk_connect, session_timeout_ms=6000)
        client.start(10)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def zk(new_client):
    client = new_client()
    client.create_persistent_paths()
    return client


def broker(broker_id: int, port: int = 9092) -> BrokerInfo:
    return BrokerInfo(broker_id, [EndPoint("PLAINTEXT", "localhost", port, "PLAINTEXT")])


def state(leader: int, isr: list[int], leader_epoch: int = 0, zk_version: int = -1) -> LeaderIsrAndControllerEpoch:
    return LeaderIsrAndControllerEpoch(leader, leader_epoch, isr, controller_epoch=0, zk_version=zk_version)


def test_persistent_paths_and_cluster_id(zk, new_client):
    assert zk.get_children("/brokers") and sorted(zk.get_children("/config")) == [
        "brokers",
        "changes",
        "clients",
        "topics",
        "users",
    ]
    cluster_id = zk.get_or_create_cluster_id()
    assert len(cluster_id) == 22
    assert new_client().get_or_create_cluster_id() == cluster_id
    assert json.loads(zk.get_data("/cluster/id")[0]) == {"version": "1", "id": cluster_id}


def test_persistent_paths_and_their_parents_hold_no_data_as_kafkas_do(zk):
    """Kafka creates them with null data and parses whatever data it finds: an empty (zero-byte)
    /latest_producer_id_block made Kafka 2.5.1's broker fail its startup."""
    for path in ("/latest_producer_id_block", "/brokers", "/brokers/ids", "/config", "/config/changes", "/admin"):
        assert zk.get_data(path)[0] is None, path


def test_a_producer_id_block_is_claimed_from_a_null_znode(zk):
    assert zk.allocate_producer_id_block(3) == (0, 999)
    assert json.loads(zk.get_data("/latest_producer_id_block")[0])["broker"] == 3


def test_register_broker_is_ephemeral_with_czxid_epoch(zk, new_client):
    epoch = zk.register_broker(broker(0), timestamp_ms=1700000000000)
    data, stat = zk.get_data("/brokers/ids/0")
    assert stat.ephemeralOwner == zk.session_id and stat.czxid == epoch
    assert json.loads(data)["endpoints"] == ["PLAINTEXT://localhost:9092"]
    assert zk.register_broker(broker(0), timestamp_ms=1) == epoch  # our own znode: accepted

    other = new_client()
    with pytest.raises(NodeExistsError, match="already registered"):
        other.register_broker(broker(0, port=9093), timestamp_ms=1)
    other_epoch = other.register_broker(broker(1, port=9093), timestamp_ms=1)
    assert other_epoch > epoch
    assert [(b.id, b.epoch) for b in zk.get_all_brokers()] == [(0, epoch), (1, other_epoch)]
    assert zk.get_broker(1).endpoints == [("PLAINTEXT", "localhost", 9093, "PLAINTEXT")]

    other.close()
    assert zk.get_broker_ids() == [0] and zk.get_broker(1) is None
    with pytest.raises(ConnectionClosedError):
        other.get_all_brokers()


def test_generate_broker_id(zk):
    assert [zk.generate_broker_id(), zk.generate_broker_id(reserved_max=1000)] == [1001, 1002]


def test_controller_election_race_then_failover(new_client):
    first, second = new_client(), new_client()
    barrier = threading.Barrier(2)
    outcomes = {}

    def elect(client, broker_id):
        barrier.wait()
        outcomes[broker_id] = client.try_elect_controller(broker_id, timestamp_ms=1700000000000)

    threads = [threading.Thread(target=elect, args=(c, i)) for i, c in ((1, first), (2, second))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    winners = [b for b, (won, _, _) in outcomes.items() if won]
    assert len(winners) == 1
    winner_id = winners[0]
    loser_id = 3 - winner_id
    won_epoch, won_version = outcomes[winner_id][1:]
    assert won_epoch == 1 and outcomes[loser_id][1:] == (1, won_version)
    assert first.get_controller_id() == winner_id
    assert first.get_controller_epoch() == (1, won_version)

    winner, loser = (first, second) if winner_id == 1 else (second, first)
    assert loser.try_elect_controller(loser_id, 1) == (False, 1, won_version)
    winner.close()
    won, epoch, version = loser.try_elect_controller(loser_id, timestamp_ms=1700000000001)
    assert (won, epoch) == (True, 2) and version == won_version + 1
    assert loser.get_controller_id() == loser_id
    assert loser.get_data("/controller_epoch")[0] == b"2"


def test_fenced_writes_fail_after_epoch_bump(zk, new_client):
    old_controller = new_client()
    won, epoch, old_version = old_controller.try_elect_controller(1, 1)
    assert won
    zk.create_topic_assignment("t", {0: [1]})
    created = old_controller.create_partition_states({("t", 0): state(1, [1])}, epoch, old_version)
    assert created[("t", 0)].zk_version == 0

    old_controller.resign_controller(old_version)
    won, new_epoch, new_version = zk.try_elect_controller(2, 2)
    assert won and new_epoch == epoch + 1

    with pytest.raises(ControllerMovedError):
        old_controller.update_partition_states({("t", 0): state(1, [1], 1, zk_version=0)}, epoch, old_version)
    with pytest.raises(ControllerMovedError):
        old_controller.fenced_multi([CreateOp("/isr_change_notification/x")], old_version)
    with pytest.raises(ControllerMovedError):
        old_controller.set_topic_assignment("t", {0: [1], 1: [1]}, epoch_zk_version=old_version)
    assert zk.get_partition_states([("t", 0)])[("t", 0)].zk_version == 0
    assert zk.fenced_multi([CreateOp("/isr_change_notification/x")], new_version) == ["/isr_change_notification/x"]


def test_fenced_multi_reports_failing_op(zk):
    _, _, version = zk.try_elect_controller(1, 1)
    with pytest.raises(NodeExistsError) as failure:
        zk.fenced_multi([CreateOp("/brokers/topics/a"), CreateOp("/brokers/topics")], version)
    assert failure.value.op_index == 1
    assert zk.get_topics() == []


def test_topic_assignment_create_and_read(zk):
    zk.create_topic_assignment("orders", {0: [1, 2], 1: [2, 3]}, config={"retention.ms": 1000})
    zk.create_topic_assignment("logs", {0: [1]})
    assert zk.get_topics() == ["logs", "orders"]
    assert zk.get_topic_assignment("orders") == {0: [1, 2], 1: [2, 3]}
    assert zk.get_topic_assignment("missing") == {}
    assert zk.get_topic_assignments(["orders", "logs", "missing"]) == {
        "orders": {0: [1, 2], 1: [2, 3]},
        "logs": {0: [1]},
    }
    assert zk.get_entity_config("topics", "orders") == {"retention.ms": "1000"}
    assert zk.get_entity_config("topics", "logs") == {}
    with pytest.raises(TopicExistsError):
        zk.create_topic_assignment("orders", {0: [1]})

    version = zk.set_topic_assignment("orders", {0: [1, 2], 1: [2, 3], 2: [3, 1]}, adding_replicas={0: [3]})
    assert version == 1
    full = zk.get_full_topic_assignments(["orders"])["orders"]
    assert full.partitions[2] == [3, 1] and full.adding_replicas == {0: [3]}


def test_batched_partition_states(zk):
    _, epoch, version = zk.try_elect_controller(1, 1)
    assignment = {p: [1, 2, 3] for p in range(60)}
    zk.create_topic_assignment("big", assignment)
    created = zk.create_partition_states({("big", p): state(1, [1, 2, 3]) for p in assignment}, epoch, version)
    assert all(s.zk_version == 0 and s.controller_epoch == epoch for s in created.values())

    again = zk.create_partition_states({("big", 0): state(1, [1])}, epoch, version)
    assert isinstance(again[("big", 0)], NodeExistsError)

    states = zk.get_partition_states([("big", p) for p in assignment] + [("nope", 0)])
    assert len(states) == 60 and states[("big", 7)] == LeaderIsrAndControllerEpoch(1, 0, [1, 2, 3], epoch, 0)

    updates = {("big", 0): state(2, [2, 3], 1, zk_version=0), ("big", 1): state(2, [2, 3], 1, zk_version=5)}
    results = zk.update_partition_states(updates, epoch, version)
    assert results[("big", 0)].zk_version == 1 and results[("big", 0)].leader == 2
    assert isinstance(results[("big", 1)], BadVersionError)
    assert zk.get_partition_states([("big", 0)])[("big", 0)] == LeaderIsrAndControllerEpoch(2, 1, [2, 3], epoch, 1)


def test_leader_isr_update_and_notifications(zk):
    _, epoch, version = zk.try_elect_controller(1, 1)
    zk.create_topic_assignment("t", {0: [1, 2]})
    zk.create_partition_states({("t", 0): state(1, [1, 2])}, epoch, version)
    shrunk = LeaderIsrAndControllerEpoch(1, 0, [1], epoch, zk_version=0)
    assert zk.conditional_update_partition_state("t", 0, shrunk) == (True, 1)
    assert zk.conditional_update_partition_state("t", 0, shrunk) == (True, 1)  # same data: our lost reply
    assert zk.conditional_update_partition_state("t", 0, LeaderIsrAndControllerEpoch(1, 0, [1, 2], epoch, 0)) == (
        False,
        -1,
    )

    # Many leaders' writes at once, pipelined, each judged alone.
    zk.create_topic_assignment("w", {p: [1, 2] for p in range(300)})
    zk.create_partition_states({("w", p): state(1, [1, 2]) for p in range(300)}, epoch, version)
    writes = {("w", p): LeaderIsrAndControllerEpoch(1, 0, [1], epoch, zk_version=0) for p in range(300)}
    writes[("w", 7)] = LeaderIsrAndControllerEpoch(1, 0, [1], epoch, zk_version=3)  # stale version
    writes[("w", 999)] = LeaderIsrAndControllerEpoch(1, 0, [1], epoch, zk_version=0)  # no such partition
    results = zk.conditional_update_partition_states(writes)
    assert results[("w", 7)] == (False, -1) and results[("w", 999)] == (False, -1)
    assert all(results[("w", p)] == (True, 1) for p in range(300) if p != 7)
    assert zk.get_partition_states([("w", 8)])[("w", 8)].isr == [1]

    first = zk.create_isr_change_notification([("t", 0)])
    second = zk.create_isr_change_notification([("t", 0), ("u", 1)])
    assert first.startswith("isr_change_") and zk.get_isr_change_notifications() == [first, second]
    assert zk.read_isr_change_notifications([first, second, "isr_change_9999999999"]) == [("t", 0), ("u", 1)]
    zk.delete_notifications("/isr_change_notification", [first, second], epoch_zk_version=version)
    assert zk.get_isr_change_notifications() == []


def test_topic_deletion_flow(zk):
    _, epoch, version = zk.try_elect_controller(1, 1)
    zk.create_topic_assignment("doomed", {0: [1], 1: [1]}, config={"cleanup.policy": "compact"})
    zk.create_partition_states({("doomed", 0): state(1, [1]), ("doomed", 1): state(1, [1])}, epoch, version)
    zk.mark_topic_for_deletion(["doomed"])
    zk.mark_topic_for_deletion(["doomed"])
    assert zk.get_topic_deletions() == ["doomed"]
    with pytest.raises(ControllerMovedError):
        zk.delete_topic_znodes("doomed", version + 1)
    zk.delete_topic_znodes("doomed", version)
    assert zk.get_topics() == [] and zk.get_topic_deletions() == []
    assert zk.exists("/config/topics/doomed") is None


def test_entity_config_with_change_notification(zk):
    zk.set_entity_config("topics", "t", {"retention.ms": "5"})
    zk.set_entity_config("brokers", "<default>", {"log.cleaner.threads": 2})
    assert zk.get_entity_configs("topics", ["t", "x"]) == {"t": {"retention.ms": "5"}, "x": {}}
    changes = zk.get_notifications("/config/changes")
    assert [ConfigEntityChangeNotificationSequenceZNode.decode(n.data) for n in changes] == [
        "topics/t",
        "brokers/<default>",
    ]
    assert all(n.name.startswith("config_change_") and n.ctime_ms > 0 for n in changes)
    zk.delete_notifications("/config/changes", [changes[0].name, "config_change_9999999999"])
    assert [
        ConfigEntityChangeNotificationSequenceZNode.decode(n.data) for n in zk.get_notifications("/config/changes")
    ] == ["brokers/<default>"]


def test_producer_id_blocks_from_two_clients_never_overlap(zk, new_client):
    clients = [zk, new_client()]
    blocks = []
    lock = threading.Lock()

    def allocate(client, broker_id):
        for _ in range(15):
            block = client.allocate_producer_id_block(broker_id)
            with lock:
                blocks.append(block)

    threads = [threading.Thread(target=allocate, args=(c, i)) for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 3)
    assert sorted(blocks) == [(n * 1000, n * 1000 + 999) for n in range(30)]
    assert json.loads(zk.get_data("/latest_producer_id_block")[0])["block_end"] == "29999"


def test_watches_fire_with_fresh_values(zk):
    children, data, existence = queue.Queue(), queue.Queue(), queue.Queue()
    child_watch = zk.watch_children("/brokers/ids", children.put)
    zk.watch_data("/controller", lambda value, stat: data.put(value))
    zk.watch_exists("/admin/reassign_partitions", existence.put)
    assert children.get(timeout=WAIT) == [] and data.get(timeout=WAIT) is None
    assert existence.get(timeout=WAIT) is False

    zk.register_broker(broker(5), timestamp_ms=1)
    assert children.get(timeout=WAIT) == ["5"]
    zk.try_elect_controller(5, 1)
    assert json.loads(data.get(timeout=WAIT))["brokerid"] == 5
    zk.kazoo.create("/admin/reassign_partitions", b"{}")
    assert existence.get(timeout=WAIT) is True
    zk.kazoo.delete("/admin/reassign_partitions")
    assert existence.get(timeout=WAIT) is False

    child_watch.cancel()
    zk.register_broker(broker(6), timestamp_ms=1)
    zk.kazoo.create("/admin/reassign_partitions", b"{}")
    assert existence.get(timeout=WAIT) is True  # a later event proves the cancelled watch had its chance
    assert children.empty()


def test_zookeeper_shell_prints_znode(zk, zk_connect):
    zk.register_broker(broker(0), timestamp_ms=1700000000000)
    result = subprocess.run(
        [str(ROOT / "scripts" / "zookeeper-shell.sh"), zk_connect, "get", "/brokers/ids/0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    json_lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert json.loads(json_lines[0])["endpoints"] == ["PLAINTEXT://localhost:9092"]


@pytest.mark.zookeeper  # starts its own
def test_launcher_stop_start_keeps_data_and_session(tmp_path):
    server = ZooKeeperServer(tmp_path / "zk", port=free_port()).start()
    try:
        assert server.is_running() and four_letter_word(server.host, server.port, "ruok") == "imok"
        assert (tmp_path / "zk" / "zoo.cfg").read_text().count("4lw.commands.whitelist=*") == 1
        client = KafkaZkClient(create_chroot(server), session_timeout_ms=20000)
        client.start(10)
        states = queue.Queue()
        client.add_session_listener(states.put)
        client.create_persistent_paths()
        session = client.session_id

        server.stop()
        assert not server.is_running() and not server.pid_file.exists()
        assert states.get(timeout=WAIT) == SUSPENDED
        server.start()
        # kazoo's reconnect backoff grows while the server is down; on a loaded machine it can pass WAIT.
        assert states.get(timeout=3 * WAIT) == CONNECTED
        assert client.session_id == session and client.exists("/brokers/seqid") is not None
        client.close()

        server.kill()
        assert not server.is_running()
    finally:
        server.stop()


@pytest.mark.zookeeper  # starts its own
def test_server_scripts_start_daemon_and_stop(tmp_path):
    port = free_port()
    properties = tmp_path / "zookeeper.properties"
    properties.write_text(f"dataDir={tmp_path / 'data'}\nclientPort={port}\nmaxClientCnxns=0\n")
    server = ZooKeeperServer(tmp_path / "data", port=port)
    try:
        started = subprocess.run(
            [str(ROOT / "scripts" / "zookeeper-server-start.sh"), "-daemon", str(properties)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert started.returncode == 0, started.stderr
        assert server.is_running() and four_letter_word("127.0.0.1", port, "ruok") == "imok"
        assert "clientPort=%d" % port in (tmp_path / "data" / "zoo.cfg").read_text()
        stopped = subprocess.run(
            [str(ROOT / "scripts" / "zookeeper-server-stop.sh"), str(properties)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert stopped.returncode == 0, stopped.stderr
        assert not server.is_running()
    finally:
        server.stop()


def test_many_partition_states_read_in_multireads_and_written_in_grouped_multis(zk):
    """1,200 state znodes (several multiRead requests and several fenced multis); conflicts scattered through
    the groups fail alone while every other write of their group lands."""
    _, epoch, version = zk.try_elect_controller(1, 1)
    partitions = [("wide", p) for p in range(1200)]
    zk.create_topic_assignment("wide", {p: [1, 2] for _, p in partitions})
    created = zk.create_partition_states({tp: state(1, [1, 2]) for tp in partitions}, epoch, version)
    assert len(created) == 1200 and all(s.zk_version == 0 for s in created.values())

    states = zk.get_partition_states(partitions + [("wide", 5000), ("absent", 0)])
    assert zk._multi_read_supported is True
    assert sorted(states) == sorted(partitions) and states[("wide", 999)].isr == [1, 2]

    stale = {("wide", p) for p in range(0, 1200, 97)}
    updates = {tp: state(2, [2], 1, zk_version=7 if tp in stale else 0) for tp in partitions}
    results = zk.update_partition_states(updates, epoch, version)
    assert {tp for tp, r in results.items() if isinstance(r, BadVersionError)} == stale
    assert all(results[tp].zk_version == 1 for tp in partitions if tp not in stale)
    after = zk.get_partition_states(partitions)
    assert all(after[tp].leader == (1 if tp in stale else 2) for tp in partitions)
