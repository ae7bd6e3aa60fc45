"""Fetching from the closest replica (KIP-392), in memory on real logs and a task.Clock: which replica a leader
names for a consumer, and what a follower serves to consumers of Fetch v11+ (and refuses to the others)."""

from types import SimpleNamespace

import pytest
from twisted.internet import defer, task

from kafka_zk.log.dir_failure import LogDirFailureChannel
from kafka_zk.log.log_config import LogConfig
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_response, encode_response
from kafka_zk.record.records import encode_batch, iter_records
from kafka_zk.server.apis import fetch
from kafka_zk.server.apis.write_txn_markers import marker_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config
from kafka_zk.server.metadata_cache import BrokerEndpoints, MetadataCache, PartitionInfo
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from kafka_zk.server.replication.fetch_session import FetchManager, FetchSessionCache
from kafka_zk.server.replication.replica_fetcher import ReplicaFetcher, ReplicaFetcherManager
from kafka_zk.server.replication.replica_selector import rack_aware
from kafka_zk.server.replication.results import READ_COMMITTED, FetchInfo
from tests.replica_manager_support import Unthrottled, replica_manager

CONFIG = effective_topic_config(KafkaConfig({"zookeeper.connect": "z"}).log_config_defaults(), {})
TP = ("t", 0)
RACKS = {1: "r1", 2: "r2", 3: "r3", 4: "r2"}


def make_manager(tmp_path, broker_id, clock, selector=rack_aware):
    logs = LogManager([str(tmp_path / ("b%d" % broker_id))], LogConfig(), clock)
    return replica_manager(
        broker_id,
        logs,
        lambda topic: dict(CONFIG),
        clock,
        knows_partition=lambda tp: True,
        replica_selector=selector,
        broker_rack=RACKS.get,
    )


def lead_or_follow(manager, leader, replicas=(1, 2, 3), isr=None, epoch=0):
    manager.become_leader_or_follower(
        [
            {
                "topic": TP[0],
                "partition": TP[1],
                "leader": leader,
                "leader_epoch": epoch,
                "isr": list(isr or replicas),
                "replicas": list(replicas),
                "zk_version": 0,
                "controller_epoch": 1,
            }
        ],
        {},
    )
    return manager.get_partition(*TP)


def follower_fetch(manager, replica_id, offset):
    manager.fetch_messages(0, 0, 1 << 20, [FetchInfo(TP, offset, 1 << 20, -1, 0)], replica_id)


def consumer_read(manager, offset, client_rack, tp=TP, isolation_level=0, epoch=-1):
    """One partition's FetchResult for a consumer; client_rack None stands for a Fetch before v11."""
    results, _ = manager.read_partitions(
        [FetchInfo(tp, offset, 1 << 20, epoch, -1)], -1, 1 << 20, isolation_level, client_rack
    )
    return results[tp]


def offsets(result):
    return [record.offset for record in iter_records(bytes(result.records))]


def values(count, prefix=b"v"):
    return [(None, b"%s%d" % (prefix, i)) for i in range(count)]


def batches(start, count):
    """One single-record batch per offset from ``start``, as a leader would have assigned them."""
    return b"".join(
        encode_batch([(None, b"v%d" % offset)], base_offset=offset) for offset in range(start, start + count)
    )


@pytest.fixture
def clock():
    clock = task.Clock()
    clock.advance(1000)
    return clock


@pytest.fixture
def leader(tmp_path, clock):
    """Broker 1 leads t-0 on replicas 1, 2, 3 (racks r1, r2, r3): 5 records, both followers caught up."""
    manager = make_manager(tmp_path, 1, clock)
    lead_or_follow(manager, 1)
    manager.append_records(1000, 1, {TP: encode_batch(values(5))})
    for follower in (2, 3):
        follower_fetch(manager, follower, 5)
    assert manager.get_partition(*TP).high_watermark == 5
    return manager


@pytest.fixture
def follower(tmp_path, clock):
    """Broker 2 follows broker 1 on t-0: 5 records in its log, the leader's high watermark 3 told so far."""
    manager = make_manager(tmp_path, 2, clock)
    partition = lead_or_follow(manager, 1)
    partition.append_as_follower(batches(0, 5), leader_high_watermark=3, leader_log_start_offset=0)
    assert (partition.log.log_end_offset, partition.high_watermark) == (5, 3)
    return manager


# -- the leader's choice -----------------------------------------------------------------------------------------


def test_the_leader_names_the_in_sync_follower_of_the_consumer_rack_and_sends_no_records(leader):
    named = consumer_read(leader, 0, "r2")
    assert (named.error, named.preferred_read_replica, named.records) == (Errors.NONE, 2, b"")
    assert (named.high_watermark, named.last_stable_offset, named.log_start_offset) == (5, 5, 0)
    for client_rack in ("r1", "", "r9", None):  # the leader's rack, no rack, no replica there, before v11
        served = consumer_read(leader, 0, client_rack)
        assert (served.preferred_read_replica, offsets(served)) == (-1, [0, 1, 2, 3, 4]), client_rack


def test_without_a_selector_the_leader_serves_every_consumer(tmp_path, clock):
    manager = make_manager(tmp_path, 1, clock, selector=None)
    lead_or_follow(manager, 1)
    manager.append_records(1000, 1, {TP: encode_batch(values(2))})
    for follower in (2, 3):
        follower_fetch(manager, follower, 2)
    served = consumer_read(manager, 0, "r2")
    assert (served.preferred_read_replica, offsets(served)) == (-1, [0, 1])


def test_a_follower_is_named_only_for_offsets_its_log_holds(leader):
    leader.append_records(1000, 1, {TP: encode_batch(values(3))})
    follower_fetch(leader, 2, 6)  # follower 2 has 6 of the 8 records; follower 3 still 5
    assert consumer_read(leader, 6, "r2").preferred_read_replica == 2
    assert consumer_read(leader, 7, "r2").preferred_read_replica == -1
    leader.get_partition(*TP).followers[2].log_start_offset = 3  # e.g. its retention deleted the start
    assert consumer_read(leader, 2, "r2").preferred_read_replica == -1


def test_followers_out_of_the_isr_or_not_alive_are_not_named(leader):
    partition = leader.get_partition(*TP)
    partition.apply_isr([1, 3], 1)
    assert consumer_read(leader, 0, "r2").preferred_read_replica == -1
    partition.apply_isr([1, 2, 3], 2)
    leader.is_broker_alive = lambda broker_id: broker_id != 2
    assert consumer_read(leader, 0, "r2").preferred_read_replica == -1
    assert consumer_read(leader, 0, "r3").preferred_read_replica == 3


def test_of_two_followers_in_the_consumer_rack_the_most_caught_up_is_named(tmp_path, clock):
    manager = make_manager(tmp_path, 1, clock)
    lead_or_follow(manager, 1, replicas=(1, 2, 4))  # 2 and 4 are both in rack r2
    manager.append_records(1000, 1, {TP: encode_batch(values(4))})
    follower_fetch(manager, 2, 3)
    follower_fetch(manager, 4, 4)
    assert consumer_read(manager, 0, "r2").preferred_read_replica == 4


def test_a_fetch_answered_with_a_preferred_replica_does_not_wait(leader):
    answered = []
    leader.fetch_messages(500, 1 << 20, 1 << 20, [FetchInfo(TP, 0, 1 << 20, -1, -1)], -1, client_rack="r3").addCallback(
        answered.append
    )
    assert [result.preferred_read_replica for result in answered[0].values()] == [3]


def _fetch_request(version, rack_id="r2", offset=0):
    body = {
        "replica_id": -1,
        "max_wait_ms": 0,
        "min_bytes": 0,
        "max_bytes": 1 << 20,
        "isolation_level": 0,
        "session_id": 0,
        "session_epoch": -1,
        "forgotten_topics_data": [],
        "rack_id": rack_id,
        "topics": [
            {
                "topic": TP[0],
                "partitions": [
                    {
                        "partition": TP[1],
                        "fetch_offset": offset,
                        "current_leader_epoch": -1,
                        "log_start_offset": -1,
                        "partition_max_bytes": 1 << 20,
                    }
                ],
            }
        ],
    }
    return SimpleNamespace(body=body, api_version=version, client_id="c")


def _handled(manager, version, **request):
    cache = MetadataCache(manager.broker_id)
    cache.update(
        1,
        1,
        [BrokerEndpoints(b, {}, RACKS[b]) for b in (1, 2, 3)],
        [(TP[0], TP[1], PartitionInfo(1, 0, [1, 2, 3], [1, 2, 3], [], 1, 0))],
    )
    clock = task.Clock()
    clock.advance(1)
    answered = []
    defer.maybeDeferred(  # answered at once: the dict itself
        fetch.handle,
        _fetch_request(version, **request),
        fetch_manager=FetchManager(FetchSessionCache(10)),
        metadata_cache=cache,
        replica_manager=manager,
        fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
        clock=clock,
    ).addCallback(answered.append)
    _, response = decode_response(1, version, encode_response(1, version, 7, answered[0]))
    return response["responses"][0]["partitions"][0]


def test_the_fetch_handler_puts_the_preferred_replica_on_the_wire_from_v11_only(leader, follower):
    named = _handled(leader, 11)
    assert (named["error_code"], named["preferred_read_replica"], named["records"] or b"") == (0, 2, b"")
    assert _handled(leader, 11, rack_id="")["preferred_read_replica"] == -1
    assert offsets(SimpleNamespace(records=_handled(leader, 10)["records"])) == [0, 1, 2, 3, 4]
    served = _handled(follower, 11)  # the follower serves a v11 consumer, and never names another replica
    assert (served["error_code"], served["high_watermark"], served["preferred_read_replica"]) == (0, 3, -1)
    assert _handled(follower, 10)["error_code"] == Errors.NOT_LEADER_FOR_PARTITION


# -- what a follower serves ---------------------------------------------------------------------------------------


def test_a_follower_serves_v11_consumers_up_to_its_high_watermark(follower):
    served = consumer_read(follower, 0, "r2")
    assert (served.error, offsets(served), served.high_watermark, served.preferred_read_replica) == (
        Errors.NONE,
        [0, 1, 2],
        3,
        -1,
    )
    for offset in (3, 4, 5):  # at or past its high watermark, within its log: nothing yet, no error
        beyond = consumer_read(follower, offset, "r2")
        assert (beyond.error, beyond.records, beyond.high_watermark) == (Errors.NONE, b"", 3), offset
    assert consumer_read(follower, 6, "r2").error == Errors.OFFSET_OUT_OF_RANGE
    follower.get_partition(*TP).append_as_follower(b"", leader_high_watermark=5, leader_log_start_offset=0)
    assert offsets(consumer_read(follower, 3, "")) == [3, 4]


def test_replica_fetches_and_older_consumers_still_need_the_leader(follower):
    assert consumer_read(follower, 0, None).error == Errors.NOT_LEADER_FOR_PARTITION
    results, _ = follower.read_partitions([FetchInfo(TP, 0, 1 << 20, -1, 0)], 3, 1 << 20)
    assert results[TP].error == Errors.NOT_LEADER_FOR_PARTITION
    assert consumer_read(follower, 0, "r2", tp=("t", 7)).error == Errors.REPLICA_NOT_AVAILABLE
    assert consumer_read(follower, 0, None, tp=("t", 7)).error == Errors.NOT_LEADER_FOR_PARTITION


def test_a_follower_checks_the_consumers_leader_epoch(follower):
    lead_or_follow(follower, 1, epoch=2)
    assert consumer_read(follower, 0, "r2", epoch=1).error == Errors.FENCED_LEADER_EPOCH
    assert consumer_read(follower, 0, "r2", epoch=3).error == Errors.UNKNOWN_LEADER_EPOCH
    assert offsets(consumer_read(follower, 0, "r2", epoch=2)) == [0, 1, 2]


def test_read_committed_consumers_read_a_follower_up_to_its_last_stable_offset(tmp_path, clock):
    manager = make_manager(tmp_path, 2, clock)
    partition = lead_or_follow(manager, 1)
    open_txn = encode_batch(
        values(2, b"t"), base_offset=3, producer_id=9, producer_epoch=0, base_sequence=0, is_transactional=True
    )
    partition.append_as_follower(batches(0, 3) + open_txn, 5, 0)
    committed = consumer_read(manager, 0, "r2", isolation_level=READ_COMMITTED)
    assert (offsets(committed), committed.last_stable_offset, committed.high_watermark) == ([0, 1, 2], 3, 5)
    waiting = consumer_read(manager, 3, "r2", isolation_level=READ_COMMITTED)
    assert (waiting.error, waiting.records) == (Errors.NONE, b"")
    abort = bytearray(marker_batch(9, 0, False, 0, 0))
    abort[0:8] = (5).to_bytes(8, "big")  # the marker's base offset: as the leader assigned it
    partition.append_as_follower(bytes(abort), 6, 0)
    aborted = consumer_read(manager, 3, "r2", isolation_level=READ_COMMITTED)
    assert (offsets(aborted), aborted.last_stable_offset, aborted.aborted_transactions) == ([3, 4], 6, [(9, 3)])


def test_a_consumer_parked_on_a_follower_wakes_when_the_followers_high_watermark_moves(follower, clock):
    answered = []
    follower.fetch_messages(500, 1, 1 << 20, [FetchInfo(TP, 4, 1 << 20, -1, -1)], -1, client_rack="r2").addCallback(
        answered.append
    )
    assert answered == []  # beyond the follower's high watermark (3): it waits rather than answer empty at once
    follower.get_partition(*TP).append_as_follower(b"", leader_high_watermark=5, leader_log_start_offset=0)
    follower.fetchable_changed([TP])
    (results,) = answered
    assert offsets(results[TP]) == [4] and results[TP].high_watermark == 5
    clock.advance(1)  # its expiry finds it completed: no second answer


class _ScriptedLeader:
    """A replica fetcher's connection that answers each Fetch with the next scripted partition answer."""

    def __init__(self, fetcher, answers):
        self.fetcher, self.answers = fetcher, list(answers)

    def request(self, api_key, version, body):
        high_watermark, records = self.answers.pop(0)
        if not self.answers:
            self.fetcher.running = False
        return defer.succeed(
            {
                "error_code": 0,
                "session_id": 0,
                "throttle_time_ms": 0,
                "responses": [
                    {
                        "topic": TP[0],
                        "partitions": [
                            {
                                "partition_index": TP[1],
                                "error_code": 0,
                                "log_start_offset": 0,
                                "high_watermark": high_watermark,
                                "records": records,
                            }
                        ],
                    }
                ],
            }
        )

    def close(self):
        pass


def test_the_replica_fetcher_reports_a_moved_high_watermark_to_waiting_consumers(tmp_path, clock):
    follower = make_manager(tmp_path, 2, clock)
    partition = lead_or_follow(follower, 1)
    partition.append_as_follower(batches(0, 3), leader_high_watermark=3, leader_log_start_offset=0)
    config = KafkaConfig({"broker.id": "2", "zookeeper.connect": "z", "log.dirs": "unused"})
    fetcher = ReplicaFetcher(
        ReplicaFetcherManager(config, clock, 2, LogDirFailureChannel(), Unthrottled(), follower.fetchable_changed),
        1,
        "h",
        1,
        0,
    )
    fetcher.add(partition)
    answered = []
    follower.fetch_messages(500, 1, 1 << 20, [FetchInfo(TP, 3, 1 << 20, -1, -1)], -1, client_rack="r2").addCallback(
        answered.append
    )
    fetcher.connection = _ScriptedLeader(fetcher, [(3, b""), (5, batches(3, 2))])
    fetcher.running = True
    fetcher._loop()
    (results,) = answered
    assert offsets(results[TP]) == [3, 4] and results[TP].high_watermark == 5
    clock.advance(1)  # its expiry finds it completed: no second answer
