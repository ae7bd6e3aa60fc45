"""Network drills between brokers and ZooKeeper on hosts of their own (issue 30, drills a, b, c, f, g): a zombie
leader, a controller cut off from ZooKeeper, a follower cut off from its leaders, a one-way cut and a slow link, each
with the controller alive, among the cut hosts, and right after a controller change where the scenario allows; an
idempotent acks=all producer runs throughout and every acknowledged record is read back exactly once, in order."""

import threading
import time

import pytest
from confluent_kafka import Producer

from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.drill_support import (
    AFTER_CONTROLLER_CHANGE,
    BROKERS,
    CONTROLLER_SOCKET_TIMEOUT_MS,
    PARTITIONS,
    PRODUCER_CONFIG,
    REPLICA_LAG_MS,
    SESSION_TIMEOUT_MS,
    DrillCluster,
    controller_for,
    drill,
)
from tests.raw_wire import RawConnection, produce_body

SESSION_S = SESSION_TIMEOUT_MS / 1000
LAG_S = REPLICA_LAG_MS / 1000
CLIENT_REQUEST_S = PRODUCER_CONFIG["request.timeout.ms"] / 1000
# A lost leader is replaced once ZooKeeper has expired its session and the controller has elected another.
LEADER_ELECTION_BOUND_S = SESSION_S + 5
# A partition whose leader is lost is writable again once a new one is elected and the producer, its request to the
# old one failed, has refreshed its metadata.
LEADER_LOSS_BOUND_S = LEADER_ELECTION_BOUND_S + CLIENT_REQUEST_S
STALE_CONTROLLER_EPOCH = 11
REQUEST_TIMED_OUT = 7
NOT_ENOUGH_REPLICAS = 19


@pytest.fixture(scope="module")
def drills(tmp_path_factory):
    cluster = DrillCluster(tmp_path_factory.mktemp("drills-brokers"))
    yield cluster
    cluster.close()


def _victim(drills, topic, variant):
    """A broker leading some partition: the controller itself for the ``controller`` variant, another otherwise."""
    controller = drills.wait_controller()
    leaders = drills.leaders(topic)
    victim = controller if variant == "controller" else next(b for b in leaders.values() if b != controller)
    return victim, [p for p, leader in leaders.items() if leader == victim], controller


def _produce_directly(broker, topic, partition, timeout_ms):
    """The error code of an acks=all Produce sent straight to one broker, with its own timeout."""
    body = dict(produce_body(topic, partition, encode_batch([(None, b"direct")]), acks=-1), timeout_ms=timeout_ms)
    with RawConnection(broker.bootstrap) as connection:
        return connection.request(0, 7, body)["responses"][0]["partitions"][0]["error_code"]


@pytest.mark.parametrize("variant", ["leader", "controller", AFTER_CONTROLLER_CHANGE])
def test_a_zombie_leader_stops_acknowledging_and_truncates_on_heal(drills, variant):
    """A leader cut off from ZooKeeper and the other brokers, still reached by the producer. Kafka's clients keep
    writing to it: each acks=all request times out (REQUEST_TIMED_OUT, retriable, so no metadata refresh), so its
    partitions take writes again only after the heal, when it answers NOT_LEADER_FOR_PARTITION."""
    controller_for(drills, variant)
    with drill(drills, "a zombie leader (%s)" % variant) as run:
        victim, led, controller = _victim(drills, run.topic, variant)
        others = [p for p in range(PARTITIONS) if p not in led]
        with run.fault():
            drills.hosts.isolate(drills.host_of(victim), keep_clients=True)
            started = time.monotonic()
            # Cut off from its followers and ZooKeeper it cannot shrink the ISR, so an acks=all write times out.
            assert (
                _produce_directly(drills.cluster.broker(victim), run.topic, led[0], 2 * REPLICA_LAG_MS)
                == REQUEST_TIMED_OUT
            )
            wait_for(
                lambda: victim not in (drills.registered() or [victim]),
                SESSION_S + 10,
                message="broker %d's session to expire" % victim,
            )
            states = [
                drills.wait_state(
                    run.topic,
                    partition,
                    lambda s: s["leader"] not in (-1, victim),
                    30,
                    "led by a broker other than the zombie %d" % victim,
                )
                for partition in led
            ]
            run.interval(
                "partition %d led again" % led[0],
                time.monotonic() - started,
                LEADER_ELECTION_BOUND_S,
                "zookeeper.session.timeout.ms + 5 s",
            )
            if victim == controller:
                drills.wait_controller(other_than=victim)
            # The new leader takes acks=all writes with the ISR it was elected with; the zombie still refuses them.
            new_leader = drills.cluster.broker(states[0]["leader"])
            assert victim not in states[0]["isr"] and len(states[0]["isr"]) == BROKERS - 1
            assert _produce_directly(new_leader, run.topic, led[0], 10000) == 0
            assert _produce_directly(drills.cluster.broker(victim), run.topic, led[0], 1000) == REQUEST_TIMED_OUT
            for partition in others:
                run.checker.wait_acked(50, timeout=LAG_S + 20, partition=partition)
        report = run.finish()
    fault_s = run.healed_at - run.fault_at
    run.interval(
        "longest gap on the zombie's partition %d" % led[0],
        report.partition_gaps[led[0]],
        fault_s + LEADER_ELECTION_BOUND_S,
        "the fault's %.1f s + session timeout + 5 s" % fault_s,
    )
    run.interval(
        "longest gap on the other partitions",
        max(report.partition_gaps[p] for p in others),
        LAG_S + CLIENT_REQUEST_S + 5,
        "replica.lag.time.max.ms + request.timeout.ms + 5 s",
    )


@pytest.mark.parametrize("variant", ["controller", AFTER_CONTROLLER_CHANGE])
def test_b_a_controller_cut_off_from_zookeeper_is_replaced_and_fenced(drills, variant):
    controller_for(drills, variant)
    with drill(drills, "b controller cut from ZooKeeper (%s)" % variant) as run:
        old = drills.wait_controller()
        old_epoch = drills.controller_epoch()
        broker = drills.cluster.broker(old)
        log_offset = broker.log_path("controller.log").stat().st_size
        with run.fault():
            for zk in drills.hosts.expand("zk"):
                drills.hosts.cut(drills.host_of(old), zk)
            started = time.monotonic()
            new = drills.wait_controller(other_than=old, timeout=SESSION_S + 10)
            run.interval(
                "controller %d elected" % new,
                time.monotonic() - started,
                SESSION_S + CONTROLLER_SOCKET_TIMEOUT_MS / 1000 + 2,
                "zookeeper.session.timeout.ms + controller.socket.timeout.ms + 2 s",
            )
            assert drills.controller_epoch() > old_epoch
            # Whatever the old controller still sends carries its stale epoch, and the brokers refuse it.
            other = next(b for b in range(BROKERS) if b not in (old, new))
            wait_for(
                lambda: _stale_update_refused(drills, other, old, old_epoch),
                30,
                message="broker %d to refuse controller epoch %d" % (other, old_epoch),
            )
            run.checker.wait_acked(100, timeout=LEADER_LOSS_BOUND_S + 10)
        # Back in touch with ZooKeeper, the old controller learns its session expired and resigns.
        wait_for(
            lambda: b"Resigned" in _read_from(broker.log_path("controller.log"), log_offset),
            30,
            message="broker %d to resign" % old,
        )
        run.finish()
    assert drills.controller() != old or drills.controller_epoch() > old_epoch + 1


def _read_from(path, offset):
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read()


def _stale_update_refused(drills, broker_id, old_controller, old_epoch):
    """Whether an UpdateMetadata in the old controller's name and epoch is refused with STALE_CONTROLLER_EPOCH."""
    body = {
        "controller_id": old_controller,
        "controller_epoch": old_epoch,
        "broker_epoch": -1,
        "topic_states": [],
        "live_brokers": [],
    }
    with RawConnection(drills.cluster.broker(broker_id).bootstrap) as connection:
        return connection.request(6, 6, body)["error_code"] == STALE_CONTROLLER_EPOCH


def _follower_only_assignment(follower):
    """Replicas of each partition with ``follower`` never first: it leads nothing."""
    others = [b for b in range(BROKERS) if b != follower]
    return {p: [others[p % 2], follower, others[(p + 1) % 2]] for p in range(PARTITIONS)}


@pytest.mark.parametrize("variant", ["follower", "controller", AFTER_CONTROLLER_CHANGE])
def test_c_a_follower_cut_off_from_its_leaders_leaves_the_isr_and_rejoins(drills, variant):
    controller = controller_for(drills, variant)
    follower = controller if variant == "controller" else next(b for b in range(BROKERS) if b != controller)
    with drill(
        drills, "c follower cut from its leaders (%s)" % variant, assignments=_follower_only_assignment(follower)
    ) as run:
        with run.fault():
            for other in range(BROKERS):
                if other != follower:
                    drills.hosts.cut(drills.host_of(follower), drills.host_of(other))
            started = time.monotonic()
            for partition in range(PARTITIONS):
                drills.wait_state(
                    run.topic,
                    partition,
                    lambda s: follower not in s["isr"],
                    LAG_S + 10,
                    "without broker %d in its ISR" % follower,
                )
            run.interval(
                "follower %d out of every ISR" % follower,
                time.monotonic() - started,
                LAG_S * 1.5 + 2,
                "replica.lag.time.max.ms x 1.5 (checked every half of it) + 2 s",
            )
            for partition in range(PARTITIONS):
                run.checker.wait_acked(50, timeout=20, partition=partition)
        report = run.finish()
    # Writes stall only until the leaders drop the follower: the lag limit, plus a fetch wait and one check.
    run.interval(
        "longest gap in the fault", report.window_gap_s, LAG_S * 1.5 + 2, "replica.lag.time.max.ms x 1.5 + 2 s"
    )


@pytest.mark.parametrize("variant", ["broker", AFTER_CONTROLLER_CHANGE])
def test_f_a_one_way_cut_from_the_controller(drills, variant):
    """A broker whose packets reach the controller but whose answers from it never come back."""
    controller_for(drills, variant)
    with drill(drills, "f one-way cut controller -> broker (%s)" % variant) as run:
        controller = drills.wait_controller()
        broker = next(b for b in range(BROKERS) if b != controller)
        controller_led = [p for p, leader in drills.leaders(run.topic).items() if leader == controller]
        with run.fault():
            drills.hosts.cut(drills.host_of(controller), drills.host_of(broker), one_way=True)
            for partition in controller_led:
                drills.wait_state(
                    run.topic,
                    partition,
                    lambda s: broker not in s["isr"],
                    LAG_S + 10,
                    "without broker %d, which hears nothing back from the controller" % broker,
                )
            for partition in range(PARTITIONS):
                run.checker.wait_acked(50, timeout=LEADER_LOSS_BOUND_S + 10, partition=partition)
            assert drills.controller() == controller and drills.registered() == list(range(BROKERS))
        run.finish()


@pytest.mark.parametrize("variant", ["follower", "controller", AFTER_CONTROLLER_CHANGE])
def test_g_a_slow_link_to_a_follower_drops_it_from_the_isr_without_leader_flapping(drills, variant):
    controller = controller_for(drills, variant)
    follower = controller if variant == "controller" else next(b for b in range(BROKERS) if b != controller)
    assignments = _follower_only_assignment(follower)
    with drill(drills, "g 1 Mbit/s link to a follower (%s)" % variant, assignments=assignments) as run:
        leaders = drills.leaders(run.topic)
        epochs = {p: drills.state(run.topic, p)["leader_epoch"] for p in range(PARTITIONS)}
        bulk = drills.new_topic("bulk", assignments=assignments)
        stop_bulk = threading.Event()
        loader = threading.Thread(target=_bulk_load, args=(drills.bootstrap, bulk, stop_bulk), daemon=True)
        with run.fault():
            drills.hosts.slow(drills.host_of(follower), "1mbit")
            loader.start()
            started = time.monotonic()
            try:
                for partition in range(PARTITIONS):
                    drills.wait_state(
                        run.topic,
                        partition,
                        lambda s: follower not in s["isr"],
                        LAG_S + 30,
                        "without the slow follower %d" % follower,
                    )
                print(
                    "  the slow follower %d left every ISR after %.1f s of a 4 MB/s load"
                    % (follower, time.monotonic() - started)
                )
                for partition in range(PARTITIONS):
                    run.checker.wait_acked(50, timeout=20, partition=partition)
            finally:
                stop_bulk.set()
                loader.join(30)
            assert drills.leaders(run.topic) == leaders
            assert {p: drills.state(run.topic, p)["leader_epoch"] for p in range(PARTITIONS)} == epochs
            assert drills.registered() == list(range(BROKERS))
        run.finish()
    assert drills.leaders(run.topic) == leaders


def _bulk_load(bootstrap, topic, stop):
    """About 4 MB/s of 64 KB values, acks=1: far beyond a 1 Mbit/s follower."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "acks": 1, "linger.ms": 5, "log_level": 3, "queue.buffering.max.kbytes": 16384}
    )
    value = b"x" * 65536
    sent = 0
    started = time.monotonic()
    while not stop.is_set():
        if sent * len(value) < (time.monotonic() - started) * 4_000_000:
            try:
                producer.produce(topic, value, partition=sent % PARTITIONS)
                sent += 1
            except BufferError:
                pass
        producer.poll(0.01)
    producer.flush(10)
