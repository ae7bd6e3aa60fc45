"""Retention on a running broker: segments roll by size, old ones go by size and by time."""

import time

import pytest

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import module_cluster, wait_for
from tests.raw_wire import create_led_topic, produce, request


def earliest_offset(bootstrap, topic):
    response = request(
        bootstrap,
        2,
        5,
        {
            "replica_id": -1,
            "isolation_level": 0,
            "topics": [{"name": topic, "partitions": [{"partition_index": 0, "timestamp": -2}]}],
        },
    )
    return response["topics"][0]["partitions"][0]["offset"]


def fetch_error(bootstrap, topic, offset):
    response = request(
        bootstrap,
        1,
        11,
        {
            "replica_id": -1,
            "max_wait_ms": 0,
            "min_bytes": 0,
            "max_bytes": 1 << 20,
            "isolation_level": 0,
            "session_id": 0,
            "session_epoch": -1,
            "forgotten_topics_data": [],
            "rack_id": "",
            "topics": [
                {
                    "topic": topic,
                    "partitions": [
                        {
                            "partition": 0,
                            "current_leader_epoch": -1,
                            "fetch_offset": offset,
                            "log_start_offset": -1,
                            "partition_max_bytes": 1 << 20,
                        }
                    ],
                }
            ],
        },
    )
    return response["responses"][0]["partitions"][0]["error_code"]


def existing_size(path):
    """A segment's size, 0 once retention has deleted it (it may go between listing and looking)."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


single = module_cluster(1, overrides={"log.retention.check.interval.ms": "200", "log.segment.delete.delay.ms": "0"})


@pytest.fixture(scope="module")
def broker(single):
    return single.brokers[0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("policy", ["bytes", "time"])
def test_old_segments_are_deleted_and_the_log_start_moves(broker, policy):
    bootstrap = broker.bootstrap
    topic = "retention-" + policy
    configs = {"segment.bytes": "2000"}
    configs.update({"retention.bytes": "4000"} if policy == "bytes" else {"retention.ms": "60000"})
    create_led_topic(bootstrap, topic, configs=configs)
    old = int(time.time() * 1000) - 3600 * 1000 if policy == "time" else None
    for _index in range(40):
        batch = encode_batch([(None, b"x" * 200, [], old)], first_timestamp=old)
        assert produce(bootstrap, topic, 0, batch)[0] == Errors.NONE
    if policy == "time":  # a fresh batch in the active segment, which retention never deletes
        assert produce(bootstrap, topic, 0, encode_batch([(None, b"new")]))[0] == Errors.NONE

    def segments():
        return sorted(path.name for path in (broker.log_dir / (topic + "-0")).glob("*.log"))

    def total():
        return sum(existing_size(broker.log_dir / (topic + "-0") / name) for name in segments())

    # A retention pass may run while the records are still arriving: wait for the state it settles in.
    if policy == "bytes":
        wait_for(lambda: total() <= 4000 + 2000, message="retention to bring the log within retention.bytes")
    else:
        wait_for(lambda: len(segments()) == 1, message="only the active segment to remain")
    start = earliest_offset(bootstrap, topic)
    assert start > 0
    assert segments()[0] == "%020d.log" % start
    assert fetch_error(bootstrap, topic, 0) == Errors.OFFSET_OUT_OF_RANGE
    assert fetch_error(bootstrap, topic, start) == Errors.NONE
