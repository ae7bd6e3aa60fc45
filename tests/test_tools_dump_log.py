"""kafka-dump-log on segments written by kafka_zk.log: Kafka 2.5's DumpLogSegments output."""

import io
import os

import pytest

from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.record.compression import GZIP
from kafka_zk.record.records import control_marker_record, encode_batch
from kafka_zk.tools import dump_log
from kafka_zk.tools.command_line import run_tool
from tests.millisecond_clock import MillisecondClock

BASE = "00000000000000000000"


def run_dump(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(dump_log.build_parser(), dump_log.run, list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def segment(tmp_path):
    """A partition log with a plain, an idempotent gzip, and a transaction-marker batch; index every batch."""
    directory = tmp_path / "t-0"
    log = Log(str(directory), LogConfig(index_interval_bytes=1), MillisecondClock(1000))
    batches = [
        (
            encode_batch(
                [(b"k", b"hello", [("h1", b"x"), ("h2", None)], 1000), (None, b"world", [], 1001)],
                base_offset=0,
                partition_leader_epoch=0,
            ),
            1,
            1001,
            1,
        ),
        (
            encode_batch(
                [(None, b"v%d" % i, [], 2000 + i) for i in range(3)],
                base_offset=2,
                compression=GZIP,
                producer_id=7,
                producer_epoch=1,
                base_sequence=5,
                partition_leader_epoch=0,
            ),
            4,
            2002,
            4,
        ),
        (
            encode_batch(
                [control_marker_record(True, 3)],
                base_offset=5,
                producer_id=7,
                producer_epoch=1,
                is_transactional=True,
                is_control=True,
                first_timestamp=3000,
                partition_leader_epoch=0,
            ),
            5,
            3000,
            5,
        ),
    ]
    for records, last, max_ts, offset_of_max in batches:
        log.append(records, last, max_ts, offset_of_max)
    log.close()
    return directory, [b[0] for b in batches]


def test_dump_log_shallow_and_deep(segment):
    directory, batches = segment
    path = str(directory / (BASE + ".log"))
    sizes = [len(b) for b in batches]
    code, out, err = run_dump("--files", path)
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[:2] == ["Dumping %s" % path, "Starting offset: 0"]
    assert lines[2].startswith(
        "baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
        "partitionLeaderEpoch: 0 isTransactional: false isControl: false position: 0 CreateTime: 1001 size: %d "
        "magic: 2 compresscodec: NONE crc: " % sizes[0]
    )
    assert lines[2].endswith(" isvalid: true")
    assert lines[3].startswith(
        "baseOffset: 2 lastOffset: 4 count: 3 baseSequence: 5 lastSequence: 7 producerId: 7 producerEpoch: 1 "
        "partitionLeaderEpoch: 0 isTransactional: false isControl: false position: %d CreateTime: 2002 size: %d "
        "magic: 2 compresscodec: GZIP" % (sizes[0], sizes[1])
    )
    assert "isTransactional: true isControl: true position: %d CreateTime: 3000" % (sizes[0] + sizes[1]) in lines[4]
    assert len(lines) == 5

    code, out, _ = run_dump("--files", path, "--print-data-log")
    records = [line for line in out.splitlines() if line.startswith("|")]
    assert records == [
        "| offset: 0 CreateTime: 1000 keysize: 1 valuesize: 5 sequence: -1 headerKeys: [h1,h2] key: k payload: hello",
        "| offset: 1 CreateTime: 1001 keysize: -1 valuesize: 5 sequence: -1 headerKeys: [] payload: world",
        "| offset: 2 CreateTime: 2000 keysize: -1 valuesize: 2 sequence: 5 headerKeys: [] payload: v0",
        "| offset: 3 CreateTime: 2001 keysize: -1 valuesize: 2 sequence: 6 headerKeys: [] payload: v1",
        "| offset: 4 CreateTime: 2002 keysize: -1 valuesize: 2 sequence: 7 headerKeys: [] payload: v2",
        "| offset: 5 CreateTime: 3000 keysize: 4 valuesize: 6 sequence: -1 headerKeys: [] "
        "endTxnMarker: COMMIT coordinatorEpoch: 3",
    ]
    deep_only = [line for line in run_dump("--files", path, "--deep-iteration")[1].splitlines() if line[:1] == "|"]
    assert deep_only[0] == "| offset: 0 CreateTime: 1000 keysize: 1 valuesize: 5 sequence: -1 headerKeys: [h1,h2]"


def test_dump_indexes(segment):
    directory, batches = segment
    index = str(directory / (BASE + ".index"))
    time_index = str(directory / (BASE + ".timeindex"))
    code, out, err = run_dump("--files", "%s,%s" % (index, time_index))
    first, second = len(batches[0]), len(batches[0]) + len(batches[1])
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Dumping " + index,
        "offset: 4 position: %d" % first,
        "offset: 5 position: %d" % second,
        "Dumping " + time_index,
        "timestamp: 2002 offset: 4",
        "timestamp: 3000 offset: 5",
    ]
    assert run_dump("--files", index, "--verify-index-only")[1] == "Dumping %s\n" % index
    assert run_dump("--files", index, "--index-sanity-check")[1].endswith("%s passed sanity check.\n" % index)


def test_index_mismatch_and_trailing_bytes_are_reported(segment):
    directory, batches = segment
    with open(directory / (BASE + ".index"), "r+b") as handle:
        handle.write(b"\x00\x00\x00\x03")  # first entry now claims offset 3
    with open(directory / (BASE + ".log"), "ab") as handle:
        handle.write(b"\x00" * 7)
    code, out, err = run_dump("--files", "%s,%s" % (directory / (BASE + ".log"), directory / (BASE + ".index")))
    assert "Found 7 invalid bytes at the end of %s.log" % BASE in out
    assert err.splitlines() == [
        "Mismatches in :%s" % os.path.abspath(directory / (BASE + ".index")),
        "  Index offset: 3, log offset: 4",
    ]


def test_unknown_files_are_ignored(tmp_path):
    other = tmp_path / "leader-epoch-checkpoint"
    other.write_text("0\n0\n")
    code, out, err = run_dump("--files", str(other))
    assert (code, out, err) == (0, "Dumping %s\n" % other, "Ignoring unknown file %s\n" % other)
