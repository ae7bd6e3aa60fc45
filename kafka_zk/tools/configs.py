"""kafka-configs: describe and alter topic config overrides, through a broker or directly in ZooKeeper."""

import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.client.zk_admin import ZkAdmin
from kafka_zk.server.config import ConfigError
from kafka_zk.server.topic_config import validate_topic_configs
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool

DYNAMIC_TOPIC_CONFIG = 1


def build_parser():
    parser = ToolArgumentParser(prog="kafka-configs", description="Add/Remove entity config for a topic.")
    connection = parser.add_mutually_exclusive_group()
    connection.add_argument("--bootstrap-server", help="The Kafka server to connect to.")
    connection.add_argument("--zookeeper", help="The connection string for the zookeeper connection.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--alter", action="store_true", help="Alter the configuration for the entity.")
    action.add_argument("--describe", action="store_true", help="List configs for the given entity.")
    parser.add_argument("--entity-type", help="Type of entity (topics).")
    parser.add_argument("--entity-name", help="Name of entity.")
    parser.add_argument("--topic", help="The topic's name (same as --entity-type topics --entity-name).")
    parser.add_argument("--add-config", help="Key Value pairs of configs to add: k1=v1,k2=[v1,v2,v2],k3=v3")
    parser.add_argument("--delete-config", help="config keys to remove 'k1,k2'")
    return parser


def parse_add_config(text):
    """Kafka's --add-config syntax: comma-separated k=v, with [a,b] for a list value."""
    configs = {}
    depth = 0
    item = ""
    for char in (text or "") + ",":
        if char == "," and depth == 0:
            if item.strip():
                key, sep, value = item.partition("=")
                if not sep:
                    raise UsageError("Invalid entity config: all configs to be added must be in the format "
                                     "\"key=val\".")
                configs[key.strip()] = value.strip().strip("[]")
            item = ""
            continue
        depth += char == "["
        depth -= char == "]"
        item += char
    return configs


def run(args, out, err, admin_factory=AdminClient, zk_admin_factory=ZkAdmin):
    if not (args.bootstrap_server or args.zookeeper):
        raise UsageError("One of the required arguments: [bootstrap-server], [zookeeper] must be specified")
    if not (args.alter or args.describe):
        raise UsageError("Command must include exactly one action: --describe, --alter")
    topic = args.topic or args.entity_name
    if not args.topic and args.entity_type not in ("topics", "topic"):
        raise UsageError("--entity-type must be 'topics' here: only topic configs are dynamic on this cluster")
    if not topic:
        raise UsageError("an entity name must be specified with --alter")
    additions = parse_add_config(args.add_config)
    deletions = [name.strip() for name in (args.delete_config or "").split(",") if name.strip()]
    try:
        validate_topic_configs(additions)
        if args.zookeeper:
            return _with_zookeeper(args, topic, additions, deletions, out, zk_admin_factory)
        return _with_broker(args, topic, additions, deletions, out, admin_factory)
    except (ConfigError, KafkaClientError, ValueError) as error:
        print("Error while executing config command with args '%s'" % " ".join(sys.argv[1:]), file=err)
        print(error, file=err)
        return 1


def _with_zookeeper(args, topic, additions, deletions, out, zk_admin_factory):
    admin = zk_admin_factory(args.zookeeper)
    try:
        current = admin.get_topic_config(topic)
        if args.describe:
            print("Configs for topic '%s' are %s" % (topic, ",".join("%s=%s" % item for item in
                                                                    sorted(current.items()))), file=out)
            return 0
        updated = {name: value for name, value in current.items() if name not in deletions}
        updated.update(additions)
        admin.change_topic_config(topic, updated)
        print("Completed Updating config for entity: topic '%s'." % topic, file=out)
        return 0
    finally:
        admin.close()


def _with_broker(args, topic, additions, deletions, out, admin_factory):
    admin = admin_factory(args.bootstrap_server)
    try:
        if args.describe:
            entries = admin.describe_configs([topic])[topic]
            print("Dynamic configs for topic %s are:" % topic, file=out)
            for entry in entries:
                if entry.source == DYNAMIC_TOPIC_CONFIG:
                    print("  %s=%s sensitive=%s synonyms={DYNAMIC_TOPIC_CONFIG:%s=%s}"
                          % (entry.name, entry.value, str(entry.is_sensitive).lower(), entry.name, entry.value),
                          file=out)
            return 0
        admin.incremental_alter_configs(topic, additions, deletions)
        print("Completed updating config for topic %s." % topic, file=out)
        return 0
    finally:
        admin.close()


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
