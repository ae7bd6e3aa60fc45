"""The controller decides from its cached partition states and writes them conditionally: a stale cached state
fails its write and is re-read, and only the partitions for which the cache proposes nothing are read first."""

from dataclasses import replace

from kazoo.exceptions import BadVersionError
from twisted.internet.testing import MemoryReactorClock

from kafka_zk.controller.state_changes import FIRST_BATCH_WAIT_S
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch, TopicAssignment
from tests.fake_zk import FakeZk
from tests.test_controller_fencing import broker, controller_on


class StateTable:
    """State znodes with versions: conditional sets as ZooKeeper does them."""

    def __init__(self, states):
        self.states = dict(states)
        self.reads = []

    def get(self, tps):
        tps = list(tps)
        self.reads.append(sorted(tps))
        return {tp: self.states[tp] for tp in tps if tp in self.states}

    def update(self, states, controller_epoch, epoch_zk_version):
        results = {}
        for tp, state in states.items():
            current = self.states[tp]
            if state.zk_version != current.zk_version:
                results[tp] = BadVersionError()
                continue
            written = replace(state, controller_epoch=controller_epoch, zk_version=current.zk_version + 1)
            self.states[tp] = results[tp] = written
        return results


def test_broker_failure_reads_only_what_the_cache_would_leave_alone_and_retries_stale_writes():
    topic = "t"
    assignment = {0: [1, 2], 1: [1, 2], 2: [1, 2], 3: [2, 1]}
    zk_states = {
        (topic, 0): LeaderIsrAndControllerEpoch(1, 3, [1, 2], 2, 4),
        (topic, 1): LeaderIsrAndControllerEpoch(1, 3, [1], 2, 4),
        (topic, 2): LeaderIsrAndControllerEpoch(1, 3, [1, 2], 2, 4),
        (topic, 3): LeaderIsrAndControllerEpoch(2, 3, [2, 1], 2, 4),
    }
    table = StateTable(zk_states)
    live = [broker(0), broker(1), broker(2)]
    zk = FakeZk(
        {
            "try_elect_controller": (True, 3, 4),
            "get_controller_id": 0,
            "get_all_brokers": lambda: list(live),
            "get_topics": [topic],
            "get_topic_assignments": lambda names: {topic: assignment},
            "get_full_topic_assignments": lambda names: {topic: TopicAssignment(assignment)},
            "get_partition_reassignment": {},
            "get_entity_configs": lambda kind, names: {name: {} for name in names},
            "get_partition_states": table.get,
            "update_partition_states": table.update,
            "get_isr_change_notifications": [],
            "get_topic_deletions": [],
            "get_preferred_replica_election": None,
        }
    )
    reactor = MemoryReactorClock()
    controller = controller_on(zk, reactor)
    controller.startup()
    reactor.advance(FIRST_BATCH_WAIT_S)  # no broker answers the new leaders here: the controller goes on
    assert controller.active
    # Since the load, leader 1 took broker 2 back into partition 1's ISR (the controller has not heard yet) and
    # rewrote partition 2's state: the cache holds an old ISR for 1 and an old version for 2.
    table.states[(topic, 1)] = LeaderIsrAndControllerEpoch(1, 3, [1, 2], 2, 5)
    table.states[(topic, 2)] = LeaderIsrAndControllerEpoch(1, 3, [1, 2], 2, 5)
    table.reads.clear()

    live.pop()  # broker 2 dies
    zk.watches["/brokers/ids"]([0, 1])
    reactor.advance(FIRST_BATCH_WAIT_S)

    # Partition 3 lost its leader and is elected; 0 and 2 are shrunk from the cache; 1 is read because the cache
    # proposed nothing for it, 2 is read after its write failed on the version.
    assert table.reads == [[(topic, 1)], [(topic, 2)]]
    for partition in range(4):
        state = table.states[(topic, partition)]
        assert (state.leader, state.isr) == (1, [1]), (partition, state)
        assert controller.context.leadership[(topic, partition)].zk_version == state.zk_version
