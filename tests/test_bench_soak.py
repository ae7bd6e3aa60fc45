"""The pure parts of bench/soak.py: record values, error tallies, acknowledged vs read-back accounting, partition
health, the verdict and the summary, in memory."""

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from soak import (  # noqa: E402
    Acknowledgements,
    ErrorTally,
    decode_value,
    encode_value,
    failures,
    lives,
    partition_health,
    reconcile,
    summary_lines,
    traceback_lines,
)

pytestmark = pytest.mark.pure


def reader(partitions):
    """A read_back over {partition: [(offset, sequence or raw bytes)]}."""

    def read(partition):
        for offset, value in partitions.get(partition, []):
            yield offset, encode_value(value) if isinstance(value, int) else value

    read.partitions = sorted(partitions)
    return read


def acknowledged(*triples):
    acks = Acknowledgements()
    for partition, offset, sequence in triples:
        acks.add(partition, offset, sequence)
    return acks


def test_a_value_carries_its_sequence_and_other_values_decode_to_none():
    value = encode_value(42)
    assert len(value) == 100 and decode_value(value) == 42
    assert decode_value(encode_value(123456789012, size=10)) == 123456789012
    assert decode_value(b"something else") is None
    assert decode_value(None) is None
    assert decode_value(b"soak-12x") is None


def test_error_tally_counts_each_name_with_its_first_and_last_time_and_first_text():
    tally = ErrorTally()
    tally.add(47, "INVALID_PRODUCER_EPOCH", 10.0, "first")
    tally.add(47, "INVALID_PRODUCER_EPOCH", 12.5, "second")
    tally.add(-192, "_MSG_TIMED_OUT", 300.0, "timed out")
    assert tally.total() == 3
    epoch = tally.as_json()["INVALID_PRODUCER_EPOCH"]
    assert (epoch["code"], epoch["count"], epoch["first"], epoch["last"], epoch["text"]) == (47, 2, 10.0, 12.5, "first")
    assert list(tally.as_json()) == ["INVALID_PRODUCER_EPOCH", "_MSG_TIMED_OUT"]


def test_everything_acknowledged_and_read_back_once_is_neither_lost_nor_duplicated():
    acks = acknowledged((0, 0, 0), (1, 0, 1), (0, 1, 2), (1, 1, 3))
    result = reconcile(acks, reader({0: [(0, 0), (1, 2)], 1: [(0, 1), (1, 3)]}), sent=4)
    assert (result.acknowledged, result.read_back) == (4, 4)
    assert (result.lost, result.duplicated, result.unacknowledged_read, result.foreign) == (0, 0, 0, 0)


def test_an_acknowledged_record_missing_from_its_offset_is_lost_by_partition():
    # Partition 1 was truncated past offset 0: sequence 3, acknowledged at offset 1, is gone.
    acks = acknowledged((0, 0, 0), (1, 0, 1), (0, 1, 2), (1, 1, 3))
    result = reconcile(acks, reader({0: [(0, 0), (1, 2)], 1: [(0, 1)]}), sent=4)
    assert (result.lost, result.lost_absent) == (1, 1)
    assert result.lost_by_partition == {1: 1}
    assert result.first_lost == [(1, 1, 3)]


def test_a_record_found_at_another_offset_than_acknowledged_counts_as_lost_but_not_absent():
    # Offset 1 of partition 0 now holds another record, and sequence 2 sits at offset 2 instead.
    acks = acknowledged((0, 0, 0), (0, 1, 2))
    result = reconcile(acks, reader({0: [(0, 0), (1, 5), (2, 2)]}), sent=6)
    assert (result.lost, result.lost_absent) == (1, 0)
    assert result.unacknowledged_read == 1  # sequence 5 was never acknowledged
    assert result.duplicated == 0


def test_copies_of_a_sequence_count_as_duplicates_and_unacknowledged_records_are_counted_apart():
    acks = acknowledged((0, 0, 0), (0, 2, 1))
    read = reader({0: [(0, 0), (1, 0), (2, 1), (3, 1), (4, 1), (5, 2), (6, b"not ours")]})
    result = reconcile(acks, read, sent=3)
    assert result.duplicated == 3
    assert result.unacknowledged_read == 1  # sequence 2 failed or was never answered, yet it was written
    assert result.foreign == 1
    assert result.lost == 0


def test_partition_health_names_leaderless_below_min_isr_and_under_replicated_partitions():
    states = {0: (1, [1, 2, 0]), 1: (-1, [2]), 2: (2, [2, 0]), 3: None}
    health = partition_health(states, replication_factor=3, min_insync=2)
    assert health == {"leaderless": [1, 3], "below_min_isr": [1, 3], "under_replicated": [1, 2, 3]}


def test_traceback_lines_are_numbered_from_one():
    text = "ok\nTraceback (most recent call last):\n  File x\nAttributeError: y\n"
    assert traceback_lines(text) == [(2, "Traceback (most recent call last):")]


def test_lives_split_samples_by_pid_and_leave_out_each_lifes_first_seconds():
    samples = [(0.0, 7, 15.0, 3), (10.0, 7, 60.0, 90), (30.0, 7, 66.0, 92), (40.0, 7, 65.0, 91), (45.0, 8, 20.0, 8)]
    first, second = lives(samples, settle=20.0)
    assert (first["pid"], first["first"], first["last"]) == (7, 0.0, 40.0)
    assert (first["rss_max"], first["descriptors_max"], first["rss_last"], first["descriptors_last"]) == (
        66.0,
        92,
        65.0,
        91,
    )
    # a life shorter than the settling time is judged by its last sample
    assert (second["pid"], second["rss_max"], second["descriptors_max"]) == (8, 20.0, 8)


def report(**changes):
    records = {
        "sent": 10,
        "acknowledged": 10,
        "failed": 0,
        "unanswered": 0,
        "read_back": 10,
        "lost": 0,
        "lost_absent": 0,
        "duplicated": 0,
        "unacknowledged_read": 0,
        "foreign": 0,
        "lost_by_partition": {},
        "first_lost": [],
    }
    base = {
        "settings": {
            "brokers": 3,
            "partitions": 12,
            "replication_factor": 3,
            "min_insync_replicas": 2,
            "rate": 1000,
            "minutes": 3.0,
            "bounce_every": 40,
            "victims": "in-turn",
        },
        "seconds": 180.0,
        "records": records,
        "group": {"members": 2, "records": 10, "acknowledged_seen": 10, "acknowledged_missing": 0},
        "producer": {"delivery_errors": {}, "client_errors": {}, "fatal": None},
        "bounces": [
            {
                "number": 1,
                "at": 40.0,
                "victim": 0,
                "controller": 0,
                "restart_seconds": 7.5,
                "full_isr_seconds": 2.5,
                "before": {"leaderless": [], "below_min_isr": [], "under_replicated": []},
                "after": {"leaderless": [], "below_min_isr": [], "under_replicated": [3]},
            }
        ],
        "longest_leaderless": {},
        "resources": {"0": [(0.0, 100, 65.0, 40), (25.0, 100, 71.2, 44), (45.0, 101, 12.0, 5), (70.0, 101, 69.0, 41)]},
        "tracebacks": {"/x/broker-0/server.log": []},
        "aborted": None,
    }
    records.update(changes.pop("records", {}))
    base.update(changes)
    return base


def test_a_clean_run_passes_and_its_summary_says_so():
    clean = report()
    assert failures(clean) == []
    text = "\n".join(summary_lines(clean))
    assert "10 acknowledged, 0 failed" in text
    assert "bounce 1 at 40s: broker 0 (controller) killed, restarted in 7.5s, ISRs full 2.5s later" in text
    assert "broker 0, max RSS MiB / descriptors per life (after its first 20s): 71/44, 69/41 (4 samples)" in text
    assert text.endswith("verdict: PASS")


def test_failed_lost_unanswered_records_a_fatal_error_and_a_traceback_each_fail_the_run():
    fatal = {"code": 45, "name": "OUT_OF_ORDER_SEQUENCE_NUMBER", "text": "broker: out of order", "at": 500.0}
    errors = {"_FATAL": {"code": -150, "name": "_FATAL", "count": 7, "first": 500.0, "last": 501.0, "text": "fatal"}}
    bad = report(
        records={"failed": 7, "lost": 2, "unanswered": 1, "lost_by_partition": {4: 2}, "first_lost": [(4, 9, 99)]},
        producer={"delivery_errors": errors, "client_errors": {}, "fatal": fatal},
        tracebacks={"/x/broker-1/server.log": [(12, "Traceback (most recent call last):")]},
    )
    reasons = failures(bad)
    assert reasons == [
        "7 records failed",
        "2 acknowledged records lost",
        "1 records never answered",
        "the producer hit a fatal error",
        "1 tracebacks in broker logs",
    ]
    text = "\n".join(summary_lines(bad))
    assert "_FATAL (-150) x7 at 500-501s: fatal" in text
    assert "producer fatal error: OUT_OF_ORDER_SEQUENCE_NUMBER (45) at 500s: broker: out of order" in text
    assert "lost by partition: 4: 2" in text
    assert "/x/broker-1/server.log: 1" in text
    assert "verdict: FAIL" in text
