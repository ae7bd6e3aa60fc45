"""Rack-aware replica assignment on a real cluster: six brokers over three racks, every path that assigns."""

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from kafka_zk.client.zk_admin import ZkAdmin
from kafka_zk.controller.assignment import assign_replicas, growth_start_index
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import metadata

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
RACKS = {broker: "rack-%d" % (broker % 3) for broker in range(6)}


# Six brokers, broker i in rack-<i mod 3>; auto-created topics get 6 partitions of 3 replicas.
racked = module_cluster(6, racks=3, overrides={"num.partitions": "6", "default.replication.factor": "3"})


@pytest.fixture(scope="module")
def zk_admin(racked):
    admin = ZkAdmin(racked.zk_connect)
    yield admin
    admin.close()


@pytest.fixture(scope="module")
def admin(racked):
    return AdminClient({"bootstrap.servers": racked.bootstrap_servers})


def tool(name, *args):
    """Run a script as an operator does; a work tree without its own .venv runs it with this interpreter."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    return subprocess.run(
        [str(SCRIPTS / name), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PATH=path),
    )


class Draws:
    """An rng answering Kafka's two draws (start, then shift) with chosen values."""

    def __init__(self, start, shift):
        self.values = [start, shift]

    def randrange(self, bound):
        return self.values.pop(0)


def drawn_by_kafka(assignment, racks, start_partition=0):
    """The (start, shift) for which Kafka's assignment over ``racks`` gives ``assignment``, or None."""
    replication_factor = len(next(iter(assignment.values())))
    for start, shift in itertools.product(range(len(racks)), repeat=2):
        if (
            assign_replicas(
                len(assignment), replication_factor, racks, start_partition=start_partition, rng=Draws(start, shift)
            )
            == assignment
        ):
            return start, shift
    return None


def one_replica_per_rack(assignment):
    return all(sorted(RACKS[b] for b in replicas) == ["rack-0", "rack-1", "rack-2"] for replicas in assignment.values())


def assignment_of(zk_admin, topic, partitions):
    return wait_for(
        lambda: (lambda found: found if len(found) == partitions else None)(
            zk_admin.topic_assignments([topic]).get(topic, {})
        ),
        message="the assignment of %s" % topic,
    )


def test_racks_are_registered_and_advertised(racked, zk_admin):
    for broker in range(6):
        data, _ = zk_admin.zk.get_data("/brokers/ids/%d" % broker)
        assert json.loads(data)["rack"] == RACKS[broker]
    for broker in racked.brokers:
        advertised = {entry["node_id"]: entry["rack"] for entry in metadata(broker.bootstrap)["brokers"]}
        assert advertised == RACKS


def test_create_topics_and_create_partitions_place_one_replica_per_rack(admin, zk_admin):
    [future] = admin.create_topics([NewTopic("spread", 12, 3)], operation_timeout=30).values()
    future.result(timeout=60)
    created = assignment_of(zk_admin, "spread", 12)
    assert one_replica_per_rack(created)
    assert drawn_by_kafka(created, RACKS) is not None

    [future] = admin.create_partitions([NewPartitions("spread", 18)], operation_timeout=30).values()
    future.result(timeout=60)
    grown = assignment_of(zk_admin, "spread", 18)
    assert {p: grown[p] for p in range(12)} == created
    # Kafka continues from partition 0's first replica, with that index as both start and shift
    expected = assign_replicas(6, 3, RACKS, start_index=growth_start_index(RACKS, created[0][0]), start_partition=12)
    assert {p: grown[p] for p in range(12, 18)} == expected
    assert one_replica_per_rack(expected)


def test_auto_created_topic_is_rack_aware(racked, zk_admin):
    answer = metadata(racked.brokers[1].bootstrap, ["auto-racked"], allow_auto_create=True)
    assert answer["topics"][0]["error_code"] in (0, 5)  # LEADER_NOT_AVAILABLE while it is being created
    created = assignment_of(zk_admin, "auto-racked", 6)
    assert one_replica_per_rack(created)
    assert drawn_by_kafka(created, RACKS) is not None


def test_kafka_topics_through_zookeeper(racked, zk_admin):
    zk = racked.zk_connect
    created = tool(
        "kafka-topics.sh",
        "--zookeeper",
        zk,
        "--create",
        "--topic",
        "zk-spread",
        "--partitions",
        30,
        "--replication-factor",
        3,
    )
    assert created.stdout.strip() == "Created topic zk-spread.", created.stdout + created.stderr
    spread = assignment_of(zk_admin, "zk-spread", 30)
    assert one_replica_per_rack(spread) and drawn_by_kafka(spread, RACKS) is not None

    altered = tool("kafka-topics.sh", "--zookeeper", zk, "--alter", "--topic", "zk-spread", "--partitions", 36)
    assert "Adding partitions succeeded!" in altered.stdout, altered.stdout + altered.stderr
    grown = assignment_of(zk_admin, "zk-spread", 36)
    assert {p: grown[p] for p in range(30, 36)} == assign_replicas(
        6, 3, RACKS, start_index=growth_start_index(RACKS, spread[0][0]), start_partition=30
    )

    lumped = tool(
        "kafka-topics.sh",
        "--zookeeper",
        zk,
        "--create",
        "--topic",
        "zk-lumped",
        "--partitions",
        30,
        "--replication-factor",
        3,
        "--disable-rack-aware",
    )
    assert lumped.returncode == 0, lumped.stdout + lumped.stderr
    unaware = assignment_of(zk_admin, "zk-lumped", 30)
    # the rack-unaware spread over 30 partitions passes every follower shift: some land on the leader's rack
    assert not one_replica_per_rack(unaware)
    assert drawn_by_kafka(unaware, dict.fromkeys(RACKS)) is not None


def test_reassign_partitions_generate_proposes_rack_aware_plans(racked, zk_admin, tmp_path):
    assert zk_admin.create_topic("to-move", 30, 3)
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps({"topics": [{"topic": "to-move"}], "version": 1}))

    def proposal(*connect_and_flags):
        generated = tool(
            "kafka-reassign-partitions.sh",
            *connect_and_flags,
            "--generate",
            "--topics-to-move-json-file",
            topics,
            "--broker-list",
            "0,1,2,3,4,5",
        )
        assert generated.returncode == 0, generated.stdout + generated.stderr
        plan = json.loads(generated.stdout.split("Proposed partition reassignment configuration\n")[1])
        return {entry["partition"]: entry["replicas"] for entry in plan["partitions"]}

    for connect in (["--zookeeper", racked.zk_connect], ["--bootstrap-server", racked.bootstrap_servers]):
        aware = proposal(*connect)
        assert one_replica_per_rack(aware) and drawn_by_kafka(aware, RACKS) is not None
    unaware = proposal("--zookeeper", racked.zk_connect, "--disable-rack-aware")
    assert not one_replica_per_rack(unaware)
    assert drawn_by_kafka(unaware, dict.fromkeys(RACKS)) is not None
