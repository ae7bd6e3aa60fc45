"""What every job of spark_jobs shares: common options, the SparkSession with kafka_zk, one progress line per batch."""

import argparse
import os
import sys
import time


class JobError(Exception):
    """Bad input to a job: the job prints the message on one line and exits with 1."""


def job_parser(description):
    parser = argparse.ArgumentParser(description=description, allow_abbrev=False)
    parser.add_argument("--bootstrap-server", required=True, metavar="HOST:PORT[,...]",
                        help="kafka-zk brokers to connect to (kafka.bootstrap.servers)")
    parser.add_argument("--master", default="local[*]",
                        help="Spark master URL (default: local[*]); on a cluster, executors need kafka-zk[spark]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra Spark configuration, repeatable")
    return parser


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
    builder = (SparkSession.builder.master(args.master).appName(app_name)
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "4"))
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
    print("batch %d: %d records, %.0f records/s, %d ms (%s)" % (
        progress.batchId, progress.numInputRows, progress.processedRowsPerSecond or 0.0,
        durations.get("triggerExecution", 0), progress.timestamp), file=out, flush=True)


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
