"""Kill -9 of the transaction coordinator's broker while a confluent-kafka producer commits, or aborts, one
transaction after another (issue 10's acceptance 4): with the controller alive, with the controller among the
dead, and with a freshly elected controller. Every transaction ends committed or aborted, none hangs, the
transactional id moves to the new leader of its `__transaction_state` partition, and the last stable offset
reaches the high watermark on every partition."""

import threading
import uuid

import pytest
from confluent_kafka import KafkaException

from kafka_zk.coordinator.transaction.records import partition_for
from tests.cluster_support import make_topic, wait_for
from tests.raw_wire import partition_leaders, request
from tests.replication_support import fast_overrides, module_replication_cluster
from tests.txn_support import find_transaction_coordinator, read_all, retry_while_retriable, transactional_producer

PARTITIONS = 3
STATE_TOPIC = "__transaction_state"
STATE_PARTITIONS = 6
# Dead brokers are noticed after the 6 s ZooKeeper session; followers keep Kafka 2.5's 30 s lag allowance so
# that a loaded machine does not shrink an ISR just before the kill.
OVERRIDES = dict(
    fast_overrides(replica_lag_time_max_ms=30000),
    **{"transaction.state.log.num.partitions": str(STATE_PARTITIONS), "offsets.topic.num.partitions": "3"},
)


cluster = module_replication_cluster(overrides=OVERRIDES)


def healthy(cluster):
    """Every broker running and every `__transaction_state` partition fully replicated."""
    find_transaction_coordinator(cluster, "warm-up")  # creates __transaction_state on first use
    cluster.wait_full_isr(STATE_TOPIC, range(STATE_PARTITIONS), [0, 1, 2], timeout=90)


def transactional_id_coordinated_by(cluster, controller_role, leader=None):
    """A fresh transactional id whose state partition is led by the controller or by another broker (by ``leader``
    when given)."""
    controller = cluster.wait_controller()
    for _ in range(200):
        transactional_id = "failover-" + uuid.uuid4().hex[:6]
        found = cluster.state(STATE_TOPIC, partition_for(transactional_id, STATE_PARTITIONS))["leader"]
        if (found == controller) == (controller_role == "controller") and leader in (None, found):
            wait_for(
                lambda: find_transaction_coordinator(cluster, transactional_id) == found,
                30,
                message="FindCoordinator naming the leader of the id's state partition",
            )
            return transactional_id, found
    raise AssertionError("no transactional id found whose coordinator is %s" % controller_role)


def stable_offsets(cluster, topic):
    """{partition: (high watermark, last stable offset)} from each partition's leader (ListOffsets v5)."""
    found = {}
    for partition, leader in partition_leaders(cluster.live_brokers()[0].bootstrap, topic).items():
        offsets = []
        for isolation in (0, 1):
            answer = request(
                cluster.broker(leader).bootstrap,
                2,
                5,
                {
                    "replica_id": -1,
                    "isolation_level": isolation,
                    "topics": [
                        {
                            "name": topic,
                            "partitions": [{"partition_index": partition, "timestamp": -1, "current_leader_epoch": -1}],
                        }
                    ],
                },
            )
            result = answer["topics"][0]["partitions"][0]
            if result["error_code"] != 0:
                return None
            offsets.append(result["offset"])
        found[partition] = tuple(offsets)
    return found if len(found) == PARTITIONS else None


class TransactionLoop:
    """One producer running transactions of 10 records in a thread, each ended by commit or abort; a
    transaction that fails with an abortable error is aborted and counted in doubt."""

    def __init__(self, producer, topic, ending):
        self.producer, self.topic, self.ending = producer, topic, ending
        self.committed, self.aborted, self.in_doubt = [], [], []
        self.count, self.stopping, self.error = 0, False, None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        txn = 0
        while not self.stopping:
            values = [b"%d-%d" % (txn, index) for index in range(10)]
            try:
                self.producer.begin_transaction()
                for index, value in enumerate(values):
                    self.producer.produce(self.topic, value=value, partition=index % PARTITIONS)
                if self.ending == "abort":
                    self.producer.flush(60)  # the records reach the log, so the abort needs markers
                    retry_while_retriable(self.producer.abort_transaction)
                    self.aborted.extend(values)
                else:
                    retry_while_retriable(self.producer.commit_transaction)
                    self.committed.extend(values)
                self.count += 1
            except KafkaException as failure:
                self.in_doubt.extend(values)
                if not failure.args[0].txn_requires_abort():
                    self.error = failure
                    return
                retry_while_retriable(self.producer.abort_transaction)
            txn += 1

    def wait_count(self, count, timeout, message):
        wait_for(lambda: self.count >= count or self.error, timeout, message=message)
        assert self.error is None, self.error

    def stop(self):
        self.stopping = True
        self.thread.join(120)
        assert not self.thread.is_alive(), "a transaction hangs"
        assert self.error is None, self.error


@pytest.mark.timeout(300)
@pytest.mark.parametrize("controller", ["not the coordinator", "the coordinator", "freshly elected"])
def test_coordinator_killed_mid_transactions_every_transaction_ends_and_the_lso_advances(cluster, controller):
    """Two producers of one coordinator, one committing and one aborting each transaction, through one kill."""
    healthy(cluster)
    if controller == "freshly elected":
        old_controller = cluster.broker(cluster.wait_controller())
        old_controller.kill()
        cluster.wait_controller(not_id=old_controller.broker_id)
        cluster.restart_killed(old_controller)
        healthy(cluster)
    role = "controller" if controller == "the coordinator" else "another broker"
    transactional_id, coordinator = transactional_id_coordinated_by(cluster, role)
    ids = {"commit": transactional_id, "abort": transactional_id_coordinated_by(cluster, role, coordinator)[0]}
    victim = cluster.broker(coordinator)
    loops = {}
    try:
        for ending, transactional_id in ids.items():
            producer = transactional_producer(cluster, transactional_id)
            producer.init_transactions(60)
            loops[ending] = TransactionLoop(producer, make_topic(cluster, "tx", PARTITIONS), ending)
        for ending, loop in loops.items():
            loop.wait_count(5, 60, "%s transactions before the kill" % ending)
        victim.kill()
        before = {ending: loop.count for ending, loop in loops.items()}
        for ending, loop in loops.items():
            loop.wait_count(before[ending] + 5, 90, "%s transactions after the kill" % ending)
        for loop in loops.values():
            loop.stop()
        if controller == "the coordinator":
            cluster.wait_controller(not_id=coordinator)
        for ending, loop in loops.items():
            assert find_transaction_coordinator(cluster, ids[ending], exclude=(coordinator,)) != coordinator
            check_every_transaction_ended(cluster, loop)
    finally:
        for loop in loops.values():
            loop.stopping = True
        if not victim.is_running():
            cluster.restart_killed(victim)


def check_every_transaction_ended(cluster, loop):
    """A last committed transaction through the new coordinator; read_committed sees every committed record once,
    no aborted one, the last one last on each partition, and the last stable offset reaches the high watermark."""
    producer, topic = loop.producer, loop.topic
    final = [b"final-%d" % partition for partition in range(PARTITIONS)]
    producer.begin_transaction()
    for partition, value in enumerate(final):
        producer.produce(topic, value=value, partition=partition)
    retry_while_retriable(producer.commit_transaction)
    committed = loop.committed + final
    seen = read_all(cluster, topic, "read_committed", len(committed), partitions=PARTITIONS, idle_s=1.0)
    values = [value for partition in seen.values() for value in partition]
    assert len(values) == len(set(values))
    assert set(committed) <= set(values) <= set(committed) | set(loop.in_doubt)
    assert not set(values) & set(loop.aborted)
    assert [partition[-1] for partition in seen.values()] == final  # the LSO passed every transaction
    wait_for(
        lambda: (lambda offsets: offsets and all(hw == lso for hw, lso in offsets.values()))(
            stable_offsets(cluster, topic)
        ),
        60,
        message="the last stable offset at the high watermark",
    )
