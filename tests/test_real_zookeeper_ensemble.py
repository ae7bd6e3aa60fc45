"""A real three-member ZooKeeper ensemble on loopback: elections, sessions that move between members, and the
broker, tools and shell through a multi-host connect string with a chroot."""

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from kazoo.client import KazooClient, KazooState

from kafka_zk.tools import topics
from kafka_zk.tools.local_cluster import LocalCluster
from tests.cluster_support import TEST_DEFAULTS, wait_for
from tests.ports import free_port, free_ports
from zookeeper.launcher import ZooKeeperEnsemble, ZooKeeperError, four_letter_word, loopback_members

ROOT = Path(__file__).resolve().parent.parent
# Half-second ticks let sessions be as short as a second (2 ticks) and elections settle quickly.
FAST_TICKS = {"tickTime": "500"}
SESSION_TIMEOUT_S = 4.0


def start_ensemble(directory, size, attempts=3):
    """An ensemble of `size` on free loopback ports (other ports if one gets taken while it starts)."""
    error = None
    for attempt in range(attempts):
        base = free_ports(3 * size)
        ensemble = ZooKeeperEnsemble(
            directory / ("try-%d" % attempt),
            loopback_members(size, base, base + size, base + 2 * size),
            extra_config=FAST_TICKS,
        )
        try:
            return ensemble.start(timeout=60)
        except ZooKeeperError as exc:
            ensemble.kill()
            error = exc
    raise error


@pytest.fixture(scope="module")
def shared_ensemble(tmp_path_factory):
    ensemble = start_ensemble(tmp_path_factory.mktemp("ensemble"), 3)
    yield ensemble
    ensemble.stop()


@pytest.fixture
def ensemble(shared_ensemble):
    """The module's ensemble with all three members serving (a test before may have stopped one)."""
    return shared_ensemble.start(timeout=60)


def kazoo(connect, timeout=SESSION_TIMEOUT_S):
    client = KazooClient(hosts=connect, timeout=timeout)
    client.start(15)
    return client


@pytest.fixture
def chroot_connect(ensemble):
    """ "h1:p1,h2:p2,h3:p3/t_<uuid>", the chroot created."""
    chroot = "/t_%s" % uuid.uuid4().hex
    client = kazoo(ensemble.connect_string)
    try:
        client.create(chroot)
    finally:
        client.stop()
        client.close()
    return ensemble.connect_string + chroot


def session_members(ensemble, session_id):
    """Ids of the members holding a client connection of this session (cons lists each with its sid)."""
    members = []
    for server in ensemble.servers:
        try:
            answer = four_letter_word(server.host, server.port, "cons")
        except OSError:
            continue
        if session_id in {int(sid, 16) for sid in re.findall(r"sid=0x([0-9a-f]+)", answer)}:
            members.append(server.server_id)
    return members


def serving_member(ensemble, session_id):
    """The one member the session is connected to (waiting until it is connected somewhere)."""
    members = wait_for(lambda: session_members(ensemble, session_id), message="session 0x%x on a member" % session_id)
    assert len(members) == 1, members
    return members[0]


def test_three_members_serve_one_leader_and_elect_another_when_it_stops(ensemble):
    modes = ensemble.modes()
    assert sorted(modes.values()) == ["follower", "follower", "leader"]
    leader = ensemble.leader()
    assert modes[leader] == "leader"

    writer = kazoo(ensemble.member(leader).connect_string)
    try:
        writer.create("/replicated-%s" % uuid.uuid4().hex, b"x")
    finally:
        writer.stop()
        writer.close()

    ensemble.member(leader).stop()
    assert not ensemble.member(leader).is_running()
    new_leader = wait_for(ensemble.leader, timeout=20, message="a new leader")
    assert new_leader != leader
    assert sorted(mode for mode in ensemble.modes().values() if mode) == ["follower", "leader"]

    ensemble.member(leader).start(timeout=30)
    assert ensemble.member(leader).mode() == "follower" and ensemble.leader() == new_leader


@pytest.mark.parametrize("fault", ["stop", "kill"])
def test_kazoo_session_moves_to_another_member_and_keeps_its_ephemeral(ensemble, chroot_connect, fault):
    client = kazoo(chroot_connect)
    try:
        states = []
        client.add_listener(states.append)
        session = client.client_id[0]
        client.create("/mine", b"v", ephemeral=True)
        member = serving_member(ensemble, session)

        getattr(ensemble.member(member), fault)()
        wait_for(lambda: KazooState.SUSPENDED in states, timeout=10, message="kazoo noticing the lost member")
        moved_to = wait_for(
            lambda: [m for m in session_members(ensemble, session) if m != member],
            timeout=20,
            message="session reconnected to another member",
        )
        wait_for(lambda: client.state == KazooState.CONNECTED, timeout=10, message="kazoo connected")
        assert KazooState.LOST not in states
        assert client.client_id[0] == session and moved_to[0] != member
        assert client.exists("/mine").ephemeralOwner == session

        ensemble.member(member).start(timeout=30)
        assert ensemble.member(member).mode() in ("leader", "follower")
        # The rejoined member sees what the session wrote while it was away.
        client.create("/after", b"w")
        rejoined = kazoo(ensemble.member(member).connect_string + chroot_connect[chroot_connect.index("/") :])
        try:
            rejoined.sync("/")
            assert rejoined.get("/after")[0] == b"w"
            assert rejoined.exists("/mine").ephemeralOwner == session
        finally:
            rejoined.stop()
            rejoined.close()
    finally:
        client.stop()
        client.close()


def test_member_restart_rejoins_the_quorum(ensemble):
    follower = next(server_id for server_id, mode in ensemble.modes().items() if mode == "follower")
    old_pid = ensemble.member(follower).pid()
    ensemble.member(follower).restart(timeout=30)
    assert ensemble.member(follower).pid() != old_pid
    assert ensemble.member(follower).mode() in ("leader", "follower")
    assert sorted(ensemble.modes().values()) == ["follower", "follower", "leader"]


@pytest.mark.timeout(240)
def test_broker_keeps_its_registration_when_its_member_dies(ensemble, chroot_connect, tmp_path, capsys):
    cluster = LocalCluster(
        tmp_path / "cluster",
        brokers=1,
        zk_connect=chroot_connect,
        broker_ports=[free_port()],
        overrides=dict(TEST_DEFAULTS, **{"zookeeper.session.timeout.ms": "6000"}),
    )
    watcher = kazoo(chroot_connect)
    try:
        cluster.start(timeout=60)
        owner = watcher.exists("/brokers/ids/0").ephemeralOwner
        assert json.loads(watcher.get("/controller")[0])["brokerid"] == 0
        member = serving_member(ensemble, owner)

        ensemble.member(member).kill()
        wait_for(
            lambda: [m for m in session_members(ensemble, owner) if m != member],
            timeout=20,
            message="the broker's session on another member",
        )
        assert watcher.exists("/brokers/ids/0").ephemeralOwner == owner
        assert cluster.brokers[0].is_running()

        # kafka-topics --zookeeper h1:p1,h2:p2,h3:p3/chroot, with one member still down; the broker's
        # controller sees the new topic through the ensemble and makes the broker its leader.
        assert (
            topics.main(
                [
                    "--zookeeper",
                    chroot_connect,
                    "--create",
                    "--topic",
                    "through-ensemble",
                    "--partitions",
                    "2",
                    "--replication-factor",
                    "1",
                ]
            )
            == 0
        )
        assert topics.main(["--zookeeper", chroot_connect, "--list"]) == 0
        assert "through-ensemble" in capsys.readouterr().out.split()
        wait_for(
            lambda: watcher.exists("/brokers/topics/through-ensemble/partitions/1/state"),
            message="the controller electing leaders of through-ensemble",
        )

        ensemble.member(member).start(timeout=30)
        assert watcher.exists("/brokers/ids/0").ephemeralOwner == owner
        cluster.stop()
        wait_for(lambda: watcher.exists("/brokers/ids/0") is None, message="the broker's registration gone")
    finally:
        cluster.kill()
        watcher.stop()
        watcher.close()


def test_zookeeper_shell_reads_through_a_multi_host_chroot_string(ensemble, chroot_connect):
    client = kazoo(chroot_connect)
    try:
        client.create("/brokers/ids/7", b'{"version":4}', makepath=True)
    finally:
        client.stop()
        client.close()
    result = subprocess.run(
        [str(ROOT / "scripts" / "zookeeper-shell.sh"), chroot_connect, "get", "/brokers/ids/7"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert '{"version":4}' in result.stdout.splitlines()


@pytest.mark.parametrize("size", [1, 5])
def test_ensembles_of_one_and_five_serve(tmp_path, size):
    ensemble = start_ensemble(tmp_path, size)
    try:
        modes = sorted(ensemble.modes().values())
        assert modes == (["standalone"] if size == 1 else ["follower"] * 4 + ["leader"])
        assert ensemble.leader() is not None
        client = kazoo(ensemble.connect_string)
        try:
            client.create("/n", b"1")
            assert client.get("/n")[0] == b"1"
        finally:
            client.stop()
            client.close()
    finally:
        ensemble.stop()


def test_launcher_command_starts_reports_and_stops_an_ensemble(tmp_path):
    base = free_ports(9)
    options = [
        "--data-dir",
        str(tmp_path),
        "--port",
        str(base),
        "--quorum-port",
        str(base + 3),
        "--election-port",
        str(base + 6),
        "--ensemble",
        "3",
    ]

    def launcher(action, *more):
        return subprocess.run(
            [sys.executable, "-m", "zookeeper.launcher", action, *options, *more],
            capture_output=True,
            text=True,
            timeout=90,
            cwd=ROOT,
        )

    ensemble = ZooKeeperEnsemble(tmp_path, loopback_members(3, base, base + 3, base + 6))
    try:
        started = launcher("start", "--daemon")
        assert started.returncode == 0, started.stderr
        assert "serving on 127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d" % (base, base + 1, base + 2) in started.stdout
        assert sorted(ensemble.modes().values()) == ["follower", "follower", "leader"]
        status = launcher("status")
        assert status.returncode == 0 and len(status.stdout.splitlines()) == 3
        assert "member %d 127.0.0.1:%d: running" % (ensemble.leader(), base + ensemble.leader() - 1) in status.stdout
        stopped = launcher("stop")
        assert stopped.returncode == 0 and not ensemble.is_running()
    finally:
        ensemble.kill()
