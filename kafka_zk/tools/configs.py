"""kafka-configs: describe and alter topic, broker, client and user configs, like Kafka 2.5's ConfigCommand.

--zookeeper writes the /config/<type>/<name> znodes and a /config/changes notification directly (every
entity type); --bootstrap-server goes through the brokers (topics and brokers only, as in 2.5).
"""

import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError, KafkaResponseError
from kafka_zk.client.zk_admin import ZkAdmin
from kafka_zk.security.zk_login import ZkSecurityError
from kafka_zk.security.zk_tls import ZkTlsError
from kafka_zk.server.config.dynamic_broker_config import (
    DEFAULT_ENTITY,
    REPLICATION_QUOTA_CONFIGS,
    parse_value,
    scala_set,
    validate_dynamic_configs,
)
from kafka_zk.server.config.kafka_config import ConfigError
from kafka_zk.server.config.topic_config import TOPIC_CONFIGS, validate_topic_configs
from kafka_zk.server.quota.quota_configs import (
    SCRAM_MECHANISMS,
    UnknownQuotaConfig,
    scram_credential,
    validate_quota_configs,
)
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool
from kafka_zk.tools.zk_tls_option import add_zk_tls_config_file_option, zk_tls_settings
from kafka_zk.zk.znodes import ConfigEntityTypeZNode, desanitize, sanitize

ENTITY_TYPES = ("topics", "clients", "users", "brokers", "broker-loggers")
TOPIC_RESOURCE, BROKER_RESOURCE, BROKER_LOGGER_RESOURCE = 2, 4, 8
RESOURCE_TYPES = {"topics": TOPIC_RESOURCE, "brokers": BROKER_RESOURCE, "broker-loggers": BROKER_LOGGER_RESOURCE}
SOURCE_NAMES = {
    0: "UNKNOWN",
    1: "DYNAMIC_TOPIC_CONFIG",
    2: "DYNAMIC_BROKER_CONFIG",
    3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
    4: "STATIC_BROKER_CONFIG",
    5: "DEFAULT_CONFIG",
    6: "DYNAMIC_BROKER_LOGGER_CONFIG",
}
TYPE_NAMES = {"users": "user-principal", "clients": "client-id", "topics": "topic"}


class CommandFailure(Exception):
    """Kafka's IllegalArgumentException / InvalidConfigurationException: the message alone on stderr, exit 1."""


class ExecutionFailure(Exception):
    """Any other failure: 'Error while executing config command with args ...' and the cause, exit 1."""


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-configs", description="Add/Remove entity config for a topic, client, user or broker"
    )
    parser.add_argument(
        "--bootstrap-server",
        help="The Kafka server to connect to. This is required for describing and altering broker configs.",
    )
    parser.add_argument(
        "--zookeeper",
        help="REQUIRED: The connection string for the zookeeper connection in the "
        "form host:port. Multiple URLS can be given to allow fail-over.",
    )
    add_zk_tls_config_file_option(parser)
    parser.add_argument("--command-config", help="Property file containing configs to be passed to Admin Client.")
    parser.add_argument("--alter", action="store_true", help="Alter the configuration for the entity.")
    parser.add_argument("--describe", action="store_true", help="List configs for the given entity.")
    parser.add_argument(
        "--all",
        action="store_true",
        help="List all configs for the given topic, broker, or "
        "broker-logger entity (includes static configuration when the entity type is brokers)",
    )
    parser.add_argument(
        "--entity-type",
        action="append",
        default=[],
        help="Type of entity (topics/clients/users/brokers/broker-loggers)",
    )
    parser.add_argument(
        "--entity-name",
        action="append",
        dest="entity_names",
        default=[],
        help="Name of entity (topic name/client id/user principal name/broker id)",
    )
    parser.add_argument(
        "--entity-default",
        action="append_const",
        const="",
        dest="entity_names",
        help="Default entity name for clients/users/brokers (applies to corresponding entity type in command line)",
    )
    parser.add_argument("--topic", help="The topic's name (same as --entity-type topics --entity-name).")
    parser.add_argument(
        "--add-config",
        help="Key Value pairs of configs to add. Square brackets can be used to "
        "group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'.",
    )
    parser.add_argument("--delete-config", help="config keys to remove 'k1,k2'")
    parser.add_argument("--force", action="store_true", help="Suppress console prompts")
    return parser


def parse_add_config(text):
    """Kafka's --add-config syntax: comma-separated key=val; [a,b] groups a value holding commas or '='."""
    configs = {}
    depth = 0
    item = ""
    separators = []
    for char in (text or "") + ",":
        if char == "," and depth == 0:
            if item.strip():
                if len(separators) != 1:
                    raise CommandFailure(
                        "requirement failed: Invalid entity config: all configs to be added must "
                        'be in the format "key=val".'
                    )
                key, value = item[: separators[0]], item[separators[0] + 1 :]
                configs[key.strip()] = value.replace("[", "").replace("]", "").strip()
            item = ""
            separators = []
            continue
        depth += char == "["
        depth -= char == "]"
        if char == "=" and depth == 0:
            separators.append(len(item))
        item += char
    return configs


def check_args(args):
    """Kafka 2.5's ConfigCommandOptions.checkArgs, in its order."""
    if args.topic:
        args.entity_type = args.entity_type or ["topics"]
        args.entity_names = args.entity_names or [args.topic]
    if int(args.alter) + int(args.describe) != 1:
        raise UsageError("Command must include exactly one action: --describe, --alter")
    if args.describe and (args.add_config is not None or args.delete_config is not None):
        raise UsageError('Option "[describe]" can\'t be used with option "[add-config, delete-config]"')
    if bool(args.bootstrap_server) == bool(args.zookeeper):
        raise CommandFailure("Only one of --bootstrap-server or --zookeeper must be specified")
    types = args.entity_type
    if args.bootstrap_server and ("clients" in types or "users" in types):
        raise UsageError('Missing required argument "[zookeeper]"')
    if args.all and not args.bootstrap_server:
        raise CommandFailure("--bootstrap-server must be specified for --all")
    if args.zookeeper and "broker-loggers" in types:
        raise CommandFailure(
            "Invalid entity type broker-loggers, the entity type must be one of "
            "topics,clients,users,brokers with the --zookeeper argument"
        )
    if args.alter:
        if any(kind in types for kind in ("users", "clients", "brokers", "broker-loggers")):
            if not args.entity_names:
                raise CommandFailure(
                    "--entity-name or --entity-default must be specified with --alter of users, clients or brokers"
                )
        elif not args.entity_names:
            raise CommandFailure("--entity-name must be specified with --alter of %s" % _scala_buffer(types))
        if args.add_config is None and args.delete_config is None:
            raise CommandFailure("At least one of --add-config or --delete-config must be specified with --alter")
    for kind in types:
        if kind not in ENTITY_TYPES:
            raise CommandFailure(
                "Invalid entity-type %s, --entity-type must be one of %s" % (kind, _scala_buffer(ENTITY_TYPES, "List"))
            )
    if not types:
        raise CommandFailure("At least one --entity-type must be specified")
    if len(types) > 1 and set(types) != {"users", "clients"}:
        raise CommandFailure("Only 'users' and 'clients' entity types may be specified together")


def _scala_buffer(items, kind="Buffer"):
    return "%s(%s)" % (kind, ", ".join(items))


def run(args, out, err, admin_factory=AdminClient, zk_admin_factory=ZkAdmin):
    if not (args.bootstrap_server or args.zookeeper) and not (args.alter or args.describe):
        raise UsageError("Command must include exactly one action: --describe, --alter")
    try:
        check_args(args)
        if args.zookeeper:
            print("Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.", file=out)
            print("Use --bootstrap-server instead to specify a broker to connect to.", file=out)
        additions = parse_add_config(args.add_config)
        deletions = [name.strip() for name in (args.delete_config or "").split(",") if name.strip()]
        if "message.format.version" in additions:
            print(
                "WARNING: The configuration message.format.version=%s is specified. This configuration will be "
                "ignored if the version is newer than the inter.broker.protocol.version specified in the broker."
                % additions["message.format.version"],
                file=out,
            )
        if args.zookeeper:
            return _with_zookeeper(args, additions, deletions, out, zk_admin_factory)
        return _with_broker(args, additions, deletions, out, admin_factory)
    except CommandFailure as failure:
        print(failure, file=err)
        return 1
    except ExecutionFailure as failure:
        _print_execution_failure(failure, err)
        return 1
    except KafkaResponseError as error:
        _print_execution_failure(
            "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.%s: %s"
            % (_java_exception(error.error.name), error.message),
            err,
        )
        return 1
    except (ConfigError, KafkaClientError, ValueError, ZkSecurityError, ZkTlsError) as error:
        _print_execution_failure(error, err)
        return 1


def _print_execution_failure(cause, err):
    print("Error while executing config command with args '%s'" % " ".join(sys.argv[1:]), file=err)
    print(cause, file=err)


def _java_exception(error_name):
    special = {"INVALID_CONFIG": "InvalidConfigurationException"}
    if error_name in special:
        return special[error_name]
    return "".join(part.capitalize() for part in error_name.split("_")) + "Exception"


# -- ZooKeeper mode -------------------------------------------------------------------------------------


class _Entity:
    """One config entity: type and sanitized name (None = all of that type), printed as 2.5 prints it."""

    def __init__(self, entity_type, sanitized_name):
        self.entity_type = entity_type
        self.sanitized_name = sanitized_name

    @property
    def path(self):
        return self.entity_type if self.sanitized_name is None else "%s/%s" % (self.entity_type, self.sanitized_name)

    def __str__(self):
        type_name = TYPE_NAMES.get(self.entity_type, self.entity_type)
        if self.sanitized_name == DEFAULT_ENTITY:
            return "default " + type_name
        if self.sanitized_name is None:
            return self.entity_type
        name = desanitize(self.sanitized_name) if self.entity_type in ("users", "clients") else self.sanitized_name
        return "%s '%s'" % (type_name, name)


class _ConfigEntity:
    def __init__(self, root, child=None):
        self.root = root
        self.child = child

    @property
    def full_name(self):
        """The znode name under /config/<root type>: '<name>' or '<user>/clients/<client>'."""
        return (self.root.sanitized_name or "") + ("/" + self.child.path if self.child else "")

    def all_entities(self, zk):
        """Every concrete entity this (possibly name-less) one stands for, as 2.5's getAllEntities."""
        if self.root.sanitized_name is None:
            roots = [
                _ConfigEntity(_Entity(self.root.entity_type, name), self.child)
                for name in _children(zk, ConfigEntityTypeZNode.path(self.root.entity_type))
            ]
            if self.child is None:
                return roots
            return [
                entity
                for root in roots
                for entity in _ConfigEntity(root.root, _Entity(self.child.entity_type, None)).all_entities(zk)
            ]
        if self.child is not None and self.child.sanitized_name is None:
            return [
                _ConfigEntity(self.root, _Entity(self.child.entity_type, name))
                for name in _children(
                    zk, ConfigEntityTypeZNode.path("%s/%s" % (self.root.path, self.child.entity_type))
                )
            ]
        return [self]

    def __str__(self):
        return str(self.root) + (", " + str(self.child) if self.child else "")


def _children(zk, path):
    return sorted(zk.get_children(path) or []) if zk.exists(path) else []


def parse_entity(args):
    types = args.entity_type
    if types[0] in ("users", "clients"):
        names = list(args.entity_names)
        if args.alter and len(names) != len(types):
            raise CommandFailure(
                "--entity-name or --entity-default must be specified with each --entity-type for --alter"
            )
        if len(types) == 2 and types[0] == "clients":
            types = list(reversed(types))
            names = list(reversed(names)) if len(names) == 2 else names
        entities = []
        for index, kind in enumerate(types):
            name = names[index] if index < len(names) else None
            sanitized = None if name is None else (DEFAULT_ENTITY if name == "" else sanitize(name))
            entities.append(_Entity(kind, sanitized))
        return _ConfigEntity(entities[0], entities[1] if len(entities) > 1 else None)
    name = args.entity_names[0] if args.entity_names else None
    if name == "" and types[0] != "brokers":
        name = None
    return _ConfigEntity(_Entity(types[0], DEFAULT_ENTITY if name == "" else name))


def _with_zookeeper(args, additions, deletions, out, zk_admin_factory):
    entity = parse_entity(args)
    tls_settings = zk_tls_settings(args)
    admin = (
        zk_admin_factory(args.zookeeper, tls_settings=tls_settings)
        if tls_settings
        else zk_admin_factory(args.zookeeper)
    )
    zk = admin.zk
    try:
        if args.describe:
            describe_all_users = (
                entity.root.entity_type == "users" and entity.root.sanitized_name is None and entity.child is None
            )
            for each in entity.all_entities(zk):
                configs = zk.get_entity_config(each.root.entity_type, each.full_name)
                if configs or not describe_all_users:
                    print(
                        "Configs for %s are %s" % (each, ",".join("%s=%s" % item for item in sorted(configs.items()))),
                        file=out,
                    )
            return 0
        entity_type, name = entity.root.entity_type, entity.full_name
        if entity_type == "users":
            for mechanism in SCRAM_MECHANISMS:
                if mechanism in additions:
                    additions[mechanism] = scram_credential(mechanism, additions[mechanism])
        elif entity_type == "brokers":
            _check_broker_update_with_zookeeper(zk, name, additions)
        configs = zk.get_entity_config(entity_type, name)
        missing = [key for key in deletions if key not in configs]
        if missing:
            raise CommandFailure("Invalid config(s): %s" % ",".join(missing))
        configs.update(additions)
        for key in deletions:
            configs.pop(key, None)
        _validate_for_zookeeper(zk, entity_type, name, configs)
        zk.set_entity_config(entity_type, name, configs)
        print("Completed updating config for entity: %s." % entity, file=out)
        return 0
    finally:
        admin.close()


def _check_broker_update_with_zookeeper(zk, name, additions):
    """Besides replication quotas, broker configs go through ZooKeeper only while the brokers are down."""
    if name != DEFAULT_ENTITY and not name.isdigit():
        raise CommandFailure("Error parsing broker %s. The broker's Entity Name must be a single integer value" % name)
    dynamic = [key for key in additions if key not in REPLICATION_QUOTA_CONFIGS]
    if not dynamic:
        return
    message = "requirement failed: --bootstrap-server option must be specified to update broker configs %s" % scala_set(
        dynamic
    )
    info = (
        "Broker configuraton updates using ZooKeeper are supported for bootstrapping before brokers are "
        "started to enable encrypted password configs to be stored in ZooKeeper."
    )
    if name != DEFAULT_ENTITY:
        if zk.get_broker(int(name)) is not None:
            raise CommandFailure("%s when broker %s is running. %s" % (message, name, info))
    elif zk.get_broker_ids():
        raise CommandFailure("%s for default cluster if any broker is running. %s" % (message, info))
    try:
        validate_dynamic_configs(dynamic and {key: additions[key] for key in dynamic}, name != DEFAULT_ENTITY)
    except ConfigError as error:
        raise ExecutionFailure("org.apache.kafka.common.config.ConfigException: %s" % error) from None


def _validate_for_zookeeper(zk, entity_type, name, configs):
    """What 2.5's AdminZkClient checks before it writes an entity's configs."""
    try:
        if entity_type == "topics":
            if name not in zk.get_topics():
                raise ExecutionFailure('kafka.admin.AdminOperationException: Topic "%s" does not exist.' % name)
            unknown = [key for key in configs if key not in TOPIC_CONFIGS]
            if unknown:
                raise CommandFailure("Unknown topic config name: %s" % unknown[0])
            validate_topic_configs(configs)
        elif entity_type in ("users", "clients"):
            quota_type = "users" if entity_type == "users" and "/clients/" not in name else "clients"
            validate_quota_configs(quota_type, configs)
        elif entity_type == "brokers":
            for key, value in configs.items():
                parse_value(key, value)
    except UnknownQuotaConfig as error:
        raise CommandFailure(str(error)) from None
    except ConfigError as error:
        raise ExecutionFailure("org.apache.kafka.common.config.ConfigException: %s" % error) from None


# -- broker (AdminClient) mode ------------------------------------------------------------------------


def _with_broker(args, additions, deletions, out, admin_factory):
    types = args.entity_type
    if len(types) != 1:
        raise CommandFailure(
            "Exactly one entity type (out of topics,brokers,broker-loggers) must be specified with --bootstrap-server"
        )
    entity_type = types[0]
    name = args.entity_names[0] if args.entity_names else None
    if entity_type != "topics" and name not in (None, "") and not name.isdigit():
        raise CommandFailure(
            "The entity name for %s must be a valid integer broker id, found: %s" % (entity_type, name)
        )
    if entity_type == "broker-loggers" and not name:
        raise CommandFailure(
            "an entity name must be specified with --%s of broker-loggers" % ("describe" if args.describe else "alter")
        )
    if args.alter and entity_type == "topics" and name == "":
        raise CommandFailure("--entity-name must be specified with --alter of %s" % _scala_buffer(types))
    admin = admin_factory(args.bootstrap_server, **read_admin_options(args.command_config))
    try:
        if args.describe:
            _describe_through_broker(admin, entity_type, name, args.all, out)
            return 0
        resource = RESOURCE_TYPES[entity_type]
        if entity_type == "topics":
            unknown = [key for key in additions if key not in TOPIC_CONFIGS]
            if unknown:
                raise CommandFailure("Unknown topic config name: %s" % unknown[0])
        current = {entry.name: entry for entry in _resource_configs(admin, entity_type, name, False, False)}
        missing = [key for key in deletions if key not in current]
        if missing:
            raise CommandFailure("Invalid config(s): %s" % ",".join(missing))
        if entity_type != "brokers":
            admin.incremental_alter_configs(name, additions, deletions, resource)
        else:
            updated = {key: entry.value for key, entry in current.items() if key not in deletions}
            updated.update(additions)
            sensitive = [key for key, value in updated.items() if value is None]
            if sensitive:
                raise CommandFailure(
                    "All sensitive broker config entries must be specified for --alter, missing "
                    "entries: %s" % scala_set(sensitive)
                )
            admin.alter_resource_configs(resource, name, updated)
        if name == "":
            print("Completed updating default config for %s in the cluster." % entity_type, file=out)
        else:
            print("Completed updating config for %s %s." % (entity_type[:-1], name), file=out)
        return 0
    finally:
        admin.close()


def _resource_configs(admin, entity_type, name, include_synonyms, describe_all):
    wanted = {"topics": 1, "brokers": 2 if name != "" else 3}.get(entity_type)  # broker-loggers: every logger
    entries = admin.describe_resource_configs(RESOURCE_TYPES[entity_type], name, include_synonyms)
    return sorted(
        (entry for entry in entries if describe_all or wanted is None or entry.source == wanted), key=lambda e: e.name
    )


def _describe_through_broker(admin, entity_type, name, describe_all, out):
    if name is not None:
        names = [name]
    elif entity_type == "topics":
        names = sorted(admin.list_topics(include_internal=True))
    else:
        brokers, _, _ = admin.describe_cluster()
        names = [str(broker) for broker in sorted(brokers)] + [""]
    for each in names:
        if each == "":
            print("Default configs for %s in the cluster are:" % entity_type, file=out)
        else:
            print(
                "%s configs for %s %s are:" % ("All" if describe_all else "Dynamic", entity_type[:-1], each), file=out
            )
        for entry in _resource_configs(admin, entity_type, each, True, describe_all):
            synonyms = ", ".join(
                "%s:%s=%s" % (SOURCE_NAMES.get(synonym.source, "UNKNOWN"), synonym.name, _java_string(synonym.value))
                for synonym in entry.synonyms
            )
            print(
                "  %s=%s sensitive=%s synonyms={%s}"
                % (entry.name, _java_string(entry.value), str(entry.is_sensitive).lower(), synonyms),
                file=out,
            )


def _java_string(value):
    return "null" if value is None else value


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
