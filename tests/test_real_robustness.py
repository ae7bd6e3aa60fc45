"""Real brokers fed bad input over raw sockets: every case gets an error or a closed connection, never a crash."""

import random
import struct
import uuid

import pytest

from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.raw_wire import (
    RawConnection,
    api_versions_ok,
    create_topic,
    fetch_records,
    latest_offset,
    list_offsets_error,
    metadata,
    partition_leaders,
    produce,
    produce_body,
)

CORRUPT_MESSAGE = 2
UNKNOWN_TOPIC_OR_PARTITION = 3
LEADER_NOT_AVAILABLE = 5
NOT_LEADER_FOR_PARTITION = 6
REPLICA_NOT_AVAILABLE = 9
UNSUPPORTED_VERSION = 35

pytestmark = pytest.mark.timeout(90)


def _pinned_topic(cluster, broker_id, prefix):
    """A new 1-partition topic whose only replica is broker_id, known to every broker's metadata."""
    topic = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    assert create_topic(cluster.brokers[0].bootstrap, topic, assignments={0: [broker_id]}) == 0
    for broker in cluster.brokers:
        wait_for(
            lambda b=broker: partition_leaders(b.bootstrap, topic) == {0: broker_id},
            30,
            message="broker %d to learn %s's leader" % (broker.broker_id, topic),
        )
    return topic


def _batch(values, timestamp=1700000000000):
    return encode_batch([(None, value) for value in values], first_timestamp=timestamp)


def _assert_healthy(broker):
    assert broker.is_running(), "broker %d died; log tail:\n%s" % (broker.broker_id, broker.log_tail())
    assert api_versions_ok(broker.bootstrap)


def _closed_after(broker, data):
    """Send raw bytes on a fresh connection; True if the broker then closes it without answering."""
    with RawConnection(broker.bootstrap) as conn:
        conn.send_raw(data)
        return conn.is_closed_by_peer()


def _frame(payload):
    return struct.pack(">i", len(payload)) + payload


def _raw_header(api_key, version, correlation_id=7, client_id=b"raw-test"):
    return struct.pack(">hhih", api_key, version, correlation_id, len(client_id)) + client_id


def test_bad_crc_produce_is_rejected_and_leaves_the_log_unchanged(cluster):
    leader = cluster.brokers[0]
    topic = _pinned_topic(cluster, 0, "bad-crc")
    assert produce(leader.bootstrap, topic, 0, _batch([b"a", b"b", b"c"])) == (0, 0)
    segment = leader.log_dir / ("%s-0" % topic) / "00000000000000000000.log"
    size_before = segment.stat().st_size
    assert latest_offset(leader.bootstrap, topic, 0) == 3

    corrupted = bytearray(_batch([b"d", b"e"]))
    corrupted[-1] ^= 0xFF  # inside the CRC-covered records area
    error, _ = produce(leader.bootstrap, topic, 0, bytes(corrupted))
    assert error == CORRUPT_MESSAGE
    torn = _batch([b"f", b"g"])[:40]  # a batch cut inside its header
    error, _ = produce(leader.bootstrap, topic, 0, torn)
    assert error == CORRUPT_MESSAGE

    assert latest_offset(leader.bootstrap, topic, 0) == 3
    assert segment.stat().st_size == size_before
    _, _, records = fetch_records(leader.bootstrap, topic, 0)
    assert [r.value for r in records] == [b"a", b"b", b"c"]
    assert produce(leader.bootstrap, topic, 0, _batch([b"h"])) == (0, 3)
    _assert_healthy(leader)


@pytest.mark.parametrize("seed", range(12))
def test_garbage_frames_get_an_answer_or_a_closed_connection(cluster, seed):
    broker = cluster.brokers[seed % len(cluster.brokers)]
    rng = random.Random(seed)
    if seed % 2:
        payload = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))
    else:  # a plausible header (Produce, Fetch or Metadata) with a random body
        api_key, version = [(0, 7), (1, 11), (3, 5)][seed % 3]
        payload = _raw_header(api_key, version) + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))
    with RawConnection(broker.bootstrap, timeout=10) as conn:
        conn.send_frame(payload)
        outcome = conn.recv_frame()  # None when closed; a socket timeout (broker hung) fails the test
        assert outcome is None or len(outcome) >= 4
    _assert_healthy(broker)


@pytest.mark.parametrize("size", [0x7FFFFFFF, 104857600 + 1, -1, -0x80000000])
def test_frame_length_out_of_range_closes_the_connection(cluster, size):
    broker = cluster.brokers[1]
    assert _closed_after(broker, struct.pack(">i", size) + b"\x00" * 16)
    _assert_healthy(broker)


def test_unknown_api_key_closes_the_connection(cluster):
    broker = cluster.brokers[0]
    assert _closed_after(broker, _frame(_raw_header(999, 0)))
    _assert_healthy(broker)


def test_unsupported_metadata_version_closes_the_connection(cluster):
    broker = cluster.brokers[0]
    assert _closed_after(broker, _frame(_raw_header(3, 99) + b"\x00\x00\x00\x00"))
    _assert_healthy(broker)


def test_unsupported_api_versions_version_answers_with_the_v0_key_list(cluster):
    broker = cluster.brokers[2]
    with RawConnection(broker.bootstrap) as conn:
        conn.send_frame(_raw_header(18, 99, correlation_id=4242) + b"\x00" * 8)
        frame = conn.recv_frame()
    assert frame is not None
    correlation_id, body = decode_response(18, 0, frame)
    assert correlation_id == 4242
    assert body["error_code"] == UNSUPPORTED_VERSION
    ranges = {entry["api_key"]: (entry["min_version"], entry["max_version"]) for entry in body["api_keys"]}
    assert ranges == {18: (0, 3)}  # only ApiVersions' own range, as Kafka 2.5 answers
    _assert_healthy(broker)


def test_truncated_request_bodies_close_the_connection(cluster):
    broker = cluster.brokers[0]
    topic = _pinned_topic(cluster, 0, "truncated")
    requests = [
        encode_request(0, 7, 11, "raw-test", produce_body(topic, 0, _batch([b"x" * 50, b"y" * 50]))),
        encode_request(3, 5, 12, "raw-test", {"topics": [{"name": topic}], "allow_auto_topic_creation": False}),
        encode_request(
            1,
            11,
            13,
            "raw-test",
            {
                "replica_id": -1,
                "max_wait_ms": 0,
                "min_bytes": 0,
                "max_bytes": 1024,
                "isolation_level": 0,
                "session_id": 0,
                "session_epoch": -1,
                "rack_id": "",
                "topics": [
                    {"topic": topic, "partitions": [{"partition": 0, "fetch_offset": 0, "partition_max_bytes": 1024}]}
                ],
            },
        ),
    ]
    for full in requests:
        header_size = len(_raw_header(0, 0))
        for cut in sorted({header_size - 2, header_size + 1, header_size + 5, len(full) // 2, len(full) - 1}):
            assert _closed_after(broker, _frame(full[:cut])), "api %d cut at %d of %d" % (
                struct.unpack_from(">h", full)[0],
                cut,
                len(full),
            )
    _assert_healthy(broker)
    assert latest_offset(broker.bootstrap, topic, 0) == 0


def test_produce_to_an_unknown_topic_is_refused_and_metadata_auto_creates(cluster):
    broker = cluster.brokers[1]
    topic = "unknown-%s" % uuid.uuid4().hex[:8]
    assert produce(broker.bootstrap, topic, 0, _batch([b"lost"]))[0] == UNKNOWN_TOPIC_OR_PARTITION
    response = metadata(broker.bootstrap, [topic], allow_auto_create=False)
    assert response["topics"][0]["error_code"] == UNKNOWN_TOPIC_OR_PARTITION

    response = metadata(broker.bootstrap, [topic], allow_auto_create=True)
    assert response["topics"][0]["error_code"] in (0, LEADER_NOT_AVAILABLE)
    leaders = wait_for(lambda: partition_leaders(broker.bootstrap, topic), 30, message="auto-created leader")
    leader = cluster.broker(leaders[0])
    # Another broker's metadata can name the leader before the leader has applied its LeaderAndIsr.
    wait_for(lambda: produce(leader.bootstrap, topic, 0, _batch([b"kept"])) == (0, 0), 30, message="leader")
    assert produce(leader.bootstrap, topic, 7, _batch([b"no such partition"]))[0] == UNKNOWN_TOPIC_OR_PARTITION
    _assert_healthy(broker)


def test_requests_to_a_non_leader_get_not_leader_for_partition(cluster):
    topic = _pinned_topic(cluster, 2, "not-leader")
    for follower in cluster.brokers[:2]:
        errors = {
            "produce": produce(follower.bootstrap, topic, 0, _batch([b"misdirected"]))[0],
            "fetch": fetch_records(follower.bootstrap, topic, 0, version=10)[0],
            "list_offsets": list_offsets_error(follower.bootstrap, topic, 0),
        }
        assert errors == dict.fromkeys(errors, NOT_LEADER_FOR_PARTITION), "broker %d" % follower.broker_id
        # From v11 a consumer may read any replica (KIP-392): a broker without one has none available.
        assert fetch_records(follower.bootstrap, topic, 0)[0] == REPLICA_NOT_AVAILABLE
        _assert_healthy(follower)
    assert latest_offset(cluster.brokers[2].bootstrap, topic, 0) == 0


def test_negative_timeouts_are_answered_at_once_not_dropped(cluster):
    """acks=-1 with timeout_ms < 0 expires at once (REQUEST_TIMED_OUT unless already replicated); a fetch with
    max_wait_ms < 0 answers at once. Either way the client gets its answer and the broker stays up."""
    topic = "negative-timeout-%s" % uuid.uuid4().hex[:8]
    assert create_topic(cluster.brokers[0].bootstrap, topic, assignments={0: [0, 1, 2]}) == 0
    leader = cluster.brokers[0]
    wait_for(
        lambda: produce(leader.bootstrap, topic, 0, _batch([b"warm-up"]), acks=-1) == (0, 0),
        30,
        message="a leader accepting acks=-1",
    )
    body = produce_body(topic, 0, _batch([b"in a hurry"]), acks=-1)
    body["timeout_ms"] = -1
    with RawConnection(leader.bootstrap) as conn:
        result = conn.request(0, 7, body)["responses"][0]["partitions"][0]
    assert result["error_code"] in (0, 7), result  # NONE if replicated in time, else REQUEST_TIMED_OUT
    wait_for(lambda: latest_offset(leader.bootstrap, topic, 0) == 2, 30, message="the record in the log")

    fetch = {
        "replica_id": -1,
        "max_wait_ms": -5,
        "min_bytes": 1 << 20,
        "max_bytes": 1 << 20,
        "isolation_level": 0,
        "session_id": 0,
        "session_epoch": -1,
        "rack_id": "",
        "topics": [
            {"topic": topic, "partitions": [{"partition": 0, "fetch_offset": 2, "partition_max_bytes": 1 << 20}]}
        ],
    }
    with RawConnection(leader.bootstrap) as conn:
        answered = conn.request(1, 11, fetch)
    assert answered["responses"][0]["partitions"][0]["error_code"] == 0
    for broker in cluster.brokers:
        _assert_healthy(broker)
