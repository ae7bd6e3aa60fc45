"""What every job of spark_jobs shares: common options, the SparkSession with kafka_zk, one progress line per batch."""

import argparse
import os
import sys
import time


class JobError(Exception):
    """Bad input to a job: the job prints the message on one line and exits with 1."""


def job_parser(description):
    parser = argparse.ArgumentParser(description=description, allow_abbrev=False)
    parser.add_argument(
        "--bootstrap-server",
        required=True,
        metavar="HOST:PORT[,...]",
        help="kafka-zk brokers to connect to (kafka.bootstrap.servers)",
    )
    parser.add_argument(
        "--master",
        default="local[*]",
        help="Spark master URL (default: local[*]); on a cluster, executors need kafka-zk[spark]",
    )
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark configuration, repeatable"
    )
    return parser


def add_stream_options(parser):
    """The options of a streaming job: where it starts, how much a batch takes, when batches run, when it stops."""
    parser.add_argument(
        "--starting-offsets",
        default="earliest",
        help="where a new query starts: earliest (default), latest, or Spark's offsets JSON",
    )
    parser.add_argument(
        "--max-offsets-per-trigger", type=int, default=None, help="at most this many records per micro-batch"
    )
    parser.add_argument(
        "--trigger-seconds",
        type=float,
        default=None,
        help="run a micro-batch every N seconds and keep running (default: as fast as possible)",
    )
    parser.add_argument(
        "--available-now",
        action="store_true",
        help="process what the topics hold now, in as many batches as needed, then stop",
    )
    parser.add_argument("--timeout", type=float, default=None, help="stop a running job after N seconds")


def stream_source(spark, args, topics):
    """The kafka_zk streaming DataFrame reader for ``topics`` with the stream options of ``args``."""
    source = (
        spark.readStream.format("kafka_zk")
        .option("kafka.bootstrap.servers", args.bootstrap_server)
        .option("subscribe", ",".join(topics))
        .option("startingOffsets", args.starting_offsets)
    )
    if args.max_offsets_per_trigger:
        source = source.option("maxOffsetsPerTrigger", str(args.max_offsets_per_trigger))
    return source


def start_stream(writer, args):
    """Start ``writer`` with the trigger ``args`` ask for."""
    if args.available_now:
        writer = writer.trigger(availableNow=True)
    elif args.trigger_seconds:
        writer = writer.trigger(processingTime="%s seconds" % args.trigger_seconds)
    return writer.start()


def run_streaming_job(args, app_name, start_query):
    """A streaming job's life: its session, ``start_query(spark)``, a progress line per batch until it ends,
    the query's failure raised, the session stopped."""
    if args.max_offsets_per_trigger is not None and args.max_offsets_per_trigger < 1:
        raise JobError("--max-offsets-per-trigger must be positive")
    spark = spark_session(args, app_name)
    try:
        query = start_query(spark)
        run_stream(query, args.available_now, args.timeout)
        if query.exception() is not None:
            raise query.exception()
    finally:
        spark.stop()
    return 0


def split_topics(values):
    topics = [t.strip() for value in values for t in value.split(",") if t.strip()]
    if not topics:
        raise JobError("at least one --topic is required")
    return topics


def spark_session(args, app_name):
    """A SparkSession for ``args.master`` with the kafka_zk source registered and Spark's logging quieted."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from kafka_zk.spark import KafkaZkDataSource

    builder = (
        SparkSession.builder.master(args.master)
        .appName(app_name)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
    )
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            raise JobError("--conf expects KEY=VALUE, got %s" % item)
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    # A failed query is reported by run_job in one line; Spark's own ERROR log of it would repeat it at length.
    spark.sparkContext.setLogLevel("FATAL")
    spark.dataSource.register(KafkaZkDataSource)
    return spark


def print_progress(progress, out=None):
    """One line for a StreamingQueryProgress: batch id, rows, rows per second, and the batch's duration."""
    out = out or sys.stdout
    durations = progress.durationMs or {}
    print(
        "batch %d: %d records, %.0f records/s, %d ms (%s)"
        % (
            progress.batchId,
            progress.numInputRows,
            progress.processedRowsPerSecond or 0.0,
            durations.get("triggerExecution", 0),
            progress.timestamp,
        ),
        file=out,
        flush=True,
    )


def run_stream(query, available_now, timeout_s=None, out=None):
    """Print a progress line per batch until the query ends (availableNow) or forever, re-raising its error."""
    last_batch = -1
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    try:
        while True:
            finished = query.awaitTermination(0.5)
            for progress in query.recentProgress:
                if progress.batchId > last_batch and progress.numInputRows is not None:
                    last_batch = progress.batchId
                    print_progress(progress, out)
            if finished:
                return
            if deadline is not None and time.monotonic() > deadline:
                query.stop()
                return
    except KeyboardInterrupt:
        query.stop()


def run_job(main_fn, argv=None):
    """Run a job's main; bad input or a failed query is one line on stderr and exit code 1."""
    try:
        return main_fn(argv) or 0
    except JobError as exc:
        print("Error: %s" % exc, file=sys.stderr)
        return 1
    except Exception as exc:  # a failed Spark query: its first line says what went wrong
        from pyspark.errors import PySparkException

        if isinstance(exc, PySparkException) or type(exc).__module__.startswith("py4j"):
            print("Error: %s" % first_line(str(exc)), file=sys.stderr)
            return 1
        raise


def first_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    for line in lines:
        for marker in ("KafkaZkSourceError:", "KafkaZkOptionError:", "KafkaZkDataLossError:", "KafkaZkSinkError:"):
            if marker in line:
                return line.strip()
    return lines[0].strip() if lines else text
