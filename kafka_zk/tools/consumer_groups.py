"""kafka-consumer-groups: list, describe, delete consumer groups, reset and delete their offsets (Kafka 2.5's tool)."""

import datetime
import re
import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.consumer import Consumer
from kafka_zk.client.errors import KafkaClientError, KafkaResponseError
from kafka_zk.common.properties import read_properties
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool

MISSING = "-"
ACTIONS = ("list", "describe", "delete", "reset_offsets", "delete_offsets")
SCENARIOS = (
    "to_offset",
    "shift_by",
    "to_datetime",
    "by_duration",
    "to_earliest",
    "to_latest",
    "to_current",
    "from_file",
)
# Java exception classes the admin client raises for group errors (their toString is printed by --delete).
_EXCEPTION_NAMES = {
    Errors.NON_EMPTY_GROUP: ("GroupNotEmptyException", "The group is not empty."),
    Errors.GROUP_ID_NOT_FOUND: ("GroupIdNotFoundException", "The group id does not exist."),
    Errors.INVALID_GROUP_ID: ("InvalidGroupIdException", "The configured groupId is invalid."),
    Errors.GROUP_AUTHORIZATION_FAILED: ("GroupAuthorizationException", "Group authorization failed."),
    Errors.COORDINATOR_NOT_AVAILABLE: ("CoordinatorNotAvailableException", "The coordinator is not available."),
}


class CommandError(Exception):
    """A failure Kafka reports as "Error: Executing consumer group command failed due to ..." (exit 0)."""


def _opt(name):
    return "[%s]" % name.replace("_", "-")


def _java_exception(error):
    name, message = _EXCEPTION_NAMES.get(error, ("KafkaException", error.message))
    return "org.apache.kafka.common.errors.%s: %s" % (name, message)


# -- argument checks ---------------------------------------------------------------------------


def check_args(args):
    """Kafka 2.5's ConsumerGroupCommandOptions.checkArgs and the one-action rule; returns the action."""
    actions = [a for a in ACTIONS if getattr(args, a)]
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets"
        )
    action = actions[0]
    if not args.bootstrap_server:
        raise UsageError('Missing required argument "[bootstrap-server]"')
    scope = "%s, %s" % (_opt("group"), _opt("all-groups"))
    for name in ("members", "verbose", "offsets", "state"):
        if getattr(args, name) and action != "describe":
            raise UsageError("Option %s can't be used with option %s" % (_opt(name), _opt(action)))
    subs = [n for n in ("members", "offsets", "state") if getattr(args, n)]
    if len(subs) > 1:
        raise UsageError("Option %s can't be used with option %s" % (_opt(subs[0]), _opt(subs[1])))
    if action in ("describe", "delete", "reset_offsets") and not args.group and not args.all_groups:
        raise UsageError("Option %s takes one of these options: %s" % (_opt(action), scope))
    if action == "delete" and args.topic:
        raise UsageError("The consumer does not support topic-specific offset deletion from a consumer group.")
    if action == "delete_offsets":
        if not args.group or len(args.group) != 1 or args.all_groups:
            raise UsageError(
                "Option %s takes the following options: %s, %s" % (_opt("delete-offsets"), _opt("group"), _opt("topic"))
            )
        if not args.topic:
            raise UsageError(
                "Option %s takes the following options: %s, %s" % (_opt("delete-offsets"), _opt("group"), _opt("topic"))
            )
    if action == "reset_offsets":
        if args.dry_run and args.execute:
            raise UsageError(
                "Option %s only accepts one of %s and %s" % (_opt("reset-offsets"), _opt("execute"), _opt("dry-run"))
            )
        used = [s for s in SCENARIOS if getattr(args, s) not in (None, False)]
        if len(used) > 1:
            raise UsageError('Option "%s" can\'t be used with option "%s"' % (_opt(used[0]), _opt(used[1])))
    if args.group and args.all_groups:
        raise UsageError('Option "%s" can\'t be used with option "%s"' % (_opt("group"), _opt("all-groups")))
    if args.group and action == "list":
        raise UsageError('Option "%s" can\'t be used with option "%s"' % (_opt("group"), _opt("list")))
    if args.topic and action not in ("reset_offsets", "delete_offsets"):
        raise UsageError('Option "%s" can\'t be used with option "%s"' % (_opt("topic"), _opt(action)))
    if args.all_topics and action != "reset_offsets":
        raise UsageError('Option "%s" can\'t be used with option "%s"' % (_opt("all-topics"), _opt(action)))
    return action


# -- pure helpers ------------------------------------------------------------------------------


def parse_topic_partitions(topic_args, partitions_of):
    """`t` (all partitions, from ``partitions_of(t)``) or `t:0,1` -> [(topic, partition)]."""
    result = []
    for arg in topic_args:
        topic, sep, partitions = arg.partition(":")
        if sep:
            try:
                result.extend((topic, int(p)) for p in partitions.split(","))
            except ValueError:
                raise UsageError("Invalid partition list in '%s'" % arg) from None
        else:
            result.extend((topic, p) for p in partitions_of(topic))
    return result


_DURATION = re.compile(
    r"^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+(?:\.\d+)?)S)?)?$", re.IGNORECASE
)


def parse_duration_ms(text):
    """Java's Duration.parse subset Kafka documents (PnDTnHnMnS) -> milliseconds; CommandError when malformed."""
    match = _DURATION.match(text.strip())
    if not match or text.upper().endswith("T") or not any(match.groups()[1:]):
        raise CommandError("Text cannot be parsed to a Duration")
    sign, days, hours, minutes, seconds = match.groups()
    ms = (int(days or 0) * 86400 + int(hours or 0) * 3600 + int(minutes or 0) * 60) * 1000
    ms += int(round(float(seconds or 0) * 1000))
    return -ms if sign == "-" else ms


def parse_datetime_ms(text):
    """'YYYY-MM-DDTHH:mm:SS.sss' with an optional zone (Z, +hh:mm, +hhmm, +hh; UTC when none) -> epoch ms."""
    match = re.match(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})(Z|[+-]\d{2}(?::?\d{2})?)?$", text.strip())
    if not match:
        raise CommandError('Unparseable date: "%s"' % text)
    stamp = datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S.%f")
    zone = match.group(2) or "Z"
    offset = datetime.timedelta(0)
    if zone != "Z":
        digits = zone[1:].replace(":", "")
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        offset = -offset if zone[0] == "-" else offset
    stamp = stamp.replace(tzinfo=datetime.timezone(offset))
    return int(stamp.timestamp() * 1000)


def parse_reset_plan(text, single_group):
    """CSV `topic,partition,offset` (when one --group is given) or `group,topic,partition,offset` ->
    {group: {(topic, partition): offset}}; CommandError for a malformed line."""
    plan = {}
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    old_format = single_group and bool(lines) and len(lines[0].split(",")) == 3
    for line in lines:
        cells = [c.strip() for c in line.split(",")]
        try:
            if old_format:
                group = single_group
                topic, partition, offset = cells
            else:
                group, topic, partition, offset = cells
            plan.setdefault(group, {})[(topic, int(partition))] = int(offset)
        except ValueError:
            raise CommandError(
                "Malformed reset plan line '%s': expected %s"
                % (line, "topic,partition,offset" if old_format else "group,topic,partition,offset")
            ) from None
    return plan


def _table(out, fmt, rows):
    for row in rows:
        print(fmt % tuple(row), file=out)


def format_offsets(group, rows, out):
    """The --describe (--offsets) table; rows are (topic, partition, offset, leo, lag, consumer, host, client)."""
    widths = [
        max([15, len(group)]),
        max([15] + [len(str(r[0])) for r in rows]),
        max([15] + [len(str(r[5])) for r in rows]),
        max([15] + [len(str(r[6])) for r in rows]),
    ]
    fmt = "%%-%ds %%-%ds %%-10s %%-15s %%-15s %%-15s %%-%ds %%-%ds %%s" % tuple(widths)
    print(
        "\n"
        + fmt
        % (
            "GROUP",
            "TOPIC",
            "PARTITION",
            "CURRENT-OFFSET",
            "LOG-END-OFFSET",
            "LAG",
            "CONSUMER-ID",
            "HOST",
            "CLIENT-ID",
        ),
        file=out,
    )
    _table(out, fmt, [(group,) + tuple(r) for r in rows])


def format_members(group, members, verbose, out):
    """The --describe --members table (ASSIGNMENT with --verbose)."""
    with_instance = any(m.group_instance_id for m in members)
    columns = [("GROUP", [group] * len(members)), ("CONSUMER-ID", [m.member_id for m in members])]
    if with_instance:
        columns.append(("GROUP-INSTANCE-ID", [m.group_instance_id or MISSING for m in members]))
    columns += [("HOST", [m.host for m in members]), ("CLIENT-ID", [m.client_id for m in members])]
    widths = [max([17 if title == "GROUP-INSTANCE-ID" else 15] + [len(v) for v in values]) for title, values in columns]
    fmt = " ".join("%%-%ds" % w for w in widths) + " %-15s "
    header = fmt % (tuple(t for t, _ in columns) + ("#PARTITIONS",))
    print("\n" + header + ("ASSIGNMENT" if verbose else ""), file=out)
    for index, member in enumerate(members):
        count = sum(len(ps) for ps in member.assignment.values())
        line = fmt % (tuple(values[index] for _, values in columns) + (count,))
        if verbose:
            line += (
                ", ".join(
                    sorted(
                        "%s(%s)" % (t, ",".join(str(p) for p in sorted(ps)))
                        for t, ps in member.assignment.items()
                        if ps
                    )
                )
                or MISSING
            )
        print(line, file=out)


def format_state(description, out):
    """The --describe --state table."""
    coordinator = "%s:%d (%d)" % (
        description.coordinator.host,
        description.coordinator.port,
        description.coordinator.node_id,
    )
    fmt = "\n%%-%ds %%-25s %%-20s %%-15s %%s" % max(25, len(coordinator))
    out.write(fmt % ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"))
    out.write(
        fmt
        % (description.group_id, coordinator, description.protocol or "", description.state, len(description.members))
    )
    out.write("\n")


def print_error(out, message):
    print("\nError: %s" % message, file=out)


def group_offset_rows(admin, end_offsets, description):
    """The --describe rows of a group: (topic, partition, committed offset, log end offset, lag, member id, host,
    client id), None where unknown; assigned partitions first (by member, most partitions first), then those with
    only a committed offset. ``end_offsets([tp])`` gives {tp: log end offset}."""
    committed = admin.list_group_offsets(description.group_id)
    rows = []
    assigned = set()
    members = sorted(
        (m for m in description.members if any(m.assignment.values())),
        key=lambda m: -sum(len(ps) for ps in m.assignment.values()),
    )
    for member in members:
        tps = sorted(((t, p) for t, ps in member.assignment.items() for p in ps), key=lambda tp: (tp[1], tp[0]))
        assigned.update(tps)
        rows += [(tp, member.member_id, member.host, member.client_id) for tp in tps]
    rows += [(tp, None, None, None) for tp in sorted(committed) if tp not in assigned]
    ends = end_offsets([tp for tp, _, _, _ in rows])
    result = []
    for tp, member_id, host, client_id in rows:
        offset, end = committed.get(tp), ends.get(tp)
        lag = end - offset if offset is not None and end is not None else None
        result.append((tp[0], tp[1], offset, end, lag, member_id, host, client_id))
    return result


# -- the service -------------------------------------------------------------------------------


class ConsumerGroupService:
    """Runs one action against the cluster through our admin client and a group-less consumer."""

    def __init__(
        self, args, out, err, admin_factory=AdminClient, consumer_factory=Consumer, clock_ms=None, command_config=None
    ):
        """``command_config``: the --command-config properties (security settings, client.id)."""
        self.args = args
        self.out = out
        self.err = err
        options = admin_options(command_config or {}, client_id="consumer-groups-command")
        options["timeout"] = max(args.timeout, 1000) / 1000.0 + 25
        self.admin = admin_factory(args.bootstrap_server, **options)
        self._consumer_factory = consumer_factory
        self._consumer = None
        self._clock_ms = clock_ms or (lambda: int(datetime.datetime.now().timestamp() * 1000))

    def close(self):
        self.admin.close()
        if self._consumer is not None:
            self._consumer.close()

    @property
    def consumer(self):
        if self._consumer is None:
            self._consumer = self._consumer_factory(
                self.args.bootstrap_server, client_id="consumer-groups-command", cluster=self.admin.cluster
            )
        return self._consumer

    def group_ids(self):
        return self.list_groups() if self.args.all_groups else list(dict.fromkeys(self.args.group))

    def list_groups(self):
        """Groups of the consumer protocol, and groups with only offsets (empty protocol type), sorted."""
        return sorted(g for g, protocol in self.admin.list_groups().items() if protocol in ("consumer", ""))

    def _should_print(self, group, state, rows):
        if state == "Dead":
            print_error(self.out, "Consumer group '%s' does not exist." % group)
            return False
        if state == "Empty":
            print("\nConsumer group '%s' has no active members." % group, file=self.err)
        elif state in ("PreparingRebalance", "CompletingRebalance"):
            print("\nWarning: Consumer group '%s' is rebalancing." % group, file=self.err)
        return rows > 0

    def end_offsets(self, partitions):
        return self.consumer.end_offsets(partitions) if partitions else {}

    def offset_rows(self, description):
        return [
            tuple(MISSING if value is None else value for value in row)
            for row in group_offset_rows(self.admin, self.end_offsets, description)
        ]

    def describe(self):
        for group in sorted(self.group_ids()):
            description = self.admin.describe_group(group)
            if self.args.members:
                if self._should_print(group, description.state, len(description.members)):
                    format_members(group, description.members, self.args.verbose, self.out)
            elif self.args.state:
                if self._should_print(group, description.state, 1):
                    format_state(description, self.out)
            else:
                rows = self.offset_rows(description) if description.state != "Dead" else []
                if self._should_print(group, description.state, len(rows)):
                    format_offsets(group, rows, self.out)

    def delete(self):
        results = self.admin.delete_groups(self.group_ids())
        ok = [g for g, e in results.items() if e == Errors.NONE]
        failed = {g: e for g, e in results.items() if e != Errors.NONE}
        quoted = ", ".join("'%s'" % g for g in ok)
        if not failed:
            print("Deletion of requested consumer groups (%s) was successful." % quoted, file=self.out)
            return
        print_error(self.out, "Deletion of some consumer groups failed:")
        for group, error in failed.items():
            print("* Group '%s' could not be deleted due to: %s" % (group, _java_exception(error)), file=self.out)
        if ok:
            print("\nThese consumer groups were deleted successfully: %s" % quoted, file=self.out)

    def delete_offsets(self):
        group = self.args.group[0]
        partitions = []
        unknown = []
        for arg in self.args.topic:
            topic, sep, _ = arg.partition(":")
            if sep:
                partitions += parse_topic_partitions([arg], None)
                continue
            try:
                partitions += [(topic, p) for p in self.admin.cluster.partitions_for(topic)]
            except KafkaResponseError:
                unknown.append(topic)
        top, per_partition = self.admin.delete_group_offsets(group, partitions) if partitions else (Errors.NONE, {})
        per_partition.update({(t, -1): Errors.UNKNOWN_TOPIC_OR_PARTITION for t in unknown})
        if unknown and top == Errors.NONE:
            top = Errors.UNKNOWN_TOPIC_OR_PARTITION
        topics = ", ".join(self.args.topic)
        messages = {
            Errors.INVALID_GROUP_ID: "'%s' is not valid." % group,
            Errors.GROUP_ID_NOT_FOUND: "'%s' does not exist." % group,
            Errors.GROUP_AUTHORIZATION_FAILED: "Access to '%s' is not authorized." % group,
            Errors.NON_EMPTY_GROUP: "Deleting offsets of a consumer group '%s' is forbidden if the group is not "
            "empty." % group,
        }
        if top == Errors.NONE and not any(e != Errors.NONE for e in per_partition.values()):
            print("Request succeed for deleting offsets with topic %s group %s" % (topics, group), file=self.out)
        elif top in messages:
            print_error(self.out, messages[top])
        elif top in (
            Errors.NONE,
            Errors.GROUP_SUBSCRIBED_TO_TOPIC,
            Errors.TOPIC_AUTHORIZATION_FAILED,
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
        ):
            print_error(self.out, "Encounter some partition level error, see the follow-up details:")
        else:
            print_error(self.out, "Encounter some unknown error: %s" % top.name)
        print("\n%-30s %-15s %-15s" % ("TOPIC", "PARTITION", "STATUS"), file=self.out)
        for (topic, partition), error in sorted(per_partition.items(), key=lambda kv: kv[0][0] + str(kv[0][1])):
            print(
                "%-30s %-15s %-15s"
                % (
                    topic,
                    partition if partition >= 0 else "Not Provided",
                    "Successful" if error == Errors.NONE else "Error: %s" % error.message,
                ),
                file=self.out,
            )

    # -- reset offsets ------------------------------------------------------------------------

    def reset_offsets(self):
        """{group: {(topic, partition): new offset}} planned (and committed with --execute)."""
        plan_file = None
        if self.args.from_file:
            try:
                with open(self.args.from_file, encoding="utf-8") as f:
                    text = f.read()
            except OSError as exc:
                raise CommandError("%s (%s)" % (self.args.from_file, exc.strerror)) from None
            single = self.args.group[0] if self.args.group and len(self.args.group) == 1 else None
            plan_file = parse_reset_plan(text, single)
        result = {}
        for group in self.group_ids():
            state = self.admin.describe_group(group).state
            if state not in ("Empty", "Dead"):
                print_error(
                    self.out,
                    "Assignments can only be reset if the group '%s' is inactive, but the current "
                    "state is %s." % (group, state),
                )
                result[group] = {}
                continue
            offsets = self._prepare(group, plan_file)
            if self.args.execute and offsets:
                self.admin.alter_group_offsets(group, offsets)
            result[group] = offsets
        return result

    def _partitions_to_reset(self, group):
        if self.args.all_topics:
            return sorted(self.admin.list_group_offsets(group))
        if self.args.topic:

            def partitions_of(topic):
                try:
                    return self.admin.cluster.partitions_for(topic)
                except KafkaResponseError:
                    return []

            return parse_topic_partitions(self.args.topic, partitions_of)
        if self.args.from_file:
            return []
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")

    def _clamp(self, requested):
        starts = self.consumer.beginning_offsets(list(requested))
        ends = self.consumer.end_offsets(list(requested))
        result = {}
        for tp, offset in requested.items():
            if offset > ends[tp]:
                print(
                    "WARN New offset (%d) is higher than latest offset for topic partition %s-%d. Value will be "
                    "set to %d" % (offset, tp[0], tp[1], ends[tp]),
                    file=self.err,
                )
                offset = ends[tp]
            elif offset < starts[tp]:
                print(
                    "WARN New offset (%d) is lower than earliest offset for topic partition %s-%d. Value will be "
                    "set to %d" % (offset, tp[0], tp[1], starts[tp]),
                    file=self.err,
                )
                offset = starts[tp]
            result[tp] = offset
        return result

    def _by_timestamp(self, partitions, timestamp):
        found = self.consumer.list_offsets({tp: timestamp for tp in partitions})
        missing = [tp for tp, offset in found.items() if offset < 0]
        found.update(self.end_offsets(missing))
        return found

    def _prepare(self, group, plan_file):
        args = self.args
        partitions = self._partitions_to_reset(group)
        if args.to_offset is not None:
            return self._clamp({tp: args.to_offset for tp in partitions})
        if args.to_earliest:
            return self.consumer.beginning_offsets(partitions) if partitions else {}
        if args.to_latest:
            return self.end_offsets(partitions)
        if args.shift_by is not None:
            committed = self.admin.list_group_offsets(group)
            requested = {}
            for tp in partitions:
                if tp not in committed:
                    raise UsageError(
                        "Cannot shift offset for partition %s-%d since there is no current committed offset" % tp
                    )
                requested[tp] = committed[tp] + args.shift_by
            return self._clamp(requested)
        if args.to_datetime is not None:
            return self._by_timestamp(partitions, parse_datetime_ms(args.to_datetime)) if partitions else {}
        if args.by_duration is not None:
            stamp = self._clock_ms() - parse_duration_ms(args.by_duration)
            return self._by_timestamp(partitions, stamp) if partitions else {}
        if plan_file is not None:
            if group not in plan_file:
                print_error(self.out, "No reset plan for group %s found" % group)
                return {}
            return self._clamp(plan_file[group])
        if args.to_current:
            committed = self.admin.list_group_offsets(group)
            result = {tp: committed[tp] for tp in partitions if tp in committed}
            result.update(self.end_offsets([tp for tp in partitions if tp not in committed]))
            return result
        raise UsageError(
            "Option '%s' requires one of the following scenarios: %s"
            % (_opt("reset-offsets"), "[%s]" % ", ".join(_opt(s) for s in SCENARIOS))
        )


def print_reset_plan(plan, out):
    if plan:
        print("\n%-30s %-30s %-10s %-15s" % ("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"), file=out)
    for group, offsets in plan.items():
        for (topic, partition), offset in sorted(offsets.items()):
            print("%-30s %-30s %-10s %-15s" % (group, topic, partition, offset), file=out)


def export_reset_plan(plan, single_group):
    lines = []
    for group, offsets in plan.items():
        for (topic, partition), offset in sorted(offsets.items()):
            cells = (topic, partition, offset) if single_group else (group, topic, partition, offset)
            lines.append(",".join(str(c) for c in cells))
    return "\n".join(lines) + ("\n" if lines else "")


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-consumer-groups",
        description="This tool helps to list all consumer groups, describe a consumer group, delete consumer group "
        "info, or reset consumer group offsets.",
    )
    parser.add_argument("--bootstrap-server", help="REQUIRED: The server(s) to connect to.")
    parser.add_argument("--group", action="append", help="The consumer group we wish to act on.")
    parser.add_argument("--topic", action="append", help="The topic (reset-offsets: `topic1:0,1,2` names partitions).")
    for flag in (
        "all-topics",
        "list",
        "describe",
        "all-groups",
        "delete",
        "reset-offsets",
        "delete-offsets",
        "dry-run",
        "execute",
        "export",
        "to-earliest",
        "to-latest",
        "to-current",
        "members",
        "verbose",
        "offsets",
        "state",
    ):
        parser.add_argument("--" + flag, action="store_true")
    parser.add_argument("--timeout", type=int, default=5000, help="timeout (ms)")
    parser.add_argument(
        "--command-config", help="Property file containing configs to be passed to Admin Client and Consumer."
    )
    parser.add_argument("--to-offset", type=int, metavar="offset")
    parser.add_argument("--from-file", metavar="path to CSV file")
    parser.add_argument("--to-datetime", metavar="datetime")
    parser.add_argument("--by-duration", metavar="duration")
    parser.add_argument("--shift-by", type=int, metavar="number-of-offsets")
    return parser


def run(args, out, err, admin_factory=AdminClient):
    action = check_args(args)
    if action == "reset_offsets" and not args.dry_run and not args.execute:
        print(
            "WARN: No action will be performed as the --execute option is missing.In a future major release, "
            "the default behavior of this command will be to prompt the user before executing the reset rather "
            "than doing a dry run. You should add the --dry-run option explicitly if you are scripting this "
            "command and want to keep the current default behavior without prompting.",
            file=err,
        )
    command_config = {}
    if args.command_config:
        try:
            command_config = read_properties(args.command_config)
        except OSError as exc:
            print_error(out, "Executing consumer group command failed due to %s" % exc)
            return 0
    try:
        service = ConsumerGroupService(args, out, err, admin_factory=admin_factory, command_config=command_config)
    except (KafkaClientError, ValueError) as exc:
        print_error(out, "Executing consumer group command failed due to %s" % exc)
        return 1
    try:
        if action == "list":
            for group in service.list_groups():
                print(group, file=out)
        elif action == "describe":
            service.describe()
        elif action == "delete":
            service.delete()
        elif action == "delete_offsets":
            service.delete_offsets()
        else:
            plan = service.reset_offsets()
            if args.export:
                out.write(export_reset_plan(plan, args.group is not None and len(args.group) == 1))
            else:
                print_reset_plan(plan, out)
    except (CommandError, KafkaClientError, OSError) as exc:
        message = exc.message if isinstance(exc, KafkaResponseError) else str(exc)
        print_error(out, "Executing consumer group command failed due to %s" % message)
    finally:
        service.close()
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
