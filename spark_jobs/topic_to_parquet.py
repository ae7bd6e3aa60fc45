"""topic_to_parquet: stream kafka-zk topics into a Parquet dataset partitioned by topic and date, exactly once.

Exactly once across restarts comes from Spark: the source's offsets and the file sink's commit log live in the
checkpoint directory, and readers of the dataset (spark.read.parquet) only see files of committed batches.
"""

import sys

from spark_jobs.common import (
    add_stream_options,
    job_parser,
    run_job,
    run_streaming_job,
    split_topics,
    start_stream,
    stream_source,
)


def build_parser():
    parser = job_parser(
        "Stream kafka-zk topics into Parquet files partitioned by topic and date "
        "(exactly once across restarts through --checkpoint)."
    )
    parser.add_argument(
        "--topic", action="append", default=[], required=True, help="topic to ingest (repeatable, or comma-separated)"
    )
    parser.add_argument("--output", required=True, help="directory of the Parquet dataset")
    parser.add_argument("--checkpoint", required=True, help="checkpoint directory (keep it to resume exactly once)")
    add_stream_options(parser)
    parser.add_argument("--fail-on-data-loss", choices=("true", "false"), default="true")
    return parser


def start_query(spark, args, topics):
    source = stream_source(spark, args, topics).option("failOnDataLoss", args.fail_on_data_loss)
    from pyspark.sql import functions as F

    records = source.load().withColumn("date", F.to_date("timestamp"))
    return start_stream(
        records.writeStream.format("parquet")
        .option("path", args.output)
        .option("checkpointLocation", args.checkpoint)
        .partitionBy("topic", "date")
        .outputMode("append")
        .queryName("topic_to_parquet"),
        args,
    )


def main(argv=None):
    args = build_parser().parse_args(argv)
    topics = split_topics(args.topic)
    return run_streaming_job(args, "topic_to_parquet", lambda spark: start_query(spark, args, topics))


if __name__ == "__main__":
    sys.exit(run_job(main))
