"""GroupCoordinator shell on a task.Clock with an in-memory `__consumer_offsets` log (no sockets)."""

import struct

from twisted.internet import defer, task

from kafka_zk.coordinator.group.decisions import GroupConfig
from kafka_zk.coordinator.group.group_coordinator import GroupCoordinator
from kafka_zk.coordinator.group.group_metadata_manager import GroupMetadataManager
from kafka_zk.coordinator.group.state import COMPLETING_REBALANCE, EMPTY, PREPARING_REBALANCE, STABLE
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import iter_batches
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.replication.results import ProduceResult


class FakeLog:
    def __init__(self):
        self.batches = []
        self.log_start_offset = 0
        self.log_end_offset = 0

    def append(self, batch):
        count = struct.unpack_from(">i", batch, 57)[0]
        base = self.log_end_offset
        self.batches.append(struct.pack(">q", base) + batch[8:])
        self.log_end_offset += count
        return base

    def iter_batches_to_end(self, buffer_size):
        return iter_batches(b"".join(self.batches))


class FakePartition:
    def __init__(self):
        self.is_leader = True
        self.log = FakeLog()


class FakeReplicaManager:
    def __init__(self):
        self.partitions = {}
        self.fail_with = None

    def get_partition(self, topic, partition):
        return self.partitions.setdefault((topic, partition), FakePartition())

    def append_records(self, timeout_ms, acks, entries):
        results = {}
        for tp, batch in entries.items():
            if self.fail_with is not None:
                results[tp] = ProduceResult(self.fail_with)
            else:
                results[tp] = ProduceResult(base_offset=self.partitions[tp].log.append(batch))
        return defer.succeed(results)


def subscription(*topics):
    data = struct.pack(">hi", 0, len(topics))
    for t in topics:
        data += struct.pack(">h", len(t)) + t.encode()
    return data + struct.pack(">i", -1)


PROTOCOLS = [("range", subscription("t"))]


class Harness:
    def __init__(self):
        self.clock = task.Clock()
        self.rm = FakeReplicaManager()
        config = KafkaConfig({"zookeeper.connect": "z:2181"})
        self.manager = GroupMetadataManager(0, config, self.rm, self.clock)
        self.ids = iter(range(1000))
        self.coordinator = GroupCoordinator(
            0, GroupConfig(), self.manager, self.clock, new_member_id=lambda prefix: "%s-%d" % (prefix, next(self.ids))
        )
        self.pid = self.manager.partition_for("g")
        self.coordinator.on_election(self.pid)
        self.clock.advance(0)

    def join(self, member_id="", instance=None, version=3, client="c", session=10000, protocols=PROTOCOLS):
        results = []
        self.coordinator.handle_join_group(
            "g", member_id, instance, version, client, "/h", 30000, session, "consumer", protocols
        ).addCallback(results.append)
        return results

    def sync(self, member_id, generation, assignments=None, instance=None):
        results = []
        self.coordinator.handle_sync_group("g", generation, member_id, instance, assignments or {}).addCallback(
            results.append
        )
        return results

    def group(self):
        return self.manager.get_group("g")

    def stable_pair(self):
        a, b = self.join(client="a"), self.join(client="b")
        assert a == [] and b == []
        self.clock.advance(3)  # group.initial.rebalance.delay.ms, extended once for the second member
        assert a == [] and b == []
        self.clock.advance(3)
        a, b = a[0], b[0]
        assert a["error_code"] == Errors.NONE and b["error_code"] == Errors.NONE
        leader = a if a["leader"] == a["member_id"] else b
        follower = b if leader is a else a
        follower_sync = self.sync(follower["member_id"], follower["generation_id"])
        leader_sync = self.sync(
            leader["member_id"], leader["generation_id"], {leader["member_id"]: b"L", follower["member_id"]: b"F"}
        )
        assert leader_sync[0]["assignment"] == b"L" and follower_sync[0]["assignment"] == b"F"
        return leader["member_id"], follower["member_id"]


def test_v4_join_needs_member_id_then_first_rebalance_waits_initial_delay():
    h = Harness()
    first = h.join(version=4)
    assert first[0]["error_code"] == Errors.MEMBER_ID_REQUIRED and first[0]["member_id"] == "c-0"
    joined = h.join(member_id="c-0", version=4)
    assert joined == [] and h.group().is_in(PREPARING_REBALANCE)
    h.clock.advance(2.9)
    assert joined == []
    h.clock.advance(0.2)
    result = joined[0]
    assert (result["error_code"], result["generation_id"], result["leader"], result["protocol_name"]) == (
        Errors.NONE,
        1,
        "c-0",
        "range",
    )
    assert [m["member_id"] for m in result["members"]] == ["c-0"]
    assert h.group().is_in(COMPLETING_REBALANCE)


def test_unused_pending_member_id_expires_after_session_timeout():
    h = Harness()
    h.join(version=4)
    assert h.group().pending_members == {"c-0"}
    h.clock.advance(10.1)
    assert h.group().pending_members == set()


def test_sync_makes_group_stable_and_heartbeats_keep_members():
    h = Harness()
    leader, follower = h.stable_pair()
    assert h.group().is_in(STABLE)
    for _ in range(5):
        h.clock.advance(5)
        assert h.coordinator.handle_heartbeat("g", leader, None, 1) == Errors.NONE
        assert h.coordinator.handle_heartbeat("g", follower, None, 1) == Errors.NONE
    assert h.group().size() == 2


def test_silent_member_is_evicted_after_session_timeout_and_group_rebalances():
    h = Harness()
    leader, follower = h.stable_pair()
    h.clock.advance(6)
    assert h.coordinator.handle_heartbeat("g", leader, None, 1) == Errors.NONE
    h.clock.advance(4.5)  # the follower's 10 s session has passed
    assert not h.group().has(follower) and h.group().is_in(PREPARING_REBALANCE)
    assert h.coordinator.handle_heartbeat("g", leader, None, 1) == Errors.REBALANCE_IN_PROGRESS
    rejoin = h.join(member_id=leader)
    assert rejoin[0]["generation_id"] == 2 and [m["member_id"] for m in rejoin[0]["members"]] == [leader]


def test_leave_group_triggers_rebalance_and_unknown_member():
    h = Harness()
    leader, follower = h.stable_pair()
    error, members = h.coordinator.handle_leave_group("g", [(follower, None), ("ghost", None)])
    assert error == Errors.NONE
    assert [e for _, _, e in members] == [Errors.NONE, Errors.UNKNOWN_MEMBER_ID]
    assert h.group().is_in(PREPARING_REBALANCE)
    error, members = h.coordinator.handle_leave_group("g", [(leader, None)])
    assert h.group().is_in(EMPTY) and h.group().generation_id == 2


def test_commits_are_visible_after_append_and_survive_unload_and_reload():
    h = Harness()
    leader, follower = h.stable_pair()
    outcome = []
    h.coordinator.handle_commit_offsets(
        "g", leader, None, 1, {("t", 0): (42, 3, "meta", None, None), ("t", 1): (7, -1, "x" * 5000, None, None)}
    ).addCallback(outcome.append)
    assert outcome[0] == {("t", 0): Errors.NONE, ("t", 1): Errors.OFFSET_METADATA_TOO_LARGE}
    assert h.coordinator.handle_fetch_offsets("g", None) == (Errors.NONE, {("t", 0): (42, 3, "meta")})
    assert h.coordinator.handle_commit_offsets("g", leader, None, 9, {("t", 0): (1, -1, "", None, None)}).result == {
        ("t", 0): Errors.ILLEGAL_GENERATION
    }
    h.coordinator.on_resignation(h.pid)
    assert h.coordinator.handle_heartbeat("g", leader, None, 1) == Errors.NOT_COORDINATOR
    assert h.coordinator.handle_fetch_offsets("g", None)[0] == Errors.NOT_COORDINATOR
    h.coordinator.on_election(h.pid)
    assert h.coordinator.handle_fetch_offsets("g", None)[0] == Errors.COORDINATOR_LOAD_IN_PROGRESS
    h.clock.advance(0)
    assert h.coordinator.handle_fetch_offsets("g", [("t", 0), ("t", 9)]) == (
        Errors.NONE,
        {("t", 0): (42, 3, "meta"), ("t", 9): (-1, -1, "")},
    )
    group = h.group()
    assert group.is_in(STABLE) and group.generation_id == 1 and group.get(follower).assignment == b"F"
    assert h.coordinator.handle_heartbeat("g", follower, None, 1) == Errors.NONE


def test_simple_commit_creates_group_and_delete_groups_tombstones_it():
    h = Harness()
    assert h.coordinator.handle_commit_offsets("g", "", None, -1, {("t", 0): (5, -1, None, None, None)}).result == {
        ("t", 0): Errors.NONE
    }
    assert h.coordinator.handle_list_groups() == (Errors.NONE, [("g", "")])
    assert h.coordinator.handle_delete_groups(["g", "nope"]) == {
        "g": Errors.NONE,
        "nope": Errors.NOT_COORDINATOR if h.manager.partition_for("nope") != h.pid else Errors.GROUP_ID_NOT_FOUND,
    }
    assert h.manager.get_group("g") is None
    assert h.coordinator.handle_fetch_offsets("g", [("t", 0)]) == (Errors.NONE, {("t", 0): (-1, -1, "")})
    h.coordinator.on_resignation(h.pid)
    h.coordinator.on_election(h.pid)
    h.clock.advance(0)
    assert h.manager.get_group("g") is None  # the tombstone wins on reload


def test_static_member_restart_keeps_assignment_without_rebalance_and_old_id_is_fenced():
    h = Harness()
    a, b = h.join(client="a", instance="ia", version=5), h.join(client="b", version=3)
    h.clock.advance(3)
    h.clock.advance(3)
    a, b = a[0], b[0]
    h.sync(b["member_id"], 1)
    h.sync(a["member_id"], 1, {a["member_id"]: b"A", b["member_id"]: b"B"})
    assert h.group().is_in(STABLE)
    again = h.join(client="a", instance="ia", version=5)
    new_id = again[0]["member_id"]
    assert again[0]["error_code"] == Errors.NONE and new_id != a["member_id"] and again[0]["generation_id"] == 1
    assert h.group().is_in(STABLE)
    assert h.sync(new_id, 1, instance="ia")[0]["assignment"] == b"A"
    assert h.coordinator.handle_heartbeat("g", a["member_id"], "ia", 1) == Errors.FENCED_INSTANCE_ID
    assert h.coordinator.handle_heartbeat("g", b["member_id"], None, 1) == Errors.NONE


def test_offsets_expire_after_retention_once_group_is_empty():
    h = Harness()
    h.coordinator.handle_commit_offsets("g", "", None, -1, {("t", 0): (5, -1, "", None, None)})
    h.clock.advance(7 * 24 * 3600 - 1)
    assert h.manager.expire_offsets() == 0
    h.clock.advance(2)
    assert h.manager.expire_offsets() == 1
    assert h.manager.get_group("g") is None


def test_deleted_topic_offsets_are_removed():
    h = Harness()
    h.coordinator.handle_commit_offsets(
        "g", "", None, -1, {("t", 0): (5, -1, "", None, None), ("u", 0): (6, -1, "", None, None)}
    )
    h.coordinator.handle_deleted_partitions([("t", 0)])
    assert h.coordinator.handle_fetch_offsets("g", None) == (Errors.NONE, {("u", 0): (6, -1, "")})


def test_append_failure_maps_to_coordinator_errors():
    h = Harness()
    leader, _ = h.stable_pair()
    h.rm.fail_with = Errors.NOT_ENOUGH_REPLICAS
    assert h.coordinator.handle_commit_offsets("g", leader, None, 1, {("t", 0): (1, -1, "", None, None)}).result == {
        ("t", 0): Errors.COORDINATOR_NOT_AVAILABLE
    }
    assert h.coordinator.handle_fetch_offsets("g", None) == (Errors.NONE, {})


def stable_single(h, client="a"):
    joined = h.join(client=client)
    h.clock.advance(3)
    member = joined[0]["member_id"]
    assert h.sync(member, 1, {member: b"all"})[0]["assignment"] == b"all" and h.group().is_in(STABLE)
    return member


def test_member_that_heartbeats_but_never_rejoins_holds_the_rebalance_until_its_rebalance_timeout():
    """The sequence of the broker log of tests/test_real_groups.py: A alone and Stable, B joins; A keeps
    heartbeating (its client waits for the application to poll before rejoining) but never rejoins. As in Kafka
    2.5 the heartbeats keep A's session alive, so B's JoinGroup waits the rebalance timeout (30 s here), then A
    is removed and B leads generation 2 alone."""
    h = Harness()
    first = stable_single(h)
    second = h.join(client="b")
    assert second == [] and h.group().is_in(PREPARING_REBALANCE)
    for _ in range(29):
        h.clock.advance(1)
        assert h.coordinator.handle_heartbeat("g", first, None, 1) == Errors.REBALANCE_IN_PROGRESS
    assert second == [] and h.group().has(first)
    h.clock.advance(1.1)
    result = second[0]
    assert (result["error_code"], result["generation_id"], result["leader"]) == (Errors.NONE, 2, "b-1")
    assert [m["member_id"] for m in result["members"]] == ["b-1"] and not h.group().has(first)
    assert h.coordinator.handle_heartbeat("g", first, None, 1) == Errors.UNKNOWN_MEMBER_ID


def test_rejoin_after_heartbeat_rebalance_in_progress_completes_the_join_at_once_for_both():
    h = Harness()
    first = stable_single(h)
    second = h.join(client="b")
    h.clock.advance(0.5)
    assert h.coordinator.handle_heartbeat("g", first, None, 1) == Errors.REBALANCE_IN_PROGRESS
    assert h.sync(first, 1)[0]["error_code"] == Errors.REBALANCE_IN_PROGRESS
    rejoined = h.join(member_id=first)
    assert [r["generation_id"] for r in rejoined + second] == [2, 2]
    assert rejoined[0]["leader"] == first and len(rejoined[0]["members"]) == 2 and second[0]["members"] == []
    # CompletingRebalance: heartbeats answer REBALANCE_IN_PROGRESS (Kafka 2.5) and syncs complete the generation.
    assert h.coordinator.handle_heartbeat("g", "b-1", None, 2) == Errors.REBALANCE_IN_PROGRESS
    follower_sync = h.sync("b-1", 2)
    h.sync(first, 2, {first: b"A", "b-1": b"B"})
    assert follower_sync[0]["assignment"] == b"B" and h.group().is_in(STABLE)
    assert h.coordinator.handle_heartbeat("g", "b-1", None, 2) == Errors.NONE


def test_member_silent_in_completing_rebalance_is_evicted_after_session_timeout():
    h = Harness()
    leader, follower = h.stable_pair()
    h.join(member_id=leader)  # the leader's JoinGroup in Stable starts a rebalance
    rejoined = h.join(member_id=follower)
    assert rejoined[0]["generation_id"] == 2 and h.group().is_in(COMPLETING_REBALANCE)
    h.clock.advance(10.1)  # nobody syncs: both sessions expire, the group empties
    assert h.group().is_in(EMPTY) and h.group().size() == 0
