"""kafka-console-consumer: print records of topics as a consumer-group member (or of one assigned partition)."""

import random
import signal
import sys

from kafka_zk.client.consumer import Consumer
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.client.group_consumer import GroupConsumer
from kafka_zk.client.topic_names import filter_topics
from kafka_zk.common.properties import read_properties
from kafka_zk.tools.command_config import security_options
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
            columns.append(
                self.headers_separator.join(
                    name.encode("utf-8") + b":" + self._or_null(value) for name, value in record.headers
                )
                if record.headers
                else b"NO_HEADERS"
            )
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
        raise UsageError(
            "The provided offset value is incorrect. Valid values are 'earliest', 'latest', or a non-negative long."
        )
    return value


def provided_group_ids(args):
    """The distinct group ids given by --group, --consumer-property group.id and --consumer.config group.id; more
    than one, or one together with --partition, is a usage error as in Kafka's ConsoleConsumer."""
    file_props = read_properties(args.consumer_config) if args.consumer_config else {}
    extra = parse_key_value_args(args.consumer_property)
    provided = list(
        dict.fromkeys(g for g in (args.group, extra.get("group.id"), file_props.get("group.id")) if g is not None)
    )
    if len(provided) > 1:
        raise UsageError(
            "The group ids provided in different places (directly using '--group', via "
            "'--consumer-property', or via '--consumer.config') do not match. Detected group ids: %s"
            % ", ".join("'%s'" % g for g in provided)
        )
    if provided and args.partition is not None:
        raise UsageError("Options group and partition cannot be specified together.")
    return provided


def group_settings(args, props):
    """(group id, whether it was given, group consumer keyword arguments) as Kafka 2.5's ConsoleConsumer decides:
    --group, --consumer-property group.id and --consumer.config group.id must agree; with none of them the group is
    a generated console-consumer-<0..99999> whose offsets are not committed unless enable.auto.commit says so."""
    provided = provided_group_ids(args)
    passed = bool(provided)
    group = provided[0] if passed else "console-consumer-%d" % random.randrange(100000)
    auto_commit = props.get("enable.auto.commit", "true" if passed else "false").strip().lower() == "true"
    settings = {
        "enable_auto_commit": auto_commit,
        "auto_commit_interval_ms": int(props.get("auto.commit.interval.ms", 5000)),
        "session_timeout_ms": int(props.get("session.timeout.ms", 10000)),
        "heartbeat_interval_ms": int(props.get("heartbeat.interval.ms", 3000)),
        "rebalance_timeout_ms": int(props.get("max.poll.interval.ms", 300000)),
        "metadata_max_age_ms": int(props.get("metadata.max.age.ms", 300000)),
    }
    strategy = props.get("partition.assignment.strategy")
    if strategy:
        settings["assignors"] = tuple(s.strip() for s in strategy.split(",") if s.strip())
    return group, passed, settings


def consumer_properties(args):
    """--consumer.config overlaid with --consumer-property (which takes precedence)."""
    props = read_properties(args.consumer_config) if args.consumer_config else {}
    props.update(parse_key_value_args(args.consumer_property))
    return props


def consumer_settings(args):
    """Consumer keyword arguments from --consumer.config, --consumer-property and --from-beginning."""
    props = consumer_properties(args)
    reset = props.get("auto.offset.reset")
    if args.from_beginning:
        if reset is not None and reset != "earliest":
            raise UsageError(
                "Can't simultaneously specify --from-beginning and 'auto.offset.reset=%s', as they conflict." % reset
            )
        reset = "earliest"
    return dict(
        {
            "auto_offset_reset": reset or "latest",
            "client_id": props.get("client.id", "console-consumer"),
            "isolation_level": args.isolation_level,
            "max_partition_fetch_bytes": int(props.get("max.partition.fetch.bytes", 1024 * 1024)),
            "max_wait_ms": int(props.get("fetch.max.wait.ms", 500)),
            "min_bytes": int(props.get("fetch.min.bytes", 1)),
        },
        **security_options(props),
    )


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
    consumer.assign(
        [(t, p) for t in topics for p in consumer.cluster.partitions_for(t, allow_auto_create=args.topic is not None)]
    )


def subscribe(consumer, args):
    """A group member subscribes to --topic (created if the broker auto-creates topics) or to the topics matching
    --whitelist, which it looks for again every metadata.max.age.ms as Kafka's pattern subscription does."""
    if args.topic is not None:
        consumer.cluster.partitions_for(args.topic, allow_auto_create=True)
        consumer.subscribe([args.topic])
    else:
        consumer.subscribe_pattern(lambda names: filter_topics(names, args.whitelist, exclude_internal=True))


def consume(consumer, formatter, out, err, max_messages, timeout_ms, unprinted=None):
    """Print records until ``max_messages`` (-1: no limit) or ``timeout_ms`` without any (None: wait forever);
    ``unprinted`` (a dict) collects, per partition, the offset of the first fetched record left unprinted."""
    count = 0
    unprinted = {} if unprinted is None else unprinted
    try:
        while max_messages < 0 or count < max_messages:
            records = consumer.poll(timeout_ms if timeout_ms is not None else _IDLE_POLL_MS)
            if not records:
                if timeout_ms is not None:
                    print("ERROR Error processing message, terminating consumer process: TimeoutException", file=err)
                    break
                continue
            shown = records[: max_messages - count] if max_messages >= 0 else records
            for record in records[len(shown) :]:
                tp = (record.topic, record.partition)
                unprinted[tp] = min(unprinted.get(tp, record.offset), record.offset)
            for record in shown:
                write_bytes(out, formatter.format(record))
                count += 1
            out.flush()
    except BrokenPipeError:
        print("Unable to write to standard out, closing consumer.", file=err)
    except KeyboardInterrupt:
        pass
    return count


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-console-consumer", description="Read data from Kafka and write it to standard output."
    )
    parser.add_argument("--bootstrap-server", help="REQUIRED: The server(s) to connect to.")
    parser.add_argument("--topic", help="The topic id to consume on.")
    parser.add_argument("--whitelist", help="Regular expression of topics to include for consumption.")
    parser.add_argument("--partition", type=int, help="The partition to consume from.")
    parser.add_argument("--group", help="The consumer group id of the consumer.")
    parser.add_argument("--offset", help="The offset to consume from: a non-negative number, earliest or latest.")
    parser.add_argument("--from-beginning", action="store_true", help="Start with the earliest message.")
    parser.add_argument("--max-messages", type=int, default=-1, help="Exit after this many messages.")
    parser.add_argument("--timeout-ms", type=int, help="Exit if no message arrives for this long.")
    parser.add_argument(
        "--property",
        action="append",
        default=[],
        help="Formatter properties: print.key, print.timestamp, print.offset, print.partition, "
        "print.headers, print.value, key.separator, line.separator, headers.separator.",
    )
    parser.add_argument("--consumer-property", action="append", default=[], help="key=value consumer properties.")
    parser.add_argument("--consumer.config", dest="consumer_config", help="Consumer config properties file.")
    parser.add_argument("--formatter", default=DEFAULT_FORMATTER, help="Only the default formatter is supported.")
    parser.add_argument(
        "--isolation-level",
        default="read_uncommitted",
        help="Set to read_committed in order to filter out transactional messages which are not "
        "committed. Set to read_uncommitted to read all messages.",
    )
    parser.add_argument("--skip-message-on-error", action="store_true", help="Accepted for compatibility.")
    return parser


def run(args, out, err, consumer_factory=Consumer, group_consumer_factory=GroupConsumer):
    """Consume as the options say; prints 'Processed a total of N messages' on ``err`` at the end.
    Without --partition the consumer joins a group (--group, or a generated console-consumer-<n>) and commits as
    Kafka's does (auto commit, and on close); records fetched but not printed (--max-messages) are not committed."""
    start_offset = check_args(args)
    formatter = MessageFormatter(parse_key_value_args(args.property))
    as_member = args.partition is None
    try:
        provided_group_ids(args)
        settings = consumer_settings(args)
        if as_member:
            group, _, group_options = group_settings(args, consumer_properties(args))
            settings.update(group_options)
            consumer = group_consumer_factory(args.bootstrap_server, group, **settings)
        else:
            consumer = consumer_factory(args.bootstrap_server, **settings)
    except (OSError, ValueError, KafkaClientError) as exc:
        print("ERROR %s" % exc, file=err)
        return 1
    count = 0
    unprinted = {}
    try:
        if as_member:
            subscribe(consumer, args)
        else:
            assign_start(consumer, args, start_offset)
        count = consume(consumer, formatter, out, err, args.max_messages, args.timeout_ms, unprinted)
        for tp, offset in unprinted.items() if as_member else ():
            if tp in consumer.assignment():  # still ours: commit (on close) up to the last printed record only
                consumer.fetcher.seek(tp, offset)
    except KafkaClientError as exc:
        print("ERROR Error processing message, terminating consumer process: %s" % exc, file=err)
        return 1
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM while joining the group or looking up topics: stop quietly
        pass
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
