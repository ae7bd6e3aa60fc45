"""Spark batch reads and writes of kafka-zk topics through the kafka_zk data source, with real brokers and clients."""

import json

import pytest
from pyspark.sql import functions as F

from tests.spark_support import consume_all, create_topic, produce, spark  # noqa: F401

RECORDS = 50_000
PARTITIONS = 3


@pytest.fixture(scope="module")
def loaded_topic(cluster):
    """A 3-partition topic holding RECORDS records with keys and headers, written by confluent-kafka."""
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "spark-batch", PARTITIONS)
    records = [(b"k%d" % (i % 500), b"value-%06d" % i, [("seq", b"%d" % i), ("src", b"test")]) for i in range(RECORDS)]
    delivered = produce(bootstrap, "spark-batch", records)
    assert len(delivered) == RECORDS
    return delivered


def _read(spark, bootstrap, **options):
    reader = spark.read.format("kafka_zk").option("kafka.bootstrap.servers", bootstrap)
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader.load()


def test_batch_read_returns_every_record_once_with_sparks_schema(spark, cluster, loaded_topic):
    df = _read(spark, cluster.bootstrap_servers, subscribe="spark-batch", includeHeaders="true")
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("key", "binary"),
        ("value", "binary"),
        ("topic", "string"),
        ("partition", "int"),
        ("offset", "bigint"),
        ("timestamp", "timestamp"),
        ("timestampType", "int"),
        ("headers", "array<struct<key:string,value:binary>>"),
    ]
    rows = df.collect()
    assert len(rows) == RECORDS
    seen = {}
    for row in rows:
        assert row.topic == "spark-batch"
        assert row.timestampType == 0
        headers = [(h.key, bytes(h.value)) for h in row.headers or []]
        seen[(row.partition, row.offset)] = (bytes(row.key), bytes(row.value), headers)
    assert seen == {k: (key, value, list(headers or [])) for k, (key, value, headers) in loaded_topic.items()}
    for partition in range(PARTITIONS):
        offsets = sorted(o for p, o in seen if p == partition)
        assert offsets == list(range(len(offsets)))


def test_aggregates_and_min_partitions(spark, cluster, loaded_topic):
    df = _read(spark, cluster.bootstrap_servers, subscribe="spark-batch", minPartitions="7")
    assert df.rdd.getNumPartitions() >= 7
    total = df.agg(
        F.count("*").alias("n"),
        F.sum(F.length("value")).alias("bytes"),
        F.countDistinct("partition", "offset").alias("distinct"),
    ).first()
    assert total.n == RECORDS == total.distinct
    assert total.bytes == sum(len(v) for _, v, _ in loaded_topic.values())


def test_json_offsets_select_exactly_that_range(spark, cluster, loaded_topic):
    starting = {"spark-batch": {"0": 10, "1": -2, "2": 100}}
    ending = {"spark-batch": {"0": 50, "1": 7, "2": -1}}
    df = _read(
        spark,
        cluster.bootstrap_servers,
        subscribe="spark-batch",
        startingOffsets=json.dumps(starting),
        endingOffsets=json.dumps(ending),
    )
    got = sorted((r.partition, r.offset) for r in df.select("partition", "offset").collect())
    end_2 = max(o for p, o in loaded_topic if p == 2) + 1
    assert got == sorted(
        [(0, o) for o in range(10, 50)] + [(1, o) for o in range(0, 7)] + [(2, o) for o in range(100, end_2)]
    )


def test_assign_reads_only_the_assigned_partitions(spark, cluster, loaded_topic):
    df = _read(spark, cluster.bootstrap_servers, assign=json.dumps({"spark-batch": [1]}))
    counts = {r.partition: r["count"] for r in df.groupBy("partition").count().collect()}
    assert counts == {1: sum(1 for p, _ in loaded_topic if p == 1)}


def test_subscribe_pattern(spark, cluster, loaded_topic):
    df = _read(spark, cluster.bootstrap_servers, subscribePattern="spark-b.*")
    assert df.count() == RECORDS


def test_batch_write_is_read_back_by_confluent_kafka(spark, cluster):
    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "spark-sink", PARTITIONS)
    rows = [("key-%d" % i, "value-%d" % i, i % PARTITIONS) for i in range(3000)]
    df = spark.createDataFrame(rows, "key string, value string, partition int").withColumn(
        "headers", F.array(F.struct(F.lit("h").alias("key"), F.col("value").cast("binary").alias("value")))
    )
    df.write.format("kafka_zk").mode("append").option("kafka.bootstrap.servers", bootstrap).option(
        "topic", "spark-sink"
    ).save()
    found = consume_all(bootstrap, "spark-sink", PARTITIONS)
    assert sorted((k.decode(), v.decode(), p) for (p, _), (k, v, _) in found.items()) == sorted(rows)
    assert all(h == [("h", v)] for (k, v, h) in found.values())


def test_starting_offsets_by_timestamp_and_timestamp_column(spark, cluster):
    from confluent_kafka import Producer

    bootstrap = cluster.bootstrap_servers
    create_topic(bootstrap, "stamped", 1)
    base = 1_767_225_600_000  # 2026-01-01T00:00:00Z
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(100):
        producer.produce("stamped", b"v%d" % i, timestamp=base + i * 1000)
    assert producer.flush(30) == 0
    df = _read(
        spark, bootstrap, subscribe="stamped", startingOffsetsByTimestamp='{"stamped":{"0":%d}}' % (base + 50_500)
    )
    rows = sorted(df.select("offset", F.unix_millis("timestamp").alias("ms")).collect())
    assert [(r.offset, r.ms) for r in rows] == [(i, base + i * 1000) for i in range(51, 100)]
