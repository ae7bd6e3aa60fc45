"""The requests test_real_differential_wire sends to Apache Kafka 2.5.1 and to kafka-zk: steps as data, run in order.

A step is a dict:
  name      what the case shows (with "/v<N>" appended per version, it names the compared pair)
  api       the API's name (kafka_zk.protocol.api_keys.API_SPECS)
  versions  ALL (every version both clusters serve), EACH (the repeat's index, clipped to the API's common range),
            or a list of versions
  to        a broker id, "controller", ("group", id) or ("txn", id): where it goes on each cluster
  user      "admin" (a super user, the default) or "alice" (a principal with no ACLs)
  body      the request; a value that is callable is called with the step's variables, a string "$x" is the
            variable x and "$x" inside a longer string is replaced by its text
  save      {variable: path into the response}, read on each cluster from its own answer
  until     a test of the answer (and of the variables, if it takes two arguments): the request is repeated (up to
            15 s) until it holds, and the last answer compared
  when      a test of the variables (the version is "version"): the step is left out where it fails, on both sides
  raw       instead of api/body: a frame sent as bytes (see the test's RAW_FRAMES), for what our codec cannot encode
A repeat {"repeat": name, "apis": [...], "steps": [...]} runs its steps once per index i from 0 to the highest
version any of its APIs has in common, with EACH versions clipped, so a group's or a transaction's whole life is
compared at each version of its APIs.
"""

import struct
import time

from kafka_zk.record.legacy import encode_message_set
from kafka_zk.record.records import Record, encode_batch

ALL = "all"
EACH = "each"

TOPIC = "dw-events"
SMALL = "dw-small"  # max.message.bytes 512
# Records carry this run's time: both clusters get the same bytes, and neither deletes them by retention.ms
# (Kafka's first retention check, 30 s after start, would delete a log of records from years ago, active segment too).
TS = int(time.time() * 1000) // 1000 * 1000
ASSIGNMENT = [
    {"partition_index": 0, "broker_ids": [0, 1, 2]},
    {"partition_index": 1, "broker_ids": [1, 2, 0]},
    {"partition_index": 2, "broker_ids": [2, 0, 1]},
]
PLAIN = encode_batch([(b"k0", b"v0", (), TS), (b"k1", b"v1", (("h", b"x"),), TS + 1)])
LEGACY = encode_message_set([Record(None, TS, b"k0", b"v0"), Record(None, TS + 1, b"k1", b"v1")], magic=1)
CORRUPT = PLAIN[:-3] + bytes([PLAIN[-3] ^ 0xFF]) + PLAIN[-2:]
OVERSIZED = encode_batch([(b"k", b"x" * 1000, (), TS)])


def records_for(variables):
    """Produce before v3 carries magic 0/1 message sets, from v3 batches of magic 2."""
    return LEGACY if variables["version"] < 3 else PLAIN


def idempotent(sequence, pid_offset=0, transactional=False):
    def build(variables):
        return encode_batch(
            [(b"i%d" % sequence, b"seq", (), TS)],
            producer_id=variables["pid"] + pid_offset,
            producer_epoch=variables["epoch"],
            base_sequence=sequence,
            is_transactional=transactional,
        )

    return build


def _string(text):
    data = text.encode()
    return struct.pack(">h", len(data)) + data


SUBSCRIPTION = struct.pack(">hi", 0, 1) + _string(TOPIC) + struct.pack(">i", -1)
ASSIGNMENT_BYTES = struct.pack(">hi", 0, 1) + _string(TOPIC) + struct.pack(">iiii", 3, 0, 1, 2) + struct.pack(">i", -1)


def produce(topic, partition, records, acks=-1, transactional_id=None):
    return {
        "transactional_id": transactional_id,
        "acks": acks,
        "timeout_ms": 10000,
        "topics": [{"name": topic, "partitions": [{"partition_index": partition, "records": records}]}],
    }


def fetch(partitions, isolation=0, session_id=0, epoch=-1, max_bytes=1 << 20):
    """partitions: [(topic, partition, offset, current leader epoch)]."""
    topics = {}
    for topic, partition, offset, leader_epoch in partitions:
        topics.setdefault(topic, []).append(
            {
                "partition": partition,
                "current_leader_epoch": leader_epoch,
                "fetch_offset": offset,
                "log_start_offset": -1,
                "partition_max_bytes": max_bytes,
            }
        )
    return {
        "replica_id": -1,
        "max_wait_ms": 0,
        "min_bytes": 0,
        "max_bytes": max_bytes,
        "isolation_level": isolation,
        "session_id": session_id,
        "session_epoch": epoch,
        "topics": [{"topic": t, "partitions": p} for t, p in topics.items()],
        "forgotten_topics_data": [],
        "rack_id": "",
    }


def list_offsets(partitions, isolation=0):
    """partitions: [(topic, partition, timestamp, current leader epoch)]."""
    topics = {}
    for topic, partition, timestamp, leader_epoch in partitions:
        topics.setdefault(topic, []).append(
            {
                "partition_index": partition,
                "current_leader_epoch": leader_epoch,
                "timestamp": timestamp,
                "max_num_offsets": 10,
            }
        )
    return {
        "replica_id": -1,
        "isolation_level": isolation,
        "topics": [{"name": t, "partitions": p} for t, p in topics.items()],
    }


def partition_of(response):
    return response["responses"][0]["partitions"][0]


def stable(response):
    """A Fetch answer whose partition has no open transaction left (its markers are written)."""
    result = partition_of(response)
    return result["error_code"] == 0 and result["last_stable_offset"] == result["high_watermark"]


def one_up(name, by=1):
    return lambda variables: variables[name] + by


MEMBER = {"member_id": "$member", "group_instance_id": None}

SETUP = [
    {
        "name": "create the topics",
        "api": "CreateTopics",
        "versions": [3],
        "body": {
            "topics": [
                {"name": TOPIC, "num_partitions": -1, "replication_factor": -1, "assignments": ASSIGNMENT},
                {
                    "name": SMALL,
                    "num_partitions": -1,
                    "replication_factor": -1,
                    "assignments": [{"partition_index": 0, "broker_ids": [1, 0, 2]}],
                    "configs": [{"name": "max.message.bytes", "value": "512"}],
                },
            ],
            "timeout_ms": 30000,
        },
    },
    {
        "name": "wait for the leaders",
        "api": "Metadata",
        "versions": [5],
        "body": {"topics": [{"name": TOPIC}, {"name": SMALL}]},
        "until": lambda r: (
            all(p["leader_id"] >= 0 and len(p["isr_nodes"]) == 3 for t in r["topics"] for p in t["partitions"])
            and all(t["error_code"] == 0 for t in r["topics"])
        ),
    },
]

METADATA = [
    {
        "name": "metadata of every topic",
        "api": "Metadata",
        "versions": ALL,
        "body": {"topics": lambda v: [] if v["version"] == 0 else None},
    },
    {
        "name": "metadata of a topic, an unknown and an invalid name",
        "api": "Metadata",
        "versions": ALL,
        "body": {
            "topics": [{"name": TOPIC}, {"name": "dw-unknown"}, {"name": "bad/name"}],
            "allow_auto_topic_creation": False,
            "include_cluster_authorized_operations": True,
            "include_topic_authorized_operations": True,
        },
    },
    {
        "name": "api versions",
        "api": "ApiVersions",
        "versions": ALL,
        "body": {"client_software_name": "diff-wire", "client_software_version": "1.0"},
    },
    {
        "name": "api versions of a client with an invalid software name",
        "api": "ApiVersions",
        "versions": [3],
        "body": {"client_software_name": "bad name!", "client_software_version": "1.0"},
    },
    {"name": "api versions above the highest", "raw": "api_versions_v4"},
    {"name": "metadata above the highest version", "raw": "metadata_v10"},
    {"name": "an unknown api key", "raw": "api_key_99"},
    {"name": "metadata in the middle of a sasl exchange", "raw": "metadata_mid_sasl"},
    {
        "name": "sasl handshake after authentication",
        "api": "SaslHandshake",
        "versions": ALL,
        "body": {"mechanism": "PLAIN"},
    },
    {
        "name": "sasl authenticate after authentication",
        "api": "SaslAuthenticate",
        "versions": ALL,
        "body": {"auth_bytes": b"\0admin\0admin-secret"},
    },
]

TOPICS = [
    {
        "name": "create topics, good and bad",
        "api": "CreateTopics",
        "versions": ALL,
        "body": {
            "topics": [
                {"name": "dw-ct$version", "num_partitions": 2, "replication_factor": 2},
                {"name": "dw-ct$version-as", "num_partitions": -1, "replication_factor": -1, "assignments": ASSIGNMENT},
                {"name": "bad/name", "num_partitions": 1, "replication_factor": 1},
                {"name": "x" * 250, "num_partitions": 1, "replication_factor": 1},
                {"name": "..", "num_partitions": 1, "replication_factor": 1},
                {"name": "dw-rf4", "num_partitions": 1, "replication_factor": 4},
                {"name": "dw-p0", "num_partitions": 0, "replication_factor": 1},
                {"name": "dw-rf0", "num_partitions": 1, "replication_factor": 0},
                {"name": TOPIC, "num_partitions": 1, "replication_factor": 1},
                {
                    "name": "dw-badassign",
                    "num_partitions": -1,
                    "replication_factor": -1,
                    "assignments": [{"partition_index": 0, "broker_ids": [0, 7]}],
                },
                {
                    "name": "dw-badconfig",
                    "num_partitions": 1,
                    "replication_factor": 1,
                    "configs": [{"name": "cleanup.policy", "value": "shred"}],
                },
                {"name": "dw-twice", "num_partitions": 1, "replication_factor": 1},
                {"name": "dw-twice", "num_partitions": 1, "replication_factor": 1},
            ],
            "timeout_ms": 30000,
            "validate_only": False,
        },
    },
    {
        "name": "create topics, validate only",
        "api": "CreateTopics",
        "versions": ALL,
        "when": lambda v: v["version"] >= 1,
        "body": {
            "topics": [
                {"name": "dw-validate", "num_partitions": 2, "replication_factor": 3},
                {"name": "dw-rf4", "num_partitions": 1, "replication_factor": 4},
            ],
            "timeout_ms": 30000,
            "validate_only": True,
        },
    },
    {
        "name": "delete topics, present, unknown and invalid",
        "api": "DeleteTopics",
        "versions": ALL,
        "body": {"topic_names": ["dw-ct$version", "dw-ct$version-as", "dw-unknown", "bad/name"], "timeout_ms": 30000},
    },
    {
        "name": "create partitions",
        "api": "CreatePartitions",
        "versions": ALL,
        "body": {
            "topics": [
                {"name": "dw-cp", "count": 2, "assignments": None},
                {"name": SMALL, "count": 1, "assignments": None},
                {"name": TOPIC, "count": 4, "assignments": [{"broker_ids": [0, 1]}]},
                {"name": TOPIC, "count": 5, "assignments": None},
            ],
            "timeout_ms": 30000,
            "validate_only": True,
        },
    },
]

PRODUCE_FETCH = [
    {
        "name": "produce to a leader",
        "api": "Produce",
        "versions": ALL,
        "to": 0,
        "body": produce(TOPIC, 0, records_for),
    },
    {"name": "produce a magic 2 batch", "api": "Produce", "versions": ALL, "to": 1, "body": produce(TOPIC, 1, PLAIN)},
    {"name": "produce to a follower", "api": "Produce", "versions": [7, 8], "to": 1, "body": produce(TOPIC, 0, PLAIN)},
    {"name": "produce to an unknown topic", "api": "Produce", "versions": [8], "body": produce("dw-unknown", 0, PLAIN)},
    {"name": "produce to an unknown partition", "api": "Produce", "versions": [8], "body": produce(TOPIC, 99, PLAIN)},
    {
        "name": "produce a corrupt batch",
        "api": "Produce",
        "versions": [3, 8],
        "to": 0,
        "body": produce(TOPIC, 0, CORRUPT),
    },
    {
        "name": "produce an oversized batch",
        "api": "Produce",
        "versions": [3, 8],
        "to": 0,
        "body": produce(SMALL, 0, OVERSIZED),
    },
    {
        "name": "produce with acks 2",
        "api": "Produce",
        "versions": [8],
        "to": 0,
        "body": produce(TOPIC, 0, PLAIN, acks=2),
    },
    {
        "name": "produce garbage bytes",
        "api": "Produce",
        "versions": [8],
        "to": 0,
        "body": produce(TOPIC, 0, b"\x00" * 70),
    },
    {
        "name": "produce to an invalid topic name",
        "api": "Produce",
        "versions": [8],
        "body": produce("bad/name", 0, PLAIN),
    },
    {
        "name": "fetch from the start, an unknown partition and topic, and out of range",
        "api": "Fetch",
        "versions": ALL,
        "to": 0,
        "body": fetch([(TOPIC, 0, 0, -1), (TOPIC, 99, 0, -1), ("dw-unknown", 0, 0, -1), (TOPIC, 0, 100000, -1)]),
    },
    {
        "name": "fetch with leader epochs",
        "api": "Fetch",
        "versions": [9, 10, 11],
        "to": 0,
        "body": fetch([(TOPIC, 0, 0, 0), (TOPIC, 0, 0, 5)]),
    },
    {
        "name": "the leader's end of a partition",
        "api": "ListOffsets",
        "versions": [5],
        "to": 0,
        "body": list_offsets([(TOPIC, 0, -1, -1)]),
        "save": {"end": ("topics", 0, "partitions", 0, "offset")},
    },
    {
        "name": "fetch from a follower",
        "api": "Fetch",
        "versions": [10, 11],
        "to": 1,
        "body": fetch([(TOPIC, 0, 0, -1)]),
        # a follower learns the high watermark on its next fetch from the leader
        "until": lambda r, v: partition_of(r)["error_code"] != 0 or partition_of(r)["high_watermark"] == v["end"],
    },
    {
        "name": "fetch, opening a session",
        "api": "Fetch",
        "versions": [11],
        "to": 1,
        "body": fetch([(TOPIC, 1, 0, -1)], epoch=0),
        "save": {"session": ("session_id",)},
    },
    {
        "name": "fetch, the session's next epoch",
        "api": "Fetch",
        "versions": [11],
        "to": 1,
        "body": {**fetch([]), "session_id": "$session", "session_epoch": 1},
    },
    {
        "name": "fetch, the session's wrong epoch",
        "api": "Fetch",
        "versions": [11],
        "to": 1,
        "body": {**fetch([]), "session_id": "$session", "session_epoch": 7},
    },
    {
        "name": "fetch, an unknown session",
        "api": "Fetch",
        "versions": [11],
        "to": 1,
        "body": {**fetch([]), "session_id": 123456, "session_epoch": 1},
    },
    {
        "name": "list offsets: latest, earliest, by time, unknown partition and topic",
        "api": "ListOffsets",
        "versions": ALL,
        "to": 0,
        "body": list_offsets([(TOPIC, 0, -1, -1), (TOPIC, 1, -2, -1), (TOPIC, 99, -1, -1)]),
    },
    {
        "name": "list offsets by time",
        "api": "ListOffsets",
        "versions": ALL,
        "when": lambda v: v["version"] >= 1,
        "to": 0,
        "body": list_offsets([(TOPIC, 0, TS + 1, -1)]),
    },
    {
        "name": "list offsets naming a partition twice",
        "api": "ListOffsets",
        "versions": [1, 5],
        "to": 0,
        "body": list_offsets([(TOPIC, 0, -1, -1), (TOPIC, 0, -2, -1)]),
    },
    {
        "name": "list offsets of a topic not here",
        "api": "ListOffsets",
        "versions": ALL,
        "to": 0,
        "body": list_offsets([("dw-unknown", 0, -1, -1)]),
    },
    {
        "name": "list offsets with a bad leader epoch",
        "api": "ListOffsets",
        "versions": [4, 5],
        "to": 0,
        "body": list_offsets([(TOPIC, 0, -1, 9)]),
    },
    {
        "name": "list offsets on a follower",
        "api": "ListOffsets",
        "versions": [1, 5],
        "to": 1,
        "body": list_offsets([(TOPIC, 0, -1, -1)]),
    },
    {
        "name": "offsets for leader epochs",
        "api": "OffsetForLeaderEpoch",
        "versions": ALL,
        "to": 0,
        "body": {
            "replica_id": -1,
            "topics": [
                {
                    "topic": TOPIC,
                    "partitions": [
                        {"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0},
                        {"partition": 99, "current_leader_epoch": -1, "leader_epoch": 0},
                    ],
                },
                {
                    "topic": "dw-unknown",
                    "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}],
                },
            ],
        },
    },
    {
        "name": "offsets for leader epochs, fenced and unknown epochs",
        "api": "OffsetForLeaderEpoch",
        "versions": [2, 3],
        "to": 0,
        "body": {
            "replica_id": -1,
            "topics": [
                {
                    "topic": TOPIC,
                    "partitions": [
                        {"partition": 0, "current_leader_epoch": 4, "leader_epoch": 0},
                        {"partition": 1, "current_leader_epoch": 0, "leader_epoch": 3},
                    ],
                }
            ],
        },
    },
]

IDEMPOTENT = [
    {
        "name": "init an idempotent producer id",
        "api": "InitProducerId",
        "versions": ALL,
        "to": 0,
        "body": {"transactional_id": None, "transaction_timeout_ms": 60000, "producer_id": -1, "producer_epoch": -1},
        "save": {"pid": ("producer_id",), "epoch": ("producer_epoch",)},
    },
    {
        "name": "idempotent produce",
        "api": "Produce",
        "versions": [8],
        "to": 2,
        "body": produce(TOPIC, 2, idempotent(0)),
    },
    {
        "name": "idempotent produce, a duplicate",
        "api": "Produce",
        "versions": [8],
        "to": 2,
        "body": produce(TOPIC, 2, idempotent(0)),
    },
    {
        "name": "idempotent produce, out of sequence",
        "api": "Produce",
        "versions": [8],
        "to": 2,
        "body": produce(TOPIC, 2, idempotent(5)),
    },
    {
        "name": "idempotent produce, an unknown producer mid-sequence",
        "api": "Produce",
        "versions": [8],
        "to": 2,
        "body": produce(TOPIC, 2, idempotent(3, pid_offset=777)),
    },
]

GROUPS = {
    "repeat": "group",
    "apis": [
        "FindCoordinator",
        "JoinGroup",
        "SyncGroup",
        "Heartbeat",
        "OffsetCommit",
        "OffsetFetch",
        "DescribeGroups",
        "LeaveGroup",
        "DeleteGroups",
    ],
    "steps": [
        {
            "name": "find the group coordinator",
            "api": "FindCoordinator",
            "versions": EACH,
            "body": {"key": "dw-g$i", "key_type": 0},
            "until": lambda r: r["error_code"] == 0,
        },
        {
            "name": "join a new group",
            "api": "JoinGroup",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "session_timeout_ms": 10000,
                "rebalance_timeout_ms": 10000,
                "member_id": "",
                "group_instance_id": None,
                "protocol_type": "consumer",
                "protocols": [{"name": "range", "metadata": SUBSCRIPTION}],
            },
            "save": {"member": ("member_id",), "generation": ("generation_id",)},
        },
        {
            "name": "join again with the member id given",
            "api": "JoinGroup",
            "versions": EACH,
            "when": lambda v: v["version"] >= 4,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "session_timeout_ms": 10000,
                "rebalance_timeout_ms": 10000,
                "member_id": "$member",
                "group_instance_id": None,
                "protocol_type": "consumer",
                "protocols": [{"name": "range", "metadata": SUBSCRIPTION}],
            },
            "save": {"generation": ("generation_id",)},
        },
        {
            "name": "join with a session timeout too small",
            "api": "JoinGroup",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "session_timeout_ms": 10,
                "member_id": "",
                "protocol_type": "consumer",
                "protocols": [{"name": "range", "metadata": SUBSCRIPTION}],
            },
        },
        {
            "name": "sync with the wrong generation",
            "api": "SyncGroup",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "generation_id": one_up("generation"),
                "member_id": "$member",
                "assignments": [],
            },
        },
        {
            "name": "sync the leader's assignment",
            "api": "SyncGroup",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "generation_id": "$generation",
                "member_id": "$member",
                "protocol_type": "consumer",
                "protocol_name": "range",
                "assignments": [{"member_id": "$member", "assignment": ASSIGNMENT_BYTES}],
            },
        },
        {
            "name": "heartbeat",
            "api": "Heartbeat",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {"group_id": "dw-g$i", "generation_id": "$generation", "member_id": "$member"},
        },
        {
            "name": "heartbeat of a wrong generation",
            "api": "Heartbeat",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {"group_id": "dw-g$i", "generation_id": one_up("generation"), "member_id": "$member"},
        },
        {
            "name": "heartbeat of an unknown member",
            "api": "Heartbeat",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {"group_id": "dw-g$i", "generation_id": "$generation", "member_id": "dw-nobody"},
        },
        {
            "name": "heartbeat to a group not here",
            "api": "Heartbeat",
            "versions": EACH,
            "to": ("group", "dw-nogroup"),
            "body": {"group_id": "dw-nogroup", "generation_id": 1, "member_id": "dw-nobody"},
        },
        {
            "name": "commit offsets",
            "api": "OffsetCommit",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "generation_id": "$generation",
                "member_id": "$member",
                "retention_time_ms": -1,
                "topics": [
                    {
                        "name": TOPIC,
                        "partitions": [
                            {
                                "partition_index": 0,
                                "committed_offset": 2,
                                "committed_leader_epoch": 0,
                                "commit_timestamp": -1,
                                "committed_metadata": "m",
                            },
                            {
                                "partition_index": 1,
                                "committed_offset": 1,
                                "committed_leader_epoch": -1,
                                "commit_timestamp": -1,
                                "committed_metadata": None,
                            },
                        ],
                    },
                    {
                        "name": "dw-unknown",
                        "partitions": [{"partition_index": 0, "committed_offset": 1, "commit_timestamp": -1}],
                    },
                ],
            },
        },
        {
            "name": "commit offsets with metadata too large",
            "api": "OffsetCommit",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "generation_id": "$generation",
                "member_id": "$member",
                "retention_time_ms": -1,
                "topics": [
                    {
                        "name": TOPIC,
                        "partitions": [
                            {
                                "partition_index": 2,
                                "committed_offset": 1,
                                "commit_timestamp": -1,
                                "committed_metadata": "m" * 5000,
                            }
                        ],
                    }
                ],
            },
        },
        {
            "name": "commit offsets of a wrong generation and unknown member",
            "api": "OffsetCommit",
            "versions": EACH,
            "when": lambda v: v["version"] >= 1,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "generation_id": one_up("generation", 5),
                "member_id": "dw-nobody",
                "retention_time_ms": -1,
                "topics": [
                    {
                        "name": TOPIC,
                        "partitions": [{"partition_index": 0, "committed_offset": 1, "commit_timestamp": -1}],
                    }
                ],
            },
        },
        {
            "name": "fetch offsets",
            "api": "OffsetFetch",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "topics": [
                    {"name": TOPIC, "partition_indexes": [0, 1, 2]},
                    {"name": "dw-unknown", "partition_indexes": [0]},
                ],
            },
        },
        {
            "name": "fetch every offset of the group",
            "api": "OffsetFetch",
            "versions": EACH,
            "when": lambda v: v["version"] >= 2,
            "to": ("group", "dw-g$i"),
            "body": {"group_id": "dw-g$i", "topics": None},
        },
        {
            "name": "describe the group",
            "api": "DescribeGroups",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {"groups": ["dw-g$i"], "include_authorized_operations": True},
        },
        {
            "name": "leave the group",
            "api": "LeaveGroup",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {"group_id": "dw-g$i", "member_id": "$member", "members": [MEMBER]},
        },
        {
            "name": "leave, an unknown member",
            "api": "LeaveGroup",
            "versions": EACH,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "member_id": "dw-nobody",
                "members": [{"member_id": "dw-nobody", "group_instance_id": None}],
            },
        },
        {
            "name": "delete a committed offset",
            "api": "OffsetDelete",
            "versions": ALL,
            "when": lambda v: v["i"] == 2,
            "to": ("group", "dw-g$i"),
            "body": {
                "group_id": "dw-g$i",
                "topics": [{"name": TOPIC, "partitions": [{"partition_index": 0}, {"partition_index": 9}]}],
            },
        },
        {
            "name": "delete the group",
            "api": "DeleteGroups",
            "versions": EACH,
            "when": lambda v: v["i"] in (0, 1, 2, 4),
            "to": ("group", "dw-g$i"),
            "body": {"groups_names": ["dw-g$i"]},
        },
    ],
}

GROUP_LISTS = [
    # Which broker leads which offsets partition differs (Kafka places replicas from a random start): each list is
    # asked of the coordinator of a named group, so both list the groups of the same offsets partition.
    {"name": "list groups", "api": "ListGroups", "versions": ALL, "to": ("group", "dw-g0"), "body": {}},
    {"name": "list groups", "api": "ListGroups", "versions": ALL, "to": ("group", "dw-g1"), "body": {}},
    {"name": "list groups", "api": "ListGroups", "versions": ALL, "to": ("group", "dw-g2"), "body": {}},
    {
        "name": "describe groups: one left empty",
        "api": "DescribeGroups",
        "versions": [5],
        "to": ("group", "dw-g3"),
        "body": {"groups": ["dw-g3"], "include_authorized_operations": False},
    },
]

TRANSACTIONS = {
    "repeat": "transaction",
    "apis": ["InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn"],
    "steps": [
        {
            "name": "find the transaction coordinator",
            "api": "FindCoordinator",
            "versions": [1],
            "body": {"key": "dw-tx$i", "key_type": 1},
            "until": lambda r: r["error_code"] == 0,
        },
        {
            "name": "init a transactional producer id",
            "api": "InitProducerId",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "transaction_timeout_ms": 60000,
                "producer_id": -1,
                "producer_epoch": -1,
            },
            "save": {"pid": ("producer_id",), "epoch": ("producer_epoch",)},
        },
        {
            "name": "add a partition to the transaction",
            "api": "AddPartitionsToTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": "$pid",
                "producer_epoch": "$epoch",
                "topics": [{"name": TOPIC, "partitions": [2]}],
            },
        },
        {
            "name": "add partitions with a fenced epoch",
            "api": "AddPartitionsToTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": "$pid",
                "producer_epoch": one_up("epoch"),
                "topics": [{"name": TOPIC, "partitions": [1]}],
            },
        },
        {
            "name": "add partitions with an unknown producer id",
            "api": "AddPartitionsToTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": one_up("pid", 999),
                "producer_epoch": "$epoch",
                "topics": [{"name": TOPIC, "partitions": [1]}],
            },
        },
        {
            "name": "add an unknown topic's partition",
            "api": "AddPartitionsToTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": "$pid",
                "producer_epoch": "$epoch",
                "topics": [{"name": "dw-unknown", "partitions": [0]}, {"name": TOPIC, "partitions": [2]}],
            },
        },
        {
            "name": "transactional produce",
            "api": "Produce",
            "versions": [8],
            "to": 2,
            "body": produce(TOPIC, 2, idempotent(0, transactional=True), transactional_id="dw-tx$i"),
        },
        {
            "name": "add offsets to the transaction",
            "api": "AddOffsetsToTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": "$pid",
                "producer_epoch": "$epoch",
                "group_id": "dw-txg$i",
            },
        },
        {
            "name": "find the transaction's group coordinator",
            "api": "FindCoordinator",
            "versions": [1],
            "body": {"key": "dw-txg$i", "key_type": 0},
            "until": lambda r: r["error_code"] == 0,
        },
        {
            "name": "commit offsets in the transaction",
            "api": "TxnOffsetCommit",
            "versions": EACH,
            "to": ("group", "dw-txg$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "group_id": "dw-txg$i",
                "producer_id": "$pid",
                "producer_epoch": "$epoch",
                "generation_id": -1,
                "member_id": "",
                "topics": [
                    {
                        "name": TOPIC,
                        "partitions": [
                            {
                                "partition_index": 0,
                                "committed_offset": 1,
                                "committed_leader_epoch": -1,
                                "committed_metadata": "",
                            }
                        ],
                    }
                ],
            },
        },
        {
            "name": "end the transaction of another producer id",
            "api": "EndTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": one_up("pid", 3),
                "producer_epoch": "$epoch",
                "committed": True,
            },
        },
        {
            "name": "end the transaction",
            "api": "EndTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx$i"),
            "body": {
                "transactional_id": "dw-tx$i",
                "producer_id": "$pid",
                "producer_epoch": "$epoch",
                "committed": lambda v: v["i"] % 2 == 0,
            },
        },
        {
            "name": "end an unknown transactional id",
            "api": "EndTxn",
            "versions": EACH,
            "to": ("txn", "dw-tx-none"),
            "body": {
                "transactional_id": "dw-tx-none",
                "producer_id": "$pid",
                "producer_epoch": "$epoch",
                "committed": True,
            },
        },
        {
            "name": "read committed once the markers are written",
            "api": "Fetch",
            "versions": [11],
            "to": 2,
            "body": fetch([(TOPIC, 2, 0, -1)], isolation=1),
            "until": stable,
        },
    ],
}

TRANSACTION_ENDS = [
    {
        "name": "init producer id of a transactional id whose epoch is fenced",
        "api": "InitProducerId",
        "versions": [3],
        "to": ("txn", "dw-tx3"),
        "body": {
            "transactional_id": "dw-tx3",
            "transaction_timeout_ms": 60000,
            "producer_id": one_up("pid", 5),
            "producer_epoch": 0,
        },
        # CONCURRENT_TRANSACTIONS (retriable) while the coordinator still completes the last commit, as clients retry
        "until": lambda r: r["error_code"] != 51,
    },
    {
        "name": "init producer id with a timeout too large",
        "api": "InitProducerId",
        "versions": [3],
        "to": ("txn", "dw-tx3"),
        "body": {
            "transactional_id": "dw-tx3",
            "transaction_timeout_ms": 999999999,
            "producer_id": -1,
            "producer_epoch": -1,
        },
    },
    {
        "name": "read committed with an aborted transaction",
        "api": "Fetch",
        "versions": ALL,
        "when": lambda v: v["version"] >= 4,
        "to": 2,
        "body": fetch([(TOPIC, 2, 0, -1)], isolation=1),
    },
    {
        "name": "list offsets, read committed",
        "api": "ListOffsets",
        "versions": [2, 5],
        "to": 2,
        "body": list_offsets([(TOPIC, 2, -1, -1)], isolation=1),
    },
]

DELETE_RECORDS = [
    {
        "name": "delete records, good and out of range",
        "api": "DeleteRecords",
        "versions": ALL,
        "to": 1,
        "body": {
            "topics": [
                {
                    "name": TOPIC,
                    "partitions": [{"partition_index": 1, "offset": "$version"}, {"partition_index": 0, "offset": 1}],
                },
                {"name": "dw-unknown", "partitions": [{"partition_index": 0, "offset": 1}]},
            ],
            "timeout_ms": 10000,
        },
    },
    {
        "name": "delete records past the end",
        "api": "DeleteRecords",
        "versions": [1],
        "to": 1,
        "body": {
            "topics": [{"name": TOPIC, "partitions": [{"partition_index": 1, "offset": 100000}]}],
            "timeout_ms": 10000,
        },
    },
    {
        "name": "earliest offset after delete records",
        "api": "ListOffsets",
        "versions": [5],
        "to": 1,
        "body": list_offsets([(TOPIC, 1, -2, -1)]),
    },
    {
        "name": "fetch below the log start",
        "api": "Fetch",
        "versions": [11],
        "to": 1,
        "body": fetch([(TOPIC, 1, 0, -1)]),
    },
]

CONFIGS = [
    {
        "name": "describe configs of a topic, a broker, unknown ones",
        "api": "DescribeConfigs",
        "versions": ALL,
        "body": {
            "resources": [
                {"resource_type": 2, "resource_name": SMALL, "configuration_keys": None},
                {
                    "resource_type": 4,
                    "resource_name": "0",
                    "configuration_keys": [
                        "num.partitions",
                        "message.max.bytes",
                        "min.insync.replicas",
                        "log.retention.hours",
                        "auto.create.topics.enable",
                    ],
                },
                {"resource_type": 2, "resource_name": "dw-unknown", "configuration_keys": None},
                {"resource_type": 4, "resource_name": "1", "configuration_keys": ["num.partitions"]},
            ],
            "include_synonyms": True,
        },
    },
    {
        "name": "alter configs",
        "api": "AlterConfigs",
        "versions": ALL,
        "body": {
            "resources": [
                {
                    "resource_type": 2,
                    "resource_name": SMALL,
                    "configs": [
                        {"name": "max.message.bytes", "value": "512"},
                        {"name": "retention.ms", "value": "8640000$version"},
                    ],
                },
                {
                    "resource_type": 2,
                    "resource_name": "dw-unknown",
                    "configs": [{"name": "retention.ms", "value": "1"}],
                },
                {"resource_type": 2, "resource_name": TOPIC, "configs": [{"name": "no.such.config", "value": "1"}]},
                {"resource_type": 2, "resource_name": TOPIC, "configs": [{"name": "retention.ms", "value": "soon"}]},
            ],
            "validate_only": False,
        },
    },
    {
        "name": "incremental alter configs",
        "api": "IncrementalAlterConfigs",
        "versions": ALL,
        "body": {
            "resources": [
                {
                    "resource_type": 2,
                    "resource_name": SMALL,
                    "configs": [{"name": "cleanup.policy", "config_operation": 2, "value": "compact"}],
                },
                {
                    "resource_type": 2,
                    "resource_name": TOPIC,
                    "configs": [{"name": "retention.ms", "config_operation": 2, "value": "5"}],
                },
                {
                    "resource_type": 2,
                    "resource_name": "dw-unknown",
                    "configs": [{"name": "retention.ms", "config_operation": 0, "value": "5"}],
                },
            ],
            "validate_only": False,
        },
    },
    {
        "name": "describe configs after the alters",
        "api": "DescribeConfigs",
        "versions": [2],
        "body": {
            "resources": [
                {
                    "resource_type": 2,
                    "resource_name": SMALL,
                    "configuration_keys": ["retention.ms", "cleanup.policy", "max.message.bytes"],
                }
            ],
            "include_synonyms": True,
        },
    },
    {
        "name": "describe log dirs",
        "api": "DescribeLogDirs",
        "versions": ALL,
        "to": 0,
        "body": {"topics": [{"topic": SMALL, "partition_index": [0]}]},
    },
    {
        "name": "alter replica log dirs to a dir not here",
        "api": "AlterReplicaLogDirs",
        "versions": ALL,
        "to": 0,
        "body": {"dirs": [{"path": "/nonexistent/dir", "topics": [{"name": SMALL, "partitions": [0]}]}]},
    },
    {
        "name": "elect preferred leaders",
        "api": "ElectLeaders",
        "versions": ALL,
        "body": {
            "election_type": 0,
            "topic_partitions": [
                {"topic": TOPIC, "partition_id": [0, 99]},
                {"topic": "dw-unknown", "partition_id": [0]},
            ],
            "timeout_ms": 10000,
        },
    },
    {
        "name": "reassignments: cancel none, unknown topic",
        "api": "AlterPartitionReassignments",
        "versions": ALL,
        "body": {
            "timeout_ms": 10000,
            "topics": [
                {"name": TOPIC, "partitions": [{"partition_index": 0, "replicas": None}]},
                {"name": "dw-unknown", "partitions": [{"partition_index": 0, "replicas": [0]}]},
            ],
        },
    },
    {
        "name": "reassignments: invalid replicas",
        "api": "AlterPartitionReassignments",
        "versions": ALL,
        "body": {
            "timeout_ms": 10000,
            "topics": [
                {
                    "name": TOPIC,
                    "partitions": [{"partition_index": 0, "replicas": [0, 0]}, {"partition_index": 1, "replicas": [7]}],
                }
            ],
        },
    },
    {
        "name": "list reassignments",
        "api": "ListPartitionReassignments",
        "versions": ALL,
        "body": {"timeout_ms": 10000, "topics": None},
    },
]

ACL_FILTER = {
    "resource_type_filter": 1,
    "resource_name_filter": None,
    "pattern_type_filter": 1,
    "principal_filter": "User:carol",
    "host_filter": None,
    "operation": 1,
    "permission_type": 1,
}

CAROL = {
    "resource_type": 2,
    "resource_name": "x",
    "resource_pattern_type": 3,
    "principal": "User:carol",
    "host": "*",
    "operation": 3,
    "permission_type": 3,
}

ACLS = [
    {
        "name": "create acls",
        "api": "CreateAcls",
        "versions": ALL,
        "to": 0,
        "body": {
            "creations": [
                {
                    "resource_type": 2,
                    "resource_name": "dw-acl-$version",
                    "resource_pattern_type": 3,
                    "principal": "User:carol",
                    "host": "*",
                    "operation": 3,
                    "permission_type": 3,
                },
                {
                    "resource_type": 2,
                    "resource_name": "dw-pre-",
                    "resource_pattern_type": 4,
                    "principal": "User:carol",
                    "host": "*",
                    "operation": 4,
                    "permission_type": 2,
                },
            ]
        },
    },
    {
        "name": "create an acl of an unknown resource type",
        "api": "CreateAcls",
        "versions": ALL,
        "to": 0,
        "body": {"creations": [{**CAROL, "resource_type": 0}]},
    },
    {
        "name": "create an acl of a principal without a type",
        "api": "CreateAcls",
        "versions": ALL,
        "to": 0,
        "body": {"creations": [{**CAROL, "principal": "carol"}]},
    },
    {"name": "describe acls", "api": "DescribeAcls", "versions": ALL, "to": 0, "body": ACL_FILTER},
    {
        "name": "describe acls, an unknown filter",
        "api": "DescribeAcls",
        "versions": ALL,
        "to": 0,
        "body": {**ACL_FILTER, "resource_type_filter": 0},
    },
    {
        "name": "delete acls",
        "api": "DeleteAcls",
        "versions": ALL,
        "to": 0,
        "body": {"filters": [{**ACL_FILTER, "resource_name_filter": "dw-acl-$version"}]},
    },
]

TOKENS = {
    "repeat": "token",
    "apis": ["CreateDelegationToken", "RenewDelegationToken", "DescribeDelegationToken", "ExpireDelegationToken"],
    "steps": [
        {
            "name": "create a delegation token",
            "api": "CreateDelegationToken",
            "versions": EACH,
            "to": 0,
            "body": {"renewers": [{"principal_type": "User", "principal_name": "admin"}], "max_lifetime_ms": -1},
            "save": {"hmac": ("hmac",)},
        },
        {
            "name": "renew the token",
            "api": "RenewDelegationToken",
            "versions": EACH,
            "to": 0,
            "body": {"hmac": "$hmac", "renew_period_ms": -1},
        },
        {
            "name": "renew an unknown token",
            "api": "RenewDelegationToken",
            "versions": EACH,
            "to": 0,
            "body": {"hmac": b"nope", "renew_period_ms": -1},
        },
        {
            "name": "describe the tokens",
            "api": "DescribeDelegationToken",
            "versions": EACH,
            "to": 0,
            "body": {"owners": None},
        },
        {
            "name": "expire the token",
            "api": "ExpireDelegationToken",
            "versions": EACH,
            "to": 0,
            "body": {"hmac": "$hmac", "expiry_time_period_ms": -1},
        },
        {
            "name": "expire it again",
            "api": "ExpireDelegationToken",
            "versions": EACH,
            "to": 0,
            "body": {"hmac": "$hmac", "expiry_time_period_ms": -1},
        },
    ],
}

ALICE = [
    {
        "name": "alice: metadata",
        "api": "Metadata",
        "versions": [1, 9],
        "user": "alice",
        "body": {"topics": [{"name": TOPIC}, {"name": "dw-unknown"}], "include_cluster_authorized_operations": True},
    },
    {
        "name": "alice: metadata of every topic",
        "api": "Metadata",
        "versions": [9],
        "user": "alice",
        "body": {"topics": None},
    },
    {
        "name": "alice: produce",
        "api": "Produce",
        "versions": [8],
        "user": "alice",
        "to": 0,
        "body": produce(TOPIC, 0, PLAIN),
    },
    {
        "name": "alice: transactional produce",
        "api": "Produce",
        "versions": [8],
        "user": "alice",
        "to": 0,
        "body": produce(TOPIC, 0, PLAIN, transactional_id="dw-alice"),
    },
    {
        "name": "alice: fetch",
        "api": "Fetch",
        "versions": [11],
        "user": "alice",
        "to": 0,
        "body": fetch([(TOPIC, 0, 0, -1)]),
    },
    {
        "name": "alice: list offsets",
        "api": "ListOffsets",
        "versions": [5],
        "user": "alice",
        "to": 0,
        "body": list_offsets([(TOPIC, 0, -1, -1)]),
    },
    {
        "name": "alice: create topics",
        "api": "CreateTopics",
        "versions": [5],
        "user": "alice",
        "body": {"topics": [{"name": "dw-alice", "num_partitions": 1, "replication_factor": 1}], "timeout_ms": 30000},
    },
    {
        "name": "alice: delete topics",
        "api": "DeleteTopics",
        "versions": [4],
        "user": "alice",
        "body": {"topic_names": [TOPIC, "dw-unknown"], "timeout_ms": 30000},
    },
    {
        "name": "alice: find a group coordinator",
        "api": "FindCoordinator",
        "versions": [3],
        "user": "alice",
        "body": {"key": "dw-g1", "key_type": 0},
    },
    {
        "name": "alice: find a transaction coordinator",
        "api": "FindCoordinator",
        "versions": [3],
        "user": "alice",
        "body": {"key": "dw-tx1", "key_type": 1},
    },
    {
        "name": "alice: join a group",
        "api": "JoinGroup",
        "versions": [7],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {
            "group_id": "dw-g1",
            "session_timeout_ms": 10000,
            "rebalance_timeout_ms": 10000,
            "member_id": "",
            "protocol_type": "consumer",
            "protocols": [{"name": "range", "metadata": SUBSCRIPTION}],
        },
    },
    {
        "name": "alice: commit offsets",
        "api": "OffsetCommit",
        "versions": [8],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {
            "group_id": "dw-g1",
            "generation_id": -1,
            "member_id": "",
            "topics": [{"name": TOPIC, "partitions": [{"partition_index": 0, "committed_offset": 1}]}],
        },
    },
    {
        "name": "alice: fetch offsets",
        "api": "OffsetFetch",
        "versions": [7],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {"group_id": "dw-g1", "topics": None},
    },
    {
        "name": "alice: describe groups",
        "api": "DescribeGroups",
        "versions": [5],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {"groups": ["dw-g1"]},
    },
    {
        "name": "alice: list groups",
        "api": "ListGroups",
        "versions": [3],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {},
    },
    {
        "name": "alice: delete groups",
        "api": "DeleteGroups",
        "versions": [2],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {"groups_names": ["dw-g1"]},
    },
    {
        "name": "alice: delete an offset",
        "api": "OffsetDelete",
        "versions": [0],
        "user": "alice",
        "to": ("group", "dw-g1"),
        "body": {"group_id": "dw-g1", "topics": [{"name": TOPIC, "partitions": [{"partition_index": 1}]}]},
    },
    {
        "name": "alice: init a transactional producer id",
        "api": "InitProducerId",
        "versions": [3],
        "user": "alice",
        "to": ("txn", "dw-tx1"),
        "body": {
            "transactional_id": "dw-tx1",
            "transaction_timeout_ms": 60000,
            "producer_id": -1,
            "producer_epoch": -1,
        },
    },
    {
        "name": "alice: init an idempotent producer id",
        "api": "InitProducerId",
        "versions": [3],
        "user": "alice",
        "body": {"transactional_id": None, "transaction_timeout_ms": 60000, "producer_id": -1, "producer_epoch": -1},
    },
    {
        "name": "alice: add partitions to a transaction",
        "api": "AddPartitionsToTxn",
        "versions": [1],
        "user": "alice",
        "to": ("txn", "dw-tx1"),
        "body": {
            "transactional_id": "dw-tx1",
            "producer_id": 1,
            "producer_epoch": 0,
            "topics": [{"name": TOPIC, "partitions": [0]}],
        },
    },
    {
        "name": "alice: end a transaction",
        "api": "EndTxn",
        "versions": [1],
        "user": "alice",
        "to": ("txn", "dw-tx1"),
        "body": {"transactional_id": "dw-tx1", "producer_id": 1, "producer_epoch": 0, "committed": True},
    },
    {
        "name": "alice: delete records",
        "api": "DeleteRecords",
        "versions": [1],
        "user": "alice",
        "to": 0,
        "body": {"topics": [{"name": TOPIC, "partitions": [{"partition_index": 0, "offset": 1}]}], "timeout_ms": 10000},
    },
    {
        "name": "alice: offsets for leader epochs",
        "api": "OffsetForLeaderEpoch",
        "versions": [3],
        "user": "alice",
        "to": 0,
        "body": {
            "replica_id": -1,
            "topics": [
                {"topic": TOPIC, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]}
            ],
        },
    },
    {
        "name": "alice: describe configs",
        "api": "DescribeConfigs",
        "versions": [2],
        "user": "alice",
        "body": {
            "resources": [
                {"resource_type": 2, "resource_name": TOPIC, "configuration_keys": None},
                {"resource_type": 4, "resource_name": "0", "configuration_keys": None},
            ]
        },
    },
    {
        "name": "alice: alter configs",
        "api": "AlterConfigs",
        "versions": [1],
        "user": "alice",
        "body": {
            "resources": [
                {"resource_type": 2, "resource_name": TOPIC, "configs": [{"name": "retention.ms", "value": "1"}]},
                {"resource_type": 4, "resource_name": "0", "configs": []},
            ]
        },
    },
    {
        "name": "alice: incremental alter configs",
        "api": "IncrementalAlterConfigs",
        "versions": [1],
        "user": "alice",
        "body": {
            "resources": [
                {
                    "resource_type": 2,
                    "resource_name": TOPIC,
                    "configs": [{"name": "retention.ms", "config_operation": 0, "value": "1"}],
                }
            ]
        },
    },
    {
        "name": "alice: create partitions",
        "api": "CreatePartitions",
        "versions": [2],
        "user": "alice",
        "body": {"topics": [{"name": TOPIC, "count": 5, "assignments": None}], "timeout_ms": 10000},
    },
    {
        "name": "alice: elect leaders",
        "api": "ElectLeaders",
        "versions": [2],
        "user": "alice",
        "body": {"election_type": 0, "topic_partitions": None, "timeout_ms": 10000},
    },
    {"name": "alice: describe acls", "api": "DescribeAcls", "versions": [2], "user": "alice", "body": ACL_FILTER},
    {
        "name": "alice: create acls",
        "api": "CreateAcls",
        "versions": [2],
        "user": "alice",
        "body": {
            "creations": [
                {
                    "resource_type": 2,
                    "resource_name": "t",
                    "resource_pattern_type": 3,
                    "principal": "User:alice",
                    "host": "*",
                    "operation": 2,
                    "permission_type": 3,
                }
            ]
        },
    },
    {
        "name": "alice: delete acls",
        "api": "DeleteAcls",
        "versions": [2],
        "user": "alice",
        "body": {"filters": [ACL_FILTER]},
    },
    {
        "name": "alice: describe log dirs",
        "api": "DescribeLogDirs",
        "versions": [1],
        "user": "alice",
        "to": 0,
        "body": {"topics": None},
    },
    {
        "name": "alice: alter replica log dirs",
        "api": "AlterReplicaLogDirs",
        "versions": [1],
        "user": "alice",
        "to": 0,
        "body": {"dirs": [{"path": "/nonexistent/dir", "topics": [{"name": TOPIC, "partitions": [0]}]}]},
    },
    {
        "name": "alice: alter reassignments",
        "api": "AlterPartitionReassignments",
        "versions": [0],
        "user": "alice",
        "body": {
            "timeout_ms": 10000,
            "topics": [{"name": TOPIC, "partitions": [{"partition_index": 0, "replicas": None}]}],
        },
    },
    {
        "name": "alice: list reassignments",
        "api": "ListPartitionReassignments",
        "versions": [0],
        "user": "alice",
        "body": {"timeout_ms": 10000, "topics": None},
    },
    {
        "name": "alice: create a delegation token",
        "api": "CreateDelegationToken",
        "versions": [2],
        "user": "alice",
        "body": {"renewers": [], "max_lifetime_ms": -1},
    },
    {
        "name": "alice: describe delegation tokens",
        "api": "DescribeDelegationToken",
        "versions": [2],
        "user": "alice",
        "body": {"owners": None},
    },
    {
        "name": "alice: write txn markers",
        "api": "WriteTxnMarkers",
        "versions": [0],
        "user": "alice",
        "to": 0,
        "body": {"markers": []},
    },
    {
        "name": "alice: leader and isr",
        "api": "LeaderAndIsr",
        "versions": [4],
        "user": "alice",
        "to": 0,
        "body": {"controller_id": 0, "controller_epoch": 1, "broker_epoch": -1},
    },
    {
        "name": "alice: controlled shutdown",
        "api": "ControlledShutdown",
        "versions": [3],
        "user": "alice",
        "to": "controller",
        "body": {"broker_id": 99, "broker_epoch": 0},
    },
]

_STALE_PARTITION = {
    "topic_name": "dw-none",
    "partition_index": 0,
    "controller_epoch": 0,
    "leader": 0,
    "leader_epoch": 0,
    "isr": [0],
    "zk_version": 0,
    "replicas": [0],
    "offline_replicas": [],
}

CONTROLLER_APIS = [
    {
        "name": "write txn markers for an unknown topic",
        "api": "WriteTxnMarkers",
        "versions": ALL,
        "to": 0,
        "body": {
            "markers": [
                {
                    "producer_id": 4242,
                    "producer_epoch": 0,
                    "transaction_result": True,
                    "topics": [{"name": "dw-none", "partition_indexes": [0]}],
                    "coordinator_epoch": 0,
                }
            ]
        },
    },
    {
        "name": "leader and isr from a stale controller",
        "api": "LeaderAndIsr",
        "versions": ALL,
        "to": 0,
        "body": {
            "controller_id": 0,
            "controller_epoch": 0,
            "broker_epoch": 0,
            "ungrouped_partition_states": [_STALE_PARTITION],
            "topic_states": [{"topic_name": "dw-none", "partition_states": [_STALE_PARTITION]}],
            "live_leaders": [{"broker_id": 0, "host_name": "localhost", "port": 1}],
        },
    },
    {
        "name": "update metadata from a stale controller",
        "api": "UpdateMetadata",
        "versions": ALL,
        "to": 0,
        "body": {
            "controller_id": 0,
            "controller_epoch": 0,
            "broker_epoch": 0,
            "ungrouped_partition_states": [_STALE_PARTITION],
            "topic_states": [{"topic_name": "dw-none", "partition_states": [_STALE_PARTITION]}],
            "live_brokers": [],
        },
    },
    {
        "name": "stop replica from a stale controller",
        "api": "StopReplica",
        "versions": ALL,
        "to": 0,
        "body": {
            "controller_id": 0,
            "controller_epoch": 0,
            "broker_epoch": 0,
            "delete_partitions": False,
            "ungrouped_partitions": [{"topic_name": "dw-none", "partition_index": 0}],
            "topics": [{"name": "dw-none", "partition_indexes": [0]}],
        },
    },
    {
        "name": "controlled shutdown of a broker not here",
        "api": "ControlledShutdown",
        "versions": ALL,
        "to": "controller",
        "body": {"broker_id": 99, "broker_epoch": 0},
    },
    {
        "name": "controlled shutdown sent to a broker not the controller",
        "api": "ControlledShutdown",
        "versions": [3],
        "to": "not controller",
        "body": {"broker_id": 99, "broker_epoch": 0},
    },
]

NOT_CONTROLLER = [
    {
        "name": "create topics sent to a broker not the controller",
        "api": "CreateTopics",
        "versions": [0, 1, 5],
        "to": "not controller",
        "body": {
            "topics": [{"name": "dw-elsewhere", "num_partitions": 1, "replication_factor": 1}],
            "timeout_ms": 30000,
        },
    },
    {
        "name": "delete topics sent to a broker not the controller",
        "api": "DeleteTopics",
        "versions": [0, 4],
        "to": "not controller",
        "body": {"topic_names": [TOPIC], "timeout_ms": 30000},
    },
    {
        "name": "create partitions sent to a broker not the controller",
        "api": "CreatePartitions",
        "versions": [0, 2],
        "to": "not controller",
        "body": {
            "topics": [{"name": TOPIC, "count": 5, "assignments": None}],
            "timeout_ms": 30000,
            "validate_only": True,
        },
    },
    {
        "name": "elect leaders sent to a broker not the controller",
        "api": "ElectLeaders",
        "versions": [0, 2],
        "to": "not controller",
        "body": {"election_type": 0, "topic_partitions": [{"topic": TOPIC, "partition_id": [0]}], "timeout_ms": 10000},
    },
    {
        "name": "alter reassignments sent to a broker not the controller",
        "api": "AlterPartitionReassignments",
        "versions": [0],
        "to": "not controller",
        "body": {
            "timeout_ms": 10000,
            "topics": [{"name": TOPIC, "partitions": [{"partition_index": 0, "replicas": None}]}],
        },
    },
    {
        "name": "list reassignments sent to a broker not the controller",
        "api": "ListPartitionReassignments",
        "versions": [0],
        "to": "not controller",
        "body": {"timeout_ms": 10000, "topics": None},
    },
]

CLEANUP = [
    {
        "name": "delete the topics",
        "api": "DeleteTopics",
        "versions": [4],
        "body": {"topic_names": [TOPIC, SMALL], "timeout_ms": 30000},
    },
    {
        "name": "metadata after the deletes",
        "api": "Metadata",
        "versions": [9],
        "body": {"topics": [{"name": TOPIC}, {"name": SMALL}]},
        # a broker learns of a deletion from the controller's UpdateMetadata, after the DeleteTopics answer
        "until": lambda r: all(t["error_code"] == 3 for t in r["topics"]),
    },
]

CORPUS = (
    SETUP
    + METADATA
    + TOPICS
    + PRODUCE_FETCH
    + IDEMPOTENT
    + [GROUPS]
    + GROUP_LISTS
    + [TRANSACTIONS]
    + TRANSACTION_ENDS
    + DELETE_RECORDS
    + CONFIGS
    + ACLS
    + [TOKENS]
    + ALICE
    + CONTROLLER_APIS
    + NOT_CONTROLLER
    + CLEANUP
)
