"""kafka-reassign-partitions: generate, execute, verify, cancel and list partition reassignments, with throttles,
through ZooKeeper (/admin/reassign_partitions) or a broker (the KIP-455 APIs)."""

import json
import sys

from kafka_zk.client.admin import BROKER_RESOURCE_TYPE, AdminClient
from kafka_zk.client.errors import KafkaClientError, KafkaResponseError
from kafka_zk.client.zk_admin import ReassignmentInProgressError, ZkAdmin
from kafka_zk.controller.assignment import (
    IncompleteRackInformationError,
    InvalidReplicationFactorError,
    RackAwareMode,
    assign_replicas,
    racks_under,
)
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool

DYNAMIC_BROKER_CONFIG = 2  # DescribeConfigs source of a per-broker dynamic config

LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
ALTER_LOG_DIRS_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"
BROKER_THROTTLES = (LEADER_RATE, FOLLOWER_RATE, ALTER_LOG_DIRS_RATE)
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
TOPIC_THROTTLES = (LEADER_REPLICAS, FOLLOWER_REPLICAS)
ACTIONS = ("generate", "execute", "verify", "cancel", "list")
EXISTING_MESSAGE = (
    "Cannot execute because there is an existing partition assignment.  Use --additional to "
    "override this and create a new partition assignment in addition to the existing one."
)


class ReassignmentError(Exception):
    """A failure the tool reports in one line (exit code 1)."""


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-reassign-partitions", description="This tool helps to move topic partitions between replicas."
    )
    parser.add_argument("--bootstrap-server", help="the server(s) to use for bootstrapping.")
    parser.add_argument("--zookeeper", help="DEPRECATED: The connection string for the zookeeper connection.")
    parser.add_argument("--command-config", help="Property file containing configs to be passed to Admin Client.")
    for action, text in (
        ("generate", "Generate a candidate partition reassignment configuration."),
        ("execute", "Kick off the reassignment as specified by the --reassignment-json-file."),
        (
            "verify",
            "Verify if the reassignment completed as specified by the "
            "--reassignment-json-file option, and remove throttles when it has.",
        ),
        ("cancel", "Cancel an active reassignment."),
        ("list", "List all active partition reassignments."),
    ):
        parser.add_argument("--" + action, action="store_true", help=text)
    parser.add_argument("--reassignment-json-file", help="The JSON file with the partition reassignment configuration")
    parser.add_argument(
        "--topics-to-move-json-file",
        help='JSON file naming the topics to move: {"topics": [{"topic": "foo"}], "version": 1}',
    )
    parser.add_argument(
        "--broker-list", help='The list of brokers to which the partitions need to be reassigned in the form "0,1,2".'
    )
    parser.add_argument("--disable-rack-aware", action="store_true", help="Disable rack aware replica assignment")
    parser.add_argument(
        "--throttle",
        type=_long("throttle"),
        default=None,
        help="The movement of partitions between brokers will be throttled to this value (bytes/sec).",
    )
    parser.add_argument(
        "--replica-alter-log-dirs-throttle",
        type=_long("replica-alter-log-dirs-throttle"),
        default=None,
        help="The movement of replicas between log directories on the same broker will "
        "be throttled to this value (bytes/sec).",
    )
    parser.add_argument(
        "--timeout",
        type=_long("timeout"),
        default=None,
        help="The maximum time in ms to wait for partition reassignment execution to be initiated",
    )
    parser.add_argument(
        "--additional", action="store_true", help="Execute this reassignment in addition to any other ongoing ones."
    )
    parser.add_argument("--preserve-throttles", action="store_true", help="Do not modify broker or topic throttles.")
    return parser


def _long(name):
    def convert(text):
        try:
            return int(text)
        except ValueError:
            raise UsageError("Cannot parse argument '%s' of option %s" % (text, name)) from None

    return convert


_OPTIONS = (
    "bootstrap_server",
    "zookeeper",
    "reassignment_json_file",
    "topics_to_move_json_file",
    "broker_list",
    "disable_rack_aware",
    "throttle",
    "replica_alter_log_dirs_throttle",
    "timeout",
    "additional",
    "preserve_throttles",
)
_REQUIRED = {
    "generate": ("topics_to_move_json_file", "broker_list"),
    "execute": ("reassignment_json_file",),
    "verify": ("reassignment_json_file",),
    "cancel": ("reassignment_json_file",),
    "list": (),
}
# Besides the required ones; --replica-alter-log-dirs-throttle and --timeout stay usable with --zookeeper, as in 2.5.
_PERMITTED = {
    "verify": ("bootstrap_server", "preserve_throttles", "zookeeper"),
    "generate": ("bootstrap_server", "disable_rack_aware", "zookeeper"),
    "execute": (
        "additional",
        "bootstrap_server",
        "throttle",
        "replica_alter_log_dirs_throttle",
        "timeout",
        "zookeeper",
    ),
    "cancel": ("bootstrap_server", "preserve_throttles", "timeout"),
    "list": ("bootstrap_server",),
}
_BOOTSTRAP_ONLY = ("additional", "cancel", "list")
_DEFAULTS = {"throttle": -1, "replica_alter_log_dirs_throttle": -1, "timeout": 10000}
ZOOKEEPER_IGNORED = (
    "Warning: ignoring deprecated --zookeeper option because --bootstrap-server was specified.  "
    "The --zookeeper option will be removed in a future version of Kafka."
)


def _given(args, dest):
    return getattr(args, dest) not in (None, False)


def validate(args):
    """Kafka's argument checks, in Kafka's order; returns the action and fills in the defaults."""
    actions = [action for action in ACTIONS if getattr(args, action)]
    if len(actions) != 1:
        raise UsageError("Command must include exactly one action: --generate, --execute, --verify, --cancel, --list")
    action = actions[0]
    if not (args.bootstrap_server or args.zookeeper):
        raise UsageError("Please specify --bootstrap-server")
    for dest in _REQUIRED[action]:
        if not _given(args, dest):
            raise UsageError('Missing required argument "[%s]"' % dest.replace("_", "-"))
    for dest in _OPTIONS:
        if _given(args, dest) and dest not in _REQUIRED[action] + _PERMITTED[action]:
            raise UsageError('Option "[%s]" can\'t be used with action "[%s]"' % (dest.replace("_", "-"), action))
    if not args.bootstrap_server:
        for name in _BOOTSTRAP_ONLY:
            if getattr(args, name):
                raise UsageError('You must specify --bootstrap-server when using "[%s]"' % name)
    for dest, default in _DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    return action


# -- JSON files ------------------------------------------------------------------------------------


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ReassignmentError("Unable to read %s file %s: %s" % (what, path, error.strerror)) from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise ReassignmentError("Unable to parse the %s file %s as JSON: %s" % (what, path, error)) from None


def parse_topics_to_move(path):
    try:
        data = _read_json(path, "topics-to-move-json")
    except ReassignmentError as error:
        if "Unable to read" in str(error):
            raise
        raise ReassignmentError("The input string is not a valid JSON") from None
    _check_version(data)
    try:
        topics = [entry["topic"] for entry in data["topics"]]
        if not all(isinstance(topic, str) for topic in topics):
            raise TypeError
    except (KeyError, TypeError):
        raise ReassignmentError(
            'The topics-to-move-json file %s must look like {"topics": [{"topic": "foo"}], "version": 1}' % path
        ) from None
    duplicates = sorted({topic for topic in topics if topics.count(topic) > 1})
    if duplicates:
        raise ReassignmentError("List of topics to reassign contains duplicate entries: %s" % ",".join(duplicates))
    return topics


def parse_reassignment(path):
    """[((topic, partition), [replicas])] in file order, checked as Kafka checks it."""
    data = _read_json(path, "reassignment-json")
    _check_version(data)
    entries = []
    try:
        for item in data.get("partitions") or []:
            topic, partition, replicas = item["topic"], item["partition"], item["replicas"]
            if not (
                isinstance(topic, str)
                and type(partition) is int
                and isinstance(replicas, list)
                and all(type(r) is int for r in replicas)
            ):
                raise TypeError
            log_dirs = item.get("log_dirs")
            if log_dirs is not None and len(log_dirs) != len(replicas):
                raise ReassignmentError(
                    "Size of replicas list %s is different from size of log dirs list %s for "
                    "partition %s-%d" % (replicas, log_dirs, topic, partition)
                )
            if log_dirs is not None and any(d != "any" for d in log_dirs):
                raise ReassignmentError(
                    'Moving replicas between log directories is not supported by this cluster; use "any" in log_dirs'
                )
            entries.append(((topic, partition), replicas))
    except (KeyError, TypeError, AttributeError):
        raise ReassignmentError(
            'The reassignment-json file %s must look like {"version": 1, "partitions": '
            '[{"topic": "foo", "partition": 0, "replicas": [1, 2]}]}' % path
        ) from None
    if not entries:
        raise ReassignmentError("Partition reassignment data file is empty")
    if any(not replicas for _, replicas in entries):
        raise ReassignmentError("Partition replica list cannot be empty")
    tps = [tp for tp, _ in entries]
    duplicates = sorted({tp for tp in tps if tps.count(tp) > 1})
    if duplicates:
        raise ReassignmentError(
            "Partition reassignment contains duplicate topic partitions: %s" % ",".join(_name(tp) for tp in duplicates)
        )
    repeated = [(tp, sorted({r for r in replicas if replicas.count(r) > 1})) for tp, replicas in entries]
    repeated = [(tp, dup) for tp, dup in repeated if dup]
    if repeated:
        raise ReassignmentError(
            "Partition replica lists may not contain duplicate entries: %s"
            % ". ".join(
                "%s contains multiple entries for %s" % (_name(tp), ",".join(map(str, dup))) for tp, dup in repeated
            )
        )
    return entries


def _check_version(data):
    version = data.get("version", 1) if isinstance(data, dict) else 1
    if version != 1:
        raise ReassignmentError("Not supported version field value %s" % version)


def _name(tp):
    return "%s-%d" % tp


def format_reassignment_json(assignment):
    """Kafka's reassignment JSON (compact, sorted by topic and partition, log_dirs "any")."""
    return json.dumps(
        {
            "version": 1,
            "partitions": [
                {
                    "topic": topic,
                    "partition": partition,
                    "replicas": list(replicas),
                    "log_dirs": ["any"] * len(replicas),
                }
                for (topic, partition), replicas in sorted(assignment.items())
            ],
        },
        separators=(",", ":"),
    )


def throttled_replicas(current, proposed):
    """Kafka's throttled-replica lists per topic: {topic: (leader value, follower value)}. The leader side names
    every pre-move replica of a moving partition; the follower side the replicas each partition gains."""
    result = {}
    for topic in sorted({tp[0] for tp in proposed}):
        leader, follower = [], []
        for tp, target in sorted(proposed.items()):
            if tp[0] != topic or tp not in current:
                continue
            existing = current[tp]
            gained = [replica for replica in target if replica not in existing]
            if gained:
                leader += ["%d:%d" % (tp[1], replica) for replica in existing]
                follower += ["%d:%d" % (tp[1], replica) for replica in gained]
        result[topic] = (",".join(leader), ",".join(follower))
    return result


# -- the cluster, through ZooKeeper or a broker -------------------------------------------------------


class ZkBackend:
    """The --zookeeper way: Kafka 2.5's znodes and config entities."""

    def __init__(self, connect):
        self.admin = ZkAdmin(connect)

    def close(self):
        self.admin.close()

    def brokers(self):
        return self.admin.brokers()

    def assignment(self, topics):
        return {
            (topic, p): list(replicas)
            for topic, partitions in self.admin.topic_assignments(topics).items()
            for p, replicas in partitions.items()
        }

    def ongoing(self):
        """{tp: target replicas} in progress."""
        return self.admin.partition_reassignment()

    def start(self, proposed, additional, timeout_ms):
        try:
            self.admin.start_partition_reassignment(proposed)
        except ReassignmentInProgressError:
            raise ReassignmentError(EXISTING_MESSAGE) from None

    def set_broker_configs(self, broker_id, configs, deletions=()):
        """Set and delete /config/brokers/<id> entries; True if anything changed."""
        current = self.admin.get_broker_config(broker_id)
        updated = {k: v for k, v in current.items() if k not in deletions}
        updated.update(configs)
        if updated == current:
            return False
        self.admin.change_broker_config(broker_id, updated)
        return True

    def set_topic_configs(self, topic, configs, deletions=()):
        current = self.admin.get_topic_config(topic)
        updated = {k: v for k, v in current.items() if k not in deletions}
        updated.update(configs)
        if updated == current:
            return False
        self.admin.change_topic_config(topic, updated)
        return True


class BrokerBackend:
    """The --bootstrap-server way: Metadata, the KIP-455 APIs and IncrementalAlterConfigs."""

    def __init__(self, bootstrap, command_config=None):
        """``command_config``: the --command-config file (security settings, client.id, request.timeout.ms)."""
        self.admin = AdminClient(bootstrap, **read_admin_options(command_config, client_id="reassign-partitions-tool"))

    def close(self):
        self.admin.close()

    def brokers(self):
        brokers, _, _ = self.admin.describe_cluster()
        return {node_id: address.rack for node_id, address in brokers.items()}

    def assignment(self, topics):
        existing = set(self.admin.list_topics())
        infos = self.admin.describe_topics([t for t in topics if t in existing]) if existing else {}
        return {
            (topic, p): list(info.replicas)
            for topic, topic_info in infos.items()
            for p, info in topic_info.partitions.items()
        }

    def ongoing(self):
        return {tp: list(r.replicas) for tp, r in self.admin.list_partition_reassignments().items()}

    def listing(self):
        return self.admin.list_partition_reassignments()

    def start(self, proposed, additional, timeout_ms):
        results = self.admin.alter_partition_reassignments(proposed, timeout_ms=timeout_ms)
        failed = {tp: result for tp, result in results.items() if result[0] != Errors.NONE}
        if failed:
            raise ReassignmentError(
                "Error reassigning partition(s):\n"
                + "\n".join(
                    "%s: %s" % (_name(tp), message or error.name) for tp, (error, message) in sorted(failed.items())
                )
            )

    def cancel(self, tps, timeout_ms):
        return self.admin.alter_partition_reassignments({tp: None for tp in tps}, timeout_ms=timeout_ms)

    def set_broker_configs(self, broker_id, configs, deletions=()):
        """IncrementalAlterConfigs on BROKER <id>, deleting only what is set there; True if anything changed."""
        try:
            if deletions:
                current = {
                    e.name
                    for e in self.admin.describe_resource_configs(
                        BROKER_RESOURCE_TYPE, str(broker_id), include_synonyms=False
                    )
                    if e.source == DYNAMIC_BROKER_CONFIG
                }
                deletions = [name for name in deletions if name in current]
            if not configs and not deletions:
                return False
            self.admin.incremental_alter_configs(broker_id, configs, deletions, resource_type=BROKER_RESOURCE_TYPE)
        except KafkaResponseError as error:
            raise ReassignmentError(
                "Unable to set the throttle on broker %s: %s" % (broker_id, error.message)
            ) from None
        return True

    def set_topic_configs(self, topic, configs, deletions=()):
        current = {e.name: e.value for e in self.admin.describe_configs([topic])[topic] if e.source == 1}
        if not configs and not any(name in current for name in deletions):
            return False
        self.admin.incremental_alter_configs(topic, configs, [d for d in deletions if d in current])
        return True


# -- the actions -----------------------------------------------------------------------------------


def generate(backend, args, out):
    try:
        broker_list = [int(b) for b in args.broker_list.split(",")]
    except ValueError:
        raise ReassignmentError("Invalid --broker-list %s: expected broker ids like 0,1,2" % args.broker_list) from None
    duplicates = sorted({b for b in broker_list if broker_list.count(b) > 1})
    if duplicates:
        raise ReassignmentError("Broker list contains duplicate entries: %s" % ",".join(map(str, duplicates)))
    topics = parse_topics_to_move(args.topics_to_move_json_file)
    current, proposed = propose_reassignment(backend, topics, broker_list, not args.disable_rack_aware)
    print("Current partition replica assignment\n%s\n" % format_reassignment_json(current), file=out)
    print("Proposed partition reassignment configuration\n%s" % format_reassignment_json(proposed), file=out)
    return 0


def propose_reassignment(backend, topics, broker_list, rack_aware=True):
    """--generate's plan: (current, proposed) {(topic, partition): replicas} moving ``topics`` onto the brokers of
    ``broker_list`` with Kafka's assignment (rack-aware unless ``rack_aware`` is False)."""
    live = backend.brokers()
    mode = RackAwareMode.ENFORCED if rack_aware else RackAwareMode.DISABLED
    try:  # Kafka leaves out brokers it cannot find
        racks = racks_under(mode, {b: live[b] for b in broker_list if b in live})
    except IncompleteRackInformationError as error:
        raise ReassignmentError(str(error)) from None
    current = backend.assignment(topics)
    missing = [t for t in topics if not any(tp[0] == t for tp in current)]
    if missing:
        raise ReassignmentError("Topic %s not found." % missing[0])
    proposed = {}
    for topic in topics:
        partitions = sorted(p for t, p in current if t == topic)
        replication_factor = len(current[(topic, partitions[0])])
        try:
            placed = assign_replicas(len(partitions), replication_factor, racks)
        except InvalidReplicationFactorError as error:
            raise ReassignmentError(str(error)) from None
        proposed.update({(topic, p): replicas for p, replicas in placed.items()})
    return current, proposed


def validated_proposal(backend, entries):
    proposed = dict(entries)
    current = backend.assignment(sorted({tp[0] for tp in proposed}))
    missing = [tp for tp in proposed if tp not in current]
    if missing:
        raise ReassignmentError(
            "The proposed assignment contains non-existent partitions: %s" % ",".join(_name(tp) for tp in missing)
        )
    live = backend.brokers()
    unknown = sorted({b for replicas in proposed.values() for b in replicas if b not in live})
    if unknown and isinstance(backend, BrokerBackend):
        raise ReassignmentError("Unknown broker id %d" % unknown[0])
    if unknown:
        raise ReassignmentError(
            "The proposed assignment contains non-existent brokerIDs: %s" % ",".join(map(str, unknown))
        )
    return proposed, current


def execute(backend, args, out):
    proposed, current = validated_proposal(backend, parse_reassignment(args.reassignment_json_file))
    if not args.additional and backend.ongoing():
        raise ReassignmentError(EXISTING_MESSAGE)
    print(
        "Current partition replica assignment\n\n%s\n\nSave this to use as the --reassignment-json-file option "
        "during rollback" % format_reassignment_json({tp: current[tp] for tp in proposed}),
        file=out,
    )
    if args.throttle >= 0 or args.replica_alter_log_dirs_throttle >= 0:
        print(
            "Warning: You must run --verify periodically, until the reassignment completes, to ensure the "
            "throttle is removed.",
            file=out,
        )
        _apply_throttles(backend, args, current, proposed)
        if args.throttle >= 0:
            print("The inter-broker throttle limit was set to %d B/s" % args.throttle, file=out)
        if args.replica_alter_log_dirs_throttle >= 0:
            print(
                "The replica-alter-dir throttle limit was set to %d B/s" % args.replica_alter_log_dirs_throttle,
                file=out,
            )
    backend.start(proposed, args.additional, args.timeout)
    print(
        "Successfully started partition reassignment%s for %s"
        % ("" if len(proposed) == 1 else "s", ",".join(_name(tp) for tp in sorted(proposed))),
        file=out,
    )
    return 0


def _apply_throttles(backend, args, current, proposed):
    """Broker rates first (a broker that refuses them leaves no topic half-throttled), then the replica lists."""
    brokers = sorted(
        {b for tp in proposed for b in current.get(tp, [])} | {b for replicas in proposed.values() for b in replicas}
    )
    rates = {}
    if args.throttle >= 0:
        rates.update({LEADER_RATE: str(args.throttle), FOLLOWER_RATE: str(args.throttle)})
    if args.replica_alter_log_dirs_throttle >= 0:
        rates[ALTER_LOG_DIRS_RATE] = str(args.replica_alter_log_dirs_throttle)
    # The moved topics' replica lists first, then the brokers' rates, in Kafka 2.5's order.
    if args.throttle >= 0:
        for topic, (leader, follower) in throttled_replicas(current, proposed).items():
            backend.set_topic_configs(topic, {LEADER_REPLICAS: leader, FOLLOWER_REPLICAS: follower})
    for broker_id in brokers:
        backend.set_broker_configs(broker_id, rates)


def verify(backend, args, out):
    entries = parse_reassignment(args.reassignment_json_file)
    proposed = dict(entries)
    ongoing = backend.ongoing()
    current = backend.assignment(sorted({tp[0] for tp in proposed}))
    print("Status of partition reassignment: ", file=out)  # Kafka 2.5's words, its trailing space included
    complete = True
    for tp, target in sorted(proposed.items()):
        if tp in ongoing:
            complete = False
            print("Reassignment of partition %s is still in progress" % _name(tp), file=out)
        elif current.get(tp) == target:
            print("Reassignment of partition %s completed successfully" % _name(tp), file=out)
        else:
            complete = False
            print(
                "ERROR: Assigned replicas (%s) don't match the list of replicas for reassignment (%s) for partition %s"
                % (",".join(map(str, current.get(tp, []))), ",".join(map(str, target)), _name(tp)),
                file=out,
            )
            print("Reassignment of partition %s failed" % _name(tp), file=out)
    if complete and not args.preserve_throttles:
        if _remove_throttles(backend, sorted({tp[0] for tp in proposed})):
            print("Throttle was removed.", file=out)
    return 0


def _remove_throttles(backend, topics, brokers=None):
    """Kafka's removeThrottle: the rates from every broker, the replica lists from the moved topics."""
    changed = False
    for broker_id in sorted(backend.brokers()) if brokers is None else brokers:
        changed |= bool(backend.set_broker_configs(broker_id, {}, BROKER_THROTTLES))
    for topic in topics:
        changed |= bool(backend.set_topic_configs(topic, {}, TOPIC_THROTTLES))
    return changed


def cancel(backend, args, out):
    proposed = dict(parse_reassignment(args.reassignment_json_file))
    active = sorted(
        tp
        for tp, state in backend.listing().items()
        if tp in proposed and (state.adding_replicas or state.removing_replicas)
    )
    if active:
        results = backend.cancel(active, args.timeout)
        failed = {tp: result for tp, result in results.items() if result[0] != Errors.NONE}
        if failed:
            raise ReassignmentError(
                "Error cancelling partition reassignment%s for:\n%s"
                % (
                    "" if len(failed) == 1 else "s",
                    "\n".join(
                        "%s: %s" % (_name(tp), message or error.message)
                        for tp, (error, message) in sorted(failed.items())
                    ),
                )
            )
        print(
            "Successfully cancelled partition reassignment%s for: %s"
            % ("" if len(active) == 1 else "s", ",".join(_name(tp) for tp in active)),
            file=out,
        )
    else:
        print("None of the specified partition reassignments are active.", file=out)
    print("None of the specified partition moves are active.", file=out)
    if not args.preserve_throttles:
        brokers = sorted(set(backend.brokers()) | {b for replicas in proposed.values() for b in replicas})
        topics = sorted({tp[0] for tp in proposed})
        print(
            "Clearing broker-level throttles on broker%s %s"
            % ("" if len(brokers) == 1 else "s", ",".join(map(str, brokers))),
            file=out,
        )
        print(
            "Clearing topic-level throttles on topic%s %s" % ("" if len(topics) == 1 else "s", ",".join(topics)),
            file=out,
        )
        _remove_throttles(backend, topics, brokers)
    return 0


def list_reassignments(backend, args, out):
    listing = backend.listing()
    if not listing:
        print("No partition reassignments found.", file=out)
        return 0
    print("Current partition reassignments:", file=out)
    for tp, state in sorted(listing.items()):
        adding = " adding: %s." % ",".join(map(str, state.adding_replicas)) if state.adding_replicas else ""
        removing = " removing: %s." % ",".join(map(str, state.removing_replicas)) if state.removing_replicas else ""
        print("%s: replicas: %s.%s%s" % (_name(tp), ",".join(map(str, state.replicas)), adding, removing), file=out)
    return 0


_RUNNERS = {"generate": generate, "execute": execute, "verify": verify, "cancel": cancel, "list": list_reassignments}


def run(args, out, err, zk_backend=ZkBackend, broker_backend=BrokerBackend):
    action = validate(args)
    if args.bootstrap_server and args.zookeeper:
        print(ZOOKEEPER_IGNORED, file=out)
        args.zookeeper = None
    try:
        backend = (
            zk_backend(args.zookeeper) if args.zookeeper else broker_backend(args.bootstrap_server, args.command_config)
        )
    except Exception as error:  # an unreachable ZooKeeper or broker
        print("Error: unable to connect: %s" % (error or type(error).__name__), file=err)
        return 1
    try:
        return _RUNNERS[action](backend, args, out)
    except ReassignmentError as error:
        print(error, file=err)
        return 1
    except (KafkaClientError, ValueError) as error:
        print("Error: %s" % error, file=err)
        return 1
    finally:
        backend.close()


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
