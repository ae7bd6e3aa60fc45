"""topic_stats: a batch report per topic and partition (records, bytes, keys, time span, rate, heaviest keys)."""

import sys
import time

from spark_jobs.common import JobError, job_parser, run_job, spark_session, split_topics

PARTITION_COLUMNS = (
    "TOPIC",
    "PARTITION",
    "RECORDS",
    "BYTES",
    "KEYS",
    "FIRST-TIMESTAMP",
    "LAST-TIMESTAMP",
    "RECORDS/MIN",
)
KEY_COLUMNS = ("TOPIC", "KEY", "RECORDS", "BYTES")


def build_parser():
    parser = job_parser(
        "Report records, bytes, distinct keys, first/last timestamps, records per minute and "
        "the heaviest keys of kafka-zk topics, per partition."
    )
    parser.add_argument(
        "--topic",
        action="append",
        default=[],
        required=True,
        help="topic to report on (repeatable, or comma-separated)",
    )
    parser.add_argument("--top", type=int, default=5, help="how many of the heaviest keys to list per topic (5)")
    parser.add_argument("--plot", metavar="FILE", default=None, help="also draw the report as a PNG")
    return parser


def compute_stats(spark, bootstrap, topics, top):
    """(partition rows, heaviest-key rows) as lists of dicts, both sorted for printing."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    records = (
        spark.read.format("kafka_zk")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", ",".join(topics))
        .load()
        .withColumn("bytes", F.coalesce(F.length("key"), F.lit(0)) + F.coalesce(F.length("value"), F.lit(0)))
    )
    records = records.cache()
    try:
        per_partition = (
            records.groupBy("topic", "partition")
            .agg(
                F.count("*").alias("records"),
                F.sum("bytes").alias("bytes"),
                F.approx_count_distinct("key").alias("keys"),
                F.min("timestamp").alias("first"),
                F.max("timestamp").alias("last"),
            )
            .orderBy("topic", "partition")
            .collect()
        )
        by_key = (
            records.where(F.col("key").isNotNull())
            .groupBy("topic", "key")
            .agg(F.count("*").alias("records"), F.sum("bytes").alias("bytes"))
        )
        rank = F.row_number().over(Window.partitionBy("topic").orderBy(F.desc("records"), F.desc("bytes"), "key"))
        heaviest = by_key.withColumn("rank", rank).where(F.col("rank") <= top).orderBy("topic", "rank").collect()
    finally:
        records.unpersist()
    partitions = []
    for row in per_partition:
        span_min = (row["last"] - row["first"]).total_seconds() / 60.0 if row["first"] else 0.0
        partitions.append(
            {
                "topic": row["topic"],
                "partition": row["partition"],
                "records": row["records"],
                "bytes": row["bytes"] or 0,
                "keys": row["keys"],
                "first": row["first"],
                "last": row["last"],
                "per_minute": row["records"] / span_min if span_min > 0 else float(row["records"]),
            }
        )
    keys = [
        {"topic": r["topic"], "key": _printable(bytes(r["key"])), "records": r["records"], "bytes": r["bytes"]}
        for r in heaviest
    ]
    return partitions, keys


def _printable(raw):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.hex()
    return text if text.isprintable() else raw.hex()


def _time(value):
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z" if value is not None else "-"


def format_table(header, rows):
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)] if rows else [len(h) for h in header]
    return "\n".join(" ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in [header] + rows)


def report(partitions, keys):
    partition_rows = [
        (
            p["topic"],
            p["partition"],
            p["records"],
            p["bytes"],
            p["keys"],
            _time(p["first"]),
            _time(p["last"]),
            "%.1f" % p["per_minute"],
        )
        for p in partitions
    ]
    key_rows = [(k["topic"], k["key"], k["records"], k["bytes"]) for k in keys]
    return format_table(PARTITION_COLUMNS, partition_rows) + "\n\n" + format_table(KEY_COLUMNS, key_rows)


def plot(partitions, keys, path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (left, right) = pyplot.subplots(1, 2, figsize=(12, 4.5))
    labels = ["%s-%d" % (p["topic"], p["partition"]) for p in partitions]
    left.bar(labels, [p["records"] for p in partitions], color="tab:blue")
    left.set_title("Records per partition")
    left.set_ylabel("records")
    left.tick_params(axis="x", rotation=45)
    key_labels = ["%s: %s" % (k["topic"], k["key"]) for k in keys]
    right.barh(key_labels[::-1], [k["records"] for k in keys][::-1], color="tab:orange")
    right.set_title("Heaviest keys")
    right.set_xlabel("records")
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)


def main(argv=None):
    args = build_parser().parse_args(argv)
    topics = split_topics(args.topic)
    if args.top < 1:
        raise JobError("--top must be positive")
    spark = spark_session(args, "topic_stats")
    started = time.monotonic()
    try:
        partitions, keys = compute_stats(spark, args.bootstrap_server, topics, args.top)
    finally:
        spark.stop()
    print(
        "batch 0: %d records of %d partitions read in %.1f s"
        % (sum(p["records"] for p in partitions), len(partitions), time.monotonic() - started),
        file=sys.stderr,
    )
    print(report(partitions, keys), flush=True)
    if args.plot:
        plot(partitions, keys, args.plot)
        print("plot written to %s" % args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(run_job(main))
