"""The kafka_zk source's pure parts: option parsing, offset range planning, rate limiting, sink schema checks."""

import pytest
from pyspark.sql.types import ArrayType, BinaryType, IntegerType, StringType, StructField, StructType

from kafka_zk.spark.options import KafkaZkOptionError, parse_sink_options, parse_source_options
from kafka_zk.spark.reader import OffsetRangePartition, rate_limited, split_ranges
from kafka_zk.spark.writer import check_sink_schema

BOOT = {"kafka.bootstrap.servers": "127.0.0.1:9092"}


def _source(streaming=False, **options):
    return parse_source_options({**BOOT, **{k.lower(): v for k, v in options.items()}}, streaming)


def test_subscription_kinds_and_defaults():
    opts = _source(subscribe="a, b")
    assert opts.subscription.kind == "subscribe" and opts.subscription.topics == ("a", "b")
    assert opts.starting.kind == "earliest" and opts.ending.kind == "latest"
    assert _source(streaming=True, subscribe="a").starting.kind == "latest"
    assign = _source(assign='{"t":[0,2]}').subscription
    assert assign.kind == "assign" and assign.partitions == (("t", 0), ("t", 2))
    pattern = _source(subscribePattern="ev.*").subscription
    assert pattern.matches("events") and not pattern.matches("xevents")
    assert opts.fail_on_data_loss and not opts.include_headers


def test_offsets_json_and_client_settings():
    opts = _source(
        subscribe="t",
        startingOffsets='{"t":{"0":23,"1":-2}}',
        endingOffsets='{"t":{"0":50,"1":-1}}',
        **{"kafka.fetch.max.bytes": "1000"},
    )
    assert opts.starting.by_partition == {("t", 0): 23, ("t", 1): -2}
    assert opts.ending.by_partition == {("t", 0): 50, ("t", 1): -1}
    assert opts.client_settings == {"bootstrap.servers": "127.0.0.1:9092", "fetch.max.bytes": "1000"}
    assert _source(subscribe="t", startingOffsetsByTimestamp='{"t":{"0":1000}}').starting.kind == "timestamps"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"subscribe": "t", "startingoffset": "earliest"}, "Unknown option for the kafka_zk source: startingoffset"),
        ({"subscribe": "t", "assign": '{"t":[0]}'}, "Only one of the following options"),
        ({}, "One of the following options must be specified"),
        ({"subscribe": "t", "startingoffsets": '{"t":{"0":'}, "Expected e.g."),
        ({"subscribe": "t", "startingoffsets": '{"t":{"0":"x"}}'}, "Expected e.g."),
        ({"subscribe": "t", "startingoffsets": "latest"}, "cannot be 'latest'"),
        ({"subscribe": "t", "endingoffsets": "earliest"}, "cannot be 'earliest'"),
        ({"subscribe": "t", "endingoffsets": '{"t":{"0":-2}}'}, "invalid offset -2"),
        ({"subscribe": "t", "minpartitions": "0"}, "must be a positive integer"),
        ({"subscribe": "t", "includeheaders": "yes"}, "must be true or false"),
        ({"subscribepattern": "("}, "not a valid regex"),
        ({"subscribe": "t", "kafka.group.id": "g"}, "group.id is not supported"),
        ({"assign": '{"t":["0"]}'}, "Expected e.g."),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises(KafkaZkOptionError, match=None) as caught:
        parse_source_options({**BOOT, **options}, streaming=False)
    assert message in str(caught.value)


def test_missing_bootstrap_and_streaming_only_options():
    with pytest.raises(KafkaZkOptionError, match="kafka.bootstrap.servers"):
        parse_source_options({"subscribe": "t"}, streaming=False)
    with pytest.raises(KafkaZkOptionError, match="maxOffsetsPerTrigger"):
        _source(subscribe="t", maxOffsetsPerTrigger="10")
    with pytest.raises(KafkaZkOptionError, match="endingOffsets"):
        _source(streaming=True, subscribe="t", endingOffsets="latest")
    assert _source(streaming=True, subscribe="t", maxOffsetsPerTrigger="10").max_offsets_per_trigger == 10


def test_split_ranges_reaches_min_partitions_and_covers_each_offset_once():
    ranges = [
        OffsetRangePartition("t", 0, 0, 1000),
        OffsetRangePartition("t", 1, 5, 15),
        OffsetRangePartition("t", 2, 7, 7),
    ]
    pieces = split_ranges(ranges, 8)
    assert len(pieces) >= 8
    covered = sorted((p.partition, o) for p in pieces for o in range(p.start, p.end))
    assert covered == [(0, o) for o in range(1000)] + [(1, o) for o in range(5, 15)]
    assert split_ranges(ranges, None) == ranges[:2]


def test_rate_limit_shares_by_backlog_and_never_exceeds_it():
    start = {("t", 0): 0, ("t", 1): 100, ("t", 2): 50}
    latest = {("t", 0): 900, ("t", 1): 200, ("t", 2): 50}
    end = rate_limited(start, latest, 500)
    read = sum(end[tp] - start[tp] for tp in start)
    assert 0 < read <= 500
    assert end[("t", 0)] - 0 > end[("t", 1)] - 100 > 0 and end[("t", 2)] == 50
    assert rate_limited(start, latest, 10_000) == latest
    assert rate_limited({("t", 0): 0}, {("t", 0): 10, ("t", 1): 4}, 100) == {("t", 0): 10, ("t", 1): 4}


def test_sink_schema_rules():
    binary_headers = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))
    ok = StructType(
        [
            StructField("key", StringType()),
            StructField("value", BinaryType()),
            StructField("partition", IntegerType()),
            StructField("headers", binary_headers),
        ]
    )
    check_sink_schema(ok, "t")
    with pytest.raises(KafkaZkOptionError, match="topic option required"):
        check_sink_schema(ok, None)
    with pytest.raises(KafkaZkOptionError, match="Required attribute 'value' not found"):
        check_sink_schema(StructType([StructField("key", StringType())]), "t")
    with pytest.raises(KafkaZkOptionError, match="value attribute type must be a string or binary"):
        check_sink_schema(StructType([StructField("value", IntegerType())]), "t")
    with pytest.raises(KafkaZkOptionError, match="Unknown option for the kafka_zk sink: subscribe"):
        parse_sink_options({**BOOT, "subscribe": "t"})


def test_executor_consumers_refresh_metadata_often_unless_told_otherwise():
    from kafka_zk.spark.fetch import consumer_config

    assert consumer_config("b:9092", {})["topic.metadata.refresh.interval.ms"] == 5000
    assert (
        consumer_config("b:9092", {"topic.metadata.refresh.interval.ms": "1000"})["topic.metadata.refresh.interval.ms"]
        == "1000"
    )
