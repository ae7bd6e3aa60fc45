"""GetOffsetShell (kafka-get-offsets): print ``topic:partition:offset`` per partition for a timestamp, as Kafka
2.5's kafka.tools.GetOffsetShell (latest -1, earliest -2, or the first offset at or after a timestamp)."""

import sys

from kafka_zk.client.consumer import Consumer
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
CLIENT_ID = "GetOffsetShell"


class ToolExit(Exception):
    """Kafka's ``System.err.println(message); Exit.exit(1)``."""


def build_parser(prog="kafka-get-offsets"):
    parser = ToolArgumentParser(prog=prog, description="An interactive shell for getting topic offsets.")
    parser.add_argument(
        "--broker-list",
        metavar="hostname:port,...,hostname:port",
        help="REQUIRED: The list of hostname and port of the server to connect to.",
    )
    parser.add_argument("--topic", metavar="topic", help="REQUIRED: The topic to get offset from.")
    parser.add_argument(
        "--partitions",
        metavar="partition ids",
        default="",
        help="comma separated list of partition ids. If not specified, it will find offsets for all partitions",
    )
    parser.add_argument(
        "--time",
        metavar="timestamp/-1(latest)/-2(earliest)",
        default="-1",
        help="timestamp of the offsets before that. [Note: No offset is returned, if the timestamp "
        "greater than recently commited record timestamp is given.]",
    )
    parser.add_argument(
        "--offsets", metavar="count", default="1", help="DEPRECATED AND IGNORED: number of offsets returned"
    )
    parser.add_argument(
        "--max-wait-ms",
        metavar="ms",
        default="1000",
        help="DEPRECATED AND IGNORED: The max amount of time each fetch request waits.",
    )
    return parser


def _integer(value, option, low=-(2**63), high=2**63 - 1):
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise UsageError("Cannot parse argument '%s' of option %s" % (value, option))
    return number


def validate_broker_list(broker_list):
    """Kafka's ToolsUtils.validatePortOrDie: every entry must be host:port with a numeric port."""
    for entry in broker_list.split(","):
        host, sep, port = entry.strip().rpartition(":")
        if not sep or not host or not port.isdigit():
            raise UsageError("Please provide valid host:port like host1:9091,host2:9092\n ")


def parse_partition_ids(text):
    """The requested partition ids ({} for all); ToolExit with Kafka's message for a non-numeric id."""
    if not text:
        return set()
    try:
        return {int(part) for part in text.split(",")}
    except ValueError:
        raise ToolExit(
            "--partitions expects a comma separated list of numeric partition ids, but received: %s" % text
        ) from None


def offset_lines(topic, offsets):
    """``topic:partition:offset`` lines by partition; an offset of None (no record at the time) prints empty."""
    return [
        "%s:%d:%s" % (topic, partition, "" if offsets[partition] is None else offsets[partition])
        for partition in sorted(offsets)
    ]


def run(args, out, err, consumer_factory=Consumer):
    missing = [name for name, value in (("broker-list", args.broker_list), ("topic", args.topic)) if not value]
    if missing:
        raise UsageError('Missing required argument "[%s]"' % missing[0])
    timestamp = _integer(args.time, "time")
    _integer(args.offsets, "offsets", -(2**31), 2**31 - 1)
    _integer(args.max_wait_ms, "max-wait-ms", -(2**31), 2**31 - 1)
    validate_broker_list(args.broker_list)
    topic = args.topic
    try:
        requested = parse_partition_ids(args.partitions)
        consumer = consumer_factory(args.broker_list, client_id=CLIENT_ID)
        try:
            consumer.cluster.metadata(None)
            info = consumer.cluster.topics.get(topic)
            if info is None:
                raise ToolExit("Topic %s does not exist" % topic)
            partitions = {p: part for p, part in info.partitions.items() if not requested or p in requested}
            if not partitions:
                if not requested:
                    raise ToolExit("Topic %s has 0 partitions" % topic)
                raise ToolExit(
                    "Topic %s does not have any of the requested partitions %s"
                    % (topic, ",".join(str(p) for p in sorted(requested)))
                )
            for partition in sorted(requested - set(partitions)):
                print("Error: partition %d does not exist" % partition, file=err)
            wanted = []
            for partition in sorted(partitions):
                if partitions[partition].leader < 0:
                    print("Error: partition %d does not have a leader. Skip getting offsets" % partition, file=err)
                else:
                    wanted.append((topic, partition))
            found = consumer.list_offsets({tp: timestamp for tp in wanted}) if wanted else {}
        finally:
            consumer.close()
    except ToolExit as failure:
        print(failure, file=err)
        return 1
    except KafkaClientError as error:
        print("Error while getting offsets: %s" % error, file=err)
        return 1
    searched = timestamp not in (EARLIEST_TIMESTAMP, LATEST_TIMESTAMP)
    offsets = {partition: (None if searched and offset < 0 else offset) for (_, partition), offset in found.items()}
    for line in offset_lines(topic, offsets):
        print(line, file=out)
    return 0


def main(argv=None, prog="kafka-get-offsets"):
    return run_tool(build_parser(prog), run, argv)


if __name__ == "__main__":
    sys.exit(main())
