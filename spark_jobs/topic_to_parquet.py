"""topic_to_parquet: stream kafka-zk topics into a Parquet dataset partitioned by topic and date, exactly once.

Exactly once across restarts comes from Spark: the source's offsets and the file sink's commit log live in the
checkpoint directory, and readers of the dataset (spark.read.parquet) only see files of committed batches.
"""

import sys

from spark_jobs.common import JobError, job_parser, run_job, run_stream, spark_session, split_topics


def build_parser():
    parser = job_parser("Stream kafka-zk topics into Parquet files partitioned by topic and date "
                        "(exactly once across restarts through --checkpoint).")
    parser.add_argument("--topic", action="append", default=[], required=True,
                        help="topic to ingest (repeatable, or comma-separated)")
    parser.add_argument("--output", required=True, help="directory of the Parquet dataset")
    parser.add_argument("--checkpoint", required=True, help="checkpoint directory (keep it to resume exactly once)")
    parser.add_argument("--starting-offsets", default="earliest",
                        help="where a new query starts: earliest (default), latest, or Spark's offsets JSON")
    parser.add_argument("--max-offsets-per-trigger", type=int, default=None,
                        help="at most this many records per micro-batch")
    parser.add_argument("--trigger-seconds", type=float, default=None,
                        help="run a micro-batch every N seconds and keep running (default: as fast as possible)")
    parser.add_argument("--available-now", action="store_true",
                        help="process what the topics hold now, in as many batches as needed, then stop")
    parser.add_argument("--timeout", type=float, default=None, help="stop a running ingest after N seconds")
    parser.add_argument("--fail-on-data-loss", choices=("true", "false"), default="true")
    return parser


def start_query(spark, args, topics):
    source = (spark.readStream.format("kafka_zk")
              .option("kafka.bootstrap.servers", args.bootstrap_server)
              .option("subscribe", ",".join(topics))
              .option("startingOffsets", args.starting_offsets)
              .option("failOnDataLoss", args.fail_on_data_loss))
    if args.max_offsets_per_trigger:
        source = source.option("maxOffsetsPerTrigger", str(args.max_offsets_per_trigger))
    from pyspark.sql import functions as F
    records = source.load().withColumn("date", F.to_date("timestamp"))
    writer = (records.writeStream.format("parquet")
              .option("path", args.output)
              .option("checkpointLocation", args.checkpoint)
              .partitionBy("topic", "date")
              .outputMode("append")
              .queryName("topic_to_parquet"))
    if args.available_now:
        writer = writer.trigger(availableNow=True)
    elif args.trigger_seconds:
        writer = writer.trigger(processingTime="%s seconds" % args.trigger_seconds)
    return writer.start()


def main(argv=None):
    args = build_parser().parse_args(argv)
    topics = split_topics(args.topic)
    if args.max_offsets_per_trigger is not None and args.max_offsets_per_trigger < 1:
        raise JobError("--max-offsets-per-trigger must be positive")
    spark = spark_session(args, "topic_to_parquet")
    try:
        query = start_query(spark, args, topics)
        run_stream(query, args.available_now, args.timeout)
        if query.exception() is not None:
            raise query.exception()
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(run_job(main))
