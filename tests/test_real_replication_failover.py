"""Failover on real brokers: clean vs unclean leader election, and a frozen controller fenced by its epoch."""

import signal

import pytest

from kafka_zk.record.records import encode_batch, iter_records
from tests.cluster_support import wait_for
from tests.raw_wire import fetch_records, metadata, produce, read_all, request
from tests.replication_support import (
    NOT_LEADER_FOR_PARTITION,
    STALE_CONTROLLER_EPOCH,
    fast_overrides,
    make_cluster,  # noqa: F401 (a fixture)
    metadata_partition,
    produce_when_led,
    shell_state,
)


def _batch(prefix, count):
    return encode_batch([(None, b"%s-%d" % (prefix, i)) for i in range(count)])


def _names(prefix, count):
    return [b"%s-%d" % (prefix, i) for i in range(count)]


def _read_when_led(bootstrap, topic):
    wait_for(lambda: fetch_records(bootstrap, topic, 0)[0] == 0, 30, message="%s readable at %s" % (topic, bootstrap))
    return [r.value for r in read_all(bootstrap, topic, 0)]


def _segment_values(broker, topic):
    """The values in a replica's first segment file, read straight from disk."""
    data = (broker.log_dir / ("%s-0" % topic) / "00000000000000000000.log").read_bytes()
    return [r.value for r in iter_records(data)]


@pytest.mark.timeout(150)
def test_unclean_election_only_when_enabled_for_the_topic(make_cluster):
    cluster = make_cluster(fast_overrides())
    controller_id = cluster.wait_controller()
    a_id, b_id = [b.broker_id for b in cluster.brokers if b.broker_id != controller_id]
    a, b = cluster.broker(a_id), cluster.broker(b_id)
    clean = cluster.new_topic("unclean-off", assignments={0: [a_id, b_id]})
    unclean = cluster.new_topic(
        "unclean-on", assignments={0: [a_id, b_id]}, configs={"unclean.leader.election.enable": "true"}
    )
    topics = (clean, unclean)
    for topic in topics:
        cluster.wait_full_isr(topic, [0], [a_id, b_id])
        assert produce_when_led(a.bootstrap, topic, _batch(b"synced", 5), -1) == (0, 0)

    # B stops; A, the only ISR member left, takes 5 more records that B never sees.
    b.stop()
    for topic in topics:
        cluster.wait_state(topic, lambda s: s["isr"] == [a_id] and s["leader"] == a_id, 20, message="ISR down to A")
        assert produce(a.bootstrap, topic, 0, _batch(b"only-a", 5), acks=1) == (0, 5)

    a.kill()
    for topic in topics:
        cluster.wait_state(
            topic,
            lambda s: s["leader"] == -1 and s["isr"] == [a_id],
            20,
            message="offline with A as the last ISR member",
        )
    b.start()
    state = cluster.wait_state(unclean, lambda s: s["leader"] == b_id, 20, message="unclean election of B")
    assert state["isr"] == [b_id]
    # The same controller pass left the clean topic offline: B is not in its ISR.
    assert cluster.state(clean)["leader"] == -1
    assert shell_state(cluster.zk_connect, clean)["leader"] == -1
    wait_for(
        lambda: (
            metadata_partition(b.bootstrap, clean) is not None
            and metadata_partition(b.bootstrap, clean)["leader_id"] == -1
        ),
        10,
        message="B's metadata: no leader",
    )
    assert _read_when_led(b.bootstrap, unclean) == _names(b"synced", 5)
    assert produce(b.bootstrap, unclean, 0, _batch(b"after-unclean", 1), acks=1) == (0, 5)

    cluster.restart_killed(a)
    state = cluster.wait_state(
        clean,
        lambda s: s["leader"] == a_id and sorted(s["isr"]) == sorted([a_id, b_id]),
        30,
        message="A back as leader with B in sync",
    )
    assert _read_when_led(a.bootstrap, clean) == _names(b"synced", 5) + _names(b"only-a", 5)
    # On the unclean topic A follows B and truncates the records B never had.
    cluster.wait_state(
        unclean,
        lambda s: s["leader"] == b_id and sorted(s["isr"]) == sorted([a_id, b_id]),
        30,
        message="A back in sync behind B",
    )
    expected = _names(b"synced", 5) + [b"after-unclean-0"]
    assert _read_when_led(b.bootstrap, unclean) == expected
    wait_for(lambda: _segment_values(a, unclean) == expected, 10, message="A's log to match B's")


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


def _log_since(broker, offset, name="controller.log"):
    with open(broker.log_path(name), "rb") as handle:
        handle.seek(offset)
        return handle.read().decode(errors="replace")


def _consistent(cluster, topic, partitions):
    """Every broker's metadata names the leader and ISR its state znode holds."""
    for partition in range(partitions):
        state = cluster.state(topic, partition)
        for broker in cluster.brokers:
            found = metadata_partition(broker.bootstrap, topic, partition)
            if (
                found is None
                or found["leader_id"] != state["leader"]
                or sorted(found["isr_nodes"]) != sorted(state["isr"])
            ):
                return False
    return True


@pytest.mark.timeout(150)
def test_frozen_controller_is_replaced_and_fenced(make_cluster):
    cluster = make_cluster(fast_overrides())
    replicas = [b.broker_id for b in cluster.brokers]
    topic = cluster.new_topic("frozen-ctl", partitions=3, replication_factor=3)
    cluster.wait_full_isr(topic, range(3), replicas)
    old_id = cluster.wait_controller()
    old_epoch = cluster.controller_epoch()
    frozen = cluster.broker(old_id)
    led = [p for p in range(3) if cluster.state(topic, p)["leader"] == old_id]
    assert led, "the controller leads none of the 3 partitions"

    frozen.signal(signal.SIGSTOP)
    new_id = cluster.wait_controller(not_id=old_id, timeout=25)
    new_epoch = cluster.controller_epoch()
    assert new_epoch > old_epoch
    for partition in range(3):
        cluster.wait_state(
            topic,
            lambda s: s["leader"] not in (-1, old_id) and old_id not in s["isr"],
            20,
            partition,
            "the frozen controller replaced as leader",
        )

    log_offset = frozen.log_path("controller.log").stat().st_size
    frozen.signal(signal.SIGCONT)
    wait_for(lambda: "resigning" in _log_since(frozen, log_offset), 30, message="the old controller to resign")
    wait_for(lambda: cluster.registered(old_id), 30, message="the old controller to register again")
    cluster.wait_full_isr(topic, range(3), replicas)
    assert cluster.controller_id() == new_id
    assert cluster.controller_epoch() == new_epoch
    # The new controller moved the old one's partitions; their leaders keep its epoch in the state znode.
    assert [shell_state(cluster.zk_connect, topic, p)["controller_epoch"] for p in led] == [new_epoch] * len(led)

    # Nothing the old controller did took effect: every broker agrees with the state znodes.
    wait_for(lambda: _consistent(cluster, topic, 3), 20, message="metadata consistent with the state znodes")
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: metadata(b.bootstrap, [])["controller_id"] == new_id,
            20,
            message="broker %d to follow controller %d" % (broker.broker_id, new_id),
        )
        assert _stale_update_metadata(broker.bootstrap, old_id, old_epoch)["error_code"] == STALE_CONTROLLER_EPOCH
    for partition in range(3):
        leader_id = cluster.state(topic, partition)["leader"]
        for broker in cluster.brokers:
            expected = 0 if broker.broker_id == leader_id else NOT_LEADER_FOR_PARTITION
            assert produce(broker.bootstrap, topic, partition, _batch(b"check", 1), acks=-1)[0] == expected
    assert cluster.controller_id() == new_id and cluster.controller_epoch() == new_epoch
