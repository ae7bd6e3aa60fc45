"""kafka-topics: create, list, describe, alter and delete topics, over the protocol or straight on ZooKeeper."""

import re
import sys
from collections import namedtuple

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.errors import KafkaResponseError, UnsupportedVersionError
from kafka_zk.client.topic_names import filter_topics, has_collision_chars, is_internal
from kafka_zk.client.zk_admin import ZkAdmin
from kafka_zk.controller.assignment import RackAwareMode, parse_replica_assignment
from kafka_zk.protocol.errors import Errors
from kafka_zk.server.config.kafka_config import ConfigError
from kafka_zk.server.config.topic_config import validate_topic_configs
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool
from kafka_zk.zk.client import TopicExistsError

ACTIONS = ("create", "list", "alter", "describe", "delete")
REPORT_OPTIONS = (
    "under_replicated_partitions",
    "under_min_isr_partitions",
    "at_min_isr_partitions",
    "unavailable_partitions",
)
COLLISION_WARNING = (
    "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') "
    "could collide. To avoid issues it is best to use either, but not both."
)
MAX_REPLICATION_FACTOR = 32767

PartitionDescription = namedtuple("PartitionDescription", "partition leader replicas isr adding removing")
PartitionDescription.__doc__ = "One partition for --describe; leader None when there is none."
TopicDescription = namedtuple("TopicDescription", "name partitions configs marked_for_deletion min_isr")
TopicDescription.__doc__ = (
    "One topic for --describe: partitions sorted, configs [(name, value)] of non-defaults, "
    "min_isr the min.insync.replicas in force (None when unknown)."
)


class CommandError(Exception):
    """A failure Kafka reports as 'Error while executing topic command : <message>'."""


# -- describe output ---------------------------------------------------------------------------


def _ids(ids):
    return ",".join(str(i) for i in ids)


def replication_factor(partition):
    """Replicas minus those being added by an ongoing reassignment (Kafka's view during a move)."""
    if partition.adding or partition.removing:
        return len([r for r in partition.replicas if r not in partition.adding])
    return len(partition.replicas)


def topic_line(description):
    line = "Topic: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: %s" % (
        description.name,
        len(description.partitions),
        replication_factor(description.partitions[0]) if description.partitions else 0,
        ",".join("%s=%s" % kv for kv in description.configs),
    )
    return line + ("\tMarkedForDeletion: true" if description.marked_for_deletion else "")


def partition_line(topic, partition, marked_for_deletion=False):
    line = "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s" % (
        topic,
        partition.partition,
        "none" if partition.leader is None else partition.leader,
        _ids(partition.replicas),
        _ids(partition.isr),
    )
    if partition.adding or partition.removing:
        line += "\tAdding Replicas: %s\tRemoving Replicas: %s" % (_ids(partition.adding), _ids(partition.removing))
    return line + ("\tMarkedForDeletion: true" if marked_for_deletion else "")


def _partition_selected(args, description, partition, live_brokers):
    if not any(getattr(args, name) for name in REPORT_OPTIONS):
        return True
    no_leader = partition.leader is None
    min_isr = description.min_isr
    return (
        (args.under_replicated_partitions and replication_factor(partition) - len(partition.isr) > 0)
        or (args.unavailable_partitions and (no_leader or partition.leader not in live_brokers))
        or (args.under_min_isr_partitions and (no_leader or (min_isr is not None and len(partition.isr) < min_isr)))
        or (args.at_min_isr_partitions and min_isr is not None and len(partition.isr) == min_isr)
    )


def describe_lines(args, descriptions, live_brokers):
    """The lines --describe prints for ``descriptions`` given the report filters in ``args``."""
    describe_configs = not any(getattr(args, name) for name in REPORT_OPTIONS)
    lines = []
    for description in descriptions:
        if describe_configs and (not args.topics_with_overrides or description.configs):
            lines.append(topic_line(description))
        if not args.topics_with_overrides:
            lines.extend(
                partition_line(description.name, p, description.marked_for_deletion)
                for p in description.partitions
                if _partition_selected(args, description, p, live_brokers)
            )
    return lines


def description_from_metadata(topic_info, config_entries=None, reassignments=None):
    """TopicDescription from a cluster TopicInfo, its DescribeConfigs entries and ongoing reassignments."""
    reassignments = reassignments or {}
    partitions = []
    for index, part in sorted(topic_info.partitions.items()):
        moving = reassignments.get((topic_info.name, index))
        partitions.append(
            PartitionDescription(
                index,
                part.leader if part.leader >= 0 else None,
                list(part.replicas),
                list(part.isr),
                list(moving.adding_replicas) if moving else [],
                list(moving.removing_replicas) if moving else [],
            )
        )
    entries = config_entries or []
    min_isr = next((int(e.value) for e in entries if e.name == "min.insync.replicas" and e.value), None)
    return TopicDescription(
        topic_info.name, partitions, [(e.name, e.value) for e in entries if not e.is_default], False, min_isr
    )


def description_from_zk(described):
    """TopicDescription from ZkAdmin.describe_topic's dict (configs there are the overrides)."""
    partitions = [
        PartitionDescription(p, d["leader"], d["replicas"], d["isr"], [], [])
        for p, d in sorted(described["partitions"].items())
    ]
    return TopicDescription(
        described["name"], partitions, sorted(described["configs"].items()), described["marked_for_deletion"], None
    )


# -- argument handling -------------------------------------------------------------------------


def parse_topic_configs(items):
    """--config k=v values as an ordered dict, validated like Kafka's LogConfig.validate."""
    configs = {}
    for item in items or ():
        parts = re.split(r"\s*=\s*", item)
        if len(parts) != 2:
            raise CommandError(
                'requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".'
            )
        configs[parts[0].strip()] = parts[1].strip()
    try:
        validate_topic_configs(configs)
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    return configs


def _option(name):
    return '"[%s]"' % name.replace("_", "-")


def check_args(args):
    """Kafka's TopicCommandOptions.checkArgs: exactly one action, one connection, valid combinations."""
    actions = [a for a in ACTIONS if getattr(args, a)]
    if len(actions) != 1:
        raise UsageError("Command must include exactly one action: --list, --describe, --create, --alter or --delete")
    action = actions[0]
    if bool(args.bootstrap_server) == bool(args.zookeeper):
        raise UsageError("Only one of --bootstrap-server or --zookeeper must be specified")
    if action not in ("list", "describe") or (action == "describe" and args.if_exists):
        if args.topic is None:
            raise UsageError('Missing required argument "[topic]"')
    if action == "create" and not args.replica_assignment and args.zookeeper:
        for name in ("partitions", "replication_factor"):
            if getattr(args, name) is None:
                raise UsageError("Missing required argument %s" % _option(name))
    if args.bootstrap_server and action == "alter":
        if args.config:
            raise UsageError(
                'Option "[config]" can\'t be used with option "[bootstrap-server]" (the kafka-configs '
                "CLI supports altering topic configs with a --bootstrap-server option)"
            )
        if args.partitions is None:
            raise UsageError('Missing required argument "[partitions]"')
    allowed = {
        "config": ("alter", "create"),
        "delete_config": ("alter",),
        "partitions": ("alter", "create"),
        "replication_factor": ("create",),
        "replica_assignment": ("create", "alter"),
        "if_exists": ("alter", "delete", "describe"),
        "if_not_exists": ("create",),
        "exclude_internal": ("list", "describe"),
        "topics_with_overrides": ("describe",),
    }
    allowed.update({name: ("describe",) for name in REPORT_OPTIONS})
    for name, actions_ok in allowed.items():
        value = getattr(args, name)
        if value not in (None, False, []) and action not in actions_ok:
            raise UsageError('Option %s can\'t be used with option "[%s]"' % (_option(name), action))
    if args.delete_config and args.bootstrap_server:
        raise UsageError('Option "[delete-config]" can\'t be used with option "[bootstrap-server]"')
    if action == "create" and args.replica_assignment:
        for name in ("partitions", "replication_factor"):
            if getattr(args, name) is not None:
                raise UsageError('Option "[replica-assignment]" can\'t be used with option %s' % _option(name))
    reports = [name for name in REPORT_OPTIONS + ("topics_with_overrides",) if getattr(args, name)]
    if len(reports) > 1:
        raise UsageError("Option %s can't be used with option %s" % (_option(reports[0]), _option(reports[1])))
    if args.zookeeper and (args.under_min_isr_partitions or args.at_min_isr_partitions):
        raise UsageError(
            'Option %s can\'t be used with option "[zookeeper]"'
            % _option("under_min_isr_partitions" if args.under_min_isr_partitions else "at_min_isr_partitions")
        )
    return action


def _replica_assignment(args):
    if not args.replica_assignment:
        return None
    try:
        return parse_replica_assignment(args.replica_assignment)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _ensure_topic_exists(found, requested, args):
    if requested is not None and not args.if_exists and not found:
        raise CommandError("Topic '%s' does not exist as expected" % requested)


def _check_sizes(args):
    if args.replication_factor is not None and not 1 <= args.replication_factor <= MAX_REPLICATION_FACTOR:
        raise CommandError("The replication factor must be between 1 and %d inclusive" % MAX_REPLICATION_FACTOR)
    if args.partitions is not None and args.partitions < 1:
        raise CommandError("The partitions must be greater than 0")


# -- the two topic services ----------------------------------------------------------------------


def _print(out, line=""):
    print(line, file=out)


# Java exception classes whose names are not the error's name in CamelCase with "Exception" (Kafka's Errors table);
# every *_AUTHORIZATION_FAILED error is a *AuthorizationException.
_EXCEPTION_CLASSES = {
    Errors.INVALID_CONFIG: "InvalidConfigurationException",
    Errors.UNKNOWN_SERVER_ERROR: "UnknownServerException",
    Errors.REQUEST_TIMED_OUT: "TimeoutException",
    Errors.SASL_AUTHENTICATION_FAILED: "SaslAuthenticationException",
}
_AUTHORIZATION_FAILED = "_AUTHORIZATION_FAILED"


def exception_class(error):
    """The simple name of the Java exception Kafka's AdminClient throws for a broker's error."""
    if error in _EXCEPTION_CLASSES:
        return _EXCEPTION_CLASSES[error]
    name = error.name
    if name.endswith(_AUTHORIZATION_FAILED):
        name = name[: -len(_AUTHORIZATION_FAILED)] + "_AUTHORIZATION"
    return "".join(part.capitalize() for part in name.split("_")) + "Exception"


def _raise_response(error, message):
    """A broker's error as Kafka 2.5.1's TopicCommand prints what its AdminClient future threw: the exception's class
    and message."""
    raise CommandError("org.apache.kafka.common.errors.%s: %s" % (exception_class(error), message or error.message))


def _creation_request(args, out):
    """(replica assignment or None, configs) of a --create, after Kafka's argument checks and warning."""
    _check_sizes(args)
    assignment = _replica_assignment(args)
    configs = parse_topic_configs(args.config)
    if has_collision_chars(args.topic):
        _print(out, COLLISION_WARNING)
    return assignment, configs


def run_with_admin(action, args, admin, out):
    """Carry out ``action`` through an AdminClient (--bootstrap-server)."""

    def topics():
        return filter_topics(admin.list_topics(), args.topic, args.exclude_internal)

    if action == "create":
        assignment, configs = _creation_request(args, out)
        new = NewTopic(
            args.topic,
            -1 if args.partitions is None else args.partitions,
            -1 if args.replication_factor is None else args.replication_factor,
            assignment,
            configs,
        )
        error, message = admin.create_topics([new]).get(args.topic, (Errors.UNKNOWN_SERVER_ERROR, None))
        if error == Errors.TOPIC_ALREADY_EXISTS:
            if args.if_not_exists:
                return
            raise CommandError("Topic %s already exists" % args.topic)  # Kafka 2.5.1's TopicCommand's words
        if error != Errors.NONE:
            _raise_response(error, message)
        _print(out, "Created topic %s." % args.topic)
    elif action == "list":
        _print(out, "\n".join(topics()))
    elif action == "alter":
        found = topics()
        _ensure_topic_exists(found, args.topic, args)
        assignment = _replica_assignment(args)
        if not found:
            return
        current = admin.describe_topics(found)
        requests = {}
        for name in found:
            new_assignment = None
            if assignment:
                new_assignment = [r for p, r in sorted(assignment.items()) if p >= len(current[name].partitions)]
            requests[name] = (args.partitions, new_assignment)
        for error, message in admin.create_partitions(requests).values():
            if error != Errors.NONE:
                _raise_response(error, message)
    elif action == "describe":
        found = topics()  # Kafka 2.5.1 describes no unknown topic through the brokers, with no error
        if not found:
            return
        try:
            configs = admin.describe_configs(found)
        except UnsupportedVersionError:  # a broker without DescribeConfigs: describe without configs
            configs = {}
        brokers, _, _ = admin.describe_cluster()
        infos = admin.describe_topics(found)
        try:
            reassignments = admin.list_partition_reassignments()
        except (KafkaResponseError, UnsupportedVersionError):  # Kafka also ignores these here
            reassignments = {}
        descriptions = [description_from_metadata(infos[name], configs.get(name), reassignments) for name in found]
        for line in describe_lines(args, descriptions, set(brokers)):
            _print(out, line)
    elif action == "delete":
        found = topics()
        _ensure_topic_exists(found, args.topic, args)
        for error in admin.delete_topics(found).values():
            if error != Errors.NONE:
                _raise_response(error, None)


def run_with_zookeeper(action, args, zk_admin, out):
    """Carry out ``action`` by editing ZooKeeper directly (--zookeeper), like Kafka's AdminZkClient."""

    def topics():
        return filter_topics(zk_admin.list_topics(), args.topic, args.exclude_internal)

    if action == "create":
        assignment, configs = _creation_request(args, out)
        try:
            if assignment:
                zk_admin.create_topic_with_assignment(args.topic, assignment, configs)
            else:
                zk_admin.create_topic(
                    args.topic,
                    args.partitions,
                    args.replication_factor,
                    configs,
                    RackAwareMode.DISABLED if args.disable_rack_aware else RackAwareMode.ENFORCED,
                )
        except TopicExistsError:
            if args.if_not_exists:
                return
            raise
        _print(out, "Created topic %s." % args.topic)
    elif action == "list":
        marked = zk_admin.topics_marked_for_deletion()
        for name in topics():
            _print(out, "%s - marked for deletion" % name if name in marked else name)
    elif action == "alter":
        found = topics()
        _ensure_topic_exists(found, args.topic, args)
        assignment = _replica_assignment(args)
        to_add = parse_topic_configs(args.config)
        for name in found:
            if args.config or args.delete_config:
                _print(
                    out,
                    "WARNING: Altering topic configuration from this script has been deprecated and may be "
                    "removed in future releases.",
                )
                _print(out, "         Going forward, please use kafka-configs.sh for this functionality")
                configs = zk_admin.get_topic_config(name)
                configs.update(to_add)
                for key in args.delete_config or ():
                    configs.pop(key.strip(), None)
                zk_admin.change_topic_config(name, configs)
                _print(out, "Updated config for topic %s." % name)
            if args.partitions is not None:
                if is_internal(name):
                    raise CommandError("The number of partitions for the internal topic %s cannot be changed." % name)
                _print(
                    out,
                    "WARNING: If partitions are increased for a topic that has a key, the partition logic "
                    "or ordering of the messages will be affected",
                )
                zk_admin.add_partitions(name, args.partitions, assignment)
                _print(out, "Adding partitions succeeded!")
    elif action == "describe":
        found = topics()
        _ensure_topic_exists(found, args.topic, args)
        live = set(zk_admin.live_broker_ids())
        for name in found:
            described = zk_admin.describe_topic(name)
            if described is None:
                _print(out, "Topic %s doesn't exist!" % name)
                continue
            for line in describe_lines(args, [description_from_zk(described)], live):
                _print(out, line)
    elif action == "delete":
        found = topics()
        _ensure_topic_exists(found, args.topic, args)
        for name in found:
            if zk_admin.delete_topic(name):
                _print(out, "Topic %s is marked for deletion." % name)
                _print(out, "Note: This will have no impact if delete.topic.enable is not set to true.")
            else:
                _print(out, "Topic %s is already marked for deletion." % name)


def build_parser():
    parser = ToolArgumentParser(prog="kafka-topics", description="Create, delete, describe, or change a topic.")
    parser.add_argument("--bootstrap-server", help="The Kafka server to connect to.")
    parser.add_argument("--zookeeper", help="The connection string for the zookeeper connection host:port[/chroot].")
    parser.add_argument(
        "--command-config",
        help="Property file containing configs to be passed to Admin Client. "
        "This is used only with --bootstrap-server option for describing and altering broker configs.",
    )
    for action in ACTIONS:
        parser.add_argument("--" + action, action="store_true")
    parser.add_argument("--topic", help="The topic (a regular expression, except for --create).")
    parser.add_argument(
        "--config",
        action="append",
        metavar="name=value",
        help="A topic configuration override for the topic being created or altered.",
    )
    parser.add_argument(
        "--delete-config",
        action="append",
        metavar="name",
        help="A topic configuration override to be removed for an existing topic.",
    )
    parser.add_argument("--partitions", type=int, help="The number of partitions for the topic.")
    parser.add_argument("--replication-factor", type=int, help="The replication factor for each partition.")
    parser.add_argument(
        "--replica-assignment", metavar="b1:b2,b3:b4", help="A list of manual partition-to-broker assignments."
    )
    parser.add_argument("--under-replicated-partitions", action="store_true")
    parser.add_argument("--unavailable-partitions", action="store_true")
    parser.add_argument("--under-min-isr-partitions", action="store_true")
    parser.add_argument("--at-min-isr-partitions", action="store_true")
    parser.add_argument("--topics-with-overrides", action="store_true")
    parser.add_argument("--if-exists", action="store_true")
    parser.add_argument("--if-not-exists", action="store_true")
    parser.add_argument("--exclude-internal", action="store_true")
    parser.add_argument("--disable-rack-aware", action="store_true", help="Disable rack aware replica assignment")
    parser.add_argument("--force", action="store_true", help="Accepted for compatibility.")
    return parser


def run(args, out, err, admin_factory=AdminClient, zk_admin_factory=ZkAdmin):
    """Run the parsed command; errors print Kafka's 'Error while executing topic command' line and give 1."""
    action = check_args(args)
    service = None
    try:
        if args.zookeeper:
            service = zk_admin_factory(args.zookeeper)
            run_with_zookeeper(action, args, service, out)
        else:
            service = admin_factory(args.bootstrap_server, **read_admin_options(args.command_config))
            run_with_admin(action, args, service, out)
    except Exception as exc:  # Kafka reports every failure the same way, then exits 1
        message = exc.message if isinstance(exc, KafkaResponseError) else str(exc)
        _print(out, "Error while executing topic command : %s" % message)
        print("[ERROR] %s: %s" % (type(exc).__name__, message), file=err)
        return 1
    finally:
        if service is not None:
            service.close()
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
