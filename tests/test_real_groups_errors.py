"""Group APIs' error codes on three real brokers, through raw requests (Kafka 2.5's codes for bad input), and
__consumer_offsets still decodable and loadable afterwards."""

import struct
import uuid

import pytest
from kazoo.client import KazooClient

from kafka_zk.coordinator.group.records import GroupKey, OffsetKey, decode_group_value, decode_key, decode_offset_value
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import RawConnection, create_led_topic, partition_leaders, read_all, request

OVERRIDES = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "3",
    "group.initial.rebalance.delay.ms": "0",
    "transaction.state.log.num.partitions": "3",
}


cluster = module_cluster(overrides=OVERRIDES)


@pytest.fixture(scope="module")
def topic(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    create_led_topic(bootstrap, "errs", partitions=2, replication_factor=3, timeout=60)
    return "errs"


def coordinator(cluster, group, avoid=None):
    """host:port of the group's coordinator, once a running broker's FindCoordinator names one (not avoid)."""
    asked = next(b for b in cluster.brokers if b.broker_id != avoid)

    def find():
        answer = request(asked.bootstrap, 10, 2, {"key": group, "key_type": 0})
        return answer if answer["error_code"] == 0 and answer["node_id"] != avoid else None

    answer = wait_for(find, 90, interval=0.5, message="a coordinator for %s" % group)
    return "%s:%d" % (answer["host"], answer["port"])


def subscription(*topics):
    data = struct.pack(">hi", 0, len(topics))
    for t in topics:
        data += struct.pack(">h", len(t)) + t.encode()
    return data + struct.pack(">i", -1)


def join_body(group, member_id="", session=10000, protocol_type="consumer", topics=("errs",), instance=None):
    return {
        "group_id": group,
        "session_timeout_ms": session,
        "rebalance_timeout_ms": 10000,
        "member_id": member_id,
        "group_instance_id": instance,
        "protocol_type": protocol_type,
        "protocols": [{"name": "range", "metadata": subscription(*topics)}],
    }


def stable_member(bootstrap, group):
    """Join (v5, static-free: v3 to skip MEMBER_ID_REQUIRED) and sync a one-member group."""
    with RawConnection(bootstrap, timeout=60) as conn:
        joined = conn.request(11, 3, join_body(group))
        assert joined["error_code"] == 0
        synced = conn.request(
            14,
            3,
            {
                "group_id": group,
                "generation_id": joined["generation_id"],
                "member_id": joined["member_id"],
                "group_instance_id": None,
                "assignments": [{"member_id": joined["member_id"], "assignment": b""}],
            },
        )
        assert synced["error_code"] == 0
    return joined["member_id"], joined["generation_id"]


def new_group():
    return "raw-" + uuid.uuid4().hex[:8]


def test_find_coordinator_for_transactions_creates_the_transaction_log_first(cluster):
    answer = request(cluster.brokers[0].bootstrap, 10, 1, {"key": "txn", "key_type": 1})
    assert (answer["error_code"], answer["node_id"]) == (15, -1)  # __transaction_state is created on first use
    found = wait_for(
        lambda: [
            a
            for a in [request(cluster.brokers[0].bootstrap, 10, 1, {"key": "txn", "key_type": 1})]
            if a["error_code"] == 0
        ],
        message="a transaction coordinator",
    )[0]
    assert found["node_id"] in [b.broker_id for b in cluster.brokers]


def test_join_errors(cluster, topic):
    group = new_group()
    bootstrap = coordinator(cluster, group)
    assert request(bootstrap, 11, 5, join_body(""))["error_code"] == 24  # INVALID_GROUP_ID
    assert request(bootstrap, 11, 5, join_body(group, session=5999))["error_code"] == 26  # INVALID_SESSION_TIMEOUT
    assert request(bootstrap, 11, 5, join_body(group, session=1800001))["error_code"] == 26
    assert request(bootstrap, 11, 5, join_body(group, member_id="nobody"))["error_code"] == 25  # UNKNOWN_MEMBER_ID
    first = request(bootstrap, 11, 4, join_body(group))
    assert first["error_code"] == 79 and first["member_id"]  # MEMBER_ID_REQUIRED
    member_id, generation = stable_member(bootstrap, group)
    assert request(bootstrap, 11, 5, join_body(group, protocol_type="connect"))["error_code"] == 23
    heartbeat = {"group_id": group, "generation_id": generation, "member_id": member_id, "group_instance_id": None}
    assert request(bootstrap, 12, 3, heartbeat)["error_code"] == 0
    assert request(bootstrap, 12, 3, dict(heartbeat, generation_id=generation + 5))["error_code"] == 22
    assert request(bootstrap, 12, 3, dict(heartbeat, member_id="ghost"))["error_code"] == 25
    assert request(bootstrap, 12, 3, dict(heartbeat, group_id=""))["error_code"] == 24
    other = request(
        cluster.brokers[0].bootstrap if cluster.brokers[0].bootstrap != bootstrap else cluster.brokers[1].bootstrap,
        12,
        3,
        heartbeat,
    )
    assert other["error_code"] == 16  # NOT_COORDINATOR


def test_commit_fetch_and_delete_errors(cluster, topic):
    group = new_group()
    bootstrap = coordinator(cluster, group)

    def commit(metadata="", generation=-1, member="", name=topic, version=7):
        answer = request(
            bootstrap,
            8,
            version,
            {
                "group_id": group,
                "generation_id": generation,
                "member_id": member,
                "group_instance_id": None,
                "topics": [
                    {
                        "name": name,
                        "partitions": [
                            {
                                "partition_index": 0,
                                "committed_offset": 3,
                                "committed_leader_epoch": -1,
                                "committed_metadata": metadata,
                            }
                        ],
                    }
                ],
            },
        )
        return answer["topics"][0]["partitions"][0]["error_code"]

    assert commit(generation=4) == 22  # ILLEGAL_GENERATION: no such group yet
    assert commit(metadata="m" * 4097) == 12  # OFFSET_METADATA_TOO_LARGE
    assert commit(name="no-such-topic") == 3  # UNKNOWN_TOPIC_OR_PARTITION
    assert commit(metadata="m" * 4096) == 0
    fetched = request(bootstrap, 9, 5, {"group_id": group, "topics": None})
    assert fetched["error_code"] == 0
    assert [
        (t["name"], p["partition_index"], p["committed_offset"]) for t in fetched["topics"] for p in t["partitions"]
    ] == [(topic, 0, 3)]
    member_id, generation = stable_member(bootstrap, group)
    assert commit(generation=generation, member="ghost") == 25
    assert commit(generation=generation + 1, member=member_id) == 22
    assert commit(generation=generation, member=member_id) == 0
    described = request(
        bootstrap, 15, 4, {"groups": [group, "never-seen-" + group], "include_authorized_operations": False}
    )["groups"]
    assert (described[0]["group_state"], described[0]["protocol_data"], len(described[0]["members"])) == (
        "Stable",
        "range",
        1,
    )
    assert (described[1]["error_code"], described[1]["group_state"]) in ((0, "Dead"), (16, ""))
    deleted = request(
        bootstrap, 47, 0, {"group_id": group, "topics": [{"name": topic, "partitions": [{"partition_index": 0}]}]}
    )
    assert deleted["error_code"] == 0 and deleted["topics"][0]["partitions"][0]["error_code"] == 86
    assert request(bootstrap, 42, 1, {"groups_names": [group]})["results"][0]["error_code"] == 68  # NON_EMPTY_GROUP
    left = request(
        bootstrap, 13, 3, {"group_id": group, "members": [{"member_id": member_id, "group_instance_id": None}]}
    )
    assert left["error_code"] == 0 and left["members"][0]["error_code"] == 0
    wait_for(
        lambda: request(bootstrap, 15, 0, {"groups": [group]})["groups"][0]["group_state"] == "Empty",
        30,
        message="group empty after leaving",
    )
    assert request(bootstrap, 42, 1, {"groups_names": [group]})["results"][0]["error_code"] == 0
    assert request(bootstrap, 42, 1, {"groups_names": [group]})["results"][0]["error_code"] == 69  # GROUP_ID_NOT_FOUND
    assert (
        request(bootstrap, 9, 1, {"group_id": group, "topics": [{"name": topic, "partition_indexes": [0]}]})["topics"][
            0
        ]["partitions"][0]["committed_offset"]
        == -1
    )


def test_offset_commit_and_fetch_v0_live_in_zookeeper_on_any_broker(cluster, topic):
    """Kafka 2.5 serves v0 from /consumers/<group>/offsets/<topic>/<partition>, not from the coordinator."""
    group = new_group()
    bootstrap = cluster.brokers[2].bootstrap  # whichever broker: v0 needs no coordinator

    def commit_v0(offset, metadata="", name=topic):
        answer = request(
            bootstrap,
            8,
            0,
            {
                "group_id": group,
                "topics": [
                    {
                        "name": name,
                        "partitions": [
                            {"partition_index": 1, "committed_offset": offset, "committed_metadata": metadata}
                        ],
                    }
                ],
            },
        )
        return answer["topics"][0]["partitions"][0]["error_code"]

    def fetch(version, partitions=(0, 1), name=topic):
        answer = request(
            bootstrap,
            9,
            version,
            {"group_id": group, "topics": [{"name": name, "partition_indexes": list(partitions)}]},
        )
        return [
            (p["partition_index"], p["committed_offset"], p["error_code"]) for p in answer["topics"][0]["partitions"]
        ]

    assert commit_v0(7) == 0 and commit_v0(8, metadata="kept nowhere") == 0
    assert commit_v0(1, metadata="m" * 4097) == 12  # OFFSET_METADATA_TOO_LARGE
    assert commit_v0(1, name="no-such-topic") == 3  # UNKNOWN_TOPIC_OR_PARTITION
    zk = KazooClient(hosts=cluster.zk_connect)
    zk.start()
    try:
        assert zk.get("/consumers/%s/offsets/%s/1" % (group, topic))[0] == b"8"
        zk.create("/consumers/%s/offsets/%s/0" % (group, topic), b"3", makepath=True)  # an old consumer's commit
    finally:
        zk.stop()
        zk.close()
    assert fetch(0) == [(0, 3, 0), (1, 8, 0)]
    assert fetch(0, partitions=(5,)) == [(5, -1, 3)]  # unknown partition
    assert fetch(0, name="no-such-topic") == [(0, -1, 3), (1, -1, 3)]
    coordinator_bootstrap = coordinator(cluster, group)
    answer = request(
        coordinator_bootstrap, 9, 1, {"group_id": group, "topics": [{"name": topic, "partition_indexes": [1]}]}
    )
    assert answer["topics"][0]["partitions"][0]["committed_offset"] == -1  # v1+ reads __consumer_offsets only


def test_oversize_member_metadata_fails_the_sync_and_the_group_recovers(cluster, topic):
    """The group record of a member with 1.2 MB of metadata exceeds __consumer_offsets' max.message.bytes:
    Kafka 2.5's storeGroup maps MESSAGE_TOO_LARGE to UNKNOWN_SERVER_ERROR for SyncGroup and rebalances."""
    group = new_group()
    bootstrap = coordinator(cluster, group)
    oversize = dict(join_body(group), protocols=[{"name": "range", "metadata": b"x" * 1_200_000}])
    with RawConnection(bootstrap, timeout=60) as conn:
        joined = conn.request(11, 3, oversize)
        assert joined["error_code"] == 0 and joined["leader"] == joined["member_id"]
        member_id = joined["member_id"]
        sync = {
            "group_id": group,
            "generation_id": joined["generation_id"],
            "member_id": member_id,
            "group_instance_id": None,
            "assignments": [{"member_id": member_id, "assignment": b""}],
        }
        assert conn.request(14, 3, sync)["error_code"] == -1  # UNKNOWN_SERVER_ERROR
        rejoined = conn.request(11, 3, join_body(group, member_id=member_id))  # ordinary metadata again
        assert rejoined["error_code"] == 0 and rejoined["generation_id"] == joined["generation_id"] + 1
        synced = conn.request(14, 3, dict(sync, generation_id=rejoined["generation_id"]))
        assert synced["error_code"] == 0
    described = request(bootstrap, 15, 0, {"groups": [group]})["groups"][0]
    assert described["group_state"] == "Stable"
    assert [len(m["member_metadata"]) for m in described["members"]] == [len(subscription("errs"))]


def test_consumer_offsets_stays_decodable_and_loads_after_bad_input(cluster, topic):
    """Runs last: after every bad request of this module, each __consumer_offsets record decodes in Kafka's
    formats, and a broker taking over the offsets partition loads the group's commits intact."""
    group = new_group()
    bootstrap = coordinator(cluster, group)

    def commit(metadata, offset=5, generation=-1, member="", group_id=group):
        answer = request(
            bootstrap,
            8,
            7,
            {
                "group_id": group_id,
                "generation_id": generation,
                "member_id": member,
                "group_instance_id": None,
                "topics": [
                    {
                        "name": topic,
                        "partitions": [
                            {
                                "partition_index": 1,
                                "committed_offset": offset,
                                "committed_leader_epoch": -1,
                                "committed_metadata": metadata,
                            }
                        ],
                    }
                ],
            },
        )
        return answer["topics"][0]["partitions"][0]["error_code"]

    assert commit("kept") == 0
    assert commit("m" * 4097, offset=6) == 12  # OFFSET_METADATA_TOO_LARGE: nothing written
    assert commit("x", offset=7, generation=3, member="ghost") == 25  # UNKNOWN_MEMBER_ID (group has no members)
    assert request(bootstrap, 11, 5, join_body(group, session=1))["error_code"] == 26
    assert request(bootstrap, 11, 5, join_body(""))["error_code"] == 24

    leaders = partition_leaders(cluster.brokers[0].bootstrap, "__consumer_offsets")
    decoded = []
    for partition, leader in sorted(leaders.items()):
        for record in read_all(cluster.broker(leader).bootstrap, "__consumer_offsets", partition):
            key = decode_key(record.key)
            value = record.value if record.value is None else bytes(record.value)
            decoded.append(
                (key, decode_offset_value(value) if isinstance(key, OffsetKey) else decode_group_value(value))
            )
    assert decoded and all(isinstance(key, (OffsetKey, GroupKey)) for key, _ in decoded)
    ours = [
        (key.partition, value.offset, value.metadata)
        for key, value in decoded
        if isinstance(key, OffsetKey) and key.group == group
    ]
    assert ours == [(1, 5, "kept")]
    assert all(len(value.metadata) <= 4096 for key, value in decoded if isinstance(key, OffsetKey) and value)
    assert all(
        len(m.subscription) < 1_000_000
        for key, value in decoded
        if isinstance(key, GroupKey) and value
        for m in value.members
    )

    # The coordinator shuts down: the new leader of the offsets partition loads the group from its replica.
    old = next(b for b in cluster.brokers if b.bootstrap == bootstrap)
    old.stop()
    try:
        moved = coordinator(cluster, group, avoid=old.broker_id)
        fetched = request(moved, 9, 5, {"group_id": group, "topics": None})
        assert [
            (t["name"], p["partition_index"], p["committed_offset"], p["metadata"])
            for t in fetched["topics"]
            for p in t["partitions"]
        ] == [(topic, 1, 5, "kept")]
    finally:
        old.start()
