"""Which Fetch answers leave their records in the segment files (file regions a plaintext connection sends with
sendfile) and which copy them: real logs, the replica manager and the Fetch handler in memory."""

from types import SimpleNamespace

import pytest
from twisted.internet import defer, task

from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.log.segment import FileSlice
from kafka_zk.protocol.headers import decode_response, encode_response, encode_response_chunks
from kafka_zk.protocol.primitives import FILE_REGION_COPY_BELOW
from kafka_zk.record.legacy import iter_messages
from kafka_zk.record.records import encode_batch, iter_records
from kafka_zk.server.apis import fetch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.metadata_cache import BrokerEndpoints, MetadataCache, PartitionInfo
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from kafka_zk.server.replication.fetch_session import FetchManager, FetchSessionCache
from kafka_zk.server.replication.results import MAX_REGIONS_PER_FETCH, FetchInfo
from tests.replica_manager_support import replica_manager

CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})
PARTITIONS = MAX_REGIONS_PER_FETCH + 2
LARGE = [(b"k%d" % i, bytes([i]) * 1000) for i in range(FILE_REGION_COPY_BELOW // 1000 + 10)]


@pytest.fixture
def manager(tmp_path):
    clock = task.Clock()
    logs = LogManager([str(tmp_path / "a")], LogConfig(), clock)
    manager = replica_manager(1, logs, lambda topic: dict(CONFIG), clock)
    manager.become_leader_or_follower(
        [
            {
                "topic": "t",
                "partition": p,
                "leader": 1,
                "leader_epoch": 0,
                "isr": [1],
                "replicas": [1],
                "zk_version": 0,
                "controller_epoch": 1,
            }
            for p in range(PARTITIONS)
        ],
        {},
    )
    batches = {("t", p): encode_batch(LARGE) for p in range(PARTITIONS - 1)}
    batches[("t", PARTITIONS - 1)] = encode_batch([(None, b"small")])
    manager.append_records(1000, 1, batches)
    return manager


def read(manager, partitions, replica_id=-1):
    results, _ = manager.read_partitions(
        [FetchInfo(("t", p), 0, 1 << 20, -1, 0) for p in partitions], replica_id, 100 << 20
    )
    return [results[("t", p)].records for p in partitions]


def test_large_reads_stay_in_the_file_and_small_ones_are_copied(manager):
    large, small = read(manager, [0, PARTITIONS - 1])
    assert isinstance(large, FileSlice) and len(large) >= FILE_REGION_COPY_BELOW
    assert [record.value for record in iter_records(bytes(large))] == [value for _, value in LARGE]
    assert small.__class__ is bytes and [record.value for record in iter_records(small)] == [b"small"]
    assert isinstance(read(manager, [0], replica_id=2)[0], FileSlice)  # a follower's fetch as well


def test_a_fetch_of_many_partitions_keeps_only_so_many_files_open(manager):
    records = read(manager, range(PARTITIONS - 1))
    assert [isinstance(r, FileSlice) for r in records] == [True] * MAX_REGIONS_PER_FETCH + [False] * (
        PARTITIONS - 1 - MAX_REGIONS_PER_FETCH
    )
    assert {bytes(r) for r in records} == {bytes(records[0])}


def handled(manager, version):
    cache = MetadataCache(1)
    cache.update(1, 1, [BrokerEndpoints(1, {}, None)], [("t", 0, PartitionInfo(1, 0, [1], [1], [], 1, 0))])
    body = {
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
                "topic": "t",
                "partitions": [
                    {
                        "partition": 0,
                        "fetch_offset": 0,
                        "current_leader_epoch": -1,
                        "log_start_offset": -1,
                        "partition_max_bytes": 1 << 20,
                    }
                ],
            }
        ],
    }
    answered = []
    defer.maybeDeferred(  # answered at once: the dict itself
        fetch.handle,
        SimpleNamespace(body=body, api_version=version, client_id="c"),
        fetch_manager=FetchManager(FetchSessionCache(10)),
        metadata_cache=cache,
        replica_manager=manager,
        fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
        clock=task.Clock(),
    ).addCallback(answered.append)
    return answered[0]


def test_the_response_carries_the_region_and_old_versions_get_it_down_converted(manager):
    body = handled(manager, 11)
    chunks = encode_response_chunks(1, 11, 7, body)
    assert sum(isinstance(chunk, FileSlice) for chunk in chunks) == 1
    _, decoded = decode_response(1, 11, encode_response(1, 11, 7, body))
    records = decoded["responses"][0]["partitions"][0]["records"]
    assert [record.value for record in iter_records(records)] == [value for _, value in LARGE]
    _, old = decode_response(1, 3, encode_response(1, 3, 7, handled(manager, 3)))
    messages = list(iter_messages(old["responses"][0]["partitions"][0]["records"]))
    assert [(m.offset, m.value) for m in messages] == [(i, value) for i, (_, value) in enumerate(LARGE)]
