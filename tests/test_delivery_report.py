"""The delivery report's pure computation: fabricated acks and read-backs with each kind of defect planted."""

import pytest

from tests.delivery_checker import (
    AckedRecord,
    FailedRecord,
    ReadRecord,
    compute_report,
    longest_gap,
    parse_value,
    record_value,
)


def acked_run(partitions=2, per_partition=5, step=0.1):
    """Acks of per_partition records on each partition, round-robin, one every step seconds, at offsets 0..n-1."""
    acked = []
    for sequence in range(per_partition):
        for partition in range(partitions):
            acked.append(AckedRecord(partition, sequence, record_value(partition, sequence), len(acked) * step))
    return acked


def read_as_acked(acked):
    return [ReadRecord(record.partition, record.offset, record.value) for record in acked]


def test_values_carry_their_partition_and_sequence():
    assert record_value(2, 17) == b"2:17"
    assert parse_value(b"2:17") == (2, 17)
    assert parse_value(b"someone else's") is None
    assert parse_value(None) is None


def test_an_intact_read_back_reports_nothing():
    acked = acked_run()
    report = compute_report(acked, read_as_acked(acked), name="intact")
    report.assert_intact()
    assert (report.acked, report.read_back) == (10, 10)
    assert report.longest_gap_s == pytest.approx(0.1)
    assert report.line().startswith("intact: acked 10 lost 0 dup 0 out-of-order 0 failed 0 longest gap 0.1 s")


def test_a_missing_acked_value_is_lost():
    acked = acked_run()
    read = [r for r in read_as_acked(acked) if r.value != b"1:3"]
    read = [ReadRecord(r.partition, r.offset - (r.partition == 1 and r.offset > 3), r.value) for r in read]
    report = compute_report(acked, read, name="lost")
    assert [r.value for r in report.lost] == [b"1:3"]
    assert "lost 1 " in report.line()
    with pytest.raises(AssertionError, match=r"1 lost .*1:3"):
        report.assert_intact()


def test_a_value_read_twice_is_duplicated():
    acked = acked_run()
    read = read_as_acked(acked) + [ReadRecord(0, 5, b"0:4")]
    report = compute_report(acked, read, name="dup")
    assert report.duplicated == [(b"0:4", [(0, 4), (0, 5)])]
    assert report.out_of_order == [] and report.lost == []
    with pytest.raises(AssertionError, match=r"1 duplicated .*0:4"):
        report.assert_intact()


def test_two_swapped_values_are_out_of_order_and_misplaced():
    acked = acked_run()
    read = read_as_acked(acked)
    swapped = {b"0:1": 2, b"0:2": 1}
    read = [ReadRecord(r.partition, swapped.get(r.value, r.offset), r.value) for r in read]
    report = compute_report(acked, read, name="swap")
    assert report.out_of_order == [(0, 2, b"0:1", b"0:2")]
    assert sorted(report.misplaced) == [(b"0:1", (0, 1), (0, 2)), (b"0:2", (0, 2), (0, 1))]
    assert report.lost == [] and report.duplicated == []
    with pytest.raises(AssertionError, match=r"out of order"):
        report.assert_intact()


def test_an_acked_value_found_at_another_offset_is_misplaced():
    acked = acked_run(partitions=1, per_partition=3)
    read = [ReadRecord(0, 0, b"0:0"), ReadRecord(0, 1, b"other"), ReadRecord(0, 2, b"0:1"), ReadRecord(0, 3, b"0:2")]
    report = compute_report(acked, read, name="moved")
    assert [(value, read_at) for value, _, read_at in report.misplaced] == [(b"0:1", (0, 2)), (b"0:2", (0, 3))]
    assert [r.value for r in report.foreign] == [b"other"]
    with pytest.raises(AssertionError, match=r"2 misplaced"):
        report.assert_intact()


def test_a_failed_record_may_appear_once_but_not_twice():
    acked = acked_run(partitions=1, per_partition=2)
    failed = [FailedRecord(b"0:2", "timed out")]
    once = read_as_acked(acked) + [ReadRecord(0, 2, b"0:2")]
    report = compute_report(acked, once, failed, name="failed once")
    report.assert_intact()
    assert "failed 1 " in report.line()
    twice = once + [ReadRecord(0, 3, b"0:2")]
    assert compute_report(acked, twice, failed).duplicated == [(b"0:2", [(0, 2), (0, 3)])]


def test_fatal_producer_errors_break_the_delivery():
    acked = acked_run(partitions=1, per_partition=2)
    report = compute_report(acked, read_as_acked(acked), fatal_errors=["OUT_OF_ORDER_SEQUENCE_NUMBER"])
    with pytest.raises(AssertionError, match="fatal"):
        report.assert_intact()


def test_longest_gap_over_the_run_and_inside_a_window():
    times = [0.0, 0.1, 0.2, 3.2, 3.3, 9.0, 9.1]
    assert longest_gap(times) == (pytest.approx(5.7), 3.3)
    assert longest_gap(times, window=(0.15, 4.0)) == (pytest.approx(3.0), 0.2)
    assert longest_gap(times, window=(9.05, 12.0)) == (pytest.approx(2.9), 9.1)
    assert longest_gap([], window=(1.0, 2.5)) == (1.5, 1.0)
    acked = [AckedRecord(0, i, record_value(0, i), t) for i, t in enumerate(times)]
    report = compute_report(acked, read_as_acked(acked), window=(0.15, 4.0))
    assert (report.longest_gap_s, report.longest_gap_began_s) == (pytest.approx(5.7), 3.3)
    assert report.window_gap_s == pytest.approx(3.0)
    assert report.partition_gaps == {0: pytest.approx(5.7)}
    assert "longest gap 5.7 s (3.0 s in window) (partition 0: 5.7 s)" in report.line()


def test_each_partition_has_its_own_longest_gap():
    acked = [
        AckedRecord(0, 0, b"0:0", 0.0),
        AckedRecord(1, 0, b"1:0", 0.5),
        AckedRecord(0, 1, b"0:1", 1.0),
        AckedRecord(0, 2, b"0:2", 2.0),
        AckedRecord(1, 1, b"1:1", 4.5),
    ]
    report = compute_report(acked, read_as_acked(acked))
    assert report.longest_gap_s == pytest.approx(2.5)
    assert report.partition_gaps == {0: pytest.approx(1.0), 1: pytest.approx(4.0)}
    assert "(partition 1: 4.0 s)" in report.line()


def test_an_implicitly_acked_record_has_no_offset_but_must_still_be_read_once():
    """librdkafka acks a timed-out batch implicitly when a later one succeeds: its offset is unknown (None)."""
    acked = acked_run()
    implicit = [AckedRecord(r.partition, None if r.value == b"0:2" else r.offset, r.value, r.acked_at) for r in acked]
    compute_report(implicit, read_as_acked(acked), name="implicit").assert_intact()
    lost = compute_report(implicit, [r for r in read_as_acked(acked) if r.value != b"0:2"], name="implicit lost")
    assert [r.value for r in lost.lost] == [b"0:2"]
    moved = [ReadRecord(1 if r.value == b"0:2" else r.partition, r.offset, r.value) for r in read_as_acked(acked)]
    assert [m[0] for m in compute_report(implicit, moved, name="moved").misplaced] == [b"0:2"]
