"""kafka-broker-api-versions: every broker's API version ranges and the versions usable with this client, in
Kafka 2.5's BrokerApiVersionsCommand format (NodeApiVersions.toString(true))."""

import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-broker-api-versions", description="This tool helps to retrieve broker version information."
    )
    parser.add_argument(
        "--command-config",
        metavar="command config property file",
        help="A property file containing configs to be passed to Admin Client.",
    )
    parser.add_argument(
        "--bootstrap-server", metavar="server(s) to use for bootstrapping", help="REQUIRED: The server to connect to."
    )
    return parser


def api_version_text(api_key, broker_range, client_specs=API_SPECS):
    """One entry: ``Name(key): min to max [usable: v]`` (or UNSUPPORTED / UNKNOWN / unusable), as Kafka."""
    spec = client_specs.get(api_key)
    prefix = "%s(%d): " % (spec.name, api_key) if spec is not None else "UNKNOWN(%d): " % api_key
    if broker_range is None:
        return prefix + "UNSUPPORTED"
    low, high = broker_range
    text = prefix + (str(low) if low == high else "%d to %d" % (low, high))
    if spec is None:
        return text
    if spec.max_version < low:
        return text + " [unusable: node too new]"
    if high < spec.min_version:
        return text + " [unusable: node too old]"
    return text + " [usable: %d]" % min(spec.max_version, high)


def format_node_versions(broker_versions, client_specs=API_SPECS):
    """Kafka's multi-line ``(...)`` block of one broker's {api_key: (min, max)}, keys ascending."""
    keys = sorted(set(broker_versions) | set(client_specs))
    entries = [api_version_text(key, broker_versions.get(key), client_specs) for key in keys]
    return "(\n\t" + ",\n\t".join(entries) + "\n)"


def node_text(broker):
    return "%s:%d (id: %d rack: %s)" % (
        broker.host,
        broker.port,
        broker.node_id,
        "null" if broker.rack is None else broker.rack,
    )


def run(args, out, err, admin_factory=AdminClient):
    if not args.bootstrap_server:
        raise UsageError('Missing required argument "[bootstrap-server]"')
    try:
        admin = admin_factory(args.bootstrap_server, **read_admin_options(args.command_config))
        try:
            brokers, _, _ = admin.describe_cluster()
            for node_id in sorted(brokers):
                broker = brokers[node_id]
                try:
                    versions = admin.cluster.connection(node_id).broker_versions()
                except KafkaClientError as error:
                    out.write("%s -> ERROR: %s\n" % (node_text(broker), error))
                    continue
                out.write("%s -> %s\n" % (node_text(broker), format_node_versions(versions)))
        finally:
            admin.close()
    except KafkaClientError as error:
        print("Error while executing BrokerApiVersionsCommand: %s" % error, file=err)
        return 1
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
