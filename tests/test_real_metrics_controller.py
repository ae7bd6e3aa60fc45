"""The controller's metrics scraped from real brokers: one active controller across the cluster, before and after
the controller is killed; Kafka's global counts on the controller (0 elsewhere); an offline RF 1 partition."""

import json

import pytest
from kazoo.client import KazooClient

from kafka_zk.controller.events import ControllerState
from tests.cluster_support import scrape_metrics, start_cluster, wait_for
from tests.raw_wire import create_topic

SESSION_TIMEOUT_S = 6
ACTIVE = "kafka_controller_kafkacontroller_activecontrollercount"


scrape = scrape_metrics


def value(broker, name, **labels):
    return scrape(broker).get((name, tuple(sorted(labels.items()))))


def controller_gauge(name):
    return "kafka_controller_kafkacontroller_" + name.lower()


class Cluster:
    def __init__(self, cluster):
        self.cluster = cluster
        self.zk = KazooClient(hosts=cluster.zk_connect)
        self.zk.start(10)

    def live(self):
        return [broker for broker in self.cluster.brokers if broker.is_running()]

    def controller_id(self):
        try:
            return json.loads(self.zk.get("/controller")[0])["brokerid"]
        except Exception:  # between controllers
            return None

    def active_counts(self, brokers=None):
        """{broker id: ActiveControllerCount} of the given (default: live) brokers."""
        return {broker.broker_id: value(broker, ACTIVE) for broker in brokers or self.live()}

    def wait_one_active(self, timeout, not_id=None):
        """The id of the one broker reporting ActiveControllerCount 1, once the live brokers' counts sum to 1."""

        def one():
            counts = self.active_counts()
            active = [broker_id for broker_id, count in counts.items() if count == 1]
            return (active[0],) if sum(counts.values()) == 1 and active[0] != not_id else None

        return wait_for(one, timeout, 0.2, "ActiveControllerCount to sum to 1 on a broker other than %s" % not_id)[0]

    def zk_partition_counts(self):
        topics = self.zk.get_children("/brokers/topics")
        return len(topics), sum(len(self.zk.get_children("/brokers/topics/%s/partitions" % topic)) for topic in topics)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    running = start_cluster(
        tmp_path_factory.mktemp("metrics-controller"),
        zookeeper_server,
        brokers=3,
        overrides={"zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_S * 1000)},
        metrics=True,
    )
    view = Cluster(running)
    yield view
    view.zk.stop()
    view.zk.close()
    running.stop()


@pytest.mark.timeout(60)
def test_one_controller_reports_the_global_counts_and_the_others_zero(cluster):
    controller_id = cluster.wait_one_active(30)
    assert controller_id == cluster.controller_id()
    others = [b.broker_id for b in cluster.live() if b.broker_id != controller_id]
    bootstrap = cluster.cluster.broker(others[0]).bootstrap
    assert create_topic(bootstrap, "metrics-spread", partitions=4, replication_factor=2) == 0
    assert create_topic(bootstrap, "metrics-single", assignments={0: [controller_id]}) == 0
    controller = cluster.cluster.broker(controller_id)

    def counts_match_zookeeper():
        sample = scrape(controller)
        topics, partitions = cluster.zk_partition_counts()
        return (
            sample[(controller_gauge("GlobalTopicCount"), ())] == topics >= 2
            and sample[(controller_gauge("GlobalPartitionCount"), ())] == partitions >= 5
        )

    wait_for(counts_match_zookeeper, 20, 0.2, "the controller's global counts to match ZooKeeper's topics")

    sample = scrape(controller)
    assert sample[(controller_gauge("OfflinePartitionsCount"), ())] == 0
    assert sample[(controller_gauge("ControllerState"), ())] in {state.value for state in ControllerState}
    assert sample[("kafka_controller_controllerstats_topicchangerateandtimems_count", ())] >= 1
    assert {labels for name, labels in sample if name == "kafka_controller_controllerchannelmanager_queuesize"} == {
        (("broker_id", str(broker_id)),) for broker_id in (0, 1, 2)
    }
    assert ("kafka_controller_controllereventmanager_eventqueuesize", ()) in sample
    for broker_id in others:
        sample = scrape(cluster.cluster.broker(broker_id))
        assert sample[(ACTIVE, ())] == 0
        assert sample[(controller_gauge("GlobalPartitionCount"), ())] == 0
        assert sample[(controller_gauge("GlobalTopicCount"), ())] == 0
        assert sample[("kafka_controller_controllerstats_leaderelectionrateandtimems_count", ())] == 0
        assert sample[("kafka_controller_controllerchannelmanager_totalqueuesize", ())] == 0


@pytest.mark.timeout(90)
def test_killing_the_controller_leaves_one_active_and_its_rf1_partition_offline_until_it_returns(cluster):
    old_id = cluster.wait_one_active(30)
    old = cluster.cluster.broker(old_id)
    old.kill()
    # Its session expires after the session timeout; a survivor is elected at once.
    new_id = cluster.wait_one_active(SESSION_TIMEOUT_S + 6, not_id=old_id)
    new = cluster.cluster.broker(new_id)
    assert cluster.controller_id() == new_id
    # metrics-single's only replica was on the old controller.
    wait_for(
        lambda: value(new, controller_gauge("OfflinePartitionsCount")) == 1,
        10,
        0.2,
        "OfflinePartitionsCount 1 on the new controller",
    )
    sample = scrape(new)
    assert sample[(controller_gauge("ControllerState"), ())] in {state.value for state in ControllerState}
    assert sample[("kafka_controller_controllerstats_controllerchangerateandtimems_count", ())] >= 1
    elections_before = sample[("kafka_controller_controllerstats_leaderelectionrateandtimems_count", ())]

    old.start(timeout=60)
    wait_for(
        lambda: value(new, controller_gauge("OfflinePartitionsCount")) == 0,
        20,
        0.2,
        "OfflinePartitionsCount back to 0 once the broker returns",
    )
    sample = scrape(new)
    # The broker's return is a BrokerChange event: LeaderElectionRateAndTimeMs times it.
    assert sample[("kafka_controller_controllerstats_leaderelectionrateandtimems_count", ())] > elections_before
    assert sample[("kafka_controller_controllerstats_leaderelectionrateandtimems", (("quantile", "0.99"),))] >= 0
    assert sample[("kafka_controller_controllerstats_uncleanleaderelections_total", ())] == 0
    assert cluster.active_counts(cluster.cluster.brokers) == {b: int(b == new_id) for b in (0, 1, 2)}
