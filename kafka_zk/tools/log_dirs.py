"""kafka-log-dirs: query the log dirs of brokers (DescribeLogDirs), as Kafka 2.5's LogDirsCommand."""

import json
import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, ToolFailure, UsageError, run_tool

# Errors.exceptionName() of the errors a log dir can carry.
EXCEPTION_NAMES = {
    Errors.KAFKA_STORAGE_ERROR: "org.apache.kafka.common.errors.KafkaStorageException",
    Errors.UNKNOWN_SERVER_ERROR: "org.apache.kafka.common.errors.UnknownServerException",
    Errors.CLUSTER_AUTHORIZATION_FAILED: "org.apache.kafka.common.errors.ClusterAuthorizationException",
}


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-log-dirs", description="This tool helps to query log directory usage on the specified brokers."
    )
    parser.add_argument("--bootstrap-server", help="REQUIRED: the server(s) to use for bootstrapping")
    parser.add_argument("--command-config", help="Property file containing configs to be passed to Admin Client.")
    parser.add_argument(
        "--describe", action="store_true", help="Describe the specified log directories on the specified brokers."
    )
    parser.add_argument(
        "--topic-list",
        default="",
        help='The list of topics to be queried in the form "topic1,topic2,topic3". All topics will '
        "be queried if no topic list is specified",
    )
    parser.add_argument(
        "--broker-list",
        help='The list of brokers to be queried in the form "0,1,2". All brokers in the cluster '
        "will be queried if no broker list is specified",
    )
    return parser


def format_as_json(infos_by_broker, topics):
    """Kafka's formatAsJson: compact JSON, brokers and dirs in the order given."""
    document = {
        "version": 1,
        "brokers": [
            {
                "broker": broker,
                "logDirs": [
                    {
                        "logDir": log_dir,
                        "error": None
                        if info.error == Errors.NONE
                        else EXCEPTION_NAMES.get(info.error, "org.apache.kafka.common.errors.UnknownServerException"),
                        "partitions": [
                            {
                                "partition": "%s-%d" % tp,
                                "size": replica.size,
                                "offsetLag": replica.offset_lag,
                                "isFuture": replica.is_future,
                            }
                            for tp, replica in sorted(
                                info.replicas.items(), key=lambda item: (item[0], item[1].is_future)
                            )
                            if not topics or tp[0] in topics
                        ],
                    }
                    for log_dir, info in log_dirs.items()
                ],
            }
            for broker, log_dirs in infos_by_broker.items()
        ],
    }
    return json.dumps(document, separators=(",", ":"))


def run(args, out, err, admin_factory=AdminClient):
    missing = [
        name for name, given in (("bootstrap-server", args.bootstrap_server), ("describe", args.describe)) if not given
    ]
    if missing:
        raise UsageError('Missing required argument "[%s]"' % missing[0])
    topics = {topic for topic in args.topic_list.split(",") if topic}
    try:
        brokers = None
        if args.broker_list is not None:
            try:
                brokers = [int(b) for b in args.broker_list.split(",") if b]
            except ValueError as error:
                raise ToolFailure(
                    "java.lang.NumberFormatException",
                    'For input string: "%s"' % str(error).rsplit(": ", 1)[-1].strip("'"),
                ) from None
        options = read_admin_options(args.command_config)
        admin = admin_factory(args.bootstrap_server, **options)
        try:
            if brokers is None:
                brokers = sorted(admin.describe_cluster()[0])
            print("Querying brokers for log directories information", file=out)
            unknown = [b for b in brokers if b not in admin.describe_cluster()[0]]
            if unknown:
                raise ToolFailure(
                    "java.util.concurrent.ExecutionException",
                    "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment.",
                )
            infos = admin.describe_log_dirs(brokers)
        finally:
            admin.close()
    except (KafkaClientError, ValueError) as failure:
        print('Exception in thread "main" java.util.concurrent.ExecutionException: %s' % failure, file=err)
        return 1
    print("Received log directory information from brokers %s" % ",".join(str(b) for b in brokers), file=out)
    print(format_as_json(infos, topics), file=out)
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
