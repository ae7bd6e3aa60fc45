"""kafka-preferred-replica-election: move leadership back to the preferred replicas, as Kafka 2.5's deprecated
PreferredReplicaLeaderElectionCommand (--zookeeper writes /admin/preferred_replica_election; --bootstrap-server
sends ElectLeaders)."""

import json
import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.client.zk_admin import AdminOperationError, ZkAdmin
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, ToolFailure, UsageError, read_tool_file, run_tool
from kafka_zk.tools.leader_election import java_exception_text

DEPRECATION = "This tool is deprecated. Please use kafka-leader-election tool. Tracking issue: KAFKA-8405"
ZOOKEEPER_DEPRECATION = (
    "Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.",
    "Use --bootstrap-server instead to specify a broker to connect to.",
)
PREFERRED = 0
TIMEOUT_MS = 30000


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-preferred-replica-election",
        description="This tool helps to causes leadership for each partition to be transferred back to the "
        "'preferred replica', it can be used to balance leadership among the servers.",
    )
    parser.add_argument(
        "--path-to-json-file",
        metavar="list of partitions for which preferred replica leader election needs to be triggered",
        help="The JSON file with the list of partitions for which preferred replica leader election "
        'should be done, in the following format - {"partitions": [{"topic": "foo", '
        '"partition": 1}, {"topic": "foobar", "partition": 2}]} Defaults to all existing '
        "partitions",
    )
    parser.add_argument(
        "--zookeeper",
        metavar="urls",
        help="DEPRECATED. The connection string for the zookeeper connection in the form host:port. "
        "Multiple URLS can be given to allow fail-over. Replaced by --bootstrap-server, "
        "REQUIRED unless --bootstrap-server is given.",
    )
    parser.add_argument(
        "--bootstrap-server",
        metavar="host:port",
        help="A hostname and port for the broker to connect to, in the form host:port. Multiple "
        "comma-separated URLs can be given. REQUIRED unless --zookeeper is given.",
    )
    parser.add_argument(
        "--admin.config",
        dest="admin_config",
        metavar="config file",
        help="Admin client config properties file to pass to the admin client when --bootstrap-server is given.",
    )
    return parser


def parse_election_json(text):
    """The (topic, partition) list of the JSON file, as Kafka's parsePreferredReplicaElectionData."""
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if document is None or (isinstance(document, dict) and "partitions" not in document):
        raise ToolFailure("kafka.admin.AdminOperationException", "Preferred replica election data is empty")
    mapping = "com.fasterxml.jackson.databind.JsonMappingException"
    if not isinstance(document, dict):
        raise ToolFailure(mapping, "Expected `JsonObject` value, received %s" % json.dumps(document))
    if not isinstance(document["partitions"], list):
        raise ToolFailure(mapping, "Expected `JsonArray` value, received %s" % json.dumps(document["partitions"]))
    partitions = []
    for entry in document["partitions"]:
        if not isinstance(entry, dict):
            raise ToolFailure(mapping, "Expected `JsonObject` value, received %s" % json.dumps(entry))
        for name in ("topic", "partition"):
            if name not in entry:
                raise ToolFailure(mapping, "No such field exists: `%s`" % name)
        if not isinstance(entry["topic"], str):
            raise ToolFailure(mapping, "Expected `String` value, received %s" % json.dumps(entry["topic"]))
        if isinstance(entry["partition"], bool) or not isinstance(entry["partition"], int):
            raise ToolFailure(mapping, "Expected `Int` value, received %s" % json.dumps(entry["partition"]))
        partitions.append((entry["topic"], entry["partition"]))
    duplicates = sorted({tp for tp in partitions if partitions.count(tp) > 1})
    if duplicates:
        raise ToolFailure(
            "kafka.admin.AdminOperationException",
            "Preferred replica election data contains duplicate partitions: %s"
            % ",".join("%s-%d" % tp for tp in duplicates),
        )
    return sorted(set(partitions))


def _names(partitions, separator=", "):
    return separator.join("%s-%d" % tp for tp in partitions)


def elect_through_zookeeper(zk_connect, requested, out, admin_factory=ZkAdmin):
    """Write the election znode for the partitions that exist; prints Kafka's lines."""
    try:
        admin = admin_factory(zk_connect)
    except Exception as error:  # kazoo's connection failures
        raise ToolFailure("kafka.common.AdminCommandFailedException", "Admin command failed (%s)" % error) from None
    try:
        topics = sorted({topic for topic, _ in requested}) if requested is not None else admin.list_topics()
        existing = {
            (topic, partition)
            for topic, assignment in admin.topic_assignments(topics).items()
            for partition in assignment
        }
        if requested is None:
            valid, invalid = sorted(existing), []
        else:
            valid = [tp for tp in requested if tp in existing]
            invalid = [tp for tp in requested if tp not in existing]
        try:
            admin.start_preferred_replica_election(valid)
        except AdminOperationError as error:
            raise ToolFailure(
                "kafka.common.AdminCommandFailedException",
                "Admin command failed\nCaused by: kafka.admin.AdminOperationException: %s" % error,
            ) from None
        print("Created preferred replica election path with %s" % _names(valid, ","), file=out)
        print("Successfully started preferred replica election for partitions Set(%s)" % _names(valid), file=out)
        for tp in invalid:
            print(
                "Skipping preferred replica leader election for partition %s-%d since it doesn't exist." % tp, file=out
            )
    finally:
        admin.close()


def elect_through_brokers(bootstrap_server, requested, out, admin_factory=AdminClient, admin_config=None):
    """ElectLeaders (preferred); prints Kafka's lines and raises ToolFailure when a partition failed.
    ``admin_config``: the --admin.config file."""
    options = read_admin_options(admin_config, timeout=TIMEOUT_MS / 1000.0)
    try:
        admin = admin_factory(bootstrap_server, **options)
        try:
            results = admin.elect_leaders(PREFERRED, requested, timeout_ms=TIMEOUT_MS)
        finally:
            admin.close()
    except KafkaClientError as error:
        raise ToolFailure("kafka.common.AdminCommandFailedException", str(error)) from None
    ok = sorted(tp for tp, (error, _) in results.items() if error == Errors.NONE)
    failed = sorted(tp for tp, (error, _) in results.items() if error != Errors.NONE)
    if ok:
        print("Successfully completed preferred replica election for partitions %s" % _names(ok), file=out)
    for tp in failed:
        error, message = results[tp]
        print(
            "Error completing preferred replica election for partition %s-%d: %s"
            % (tp[0], tp[1], java_exception_text(error, message)),
            file=out,
        )
    if failed:
        raise ToolFailure(
            "kafka.common.AdminCommandFailedException", "%d preferred replica(s) could not be elected" % len(failed)
        )


def run(args, out, err, zk_factory=ZkAdmin, admin_factory=AdminClient):
    print(DEPRECATION, file=out)
    if bool(args.bootstrap_server) == bool(args.zookeeper):
        raise UsageError("Exactly one of '[bootstrap-server]' or '[zookeeper]' must be provided")
    if args.admin_config and not args.bootstrap_server:
        raise UsageError("Option admin.config is only allowed if bootstrap-server is used")
    requested = None
    if args.path_to_json_file:
        requested = parse_election_json(
            read_tool_file(args.path_to_json_file, lambda path: open(path, encoding="utf-8").read())
        )
    if args.zookeeper:
        for line in ZOOKEEPER_DEPRECATION:
            print(line, file=out)
        elect_through_zookeeper(args.zookeeper, requested, out, zk_factory)
    else:
        elect_through_brokers(args.bootstrap_server, requested, out, admin_factory, args.admin_config)
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
