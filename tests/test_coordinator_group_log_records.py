"""Batches the coordinator writes to `__consumer_offsets`, and replaying them into groups and offsets."""

import struct

from kafka_zk.coordinator.group.log_records import (
    PartitionReplay,
    group_metadata_batch,
    offset_commit_batch,
    tombstone_batch,
)
from kafka_zk.coordinator.group.offsets import CommittedOffset
from kafka_zk.coordinator.group.records import GroupKey, OffsetKey, decode_key
from kafka_zk.coordinator.group.state import EMPTY, PREPARING_REBALANCE, STABLE, GroupMetadata, MemberMetadata
from kafka_zk.record.compression import GZIP
from kafka_zk.record.records import iter_records


def subscription(*topics):
    data = struct.pack(">hi", 0, len(topics))
    for t in topics:
        data += struct.pack(">h", len(t)) + t.encode()
    return data + struct.pack(">i", -1)


def stable_group():
    group = GroupMetadata("g", now_ms=1)
    group.add_member(
        MemberMetadata("m1", "inst", "c1", "/h1", 60000, 10000, "consumer", [("range", subscription("t"))])
    )
    group.add_member(
        MemberMetadata("m2", None, "c2", "/h2", 60000, 10000, "consumer", [("range", subscription("t", "u"))])
    )
    group.transition_to(PREPARING_REBALANCE, 2)
    group.init_next_generation(3)
    group.transition_to(STABLE, 4)
    return group


def replay(*batches):
    log = b""
    offset = 0
    replayed = PartitionReplay()
    for batch in batches:
        if batch is None:
            continue
        for record in iter_records(batch):
            replayed.add(record._replace(offset=offset))
            offset += 1
        log += batch
    return replayed


def test_commit_batch_holds_one_record_per_partition():
    commits = {("t", 0): CommittedOffset(5, 2, "a", 100), ("t", 1): CommittedOffset(7, -1, "", 100)}
    batch = offset_commit_batch("g", commits, 100, codec=GZIP)
    keys = [decode_key(r.key) for r in iter_records(batch)]
    assert keys == [OffsetKey("g", "t", 0), OffsetKey("g", "t", 1)]


def test_replay_rebuilds_a_stable_group_with_offsets_and_assignments():
    group = stable_group()
    batches = [
        offset_commit_batch("g", {("t", 0): CommittedOffset(5, 0, "x", 10)}, 10),
        group_metadata_batch(group, {"m1": b"A1", "m2": b"A2"}, 20),
        offset_commit_batch("g", {("t", 0): CommittedOffset(9, 0, "y", 30)}, 30),
        offset_commit_batch("other", {("u", 3): CommittedOffset(1, -1, "", 40)}, 40),
    ]
    loaded = replay(*batches).loaded_groups()
    g = loaded["g"]
    assert g.state is STABLE and g.generation_id == 1 and g.protocol == "range" and g.leader_id == "m1"
    assert g.get("m1").assignment == b"A1" and g.get("m2").assignment == b"A2"
    assert g.static_member_id("inst") == "m1"
    assert g.subscribed_topics == {"t", "u"}
    assert g.offsets.get(("t", 0)).offset == 9 and g.offsets.get(("t", 0)).metadata == "y"
    assert loaded["other"].state is EMPTY and loaded["other"].protocol_type is None
    assert loaded["other"].offsets.get(("u", 3)).offset == 1


def test_tombstones_remove_offsets_and_groups():
    group = stable_group()
    replayed = replay(
        offset_commit_batch("g", {("t", 0): CommittedOffset(5), ("t", 1): CommittedOffset(6)}, 10),
        group_metadata_batch(group, {}, 20),
        tombstone_batch("g", [("t", 0)], with_group=False, now_ms=30),
    )
    assert list(replayed.loaded_groups()["g"].offsets.committed) == [("t", 1)]
    replayed = replay(
        offset_commit_batch("g", {("t", 0): CommittedOffset(5)}, 10),
        group_metadata_batch(group, {}, 20),
        tombstone_batch("g", [("t", 0)], with_group=True, now_ms=30),
    )
    assert replayed.loaded_groups() == {}
    assert tombstone_batch("g", [], with_group=False, now_ms=1) is None


def test_empty_group_metadata_loads_as_empty_with_generation():
    group = stable_group()
    group.transition_to(PREPARING_REBALANCE)
    for member_id in list(group.members):
        group.remove_member(member_id)
    group.init_next_generation(50)
    loaded = replay(group_metadata_batch(group, {}, 60)).loaded_groups()["g"]
    assert loaded.state is EMPTY and loaded.generation_id == 2 and loaded.protocol is None
    assert loaded.protocol_type == "consumer" and loaded.state_timestamp_ms == 50


def test_garbage_keys_are_skipped():
    from kafka_zk.record.records import Record

    replayed = PartitionReplay()
    replayed.add(Record(0, 0, b"\x00\x07junk", b"v"))
    replayed.add(Record(1, 0, None, b"v"))
    assert replayed.skipped == 2 and replayed.loaded_groups() == {}
    assert decode_key(b"\x00\x02\x00\x01g") == GroupKey("g")
