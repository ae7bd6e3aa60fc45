"""Helpers for the replication tests: fast-failure clusters, state znodes (kazoo and zkCli), ISR waits."""

import json
import signal
import subprocess
import uuid
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from tests.cluster_support import module_cluster, start_cluster, wait_for
from tests.raw_wire import create_topic, metadata, partition_leaders, produce

ROOT = Path(__file__).resolve().parent.parent
SESSION_TIMEOUT_MS = 6000
LAG_MS = 3000
UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_LEADER_FOR_PARTITION = 6
NOT_ENOUGH_REPLICAS = 19
STALE_CONTROLLER_EPOCH = 11


def fast_overrides(**extra):
    """Broker settings that notice dead brokers in 6 s and lagging followers in 3 s."""
    overrides = {
        "zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "replica.lag.time.max.ms": str(LAG_MS),
        "replica.fetch.wait.max.ms": "200",
        "replica.fetch.backoff.ms": "200",
    }
    overrides.update({key.replace("_", "."): str(value) for key, value in extra.items()})
    return overrides


class ReplicationCluster:
    """A LocalCluster plus a kazoo client on its chroot; close() resumes frozen brokers and stops all."""

    def __init__(self, directory, zookeeper_server, overrides, brokers=3, **cluster_options):
        """``cluster_options``: more of start_cluster's (racks, broker_overrides)."""
        self.cluster = start_cluster(
            directory, zookeeper_server, brokers=brokers, overrides=overrides, **cluster_options
        )
        self.zk = KazooClient(hosts=self.cluster.zk_connect)
        self.zk.start(10)
        try:
            # CreateTopics places replicas on the brokers the receiving broker has heard of from the controller.
            ids = sorted(b.broker_id for b in self.cluster.brokers)
            for broker in self.cluster.brokers:
                wait_for(
                    lambda b=broker: sorted(n["node_id"] for n in metadata(b.bootstrap, [])["brokers"]) == ids,
                    30,
                    message="broker %d to see every broker" % broker.broker_id,
                )
        except BaseException:
            self.close()
            raise

    def __getattr__(self, name):
        return getattr(self.cluster, name)

    def close(self):
        for broker in self.cluster.brokers:
            broker.signal(signal.SIGCONT)
        self.cluster.stop()
        self.zk.stop()
        self.zk.close()

    # -- ZooKeeper views -----------------------------------------------------------------------------

    def json_at(self, path):
        return json.loads(self.zk.get(path)[0].decode())

    def state(self, topic, partition=0):
        return self.json_at("/brokers/topics/%s/partitions/%d/state" % (topic, partition))

    def controller_id(self):
        try:
            return self.json_at("/controller")["brokerid"]
        except Exception:  # absent between controllers
            return None

    def controller_epoch(self):
        return int(self.zk.get("/controller_epoch")[0])

    def registered(self, broker_id):
        return self.zk.exists("/brokers/ids/%d" % broker_id) is not None

    def wait_controller(self, not_id=None, timeout=30):
        def current():
            found = self.controller_id()
            return (found,) if found not in (None, not_id) else None

        return wait_for(current, timeout, message="a controller other than %s" % not_id)[0]

    def wait_state(self, topic, predicate, timeout=30, partition=0, message="state"):
        """Wait until predicate(state znode) holds; returns that state."""

        def check():
            state = self.state(topic, partition)
            return state if predicate(state) else None

        return wait_for(
            check, timeout, message="%s-%d %s (last %s)" % (topic, partition, message, self.state(topic, partition))
        )

    def wait_full_isr(self, topic, partitions, replicas, timeout=45):
        for partition in partitions:
            self.wait_state(
                topic,
                lambda s: sorted(s["isr"]) == sorted(replicas) and s["leader"] >= 0,
                timeout,
                partition,
                "ISR back to %s" % sorted(replicas),
            )

    # -- brokers -------------------------------------------------------------------------------------

    def live_brokers(self):
        return [b for b in self.cluster.brokers if b.is_running()]

    def restart_killed(self, broker, timeout=SESSION_TIMEOUT_MS / 1000 + 15):
        """Start a SIGKILLed broker once ZooKeeper has expired its old registration."""
        wait_for(
            lambda: not self.registered(broker.broker_id),
            timeout,
            message="broker %d's registration to expire" % broker.broker_id,
        )
        broker.start(timeout=60)

    def new_topic(self, prefix, assignments=None, partitions=1, replication_factor=3, configs=None):
        topic = "%s-%s" % (prefix, uuid.uuid4().hex[:6])
        bootstrap = self.live_brokers()[0].bootstrap
        assert (
            create_topic(
                bootstrap,
                topic,
                assignments=assignments,
                partitions=partitions,
                replication_factor=replication_factor,
                configs=configs,
            )
            == 0
        )
        count = len(assignments) if assignments else partitions
        wait_for(
            lambda: all(self.zk.exists("/brokers/topics/%s/partitions/%d/state" % (topic, p)) for p in range(count)),
            30,
            message="%s's state znodes" % topic,
        )
        for partition in range(count):
            leader_id = self.state(topic, partition)["leader"]
            leader = self.cluster.broker(leader_id) if leader_id >= 0 else None
            if leader is not None and leader.is_running():
                # A client produces once metadata names a leader; the leader names itself after its LeaderAndIsr.
                wait_for(
                    lambda leader=leader, partition=partition: (
                        partition_leaders(leader.bootstrap, topic).get(partition) == leader.broker_id
                    ),
                    30,
                    message="%s-%d led by broker %d in its own metadata" % (topic, partition, leader.broker_id),
                )
        return topic


def module_replication_cluster(brokers=3, **settings):
    """module_cluster's fixture of a ReplicationCluster: ``settings`` are its overrides and start_cluster's others."""
    return module_cluster(brokers, start=ReplicationCluster, stop=ReplicationCluster.close, **settings)


@pytest.fixture
def make_cluster(tmp_path, zookeeper_server):
    """make_cluster(overrides) -> ReplicationCluster; every cluster made is stopped after the test."""
    made = []

    def make(overrides, brokers=3):
        made.append(ReplicationCluster(tmp_path / ("c%d" % len(made)), zookeeper_server, overrides, brokers))
        return made[-1]

    yield make
    for cluster in made:
        cluster.close()


def metadata_partition(bootstrap, topic, partition=0):
    """This broker's Metadata v5 entry for one partition, or None when it has none."""
    for entry in metadata(bootstrap, [topic])["topics"]:
        for found in entry["partitions"]:
            if entry["error_code"] == 0 and found["partition_index"] == partition:
                return found
    return None


def shell_get(zk_connect, path):
    """The one JSON value ZooKeeper's own shell (zkCli) prints for `get path`."""
    result = subprocess.run(
        [str(ROOT / "scripts" / "zookeeper-shell.sh"), zk_connect, "get", path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    values = []
    for line in result.stdout.splitlines():
        try:
            values.append(json.loads(line))
        except ValueError:
            continue
    assert len(values) == 1, "expected one JSON line for %s in:\n%s" % (path, result.stdout)
    return values[0]


def shell_state(zk_connect, topic, partition=0):
    return shell_get(zk_connect, "/brokers/topics/%s/partitions/%d/state" % (topic, partition))


def produce_when_led(bootstrap, topic, records, acks):
    """Produce to partition 0, retrying only while the broker does not lead it yet (nothing appended)."""

    def attempt():
        result = produce(bootstrap, topic, 0, records, acks=acks)
        return None if result[0] in (UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_FOR_PARTITION) else result

    return wait_for(attempt, 30, message="%s to be led at %s" % (topic, bootstrap))
