"""The replica fetcher's fetch session, in memory: real follower logs, a scripted leader, an injected clock."""

from twisted.internet import defer, task

from kafka_zk.log.dir_failure import LogDirFailureChannel
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.server.config.topic_config import effective_topic_config, to_log_config
from kafka_zk.server.replication.replica_fetcher import PartitionFetchState, ReplicaFetcher, ReplicaFetcherManager
from tests.replica_manager_support import Unthrottled, replica_manager

TOPIC = "t"


class ScriptedLeader:
    """Answers each Fetch with the next scripted answer (a function of the request body), and records requests."""

    def __init__(self, fetcher, answers):
        self.fetcher = fetcher
        self.answers = list(answers)
        self.requests = []

    def request(self, api_key, version, body):
        assert api_key == 1
        self.requests.append(body)
        answer = self.answers.pop(0)
        if not self.answers:
            self.fetcher.running = False  # the loop ends after this answer
        if isinstance(answer, Exception):
            return defer.fail(answer)
        return defer.succeed(answer(body))

    def close(self):
        pass


def _follower(tmp_path, partitions):
    clock = task.Clock()
    clock.advance(1000)
    config = KafkaConfig({"broker.id": "1", "zookeeper.connect": "zk", "log.dirs": str(tmp_path)})

    def topic_config(topic):
        return effective_topic_config(config.log_config_defaults(), {})

    logs = LogManager(config.log_dirs, to_log_config(topic_config(None)), clock)
    replicas = replica_manager(1, logs, topic_config, clock)
    replicas.become_leader_or_follower(
        [
            {
                "topic": TOPIC,
                "partition": p,
                "leader": 0,
                "leader_epoch": 3,
                "isr": [0, 1],
                "replicas": [0, 1],
                "zk_version": 0,
                "controller_epoch": 1,
            }
            for p in range(partitions)
        ],
        {},
    )
    fetcher = ReplicaFetcher(
        ReplicaFetcherManager(config, clock, 1, LogDirFailureChannel(), Unthrottled()), 0, "127.0.0.1", 1, 0
    )
    for tp, partition in sorted(replicas.partitions.items()):
        fetcher.add(partition)
        fetcher.partitions[tp].truncating = False  # an empty log has nothing to truncate
    return fetcher, replicas


def _sent(body):
    return {(t["topic"], p["partition"]): p["fetch_offset"] for t in body["topics"] for p in t["partitions"]}


def _forgotten(body):
    return {(t["topic"], p) for t in body["forgotten_topics_data"] for p in t["partitions"]}


def _answer(session_id, partitions=(), error=Errors.NONE, log_start_offset=0):
    """An answer function: partitions [(partition, high_watermark, records)]."""

    def build(body):
        return {
            "error_code": error,
            "session_id": session_id,
            "throttle_time_ms": 0,
            "responses": [
                {
                    "topic": TOPIC,
                    "partitions": [
                        {
                            "partition_index": p,
                            "error_code": 0,
                            "high_watermark": hw,
                            "log_start_offset": log_start_offset,
                            "records": records,
                        }
                        for p, hw, records in partitions
                    ],
                }
            ]
            if partitions
            else [],
        }

    return build


def _full(session_id, count, hw=0):
    return _answer(session_id, [(p, hw, b"") for p in range(count)])


def test_follower_opens_a_session_then_sends_only_moved_partitions(tmp_path):
    fetcher, replicas = _follower(tmp_path, 3)
    batch = encode_batch([(None, b"v1"), (None, b"v2")])
    leader = fetcher.connection = ScriptedLeader(
        fetcher, [_full(77, 3), _answer(77), _answer(77, [(1, 2, batch)]), _answer(77), _answer(77)]
    )
    fetcher.running = True
    fetcher._loop()
    bodies = leader.requests
    assert [(b["session_id"], b["session_epoch"]) for b in bodies] == [(0, 0), (77, 1), (77, 2), (77, 3), (77, 4)]
    assert _sent(bodies[0]) == {(TOPIC, 0): 0, (TOPIC, 1): 0, (TOPIC, 2): 0}
    assert _sent(bodies[1]) == {} and _sent(bodies[2]) == {}  # idle: nothing to name
    assert replicas.get_partition(TOPIC, 1).log.log_end_offset == 2
    assert _sent(bodies[3]) == {(TOPIC, 1): 2}  # only the partition that moved
    assert _sent(bodies[4]) == {}
    assert all(b["forgotten_topics_data"] == [] for b in bodies)


def test_follower_falls_back_to_a_full_fetch_after_session_errors_and_forgets_removed_partitions(tmp_path):
    fetcher, _ = _follower(tmp_path, 2)

    def removing_partition_1(body):
        fetcher.remove([(TOPIC, 1)])  # e.g. a LeaderAndIsr moved it while this fetch was out
        return _answer(8)(body)

    leader = fetcher.connection = ScriptedLeader(
        fetcher,
        [
            _full(5, 2),
            _answer(0, error=Errors.FETCH_SESSION_ID_NOT_FOUND),
            _full(6, 2),
            _answer(0, error=Errors.INVALID_FETCH_SESSION_EPOCH),
            _full(7, 2),
            ConnectionError("leader gone"),
            _full(8, 2),
            removing_partition_1,
            _answer(8),
        ],
    )
    fetcher.running = True
    loop = fetcher._loop()
    assert not loop.called and len(leader.requests) == 6  # backing off after the failed request
    fetcher.reactor.advance(fetcher.backoff_s)
    assert loop.called
    keys = [(b["session_id"], b["session_epoch"]) for b in leader.requests]
    # Unknown session: start afresh; wrong epoch: close the session and open a new one (its id, epoch 0);
    # a failed request: the same, once the back-off is over.
    assert keys == [(0, 0), (5, 1), (0, 0), (6, 1), (6, 0), (7, 1), (7, 0), (8, 1), (8, 2)]
    assert all(len(_sent(leader.requests[i])) == 2 for i in (0, 2, 4, 6))
    assert _forgotten(leader.requests[-1]) == {(TOPIC, 1)} and _sent(leader.requests[-1]) == {}


def test_an_idle_fetcher_builds_its_requests_without_visiting_its_quiet_partitions(tmp_path, monkeypatch):
    fetcher, _ = _follower(tmp_path, 50)
    leader = fetcher.connection = ScriptedLeader(fetcher, [_full(9, 50)] + [_answer(9)] * 4)
    visits = []
    real = PartitionFetchState.request
    monkeypatch.setattr(
        PartitionFetchState, "request", lambda state, tp, max_bytes: visits.append(tp) or real(state, tp, max_bytes)
    )
    fetcher.running = True
    fetcher._loop()
    assert len(leader.requests) == 5
    assert len(visits) == 50  # the full request only; the four incremental ones visited nothing


def test_a_partition_backing_off_after_an_error_is_forgotten_then_fetched_again(tmp_path):
    fetcher, _ = _follower(tmp_path, 2)

    def not_leader_for_1(body):
        answer = _answer(4)(body)
        answer["responses"] = [
            {
                "topic": TOPIC,
                "partitions": [
                    {
                        "partition_index": 1,
                        "error_code": Errors.NOT_LEADER_FOR_PARTITION,
                        "high_watermark": -1,
                        "log_start_offset": -1,
                        "records": b"",
                    }
                ],
            }
        ]
        return answer

    leader = fetcher.connection = ScriptedLeader(fetcher, [_full(4, 2), not_leader_for_1, _answer(4), _answer(4)])
    fetcher.running = True
    fetcher._loop()
    assert _forgotten(leader.requests[2]) == {(TOPIC, 1)}
    assert _sent(leader.requests[3]) == {} and _forgotten(leader.requests[3]) == set()  # still backing off
    fetcher.reactor.advance(fetcher.backoff_s)
    leader.answers = [_answer(4)]
    fetcher.running = True
    fetcher._loop()
    assert _sent(leader.requests[4]) == {(TOPIC, 1): 0}


def test_a_log_start_offset_moved_by_the_leader_is_reported_in_the_next_incremental_request(tmp_path):
    """DeleteRecords on the leader waits for every follower's log start offset: a follower that moves its own
    after an answer without records names the partition (with its new log start) in its next request."""
    fetcher, replicas = _follower(tmp_path, 2)
    batch = encode_batch([(None, b"v%d" % i) for i in range(5)])
    leader = fetcher.connection = ScriptedLeader(
        fetcher,
        [
            _full(3, 2),
            _answer(3, [(0, 5, batch)]),
            _answer(3, [(0, 5, b"")], log_start_offset=4),
            _answer(3),
            _answer(3),
        ],
    )
    fetcher.running = True
    fetcher._loop()
    assert replicas.get_partition(TOPIC, 0).log.log_start_offset == 4
    starts = [
        {(t["topic"], p["partition"]): p["log_start_offset"] for t in b["topics"] for p in t["partitions"]}
        for b in leader.requests
    ]
    assert starts[2] == {(TOPIC, 0): 0}  # after the append: the new log end, the old start
    assert starts[3] == {(TOPIC, 0): 4}  # after the leader moved the start: reported at once
    assert starts[4] == {}


def test_fetcher_stats_count_answered_fetches_and_the_bytes_appended(tmp_path):
    fetcher, replicas = _follower(tmp_path, 2)
    batch = encode_batch([(None, b"v1"), (None, b"v2")])
    fetcher.connection = ScriptedLeader(fetcher, [_full(5, 2), _answer(5, [(0, 2, batch)]), _answer(5)])
    fetcher.running = True
    fetcher._loop()
    assert (fetcher.requests_meter.count, fetcher.bytes_meter.count) == (3, len(batch))
    stats = fetcher.manager.metrics.get(
        "kafka.server",
        "FetcherStats",
        "BytesPerSec",
        {"clientId": "ReplicaFetcherThread-0-0", "brokerHost": "127.0.0.1", "brokerPort": 1},
    )
    assert stats is fetcher.bytes_meter
    fetcher.stop()
    assert fetcher.manager.metrics.get("kafka.server", "FetcherStats", "BytesPerSec", fetcher._stats_tags) is None
