"""Network drills on the ZooKeeper ensemble (issue 30, drills d, e, h): the ensemble losing its quorum for 30 s, one
server isolated, and a rolling restart of every server, each under the delivery checker's idempotent acks=all load;
no broker's session may expire, and the cluster converges without a restart."""

import re
import time

import pytest

from tests.cluster_support import wait_for
from tests.drill_support import (
    AFTER_CONTROLLER_CHANGE,
    BROKERS,
    PARTITIONS,
    SESSION_TIMEOUT_MS,
    ZOOKEEPERS,
    DrillCluster,
    controller_for,
    drill,
)
from tests.raw_wire import fetch_records, partition_leaders
from zookeeper.launcher import four_letter_word

QUORUM_LOSS_S = 30
SESSION_S = SESSION_TIMEOUT_MS / 1000


@pytest.fixture(scope="module")
def drills(tmp_path_factory):
    cluster = DrillCluster(tmp_path_factory.mktemp("drills-zookeeper"))
    yield cluster
    cluster.close()


def broker_sessions(drills):
    """{broker id: the session owning its registration}: a session that expired would show as a new owner. Retried:
    the test's own client may have been connected to the server a drill just cut off."""
    return {
        broker_id: drills.zk.retry(drills.zk.exists, "/brokers/ids/%d" % broker_id).ephemeralOwner
        for broker_id in range(BROKERS)
    }


def served_by(drills, skip=None):
    """{broker id: the ZooKeeper host its session is connected to}, from each server's `cons` (but ``skip``'s: an
    isolated server would only cost a timeout). A JVM busy beside the drill may take seconds to answer."""
    addresses = {drills.hosts.address(drills.host_of(b)): b for b in range(BROKERS)}
    found = {}
    for number in range(1, ZOOKEEPERS + 1):
        name = "zk-%d" % number
        if name == skip:
            continue
        try:
            answer = four_letter_word(drills.hosts.address(name), 2181, "cons", timeout=5.0)
        except OSError:
            continue
        for address in re.findall(r"^\s*/([\d.]+):\d+\[", answer, re.MULTILINE):
            if address in addresses:
                found[addresses[address]] = name
    return found


@pytest.mark.parametrize("variant", ["controller alive", AFTER_CONTROLLER_CHANGE])
def test_d_zookeeper_loses_its_quorum_and_the_cluster_goes_on(drills, variant):
    controller_for(drills, variant)
    with drill(drills, "d ZooKeeper without quorum for %d s (%s)" % (QUORUM_LOSS_S, variant)) as run:
        sessions, controller, epoch = broker_sessions(drills), drills.controller(), drills.controller_epoch()
        leaders = partition_leaders(drills.cluster.brokers[0].bootstrap, run.topic)
        with run.fault():
            drills.hosts.isolate("zk-1")
            drills.hosts.isolate("zk-2")
            wait_for(
                lambda: four_letter_word(drills.hosts.address("zk-3"), 2181, "srvr", timeout=1.0).startswith(
                    "This ZooKeeper instance is not currently serving"
                ),
                30,
                message="zk-3 to stop serving without its quorum",
            )
            lost_at = time.monotonic()
            # Produce and consume go on at the leaders the brokers already know.
            run.checker.wait_until(
                lambda checker: time.monotonic() - lost_at >= QUORUM_LOSS_S,
                QUORUM_LOSS_S + 5,
                "%d s without a quorum" % QUORUM_LOSS_S,
            )
            assert run.checker.acked_since(lost_at + SESSION_S) > 50 * PARTITIONS
            for partition, leader in leaders.items():
                error, high_watermark, records = fetch_records(
                    drills.cluster.broker(leader).bootstrap, run.topic, partition
                )
                assert error == 0 and records and high_watermark > 0, (partition, error, high_watermark)
        run.finish()
    # Nobody expired a session while there was no quorum, and nothing needed a restart.
    assert broker_sessions(drills) == sessions
    assert (drills.controller(), drills.controller_epoch()) == (controller, epoch)
    assert all(broker.is_running() for broker in drills.cluster.brokers)


@pytest.mark.parametrize("variant", ["the controller's server", "the ensemble's leader"])
def test_e_one_zookeeper_server_isolated_moves_its_brokers_without_expiring_a_session(drills, variant):
    with drill(drills, "e one ZooKeeper server isolated (%s)" % variant) as run:
        sessions, controller, epoch = broker_sessions(drills), drills.controller(), drills.controller_epoch()
        serving = wait_for(
            lambda: (lambda found: found if len(found) == BROKERS else None)(served_by(drills)),
            10,
            message="every broker's ZooKeeper server",
        )
        target = (
            serving[controller] if variant == "the controller's server" else "zk-%d" % drills.cluster.zookeeper.leader()
        )
        moving = sorted(b for b, server in serving.items() if server == target)
        with run.fault():
            drills.hosts.isolate(target)
            started = time.monotonic()
            # A broker notices after 2/3 of its session without an answer and moves on; when the target led the
            # ensemble, the others first elect a leader (syncLimit ticks), and sessions wait for it, unexpired.
            seen = {}

            def moved():
                seen.update(served_by(drills, skip=target))
                return all(seen.get(b) not in (None, target) for b in moving)

            wait_for(
                moved,
                SESSION_S + 30,
                message=lambda: "brokers %s to move off %s (last seen on %s)" % (moving, target, seen),
            )
            print(
                "  brokers %s moved off %s in %.1f s, their sessions kept"
                % (moving, target, time.monotonic() - started)
            )
            run.checker.wait_acked(100, timeout=30)
            assert broker_sessions(drills) == sessions
        run.finish()
    assert broker_sessions(drills) == sessions
    assert (drills.controller(), drills.controller_epoch()) == (controller, epoch)


@pytest.mark.parametrize("variant", ["controller alive", AFTER_CONTROLLER_CHANGE])
def test_h_a_rolling_restart_of_the_ensemble_under_load(drills, variant):
    controller_for(drills, variant)
    with drill(drills, "h rolling restart of the ensemble (%s)" % variant) as run:
        sessions, controller, epoch = broker_sessions(drills), drills.controller(), drills.controller_epoch()
        with run.fault():
            for number in range(1, ZOOKEEPERS + 1):
                server = drills.cluster.zookeeper.member(number)
                old_pid = server.pid()
                server.restart(timeout=60)
                assert server.pid() != old_pid and server.mode() in ("leader", "follower")
                run.checker.wait_acked(50, timeout=30)
                wait_for(lambda: drills.registered() == list(range(BROKERS)), 30, message="every broker registered")
        run.finish()
    assert broker_sessions(drills) == sessions
    assert (drills.controller(), drills.controller_epoch()) == (controller, epoch)
