"""kafka-producer-perf-test: Kafka 2.5's ProducerPerformance (options, payloads, throttling, output) on librdkafka."""

import argparse
import functools
import os
import re
import sys
import time

from confluent_kafka import KafkaError, KafkaException, Producer

from kafka_zk.common.properties import read_properties
from kafka_zk.tools import client_config
from kafka_zk.tools.command_line import ToolArgumentParser, ToolFailure, UsageError
from kafka_zk.tools.perf_support import JavaRandom, ProducerStats, ThroughputThrottler, java_split, uppercase_payload

PROG = "producer-performance"
REPORTING_INTERVAL_MS = 5000
DEFAULT_TRANSACTIONAL_ID = "performance-producer-default-transactional-id"
# Kafka 2.5 producer defaults where librdkafka's differ, so that an unconfigured run batches as Kafka's does.
JAVA_PRODUCER_DEFAULTS = {
    "linger.ms": "0",
    "batch.size": "16384",
    "buffer.memory": "33554432",
    "delivery.timeout.ms": "120000",
    "max.in.flight.requests.per.connection": "5",
    "max.request.size": "1048576",
    "acks": "1",
    "client.id": "producer-1",
}
_INT = re.compile(r"^[+-]?\d+$")


def _java_integer(type_name, bits):
    def convert(text):
        if not _INT.match(text) or not -(1 << (bits - 1)) <= int(text) < (1 << (bits - 1)):
            raise argparse.ArgumentTypeError(
                "could not convert '%s' to %s (For input string: \"%s\")" % (text, type_name, text)
            )
        return int(text)

    return convert


def build_parser():
    parser = ToolArgumentParser(prog=PROG, description="This tool is used to verify the producer performance.")
    payload = parser.add_mutually_exclusive_group()
    parser.add_argument("--topic", metavar="TOPIC", help="produce messages to this topic")
    parser.add_argument(
        "--num-records",
        dest="num_records",
        metavar="NUM-RECORDS",
        type=_java_integer("Long", 64),
        help="number of messages to produce",
    )
    payload.add_argument(
        "--record-size",
        dest="record_size",
        metavar="RECORD-SIZE",
        type=_java_integer("Integer", 32),
        help="message size in bytes. Note that you must provide exactly one of --record-size or --payload-file.",
    )
    payload.add_argument(
        "--payload-file",
        dest="payload_file",
        metavar="PAYLOAD-FILE",
        help="file to read the message payloads from. This works only for UTF-8 encoded text files. "
        "Payloads will be read from this file and a payload will be randomly selected when "
        "sending messages. Note that you must provide exactly one of --record-size or "
        "--payload-file.",
    )
    parser.add_argument(
        "--payload-delimiter",
        dest="payload_delimiter",
        metavar="PAYLOAD-DELIMITER",
        default="\\n",
        help="provides delimiter to be used when --payload-file is provided. Defaults to new line. "
        "Note that this parameter will be ignored if --payload-file is not provided. "
        "(default: \\n)",
    )
    parser.add_argument(
        "--throughput",
        metavar="THROUGHPUT",
        type=_java_integer("Integer", 32),
        help="throttle maximum message throughput to *approximately* THROUGHPUT messages/sec. "
        "Set this to -1 to disable throttling.",
    )
    parser.add_argument(
        "--producer-props",
        dest="producer_props",
        nargs="+",
        metavar="PROP-NAME=PROP-VALUE",
        help="kafka producer related configuration properties like bootstrap.servers,client.id etc. "
        "These configs take precedence over those passed via --producer.config.",
    )
    parser.add_argument(
        "--producer.config", dest="producer_config", metavar="CONFIG-FILE", help="producer config properties file."
    )
    parser.add_argument(
        "--print-metrics",
        dest="print_metrics",
        action="store_true",
        help="print out metrics at the end of the test. (default: false)",
    )
    parser.add_argument(
        "--transactional-id",
        dest="transactional_id",
        metavar="TRANSACTIONAL-ID",
        default=DEFAULT_TRANSACTIONAL_ID,
        help="The transactionalId to use if transaction-duration-ms is > 0. Useful when testing "
        "the performance of concurrent transactions. (default: %s)" % DEFAULT_TRANSACTIONAL_ID,
    )
    parser.add_argument(
        "--transaction-duration-ms",
        dest="transaction_duration_ms",
        metavar="TRANSACTION-DURATION",
        type=_java_integer("Long", 64),
        default=0,
        help="The max age of each transaction. The commitTransaction will be called after this time "
        "has elapsed. Transactions are only enabled if this value is positive. (default: 0)",
    )
    return parser


def check_args(args):
    """argparse4j's required checks, in the order Kafka's parser reports them."""
    for option, value in (
        ("--topic", args.topic),
        ("--num-records", args.num_records),
        ("--throughput", args.throughput),
    ):
        if value is None:
            raise UsageError("argument %s is required" % option)
    if args.record_size is None and args.payload_file is None:
        raise UsageError("one of the arguments --record-size --payload-file is required")
    if args.producer_props is None and args.producer_config is None:
        raise UsageError("Either --producer-props or --producer.config must be specified.")


def read_payloads(path, delimiter, out):
    """The --payload-file payloads, split on the delimiter (a regex, as Java's String.split takes it)."""
    absolute = os.path.abspath(path)
    print("Reading payloads from: %s" % absolute, file=out)
    if not os.path.isfile(absolute) or os.path.getsize(absolute) == 0:
        raise ToolFailure("java.lang.IllegalArgumentException", "File does not exist or empty file provided.")
    with open(absolute, "rb") as handle:
        text = handle.read().decode("utf-8", errors="replace")
    try:
        payloads = java_split(text, "\n" if delimiter == "\\n" else delimiter)
    except re.error as exc:
        raise ToolFailure("java.util.regex.PatternSyntaxException", str(exc))
    print("Number of messages read: %d" % len(payloads), file=out)
    return [payload.encode("utf-8") for payload in payloads]


def read_props(args):
    """--producer.config, then --producer-props over it (each must be exactly one 'name=value')."""
    props = {}
    if args.producer_config is not None:
        try:
            props.update(read_properties(args.producer_config))
        except OSError as exc:
            raise ToolFailure("java.io.FileNotFoundException", "%s (%s)" % (args.producer_config, exc.strerror))
    for prop in args.producer_props or ():
        pieces = java_split(prop, "=")
        if len(pieces) != 2:
            raise ToolFailure("java.lang.IllegalArgumentException", "Invalid property: %s" % prop)
        props[pieces[0]] = pieces[1]
    if args.transaction_duration_ms > 0:
        props["transactional.id"] = args.transactional_id
    return props


def librdkafka_settings(props, err):
    """The librdkafka configuration for Kafka producer ``props`` (Kafka's defaults where librdkafka's differ)."""
    try:
        client_config.require_bootstrap(props)
        defaults = dict(JAVA_PRODUCER_DEFAULTS)
        idempotent = "transactional.id" in props or str(props.get("enable.idempotence", "")).strip() == "true"
        if idempotent:  # Kafka's idempotent (and so transactional) producer defaults to acks=all and insists on it
            defaults["acks"] = "all"
            if str(props.get("acks", "all")).strip() not in ("all", "-1"):
                raise client_config.ClientConfigError(
                    "Must set acks to all in order to use the idempotent producer. "
                    "Otherwise we cannot guarantee idempotence."
                )
        if "transactional.id" in props:  # librdkafka wants sends to expire within a transaction's lifetime
            defaults["delivery.timeout.ms"] = str(props.get("transaction.timeout.ms", "60000")).strip()
        merged = dict(defaults, **props)
        settings = client_config.translate(merged, client_config.PRODUCER_CONFIGS, lambda line: print(line, file=err))
    except client_config.ClientConfigError as exc:
        raise ToolFailure("org.apache.kafka.common.config.ConfigException", str(exc))
    settings["error_cb"] = lambda error: None  # transport errors are retried, as Kafka's producer does quietly
    return settings


class PerfRun:
    """One run: send ``num_records`` records, report each completion to the stats, throttle, and flush."""

    def __init__(
        self,
        producer,
        args,
        payloads,
        payload,
        out,
        err,
        clock=time.time,
        nanotime=time.perf_counter_ns,
        max_block_ms=60000,
    ):
        self.producer = producer
        self.args = args
        self.payloads = payloads
        self.payload = payload
        self.out = out
        self.err = err
        self._clock = clock
        self._nanotime = nanotime
        self.failures = 0
        self.max_block_ms = max_block_ms

    def _now_ms(self):
        return int(self._clock() * 1000)

    def _completed(self, stats, iteration, start_ms, size, error, message):
        now = self._now_ms()
        stats.record(iteration, now - start_ms, size, now)
        if error is not None:
            self.failures += 1
            print("org.apache.kafka.common.KafkaException: %s" % error.str(), file=self.err)

    def _wait(self, seconds):
        self.producer.poll(seconds)

    def run(self, random):
        args = self.args
        transactions = args.transaction_duration_ms > 0
        if transactions:  # before the clock starts, as in Kafka's tool
            self.producer.init_transactions(self.max_block_ms / 1000.0)
        stats = ProducerStats(args.num_records, REPORTING_INTERVAL_MS, self._now_ms, self.out)
        start_ms = self._now_ms()
        throttler = ThroughputThrottler(args.throughput, start_ms, self._nanotime, self._wait)
        in_transaction = 0
        transaction_start = 0
        payload = self.payload
        produce = self.producer.produce
        poll = self.producer.poll
        for i in range(args.num_records):
            if transactions and in_transaction == 0:
                self.producer.begin_transaction()
                transaction_start = self._now_ms()
            if self.payloads:
                payload = self.payloads[random.next_int(len(self.payloads))]
            send_start_ms = self._now_ms()
            callback = functools.partial(self._completed, stats, i, send_start_ms, len(payload))
            while True:
                try:
                    produce(args.topic, payload, on_delivery=callback)
                    break
                except BufferError:  # buffer.memory is full: Kafka's send() blocks until there is room
                    poll(0.05)
            poll(0)
            in_transaction += 1
            if transactions and args.transaction_duration_ms <= send_start_ms - transaction_start:
                self.producer.commit_transaction()
                in_transaction = 0
            if throttler.should_throttle(i, send_start_ms):
                throttler.throttle()
        if transactions and in_transaction:
            self.producer.commit_transaction()
        self.producer.flush()
        stats.print_total()
        return stats


def print_metrics(stats, client_id, out):
    """Kafka's ToolsUtils.printMetrics layout for the producer-metrics this tool measures itself."""
    client = "{client-id=%s}" % client_id
    elapsed_s = max(1e-9, (int(time.time() * 1000) - stats.start) / 1000.0)
    metrics = {
        "producer-metrics:record-send-total:%s" % client: float(stats.count),
        "producer-metrics:record-send-rate:%s" % client: stats.count / elapsed_s,
        "producer-metrics:outgoing-byte-total:%s" % client: float(stats.bytes),
        "producer-metrics:request-latency-avg:%s" % client: stats.total_latency / max(1, stats.count),
        "producer-metrics:request-latency-max:%s" % client: float(stats.max_latency),
    }
    width = max(len(name) for name in metrics)
    print("\n%-*s   %s" % (width, "Metric Name", "Value"), file=out)
    for name in sorted(metrics):
        print("%-*s : %.3f" % (width, name, metrics[name]), file=out)


def run(args, out, err, producer_factory=Producer):
    check_args(args)
    payloads = read_payloads(args.payload_file, args.payload_delimiter, out) if args.payload_file else []
    props = read_props(args)
    settings = librdkafka_settings(props, err)
    try:
        producer = producer_factory(settings)
    except (KafkaException, ValueError) as exc:
        raise ToolFailure("org.apache.kafka.common.KafkaException", "Failed to construct kafka producer: %s" % exc)
    random = JavaRandom(0)
    payload = None
    if args.record_size is not None:
        if args.record_size < 0:
            raise ToolFailure("java.lang.NegativeArraySizeException", str(args.record_size))
        payload = bytes(random.next_int(26) + 65 for _ in range(args.record_size))
    max_block_ms = int(props.get("max.block.ms", "60000"))
    perf = PerfRun(producer, args, payloads, payload, out, err, max_block_ms=max_block_ms)
    try:
        stats = perf.run(random)
    except KafkaException as exc:
        error = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
        if error is not None and error.code() == KafkaError._TIMED_OUT:
            raise ToolFailure(
                "org.apache.kafka.common.errors.TimeoutException",
                "Timeout expired after %dmilliseconds while awaiting InitProducerId" % max_block_ms,
            )
        raise ToolFailure("org.apache.kafka.common.KafkaException", error.str() if error is not None else str(exc))
    if args.print_metrics:
        print_metrics(stats, settings.get("client.id", "producer-1"), out)
    return 0


def main(argv=None, out=None, err=None):
    """Kafka's exit codes: 0 after a run (and for no arguments: help), 1 for bad options or a failed run."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        parser.print_help(out)
        return 0
    try:
        args = parser.parse_args(argv)
        check_args(args)
        if args.num_records == 0:  # Stats' sampling divides by min(numRecords, 500000)
            raise ToolFailure("java.lang.ArithmeticException", "/ by zero")
        if args.num_records < 0:
            raise ToolFailure("java.lang.NegativeArraySizeException", str(args.num_records + 1))
        return run(args, out, err)
    except UsageError as exc:
        parser.print_usage(err)
        print("%s: error: %s" % (PROG, exc), file=err)
        return 1
    except ToolFailure as exc:
        out.flush()
        print(exc.line(), file=err)
        return 1
    except KeyboardInterrupt:
        return 1


__all__ = ["main", "uppercase_payload"]

if __name__ == "__main__":
    sys.exit(main())
