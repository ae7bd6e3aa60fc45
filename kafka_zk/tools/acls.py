"""kafka-acls: Kafka 2.5's AclCommand. --bootstrap-server goes through the ACL APIs (properties of
--command-config are handed to the admin client); --authorizer-properties zookeeper.connect=... writes the ACL
znodes and change notifications straight to ZooKeeper, as AclAuthorizer does."""

import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaResponseError
from kafka_zk.client.zk_admin import tool_zk_client
from kafka_zk.protocol.errors import Errors
from kafka_zk.security.acls import (
    AUTHORIZER_CLASS_NAMES,
    MATCH_ALL,
    AclBinding,
    AclBindingFilter,
    AclEntry,
    AclEntryFilter,
    ResourcePattern,
    ResourcePatternFilter,
    adding,
    deletion_targets,
    entries_from_json,
    group_by_pattern,
    operation_from_name,
    pattern_from_store,
    plan_creations,
    removing,
    store_key,
)
from kafka_zk.security.authorizer import CLUSTER_NAME, AclOperation, PatternType, PermissionType, ResourceType
from kafka_zk.security.principal import KafkaPrincipal
from kafka_zk.tools.command_config import admin_options, read_client_properties
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, parse_key_value_args, run_tool
from kafka_zk.tools.zk_tls_option import add_zk_tls_config_file_option, authorizer_zk_tls_settings

Op = AclOperation
VALID_OPERATIONS = {  # AclCommand.ResourceTypeToValidOperations, in its order
    ResourceType.TOPIC: (
        Op.READ,
        Op.WRITE,
        Op.CREATE,
        Op.DESCRIBE,
        Op.DELETE,
        Op.DESCRIBE_CONFIGS,
        Op.ALTER_CONFIGS,
        Op.ALL,
    ),
    ResourceType.GROUP: (Op.READ, Op.DESCRIBE, Op.DELETE, Op.ALL),
    ResourceType.CLUSTER: (
        Op.CREATE,
        Op.CLUSTER_ACTION,
        Op.DESCRIBE_CONFIGS,
        Op.ALTER_CONFIGS,
        Op.IDEMPOTENT_WRITE,
        Op.ALTER,
        Op.DESCRIBE,
        Op.ALL,
    ),
    ResourceType.TRANSACTIONAL_ID: (Op.DESCRIBE, Op.WRITE, Op.ALL),
    ResourceType.DELEGATION_TOKEN: (Op.DESCRIBE, Op.ALL),
}
PATTERN_TYPES = {
    "literal": PatternType.LITERAL,
    "prefixed": PatternType.PREFIXED,
    "any": PatternType.ANY,
    "match": PatternType.MATCH,
}


class CommandError(Exception):
    """What AclCommand's main catches: "Error while executing ACL command: <message>", exit 1."""


def build_parser():
    parser = ToolArgumentParser(prog="kafka-acls", description="Manage ACLs (Kafka 2.5 AclCommand).")
    parser.add_argument(
        "--bootstrap-server",
        help="A list of host/port pairs to use for establishing the connection to the Kafka cluster.",
    )
    parser.add_argument("--command-config", help="A property file containing configs to be passed to Admin Client.")
    parser.add_argument(
        "--authorizer",
        help="Fully qualified class name of the authorizer, defaults to kafka.security.authorizer.AclAuthorizer.",
    )
    parser.add_argument(
        "--authorizer-properties",
        action="append",
        default=[],
        help="REQUIRED without --bootstrap-server: key=val pairs, e.g. zookeeper.connect=host:2181",
    )
    add_zk_tls_config_file_option(parser, "for the authorizer ")
    parser.add_argument("--topic", action="append", default=[])
    parser.add_argument("--group", action="append", default=[])
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--transactional-id", action="append", default=[])
    parser.add_argument("--delegation-token", action="append", default=[])
    parser.add_argument(
        "--resource-pattern-type", default="literal", help="literal, prefixed, any or match (default literal)"
    )
    for action in ("add", "remove", "list"):
        parser.add_argument("--" + action, action="store_true")
    parser.add_argument("--operation", action="append", default=[])
    parser.add_argument("--allow-principal", action="append", default=[])
    parser.add_argument("--deny-principal", action="append", default=[])
    parser.add_argument("--principal", action="append", default=[], help="List ACLs for this principal (--list).")
    parser.add_argument("--allow-host", action="append", default=[])
    parser.add_argument("--deny-host", action="append", default=[])
    parser.add_argument("--producer", action="store_true")
    parser.add_argument("--consumer", action="store_true")
    parser.add_argument("--idempotent", action="store_true")
    parser.add_argument("--force", action="store_true")
    return parser


def check_args(args):
    if args.bootstrap_server and args.authorizer:
        raise UsageError("The --authorizer option is not supported with --bootstrap-server")
    if args.bootstrap_server and args.authorizer_properties:
        raise UsageError("The --authorizer-properties option is not supported with --bootstrap-server")
    if not args.bootstrap_server and not args.authorizer_properties:
        raise UsageError('Missing required argument "[authorizer-properties]"')
    if args.authorizer and args.authorizer not in AUTHORIZER_CLASS_NAMES:
        raise CommandError("Class %s cannot be found" % args.authorizer)
    if sum((args.add, args.remove, args.list)) != 1:
        raise UsageError("Command must include exactly one action: --list, --add, --remove. ")
    if args.list:
        for name in ("producer", "consumer", "allow_host", "allow_principal", "deny_host", "deny_principal"):
            if getattr(args, name):
                raise UsageError('Option "[list]" can\'t be used with option "[%s]"' % name.replace("_", "-"))
    for role in ("producer", "consumer"):
        if getattr(args, role):
            for name in ("operation", "deny_principal", "deny_host"):
                if getattr(args, name):
                    raise UsageError('Option "[%s]" can\'t be used with option "[%s]"' % (role, name.replace("_", "-")))
    if args.producer and not args.topic:
        raise UsageError("With --producer you must specify a --topic")
    if args.idempotent and not args.producer:
        raise UsageError("The --idempotent option is only available if --producer is set")
    if args.consumer and (
        not args.topic or not args.group or (not args.producer and (args.cluster or args.transactional_id))
    ):
        raise UsageError(
            "With --consumer you must specify a --topic and a --group and no --cluster or "
            "--transactional-id option should be specified."
        )
    if args.resource_pattern_type.lower() not in PATTERN_TYPES:
        raise UsageError("Invalid value for --resource-pattern-type: %s" % args.resource_pattern_type)
    if args.add and pattern_type_of(args) not in (PatternType.LITERAL, PatternType.PREFIXED):
        raise UsageError(
            "A '--resource-pattern-type' value of '%s' is not valid when adding acls." % pattern_type_of(args).name
        )


def pattern_type_of(args):
    return PATTERN_TYPES[args.resource_pattern_type.lower()]


def resource_filters(args, die_if_none=True):
    """AclCommand.getResourceFilter: the resources the options name, in their order."""
    pattern_type = pattern_type_of(args)
    filters = [ResourcePatternFilter(ResourceType.TOPIC, t.strip(), pattern_type) for t in args.topic]
    if pattern_type == PatternType.LITERAL and (args.cluster or args.idempotent):
        filters.append(ResourcePatternFilter(ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL))
    filters += [ResourcePatternFilter(ResourceType.GROUP, g.strip(), pattern_type) for g in args.group]
    filters += [ResourcePatternFilter(ResourceType.TRANSACTIONAL_ID, t, pattern_type) for t in args.transactional_id]
    filters += [
        ResourcePatternFilter(ResourceType.DELEGATION_TOKEN, t.strip(), pattern_type) for t in args.delegation_token
    ]
    if not filters and die_if_none:
        raise UsageError(
            "You must provide at least one resource: --topic <topic> or --cluster or --group <group> "
            "or --delegation-token <Delegation Token ID>"
        )
    return list(dict.fromkeys(filters))


def _principals(values):
    principals = []
    for value in values:
        try:
            principals.append(str(KafkaPrincipal.parse(value.strip())))
        except ValueError as error:
            raise CommandError(str(error)) from None
    return principals


def _hosts(hosts, principals):
    return [h.strip() for h in hosts] if hosts else (["*"] if principals else [])


def entries_for(args, operations):
    """AclCommand.getAcl: each principal x operation x host, allowed and denied."""
    entries = set()
    for principals, hosts, permission in (
        (args.allow_principal, args.allow_host, PermissionType.ALLOW),
        (args.deny_principal, args.deny_host, PermissionType.DENY),
    ):
        names = _principals(principals)
        for principal in names:
            for operation in operations:
                for host in _hosts(hosts, names):
                    entries.add(AclEntry(principal, host, operation, permission))
    return entries


def _operations(args):
    try:
        return [operation_from_name(o) for o in (args.operation or ["All"])]
    except ValueError as error:
        raise CommandError(str(error)) from None


def resource_to_entries(args):
    """AclCommand.getResourceFilterToAcls: {filter: {entries}} for --add and --remove."""
    filters = resource_filters(args)
    result = {}
    if not args.producer and not args.consumer:
        entries = entries_for(args, _operations(args))
        result = {f: set(entries) for f in filters}
    if args.producer:
        for f in filters:
            if f.resource_type == ResourceType.TOPIC:
                result[f] = entries_for(args, (Op.WRITE, Op.DESCRIBE, Op.CREATE))
            elif f.resource_type == ResourceType.TRANSACTIONAL_ID:
                result[f] = entries_for(args, (Op.WRITE, Op.DESCRIBE))
            elif f.resource_type == ResourceType.CLUSTER and args.idempotent:
                result[f] = entries_for(args, (Op.IDEMPOTENT_WRITE,))
    if args.consumer:
        for f in filters:
            if f.resource_type == ResourceType.TOPIC:
                result[f] = result.get(f, set()) | entries_for(args, (Op.READ, Op.DESCRIBE))
            elif f.resource_type == ResourceType.GROUP:
                result[f] = result.get(f, set()) | entries_for(args, (Op.READ,))
    for f, entries in result.items():
        valid = VALID_OPERATIONS[f.resource_type]
        if any(e.operation not in valid for e in entries):
            raise UsageError(
                "ResourceType %s only supports operations %s" % (f.resource_type.name, ",".join(o.name for o in valid))
            )
    return result


def _lines(entries):
    return "\n".join("\t" + str(entry) for entry in sorted(entries))


def _confirm(args, message, out, stdin):
    if args.force:
        return True
    print(message, file=out)
    out.flush()
    return stdin.readline().strip().lower() == "y"


def run(args, out, err, admin_factory=None, zk_factory=None, stdin=None):
    try:
        check_args(args)
        backend = BrokerBackend(args, admin_factory) if args.bootstrap_server else ZooKeeperBackend(args, zk_factory)
        try:
            if args.add:
                add(args, backend, out)
            elif args.remove:
                remove(args, backend, out, stdin if stdin is not None else sys.stdin)
            else:
                list_acls(args, backend, out)
        finally:
            backend.close()
    except CommandError as error:
        print("Error while executing ACL command: %s" % error, file=out)
        return 1
    return 0


def add(args, backend, out):
    resource_entries = resource_to_entries(args)
    if any(not entries for entries in resource_entries.values()):
        raise UsageError("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
    for resource_filter, entries in resource_entries.items():
        pattern = ResourcePattern(resource_filter.resource_type, resource_filter.name, resource_filter.pattern_type)
        print("Adding ACLs for resource `%s`: \n %s \n" % (pattern, _lines(entries)), file=out)
        bindings = [AclBinding(pattern, entry) for entry in sorted(entries)]
        for error, message in backend.create(bindings):
            if error != Errors.NONE:
                raise CommandError("%s: %s" % (error.name, message or error.message))
    list_acls(args, backend, out)


def remove(args, backend, out, stdin):
    for resource_filter, entries in resource_to_entries(args).items():
        if not entries:
            if _confirm(
                args,
                "Are you sure you want to delete all ACLs for resource filter `%s`? (y/n)" % (resource_filter,),
                out,
                stdin,
            ):
                backend.delete([AclBindingFilter(resource_filter)])
        elif _confirm(
            args,
            "Are you sure you want to remove ACLs: \n %s \n from resource filter `%s`? (y/n)"
            % (_lines(entries), resource_filter),
            out,
            stdin,
        ):
            backend.delete(
                [
                    AclBindingFilter(resource_filter, AclEntryFilter(e.principal, e.host, e.operation, e.permission))
                    for e in sorted(entries)
                ]
            )
    list_acls(args, backend, out)


def list_acls(args, backend, out):
    filters = resource_filters(args, die_if_none=False)
    bindings = set()
    for binding_filter in [AclBindingFilter(f) for f in filters] or [MATCH_ALL]:
        bindings.update(backend.describe(binding_filter))
    principals = _principals(args.principal)
    if not principals:
        for pattern, entries in group_by_pattern(bindings).items():
            print("Current ACLs for resource `%s`: \n %s \n" % (pattern, _lines(entries)), file=out)
        return
    for principal in principals:
        print("ACLs for principal `%s`" % principal, file=out)
        for pattern, entries in group_by_pattern(b for b in bindings if b.entry.principal == principal).items():
            print("Current ACLs for resource `%s`: \n %s \n" % (pattern, _lines(entries)), file=out)


class BrokerBackend:
    """The ACL APIs through the admin client."""

    def __init__(self, args, admin_factory=None):
        properties = read_client_properties(args.command_config)
        self.admin = (admin_factory or admin_client)(args.bootstrap_server, properties)

    def create(self, bindings):
        return self.admin.create_acls(bindings)

    def describe(self, binding_filter):
        try:
            return self.admin.describe_acls(binding_filter)
        except KafkaResponseError as error:  # Kafka 2.5.1 prints its future's ExecutionException's message
            name = "".join(part.capitalize() for part in error.error.name.split("_")) + "Exception"
            raise CommandError("org.apache.kafka.common.errors.%s: %s" % (name, error.message)) from None

    def delete(self, filters):
        for error, message, _ in self.admin.delete_acls(filters):
            if error != Errors.NONE:
                raise CommandError("%s: %s" % (error.name, message or error.message))

    def close(self):
        self.admin.close()


def admin_client(bootstrap_servers, properties):
    """An AdminClient configured by --command-config's properties (client.id, request.timeout.ms, security)."""
    return AdminClient(bootstrap_servers, **admin_options(properties, client_id="kafka-acls"))


class ZooKeeperBackend:
    """The ACL znodes and change notifications written directly, as AclAuthorizer would."""

    def __init__(self, args, zk_factory=None):
        properties = parse_key_value_args(args.authorizer_properties)
        connect = properties.get("zookeeper.connect") or properties.get("authorizer.zookeeper.url")
        if not connect:
            raise CommandError('Missing required configuration "zookeeper.connect" which has no default value.')
        tls_settings = authorizer_zk_tls_settings(args, properties)
        factory = zk_factory or zookeeper_client
        self.zk = factory(connect, tls_settings=tls_settings) if tls_settings else factory(connect)
        self.zk.create_acl_paths()

    def create(self, bindings):
        errors, additions = plan_creations(bindings)
        for pattern, entries in additions.items():
            self._update(pattern, adding(entries))
        return [
            (Errors.INVALID_REQUEST, errors[i]) if i in errors else (Errors.NONE, None) for i in range(len(bindings))
        ]

    def _stored(self):
        stored = {}
        for key, items in self.zk.get_all_acls().items():
            try:
                stored[pattern_from_store(key)] = entries_from_json(items)
            except (ValueError, KeyError):
                continue
        return stored

    def describe(self, binding_filter):
        return [
            AclBinding(pattern, entry)
            for pattern, entries in self._stored().items()
            for entry in entries
            if binding_filter.matches(AclBinding(pattern, entry))
        ]

    def delete(self, filters):
        for pattern, matching in deletion_targets(self._stored(), filters).items():
            self._update(pattern, removing(pattern, matching, {}))

    def _update(self, pattern, update):
        key = store_key(pattern)
        before, after = self.zk.update_resource_acls(*key, update)
        if entries_from_json(before) != entries_from_json(after):
            self.zk.create_acl_change_notification(*key)

    def close(self):
        self.zk.close()


def zookeeper_client(connect, tls_settings=None):
    return tool_zk_client(connect, tls_settings=tls_settings)


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
