"""kafka-leader-election: preferred or unclean leader elections through ElectLeaders, as Kafka 2.5's
LeaderElectionCommand (options, output lines, messages and exit codes)."""

import json
import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, ToolFailure, UsageError, read_tool_file, run_tool

ELECTION_TYPES = {"PREFERRED": 0, "UNCLEAN": 1}
REQUEST_TIMEOUT_SECONDS = 30.0

# Java exception class and default text of each error an election answer carries (the exception's toString
# is what Kafka prints for a failed partition).
_JAVA_ERRORS = {
    Errors.PREFERRED_LEADER_NOT_AVAILABLE: (
        "PreferredLeaderNotAvailableException",
        "The preferred leader was not available.",
    ),
    Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE: (
        "EligibleLeadersNotAvailableException",
        "Eligible topic partition leaders are not available.",
    ),
    Errors.ELECTION_NOT_NEEDED: ("ElectionNotNeededException", "Leader election not needed for topic partition."),
    Errors.UNKNOWN_TOPIC_OR_PARTITION: (
        "UnknownTopicOrPartitionException",
        "This server does not host this topic-partition.",
    ),
    Errors.INVALID_TOPIC_EXCEPTION: (
        "InvalidTopicException",
        "The request attempted to perform an operation on an invalid topic.",
    ),
    Errors.NOT_CONTROLLER: ("NotControllerException", "This is not the correct controller for this cluster."),
    Errors.CLUSTER_AUTHORIZATION_FAILED: ("ClusterAuthorizationException", "Cluster authorization failed."),
    Errors.REQUEST_TIMED_OUT: ("TimeoutException", "The request timed out."),
    Errors.INVALID_REQUEST: (
        "InvalidRequestException",
        "This most likely occurs because of a request being malformed by the client library "
        "or the message was sent to an incompatible broker. See the broker logs for more "
        "details.",
    ),
}


def java_exception_text(error, message=None):
    """What Java's ``exception.toString`` prints for a broker error: ``org.apache...Exception: message``."""
    name, default = _JAVA_ERRORS.get(
        error, ("UnknownServerException", "The server experienced an unexpected error when processing the request.")
    )
    return "org.apache.kafka.common.errors.%s: %s" % (name, message or default)


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-leader-election",
        description="This tool attempts to elect a new leader from a set of topic partitions. The type of "
        "elections supported are preferred replicas and unclean replicas.",
    )
    parser.add_argument(
        "--bootstrap-server",
        metavar="host:port",
        help="A hostname and port for the broker to connect to, in the form host:port. Multiple "
        "comma separated URLs can be given. REQUIRED.",
    )
    parser.add_argument(
        "--admin.config",
        dest="admin_config",
        metavar="config file",
        help="Configuration properties files to pass to the admin client",
    )
    parser.add_argument(
        "--path-to-json-file",
        metavar="Path to JSON file",
        help="The JSON file with the list  of partition for which leader elections should be "
        'performed. This is an example format. {"partitions": [{"topic": "foo", '
        '"partition": 1}, {"topic": "foobar", "partition": 2}]} Not allowed if '
        "--all-topic-partitions or --topic flags are specified.",
    )
    parser.add_argument(
        "--topic",
        metavar="topic name",
        help="Name of topic for which to perform an election. Not allowed if --path-to-json-file "
        "or --all-topic-partitions is specified.",
    )
    parser.add_argument(
        "--partition",
        metavar="partition id",
        help="Partition id for which to perform an election. REQUIRED if --topic is specified.",
    )
    parser.add_argument(
        "--all-topic-partitions",
        action="store_true",
        help="Perform election on all of the topic partitions. Not allowed if --topic or "
        "--path-to-json-file is specified.",
    )
    parser.add_argument(
        "--election-type",
        metavar="election type",
        help='Type of election to attempt. Possible values are "preferred" for preferred leader '
        'election or "unclean" for unclean leader election. REQUIRED.',
    )
    return parser


def parse_election_json(text):
    """The sorted (topic, partition) list of an election JSON file; ToolFailure as Kafka's parser fails."""
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if document is None:
        raise ToolFailure("kafka.admin.AdminOperationException", "Replica election data is empty")
    if not isinstance(document, dict):
        raise ToolFailure(
            "com.fasterxml.jackson.databind.JsonMappingException",
            "Expected `JsonObject` value, received %s" % json.dumps(document),
        )
    if "partitions" not in document:
        raise ToolFailure("kafka.admin.AdminOperationException", 'Replica election data is missing "partition" field')
    entries = document["partitions"]
    if not isinstance(entries, list):
        raise ToolFailure(
            "com.fasterxml.jackson.databind.JsonMappingException",
            "Expected `JsonArray` value, received %s" % json.dumps(entries),
        )
    partitions = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ToolFailure(
                "com.fasterxml.jackson.databind.JsonMappingException",
                "Expected `JsonObject` value, received %s" % json.dumps(entry),
            )
        for name in ("topic", "partition"):
            if name not in entry:
                raise ToolFailure(
                    "com.fasterxml.jackson.databind.JsonMappingException", "No such field exists: `%s`" % name
                )
        topic, partition = entry["topic"], entry["partition"]
        if not isinstance(topic, str):
            raise ToolFailure(
                "com.fasterxml.jackson.databind.JsonMappingException",
                "Expected `String` value, received %s" % json.dumps(topic),
            )
        if isinstance(partition, bool) or not isinstance(partition, int):
            raise ToolFailure(
                "com.fasterxml.jackson.databind.JsonMappingException",
                "Expected `Int` value, received %s" % json.dumps(partition),
            )
        partitions.append((topic, partition))
    duplicates = sorted({tp for tp in partitions if partitions.count(tp) > 1})
    if duplicates:
        raise ToolFailure(
            "kafka.admin.AdminOperationException",
            "Replica election data contains duplicate partitions: %s" % ",".join("%s-%d" % tp for tp in duplicates),
        )
    return sorted(set(partitions))


def parse_election_type(value):
    election = ELECTION_TYPES.get(value.upper())
    if election is None:
        raise ToolFailure(
            "joptsimple.OptionArgumentConversionException", "Cannot parse argument '%s' of option election-type" % value
        )
    return value.upper(), election


def validate(args):
    """Kafka 2.5's option checks; UsageError (message, usage, exit 1) on the first one that fails."""
    if not args.bootstrap_server:
        raise UsageError("Missing required option(s): bootstrap-server")
    if not args.election_type:
        raise UsageError("Missing required option(s): election-type")
    chosen = [args.topic is not None, args.all_topic_partitions, args.path_to_json_file is not None]
    if sum(chosen) != 1:
        raise UsageError(
            "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"
        )
    if args.topic is not None and args.partition is None:
        raise UsageError("Missing required option(s): partition")
    if args.topic is None and args.partition is not None:
        raise UsageError("Option partition is only allowed if topic is used")


def format_results(election_name, results):
    """Kafka's output lines for {tp: (Errors, message)}; returns (lines, number of failed partitions)."""

    def names(tps):
        return ", ".join("%s-%d" % tp for tp in tps)

    succeeded = sorted(tp for tp, (error, _) in results.items() if error == Errors.NONE)
    noop = sorted(tp for tp, (error, _) in results.items() if error == Errors.ELECTION_NOT_NEEDED)
    failed = sorted(tp for tp, (error, _) in results.items() if error not in (Errors.NONE, Errors.ELECTION_NOT_NEEDED))
    lines = []
    if succeeded:
        lines.append(
            "Successfully completed leader election (%s) for partitions %s" % (election_name, names(succeeded))
        )
    if noop:
        lines.append("Valid replica already elected for partitions %s" % names(noop))
    for tp in failed:
        error, message = results[tp]
        lines.append(
            "Error completing leader election (%s) for partition: %s-%d: %s"
            % (election_name, tp[0], tp[1], java_exception_text(error, message))
        )
    return lines, len(failed)


def run_election(bootstrap_server, admin_config, election, partitions, out, admin_factory=AdminClient):
    """Send the election, print Kafka's lines; returns the exit code (1 when a partition failed)."""
    election_name, election_type = election
    options = read_admin_options(admin_config, timeout=REQUEST_TIMEOUT_SECONDS)
    try:
        admin = admin_factory(bootstrap_server, **options)
        try:
            results = admin.elect_leaders(election_type, partitions, timeout_ms=int(REQUEST_TIMEOUT_SECONDS * 1000))
        finally:
            admin.close()
    except KafkaClientError as error:
        raise ToolFailure(
            "kafka.common.AdminCommandFailedException", "Timeout waiting for election results\nCaused by: %s" % error
        ) from None
    lines, failures = format_results(election_name, results)
    for line in lines:
        print(line, file=out)
    if failures:
        raise ToolFailure("kafka.common.AdminCommandFailedException", "%d replica(s) could not be elected" % failures)
    return 0


def run(args, out, err, admin_factory=AdminClient):
    validate(args)
    election = parse_election_type(args.election_type)
    if args.partition is not None:
        try:
            partition = int(args.partition)
        except ValueError:
            raise ToolFailure(
                "joptsimple.OptionArgumentConversionException",
                "Cannot parse argument '%s' of option partition" % args.partition,
            ) from None
    if args.path_to_json_file is not None:
        partitions = parse_election_json(
            read_tool_file(args.path_to_json_file, lambda path: open(path, encoding="utf-8").read())
        )
    elif args.topic is not None:
        partitions = [(args.topic, partition)]
    else:
        partitions = None
    return run_election(args.bootstrap_server, args.admin_config, election, partitions, out, admin_factory)


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
