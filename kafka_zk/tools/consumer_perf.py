"""kafka-consumer-perf-test: Kafka 2.5's ConsumerPerformance (options, timing, output lines) on librdkafka."""

import random as _random
import sys
import time

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer, TopicPartition

from kafka_zk.common.properties import read_properties
from kafka_zk.tools import client_config
from kafka_zk.tools.command_line import ToolArgumentParser, ToolFailure, UsageError
from kafka_zk.tools.perf_support import DateFormatError, SimpleDateFormat, java_divide, java_fixed

HELP_MESSAGE = "This tool helps in performance test for the full zookeeper consumer"
POLL_TIMEOUT_S = 0.1  # Kafka's loop polls with Duration.ofMillis(100)
MAX_POLL_RECORDS = 500
MB = 1024.0 * 1024.0


def _java_number(type_name, bits):
    def convert(text):
        stripped = text.strip()
        if not stripped.lstrip("+-").isdigit() or not -(1 << (bits - 1)) <= int(stripped) < (1 << (bits - 1)):
            raise UsageError("Cannot parse argument '%s' of option %s" % (text, type_name))
        return int(stripped)

    return convert


def build_parser():
    parser = ToolArgumentParser(prog="kafka-consumer-perf-test", description=HELP_MESSAGE, add_help=False)
    parser.add_argument(
        "--broker-list",
        help="DEPRECATED, use --bootstrap-server instead; ignored if "
        "--bootstrap-server is specified.  The broker list string in the form HOST1:PORT1,HOST2:PORT2.",
    )
    parser.add_argument(
        "--bootstrap-server",
        help="REQUIRED unless --broker-list(deprecated) is specified. The server(s) to connect to.",
    )
    parser.add_argument("--topic", help="REQUIRED: The topic to consume from.")
    parser.add_argument(
        "--group", default="perf-consumer-%d" % _random.randrange(100000), help="The group id to consume on."
    )
    parser.add_argument(
        "--fetch-size",
        type=_java_number("fetch-size", 32),
        default=1024 * 1024,
        help="The amount of data to fetch in a single request.",
    )
    parser.add_argument(
        "--from-latest",
        action="store_true",
        help="If the consumer does not already have an established offset to consume from, start with "
        "the latest message present in the log rather than the earliest message.",
    )
    parser.add_argument(
        "--socket-buffer-size",
        type=_java_number("socket-buffer-size", 32),
        default=2 * 1024 * 1024,
        help="The size of the tcp RECV size.",
    )
    parser.add_argument("--threads", type=_java_number("threads", 32), default=10, help="Number of processing threads.")
    parser.add_argument(
        "--num-fetch-threads", type=_java_number("num-fetch-threads", 32), default=1, help="Number of fetcher threads."
    )
    parser.add_argument("--consumer.config", dest="consumer_config", help="Consumer config properties file.")
    parser.add_argument("--print-metrics", action="store_true", help="Print out the metrics.")
    parser.add_argument(
        "--show-detailed-stats",
        action="store_true",
        help="If set, stats are reported for each reporting interval as configured by reporting-interval",
    )
    parser.add_argument(
        "--timeout",
        nargs="?",
        const=10000,
        default=10000,
        type=_java_number("timeout", 64),
        help="The maximum allowed time in milliseconds between returned records.",
    )
    parser.add_argument(
        "--messages", type=_java_number("messages", 64), help="REQUIRED: The number of messages to send or consume"
    )
    parser.add_argument(
        "--reporting-interval",
        type=_java_number("reporting-interval", 32),
        default=5000,
        help="If set, this is the interval in milliseconds at which to print progress info.",
    )
    parser.add_argument(
        "--date-format",
        default="yyyy-MM-dd HH:mm:ss:SSS",
        help="The date format to use for formatting the time field. See java.text.SimpleDateFormat for options.",
    )
    parser.add_argument("--hide-header", action="store_true", help="If set, skips printing the header for the stats ")
    parser.add_argument("--help", action="store_true", help="Print usage information.")
    parser.add_argument("--version", action="store_true", help="Display Kafka version.")
    return parser


class ConsumerPerfConfig:
    """The checked options, and the consumer's Kafka properties with the tool's own settings over the file's."""

    def __init__(self, args):
        if args.help:
            raise UsageError(HELP_MESSAGE)
        if not (args.bootstrap_server or args.broker_list):
            raise ToolFailure(
                "joptsimple.MissingRequiredOptionsException", "Missing required option(s) [bootstrap-server]"
            )
        for name in ("topic", "messages"):
            if getattr(args, name) is None:
                raise UsageError('Missing required argument "[%s]"' % name)
        props = {}
        if args.consumer_config:
            try:
                props.update(read_properties(args.consumer_config))
            except OSError as exc:
                raise ToolFailure("java.io.FileNotFoundException", "%s (%s)" % (args.consumer_config, exc.strerror))
        props.update(
            {
                "bootstrap.servers": args.bootstrap_server or args.broker_list,
                "group.id": args.group,
                "receive.buffer.bytes": str(args.socket_buffer_size),
                "max.partition.fetch.bytes": str(args.fetch_size),
                "auto.offset.reset": "latest" if args.from_latest else "earliest",
                "check.crcs": "false",
            }
        )
        self.props = props
        self.topic = args.topic
        self.group = args.group
        self.num_messages = args.messages
        if args.reporting_interval <= 0:
            raise ToolFailure("java.lang.IllegalArgumentException", "Reporting interval must be greater than 0.")
        self.reporting_interval = args.reporting_interval
        self.show_detailed_stats = args.show_detailed_stats
        self.hide_header = args.hide_header
        self.print_metrics = args.print_metrics
        self.record_fetch_timeout_ms = args.timeout
        self.from_latest = args.from_latest
        try:
            self.date_format = SimpleDateFormat(args.date_format)
        except DateFormatError as exc:
            raise ToolFailure("java.lang.IllegalArgumentException", str(exc))


def librdkafka_settings(props, err):
    """librdkafka settings for the consumer's Kafka properties (Kafka 2.5's consumer defaults kept)."""
    merged = {
        "fetch.max.wait.ms": "500",
        "fetch.min.bytes": "1",
        "fetch.max.bytes": "52428800",
        "allow.auto.create.topics": "true",
    }
    merged.update(props)
    try:
        settings = client_config.translate(merged, client_config.CONSUMER_CONFIGS, lambda line: print(line, file=err))
    except client_config.ClientConfigError as exc:
        raise ToolFailure("org.apache.kafka.common.config.ConfigException", str(exc))
    # Offsets are never committed (Kafka's tool does not commit either; auto-commit would need a group).
    settings.update(
        {
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            # librdkafka pauses fetching 1 s once its prefetch queue is full; Kafka's consumer does not.
            "fetch.queue.backoff.ms": 10,
            "error_cb": lambda error: None,
        }
    )
    return settings


class ExplicitAssignment:
    """Assigns every partition of the topic to this consumer, starting where auto.offset.reset says.

    Kafka 2.5's tool subscribes with --group and measures the group join as rebalance.time.ms. This tool
    was written before the brokers served consumer groups and still assigns the partitions itself; the time
    from the start to the assignment is its rebalance time. A group subscription (the brokers serve groups
    now) is the other implementation of this seam: ``poll_assigned`` would call ``consumer.subscribe([topic],
    on_assign=...)`` once and report the join time from the callback.
    """

    def __init__(self, topic, from_latest, now_ms):
        self.topic = topic
        self.from_latest = from_latest
        self._now_ms = now_ms
        self.started_ms = now_ms()
        self.assigned = False

    def poll_assigned(self, consumer, timeout_s):
        """True once assigned; returns the join time in ms through ``join_time_ms`` when it happens."""
        if self.assigned:
            return True
        try:
            metadata = consumer.list_topics(self.topic, timeout=timeout_s)
        except Exception:  # not reachable yet: the loop's timeout decides
            return False
        topic = metadata.topics.get(self.topic)
        if (
            topic is None
            or topic.error is not None
            or not topic.partitions
            or any(p.leader < 0 for p in topic.partitions.values())
        ):
            time.sleep(timeout_s)
            return False
        offset = OFFSET_END if self.from_latest else OFFSET_BEGINNING
        consumer.assign([TopicPartition(self.topic, p, offset) for p in sorted(topic.partitions)])
        self.assigned = True
        self.join_time_ms = self._now_ms() - self.started_ms
        return True


class ConsumeResult:
    def __init__(self):
        self.messages = 0
        self.bytes = 0
        self.join_time_ms = 0


def consume(consumer, config, out, now_ms=lambda: int(time.time() * 1000)):
    """Kafka's consume loop: read until --messages or --timeout ms without a record; detailed stats per interval."""
    result = ConsumeResult()
    assignment = ExplicitAssignment(config.topic, config.from_latest, now_ms)
    last_bytes = last_messages = 0
    join_in_round = 0
    current = now_ms()
    last_report = last_consumed = current
    while result.messages < config.num_messages and current - last_consumed <= config.record_fetch_timeout_ms:
        if not assignment.assigned:
            if assignment.poll_assigned(consumer, POLL_TIMEOUT_S):
                result.join_time_ms += assignment.join_time_ms
                join_in_round += assignment.join_time_ms
            current = now_ms()
            continue
        records = consumer.consume(MAX_POLL_RECORDS, POLL_TIMEOUT_S)
        current = now_ms()
        records = [record for record in records if record.error() is None]
        if records:
            last_consumed = current
        for record in records:
            result.messages += 1
            key = record.key()
            value = record.value()
            if key is not None:
                result.bytes += len(key)
            if value is not None:
                result.bytes += len(value)
            if current - last_report >= config.reporting_interval:
                if config.show_detailed_stats:
                    print(
                        progress_line(
                            0,
                            result.bytes,
                            last_bytes,
                            result.messages,
                            last_messages,
                            last_report,
                            current,
                            config.date_format,
                            join_in_round,
                        ),
                        file=out,
                        flush=True,
                    )
                join_in_round = 0
                last_report = current
                last_messages = result.messages
                last_bytes = result.bytes
    if result.messages < config.num_messages:
        print(
            "WARNING: Exiting before consuming the expected number of messages: timeout (%d ms) exceeded. "
            "You can use the --timeout option to increase the timeout." % config.record_fetch_timeout_ms,
            file=out,
            flush=True,
        )
    return result


def header(show_detailed_stats):
    extra = ", rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
    if show_detailed_stats:
        return "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" + extra
    return "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" + extra


def progress_line(thread_id, bytes_read, last_bytes, messages, last_messages, start_ms, end_ms, date_format, join_ms):
    """One --show-detailed-stats line: totals, this interval's rates, and its join-free fetch rates."""
    elapsed_ms = float(end_ms - start_ms)
    interval_mb = (bytes_read - last_bytes) / MB
    fetch_ms = end_ms - start_ms - join_ms
    if fetch_ms <= 0:
        fetch_mb_sec = fetch_msg_sec = 0.0
    else:
        fetch_mb_sec = 1000.0 * interval_mb / fetch_ms
        fetch_msg_sec = 1000.0 * (messages - last_messages) / fetch_ms
    return "%s, %d, %s, %s, %d, %s, %d, %d, %s, %s" % (
        date_format.format(end_ms),
        thread_id,
        java_fixed(bytes_read / MB, 4),
        java_fixed(java_divide(1000.0 * interval_mb, elapsed_ms), 4),
        messages,
        java_fixed(java_divide(float(messages - last_messages), elapsed_ms) * 1000.0, 4),
        join_ms,
        fetch_ms,
        java_fixed(fetch_mb_sec, 4),
        java_fixed(fetch_msg_sec, 4),
    )


def summary_line(start_ms, end_ms, result, date_format):
    elapsed_s = (end_ms - start_ms) / 1000.0
    fetch_ms = (end_ms - start_ms) - result.join_time_ms
    total_mb = result.bytes / MB
    return "%s, %s, %s, %s, %d, %s, %d, %d, %s, %s" % (
        date_format.format(start_ms),
        date_format.format(end_ms),
        java_fixed(total_mb, 4),
        java_fixed(java_divide(total_mb, elapsed_s), 4),
        result.messages,
        java_fixed(java_divide(float(result.messages), elapsed_s), 4),
        result.join_time_ms,
        fetch_ms,
        java_fixed(java_divide(total_mb, fetch_ms / 1000.0), 4),
        java_fixed(java_divide(float(result.messages), fetch_ms / 1000.0), 4),
    )


def print_metrics(result, start_ms, end_ms, client_id, out):
    """Kafka's ToolsUtils.printMetrics layout for the consumer-fetch-manager-metrics this tool measures itself."""
    client = "{client-id=%s}" % client_id
    seconds = max(1e-9, (end_ms - start_ms) / 1000.0)
    metrics = {
        "consumer-fetch-manager-metrics:records-consumed-total:%s" % client: float(result.messages),
        "consumer-fetch-manager-metrics:records-consumed-rate:%s" % client: result.messages / seconds,
        "consumer-fetch-manager-metrics:bytes-consumed-total:%s" % client: float(result.bytes),
        "consumer-fetch-manager-metrics:bytes-consumed-rate:%s" % client: result.bytes / seconds,
    }
    width = max(len(name) for name in metrics)
    print("\n%-*s   %s" % (width, "Metric Name", "Value"), file=out)
    for name in sorted(metrics):
        print("%-*s : %.3f" % (width, name, metrics[name]), file=out)


def run(args, out, err, consumer_factory=Consumer):
    config = ConsumerPerfConfig(args)
    settings = librdkafka_settings(config.props, err)
    if not config.hide_header:
        print(header(config.show_detailed_stats), file=out, flush=True)
    try:
        consumer = consumer_factory(settings)
    except Exception as exc:  # librdkafka refuses a setting
        raise ToolFailure("org.apache.kafka.common.KafkaException", "Failed to construct kafka consumer: %s" % exc)
    try:
        start_ms = int(time.time() * 1000)
        result = consume(consumer, config, out)
        end_ms = int(time.time() * 1000)
    finally:
        consumer.close()
    if not config.show_detailed_stats:
        print(summary_line(start_ms, end_ms, result, config.date_format), file=out, flush=True)
    if config.print_metrics:
        print_metrics(result, start_ms, end_ms, settings.get("client.id", "consumer-%s-1" % config.group), out)
    return 0


def main(argv=None, out=None, err=None):
    """Exit 0 after a run (also one that timed out), 1 for bad options (after Kafka's usage text) or a failure."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except UsageError as exc:
            message = str(exc)
            if message.startswith("unrecognized arguments: "):
                raise ToolFailure(
                    "joptsimple.UnrecognizedOptionException",
                    "%s is not a recognized option" % message.split(": ", 1)[1].split()[0].lstrip("-"),
                )
            raise
        if not argv:
            raise UsageError(HELP_MESSAGE)
        if args.version:
            print("2.5.0", file=out)
            return 0
        return run(args, out, err)
    except UsageError as exc:
        print(exc, file=err)
        parser.print_help(err)
        return 1
    except ToolFailure as exc:
        out.flush()
        print(exc.line(), file=err)
        return 1
    except KeyboardInterrupt:
        return 1


if __name__ == "__main__":
    sys.exit(main())
