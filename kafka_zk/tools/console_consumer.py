"""kafka-console-consumer: print records of a topic (all partitions, or one) without a consumer group."""

import signal
import sys

from kafka_zk.client.consumer import Consumer
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.client.topic_names import filter_topics
from kafka_zk.common.properties import read_properties
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, parse_key_value_args, run_tool

EARLIEST = -2
LATEST = -1
DEFAULT_FORMATTER = "kafka.tools.DefaultMessageFormatter"
# How long one poll may wait when no --timeout-ms bounds the idle time.
_IDLE_POLL_MS = 1000


def _flag(props, name, default=False):
    return props.get(name, "true" if default else "false").strip().lower() == "true"


class MessageFormatter:
    """Kafka's DefaultMessageFormatter: optional timestamp, partition, offset, headers and key before the value."""

    def __init__(self, properties):
        self.print_timestamp = _flag(properties, "print.timestamp")
        self.print_partition = _flag(properties, "print.partition")
        self.print_offset = _flag(properties, "print.offset")
        self.print_headers = _flag(properties, "print.headers")
        self.print_key = _flag(properties, "print.key")
        self.print_value = _flag(properties, "print.value", True)
        self.key_separator = properties.get("key.separator", "\t").encode("utf-8")
        self.line_separator = properties.get("line.separator", "\n").encode("utf-8")
        self.headers_separator = properties.get("headers.separator", ",").encode("utf-8")
        self.null_literal = properties.get("null.literal", "null").encode("utf-8")

    def _or_null(self, data):
        return self.null_literal if data is None else bytes(data)

    def format(self, record):
        """The bytes printed for one ConsumerRecord."""
        columns = []
        if self.print_timestamp:
            columns.append(("%s:%d" % (record.timestamp_type, record.timestamp)).encode("utf-8"))
        if self.print_partition:
            columns.append(b"Partition:%d" % record.partition)
        if self.print_offset:
            columns.append(b"Offset:%d" % record.offset)
        if self.print_headers:
            columns.append(self.headers_separator.join(
                name.encode("utf-8") + b":" + self._or_null(value) for name, value in record.headers)
                if record.headers else b"NO_HEADERS")
        if self.print_key:
            columns.append(self._or_null(record.key))
        line = self.key_separator.join(columns)
        if self.print_value:
            if columns:
                line += self.key_separator
            return line + self._or_null(record.value) + self.line_separator
        return line + self.line_separator if columns else b""


def write_bytes(out, data):
    """Raw bytes to a binary-capable stream, else UTF-8 text (tests pass StringIO)."""
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        buffer.write(data)
    else:
        out.write(data.decode("utf-8", errors="replace"))


def parse_offset(text):
    if text == "earliest":
        return EARLIEST
    if text == "latest":
        return LATEST
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise UsageError("The provided offset value is incorrect. Valid values are "
                         "'earliest', 'latest', or a non-negative long.")
    return value


def consumer_settings(args):
    """Consumer keyword arguments from --consumer.config, --consumer-property and --from-beginning."""
    props = read_properties(args.consumer_config) if args.consumer_config else {}
    props.update(parse_key_value_args(args.consumer_property))
    reset = props.get("auto.offset.reset")
    if args.from_beginning:
        if reset is not None and reset != "earliest":
            raise UsageError("Can't simultaneously specify --from-beginning and 'auto.offset.reset=%s', "
                             "as they conflict." % reset)
        reset = "earliest"
    return {"auto_offset_reset": reset or "latest", "client_id": props.get("client.id", "console-consumer"),
            "isolation_level": args.isolation_level,
            "max_partition_fetch_bytes": int(props.get("max.partition.fetch.bytes", 1024 * 1024)),
            "max_wait_ms": int(props.get("fetch.max.wait.ms", 500)),
            "min_bytes": int(props.get("fetch.min.bytes", 1))}


def check_args(args):
    """Kafka's ConsoleConsumer option checks; returns the starting offset for --partition (or None)."""
    if not args.bootstrap_server:
        raise UsageError('Missing required argument "[bootstrap-server]"')
    if (args.topic is None) == (args.whitelist is None):
        raise UsageError("Exactly one of whitelist/topic is required.")
    if args.formatter != DEFAULT_FORMATTER:
        raise UsageError("Only the default formatter %s is supported." % DEFAULT_FORMATTER)
    if args.partition is not None:
        if args.topic is None:
            raise UsageError("The topic is required when partition is specified.")
        if args.from_beginning and args.offset is not None:
            raise UsageError("Options from-beginning and offset cannot be specified together.")
        if args.offset is not None:
            return parse_offset(args.offset)
        return EARLIEST if args.from_beginning else LATEST
    if args.offset is not None:
        raise UsageError("The partition is required when offset is specified.")
    return None


def assign_start(consumer, args, start_offset):
    """Assign the partitions to read and place the consumer at the starting offsets."""
    if args.partition is not None:
        tp = (args.topic, args.partition)
        consumer.assign([tp])
        if start_offset == EARLIEST:
            consumer.seek_to_beginning([tp])
        elif start_offset == LATEST:
            consumer.seek_to_end([tp])
        else:
            consumer.seek(tp, start_offset)
        return
    if args.topic is not None:
        topics = [args.topic]
    else:
        consumer.cluster.metadata(None)
        topics = filter_topics(sorted(consumer.cluster.topics), args.whitelist, exclude_internal=True)
    consumer.assign([(t, p) for t in topics
                     for p in consumer.cluster.partitions_for(t, allow_auto_create=args.topic is not None)])


def consume(consumer, formatter, out, err, max_messages, timeout_ms):
    """Print records until ``max_messages`` (-1: no limit) or ``timeout_ms`` without any (None: wait forever)."""
    count = 0
    try:
        while max_messages < 0 or count < max_messages:
            records = consumer.poll(timeout_ms if timeout_ms is not None else _IDLE_POLL_MS)
            if not records:
                if timeout_ms is not None:
                    print("ERROR Error processing message, terminating consumer process: TimeoutException", file=err)
                    break
                continue
            for record in records[:max_messages - count] if max_messages >= 0 else records:
                write_bytes(out, formatter.format(record))
                count += 1
            out.flush()
    except BrokenPipeError:
        print("Unable to write to standard out, closing consumer.", file=err)
    except KeyboardInterrupt:
        pass
    return count


def build_parser():
    parser = ToolArgumentParser(prog="kafka-console-consumer",
                                description="Read data from Kafka and write it to standard output.")
    parser.add_argument("--bootstrap-server", help="REQUIRED: The server(s) to connect to.")
    parser.add_argument("--topic", help="The topic id to consume on.")
    parser.add_argument("--whitelist", help="Regular expression of topics to include for consumption.")
    parser.add_argument("--partition", type=int, help="The partition to consume from.")
    parser.add_argument("--offset", help="The offset to consume from: a non-negative number, earliest or latest.")
    parser.add_argument("--from-beginning", action="store_true", help="Start with the earliest message.")
    parser.add_argument("--max-messages", type=int, default=-1, help="Exit after this many messages.")
    parser.add_argument("--timeout-ms", type=int, help="Exit if no message arrives for this long.")
    parser.add_argument("--property", action="append", default=[],
                        help="Formatter properties: print.key, print.timestamp, print.offset, print.partition, "
                             "print.headers, print.value, key.separator, line.separator, headers.separator.")
    parser.add_argument("--consumer-property", action="append", default=[], help="key=value consumer properties.")
    parser.add_argument("--consumer.config", dest="consumer_config", help="Consumer config properties file.")
    parser.add_argument("--formatter", default=DEFAULT_FORMATTER, help="Only the default formatter is supported.")
    parser.add_argument("--isolation-level", default="read_uncommitted",
                        help="Set to read_committed in order to filter out transactional messages which are not "
                             "committed. Set to read_uncommitted to read all messages.")
    parser.add_argument("--skip-message-on-error", action="store_true", help="Accepted for compatibility.")
    return parser


def run(args, out, err, consumer_factory=Consumer):
    """Consume as the options say; prints 'Processed a total of N messages' on ``err`` at the end."""
    start_offset = check_args(args)
    formatter = MessageFormatter(parse_key_value_args(args.property))
    try:
        consumer = consumer_factory(args.bootstrap_server, **consumer_settings(args))
    except (ValueError, KafkaClientError) as exc:
        print("ERROR %s" % exc, file=err)
        return 1
    count = 0
    try:
        assign_start(consumer, args, start_offset)
        count = consume(consumer, formatter, out, err, args.max_messages, args.timeout_ms)
    except KafkaClientError as exc:
        print("ERROR Error processing message, terminating consumer process: %s" % exc, file=err)
        return 1
    finally:
        consumer.close()
        print("Processed a total of %d messages" % count, file=err)
    return 0


def _terminate(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    signal.signal(signal.SIGTERM, _terminate)
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
