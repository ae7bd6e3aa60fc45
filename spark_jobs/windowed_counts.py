"""windowed_counts: JSON events from a kafka-zk topic counted per key in event-time windows, written to a topic.

Kafka -> Spark -> Kafka: values are JSON objects; ``--key-field`` names the key and ``--time-field`` the event time
(ISO-8601 text or epoch milliseconds). Windows close when the watermark (latest event time minus ``--watermark``)
passes their end; each closed window is written once as JSON {"window_start", "window_end", "key", "count"}, keyed
by the key, through the kafka_zk sink (at least once: a batch replayed after a crash may write its windows again).
"""

import sys

from spark_jobs.common import add_stream_options, job_parser, run_job, run_streaming_job, start_stream, stream_source


def build_parser():
    parser = job_parser("Count JSON events per key in event-time windows and write the counts to a topic.")
    parser.add_argument("--topic", required=True, help="topic of JSON events")
    parser.add_argument("--output-topic", required=True, help="topic the window counts are written to")
    parser.add_argument("--checkpoint", required=True, help="checkpoint directory")
    parser.add_argument("--key-field", default="key", help="JSON field holding the key (default: key)")
    parser.add_argument(
        "--time-field", default="ts", help="JSON field holding the event time, ISO-8601 or epoch ms (default: ts)"
    )
    parser.add_argument("--window", default="1 minute", help="window length (default: 1 minute)")
    parser.add_argument("--slide", default=None, help="slide interval for sliding windows (default: tumbling)")
    parser.add_argument("--watermark", default="1 minute", help="allowed lateness (default: 1 minute)")
    add_stream_options(parser)
    return parser


def window_counts(events, key_field, time_field, window, slide, watermark):
    """The counts DataFrame (key, value) for a DataFrame of kafka_zk records."""
    from pyspark.sql import functions as F

    fields = F.from_json(F.col("value").cast("string"), "`%s` string, `%s` string" % (key_field, time_field))
    parsed = events.select(fields.alias("event")).select(
        F.col("event")[key_field].alias("key"), F.col("event")[time_field].alias("time_text")
    )
    event_time = F.coalesce(
        F.try_to_timestamp(F.col("time_text")), F.timestamp_millis(F.expr("try_cast(time_text AS BIGINT)"))
    )
    timed = parsed.withColumn("event_time", event_time).where(
        F.col("event_time").isNotNull() & F.col("key").isNotNull()
    )
    windowed = F.window("event_time", window, slide) if slide else F.window("event_time", window)
    counts = timed.withWatermark("event_time", watermark).groupBy(windowed.alias("window"), F.col("key")).count()
    value = F.to_json(
        F.struct(
            F.date_format("window.start", "yyyy-MM-dd'T'HH:mm:ss'Z'").alias("window_start"),
            F.date_format("window.end", "yyyy-MM-dd'T'HH:mm:ss'Z'").alias("window_end"),
            F.col("key"),
            F.col("count"),
        )
    )
    return counts.select(F.col("key"), value.alias("value"))


def start_query(spark, args):
    counts = window_counts(
        stream_source(spark, args, [args.topic]).load(),
        args.key_field,
        args.time_field,
        args.window,
        args.slide,
        args.watermark,
    )
    return start_stream(
        counts.writeStream.format("kafka_zk")
        .option("kafka.bootstrap.servers", args.bootstrap_server)
        .option("topic", args.output_topic)
        .option("checkpointLocation", args.checkpoint)
        .outputMode("append")
        .queryName("windowed_counts"),
        args,
    )


def main(argv=None):
    args = build_parser().parse_args(argv)
    return run_streaming_job(args, "windowed_counts", lambda spark: start_query(spark, args))


if __name__ == "__main__":
    sys.exit(run_job(main))
