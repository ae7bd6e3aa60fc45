"""kafka-delete-records: delete records before given offsets (DeleteRecords), as Kafka 2.5's DeleteRecordsCommand."""

import json
import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, ToolFailure, UsageError, read_tool_file, run_tool

EARLIEST_VERSION = 1

# What Kafka's ExecutionException.getMessage() prints for a partition's error: the exception and its default text.
KAFKA_EXCEPTIONS = {
    Errors.OFFSET_OUT_OF_RANGE: (
        "org.apache.kafka.common.errors.OffsetOutOfRangeException",
        "The requested offset is not within the range of offsets maintained by the server.",
    ),
    Errors.UNKNOWN_TOPIC_OR_PARTITION: (
        "org.apache.kafka.common.errors.UnknownTopicOrPartitionException",
        "This server does not host this topic-partition.",
    ),
    Errors.LEADER_NOT_AVAILABLE: (
        "org.apache.kafka.common.errors.LeaderNotAvailableException",
        "There is no leader for this topic-partition as we are in the middle of a leadership election.",
    ),
    Errors.NOT_LEADER_FOR_PARTITION: (
        "org.apache.kafka.common.errors.NotLeaderForPartitionException",
        "This server is not the leader for that topic-partition.",
    ),
    Errors.REQUEST_TIMED_OUT: ("org.apache.kafka.common.errors.TimeoutException", "The request timed out."),
    Errors.POLICY_VIOLATION: (
        "org.apache.kafka.common.errors.PolicyViolationException",
        "Request parameters do not satisfy the configured policy.",
    ),
    Errors.KAFKA_STORAGE_ERROR: (
        "org.apache.kafka.common.errors.KafkaStorageException",
        "Disk error when trying to access log file on the disk.",
    ),
    Errors.TOPIC_AUTHORIZATION_FAILED: (
        "org.apache.kafka.common.errors.TopicAuthorizationException",
        "Topic authorization failed.",
    ),
    Errors.INVALID_TOPIC_EXCEPTION: (
        "org.apache.kafka.common.errors.InvalidTopicException",
        "The request attempted to perform an operation on an invalid topic.",
    ),
}


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-delete-records",
        description="This tool helps to delete records of the given partitions down to the specified offset.",
    )
    parser.add_argument("--bootstrap-server", help="REQUIRED: The server to connect to.")
    parser.add_argument(
        "--offset-json-file",
        help="REQUIRED: The JSON file with offset per partition. The format to use is: "
        '{"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version":1 }',
    )
    parser.add_argument("--command-config", help="A property file containing configs to be passed to Admin Client.")
    return parser


def _mapping_error(message):
    return ToolFailure("com.fasterxml.jackson.databind.JsonMappingException", message)


def _field(entry, name, kind):
    if not isinstance(entry, dict):
        raise _mapping_error("Expected `JsonObject` value, received %s" % json.dumps(entry))
    if name not in entry:
        raise _mapping_error("No such field exists: `%s`" % name)
    value = entry[name]
    if kind is str and not isinstance(value, str):
        raise _mapping_error("Expected `String` value, received %s" % json.dumps(value))
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise _mapping_error(
            "Expected `%s` value, received %s" % ("Int" if name == "partition" else "Long", json.dumps(value))
        )
    return value


def parse_offset_json(text):
    """[(topic, partition, offset)] in file order, as Kafka's parseOffsetJsonStringWithoutDedup."""
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        raise ToolFailure("kafka.admin.AdminOperationException", "The input string is not a valid JSON")
    version = document.get("version", EARLIEST_VERSION)
    if version != EARLIEST_VERSION or isinstance(version, bool):
        raise ToolFailure("kafka.admin.AdminOperationException", "Not supported version field value %s" % version)
    partitions = document.get("partitions")
    if partitions is None:
        raise ToolFailure("kafka.admin.AdminOperationException", "Missing partitions field")
    if not isinstance(partitions, list):
        raise _mapping_error("Expected `JsonArray` value, received %s" % json.dumps(partitions))
    return [(_field(e, "topic", str), _field(e, "partition", int), _field(e, "offset", int)) for e in partitions]


def describe_error(error):
    java_class, message = KAFKA_EXCEPTIONS.get(
        error,
        (
            "org.apache.kafka.common.errors.UnknownServerException",
            "Unexpected error %s (code %d)" % (error.name, int(error)),
        ),
    )
    return "%s: %s" % (java_class, message)


def run(args, out, err, admin_factory=AdminClient):
    missing = [
        name
        for name, value in (("bootstrap-server", args.bootstrap_server), ("offset-json-file", args.offset_json_file))
        if not value
    ]
    if missing:
        raise UsageError('Missing required argument "[%s]"' % missing[0])
    try:
        options = read_admin_options(args.command_config)
        entries = parse_offset_json(
            read_tool_file(args.offset_json_file, lambda path: open(path, encoding="utf-8").read())
        )
        seen, duplicates = set(), []
        for topic, partition, _ in entries:
            name = "%s-%d" % (topic, partition)
            if name in seen and name not in duplicates:
                duplicates.append(name)
            seen.add(name)
        if duplicates:
            raise ToolFailure(
                "kafka.common.AdminCommandFailedException",
                "Offset json file contains duplicate topic partitions: %s" % ",".join(duplicates),
            )
        offsets = {(topic, partition): offset for topic, partition, offset in entries}
        print("Executing records delete operation", file=out)
        admin = admin_factory(args.bootstrap_server, **options)
        try:
            results = admin.delete_records(offsets)
        finally:
            admin.close()
    except (KafkaClientError, ValueError) as failure:
        print("Error while executing records delete operation: %s" % failure, file=err)
        return 1
    print("Records delete operation completed:", file=out)
    for (topic, partition), (error, low_watermark) in results.items():
        if error == Errors.NONE:
            print("partition: %s-%d\tlow_watermark: %d" % (topic, partition, low_watermark), file=out)
        else:
            print("partition: %s-%d\terror: %s" % (topic, partition, describe_error(error)), file=out)
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
