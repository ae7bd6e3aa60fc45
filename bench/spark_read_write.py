"""Spark reads and writes of kafka-zk topics through the kafka_zk data source, next to plain confluent-kafka.

In one run against one kafka-zk cluster: a topic of N values of 100 bytes is written by a confluent-kafka producer
loop, read by a plain confluent-kafka consumer (count and sum of value lengths), read by a Spark batch query doing
the same aggregate, read by the source's own fetch code without Spark (to show where the time goes), written again
through the Spark sink, and ingested by the topic_to_parquet streaming query. Ratios are Spark / plain client.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from targets import KafkaZkTarget, client_config, ratio, unique_topic  # noqa: E402

VALUE_SIZE = 100
TIMEOUT_S = 600.0


def produce_loop(bootstrap, topic, records):
    """(seconds, failures) for a confluent-kafka producer loop with the sink's settings (idempotent, acks=all)."""
    failed = []
    producer = Producer(
        client_config(
            bootstrap,
            **{
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 5,
                "queue.buffering.max.messages": 1000000,
                "delivery.report.only.error": True,
                "on_delivery": lambda err, msg: failed.append(err),
            },
        )
    )
    producer.list_topics(topic, timeout=10)
    value = b"v" * VALUE_SIZE
    start = time.perf_counter()
    for _ in range(records):
        while True:
            try:
                producer.produce(topic, value)
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(TIMEOUT_S)
    return time.perf_counter() - start, len(failed)


def consume_loop(bootstrap, topic, partitions):
    """(seconds, count, value bytes) for a plain confluent-kafka consumer reading the whole topic."""
    consumer = Consumer(
        client_config(
            bootstrap,
            **{"group.id": "bench-" + uuid.uuid4().hex, "enable.auto.commit": False, "enable.auto.offset.store": False},
        )
    )
    try:
        consumer.list_topics(topic, timeout=10)
        expected = 0
        for partition in range(partitions):
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            expected += high - low
        start = time.perf_counter()
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
        count = total = 0
        deadline = start + TIMEOUT_S
        while count < expected and time.perf_counter() < deadline:
            for message in consumer.consume(10000, timeout=1.0):
                if not message.error():
                    count += 1
                    total += len(message.value())
        return time.perf_counter() - start, count, total
    finally:
        consumer.close()


def fetch_without_spark(bootstrap, topic, partitions):
    """(seconds, count) of the source's executor code (confluent-kafka -> Arrow batches) run directly, serially."""
    from kafka_zk.spark.fetch import OffsetRangeFetcher

    consumer = Consumer(client_config(bootstrap, **{"group.id": "bench-meta"}))
    ranges = [consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10) for p in range(partitions)]
    consumer.close()
    start = time.perf_counter()
    count = 0
    for partition, (low, high) in enumerate(ranges):
        fetcher = OffsetRangeFetcher(bootstrap, {}, topic, partition, low, high, False, True, 120000)
        for batch in fetcher.batches():
            count += batch.num_rows
    return time.perf_counter() - start, count


def spark_session(master):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from kafka_zk.spark import KafkaZkDataSource

    spark = (
        SparkSession.builder.master(master)
        .appName("kafka-zk-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(KafkaZkDataSource)
    return spark


def spark_read(spark, bootstrap, topic):
    from pyspark.sql import functions as F

    start = time.perf_counter()
    row = (
        spark.read.format("kafka_zk")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .load()
        .agg(F.count("*").alias("n"), F.sum(F.length("value")).alias("bytes"))
        .first()
    )
    return time.perf_counter() - start, row["n"], row["bytes"]


def spark_write(spark, bootstrap, topic, records, partitions):
    from pyspark.sql import functions as F

    df = spark.range(0, records, numPartitions=partitions).select(F.lit(b"v" * VALUE_SIZE).alias("value"))
    start = time.perf_counter()
    df.write.format("kafka_zk").mode("append").option("kafka.bootstrap.servers", bootstrap).option(
        "topic", topic
    ).save()
    return time.perf_counter() - start


def streaming_ingest(spark, bootstrap, topic, per_trigger):
    from spark_jobs.topic_to_parquet import start_query

    with tempfile.TemporaryDirectory(prefix="kafka-zk-bench-parquet-") as folder:
        args = SimpleNamespace(
            bootstrap_server=bootstrap,
            topic=[topic],
            output=os.path.join(folder, "out"),
            checkpoint=os.path.join(folder, "checkpoint"),
            starting_offsets="earliest",
            max_offsets_per_trigger=per_trigger,
            trigger_seconds=None,
            available_now=True,
            timeout=None,
            fail_on_data_loss="true",
        )
        start = time.perf_counter()
        query = start_query(spark, args, [topic])
        query.awaitTermination(TIMEOUT_S)
        elapsed = time.perf_counter() - start
        batches = [p for p in query.recentProgress if p.numInputRows]
    rows = sum(p.numInputRows for p in batches)
    latencies = [p.durationMs.get("triggerExecution", 0) for p in batches]
    return elapsed, rows, latencies


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=500000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--replication-factor", type=int, default=1)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--max-offsets-per-trigger", type=int, default=100000)
    parser.add_argument("--bootstrap", help="use this running kafka-zk cluster instead of starting one")
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    target = KafkaZkTarget(args.bootstrap, args.keep_data).start()
    n = args.records
    try:
        bootstrap = target.bootstrap_servers
        topic = unique_topic("bench-spark-read")
        target.create_topic(topic, args.partitions, args.replication_factor)
        print(
            "%d records of %d bytes, %d partitions RF %d, Spark master %s"
            % (n, VALUE_SIZE, args.partitions, args.replication_factor, args.master)
        )
        produce_s, failed = produce_loop(bootstrap, topic, n)
        print("  confluent-kafka producer loop  %7.2f s  %9.0f rec/s  (%d failed)" % (produce_s, n / produce_s, failed))
        consume_s, count, total = consume_loop(bootstrap, topic, args.partitions)
        print(
            "  confluent-kafka consumer       %7.2f s  %9.0f rec/s  (%d records, %d value bytes)"
            % (consume_s, count / consume_s, count, total)
        )
        fetch_s, fetched = fetch_without_spark(bootstrap, topic, args.partitions)
        print(
            "  source fetch code, no Spark    %7.2f s  %9.0f rec/s  (%d records into Arrow, one process)"
            % (fetch_s, fetched / fetch_s, fetched)
        )
        started = time.perf_counter()
        spark = spark_session(args.master)
        warm_topic = unique_topic("bench-spark-warm")
        target.create_topic(warm_topic, 1, 1)
        produce_loop(bootstrap, warm_topic, 1000)
        spark_read(spark, bootstrap, warm_topic)
        print("  Spark start + warm-up read     %7.2f s  (not counted below)" % (time.perf_counter() - started))
        reads = [spark_read(spark, bootstrap, topic) for _ in range(3)]
        read_s = statistics.median(r[0] for r in reads)
        print(
            "  Spark batch read (count, sum)  %7.2f s  %9.0f rec/s  (runs %s; %d records, %d bytes)"
            % (read_s, n / read_s, " ".join("%.2f" % r[0] for r in reads), reads[0][1], reads[0][2])
        )
        write_topic = unique_topic("bench-spark-write")
        target.create_topic(write_topic, args.partitions, args.replication_factor)
        writes = [spark_write(spark, bootstrap, write_topic, n, args.partitions) for _ in range(3)]
        write_s = statistics.median(writes)
        print(
            "  Spark sink write               %7.2f s  %9.0f rec/s  (runs %s)"
            % (write_s, n / write_s, " ".join("%.2f" % w for w in writes))
        )
        stream_s, rows, latencies = streaming_ingest(spark, bootstrap, topic, args.max_offsets_per_trigger)
        print(
            "  topic_to_parquet availableNow  %7.2f s  %9.0f rec/s  (%d rows, %d batches of <= %d, batch "
            "latency median %d ms, max %d ms)"
            % (
                stream_s,
                rows / stream_s,
                rows,
                len(latencies),
                args.max_offsets_per_trigger,
                statistics.median(latencies),
                max(latencies),
            )
        )
        spark.stop()
        print("ratios (Spark / plain confluent-kafka, records per second):")
        print("  read   %s  (goal >= 0.5)" % ratio(n / read_s, count / consume_s))
        print("  write  %s" % ratio(n / write_s, n / produce_s))
        print("  source fetch code without Spark / consumer: %s" % ratio(fetched / fetch_s, count / consume_s))
    finally:
        target.stop()


if __name__ == "__main__":
    main()
