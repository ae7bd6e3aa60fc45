"""The operator actions CMAK offers on a ZooKeeper-era cluster, through the same admin paths as our CLI tools:
create topic and add partitions (kafka-topics), preferred leader election (kafka-leader-election), reassignment
with a generated plan (kafka-reassign-partitions --generate/--execute) and topic and broker config changes
(kafka-configs --alter itself).
Each call blocks (a worker thread runs it) and answers {"ok": bool, "message": text, ...}."""

import io
import json

from kafka_zk.client.admin import AdminClient, NewTopic
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools import configs as configs_tool
from kafka_zk.tools.command_line import UsageError
from kafka_zk.tools.reassign_partitions import (
    EXISTING_MESSAGE,
    BrokerBackend,
    ReassignmentError,
    format_reassignment_json,
    propose_reassignment,
    validated_proposal,
)

PREFERRED_ELECTION = 0


class ActionError(ValueError):
    """An operator's request the console refuses before it reaches the cluster (a missing or malformed field)."""


def _text(fields, name):
    value = str(fields.get(name, "")).strip()
    if not value:
        raise ActionError("%s is required" % name.replace("_", " "))
    return value


def _number(fields, name, default=None, minimum=None):
    raw = fields.get(name, default)
    if raw in (None, ""):
        if default is None:
            raise ActionError("%s is required" % name.replace("_", " "))
        raw = default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ActionError("%s must be a whole number, not %r" % (name.replace("_", " "), raw)) from None
    if minimum is not None and value < minimum:
        raise ActionError("%s must be at least %d" % (name.replace("_", " "), minimum))
    return value


def parse_configs(text):
    """ "k=v" pairs separated by commas or new lines -> {k: v} (kafka-configs --add-config without brackets)."""
    configs = {}
    for item in str(text or "").replace("\n", ",").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ActionError("config %r is not key=value" % item.strip())
        configs[key.strip()] = value.strip()
    return configs


def parse_partitions(text):
    """ "topic-0, topic-1" -> [(topic, 0), (topic, 1)]; a topic's name may hold dashes."""
    partitions = []
    for item in str(text or "").replace("\n", ",").split(","):
        item = item.strip()
        if not item:
            continue
        topic, sep, number = item.rpartition("-")
        if not sep or not topic or not number.isdigit():
            raise ActionError("%r is not topic-partition" % item)
        partitions.append((topic, int(number)))
    return partitions


def _outcome(results, done):
    """{"ok", "message"} from {key: (Errors member, message)} as the tools report them."""
    failed = {key: (error, message) for key, (error, message) in results.items() if error != Errors.NONE}
    if failed:
        return {
            "ok": False,
            "message": "; ".join(
                "%s: %s" % (key, message or error.name) for key, (error, message) in sorted(failed.items())
            ),
        }
    return {"ok": True, "message": done}


class ConsoleActions:
    """Runs each action with a fresh admin client, as a CLI invocation would (``admin_options`` are the
    --command-config settings: security, client.id, request.timeout.ms)."""

    def __init__(
        self,
        bootstrap,
        admin_options=None,
        command_config=None,
        admin_factory=AdminClient,
        backend_factory=BrokerBackend,
    ):
        self.bootstrap = bootstrap
        self.admin_options = dict(admin_options or {})
        self.command_config = command_config
        self._admin_factory = admin_factory
        self._backend_factory = backend_factory

    def _admin(self):
        return self._admin_factory(self.bootstrap, **self.admin_options)

    def run(self, name, fields):
        """The action ``name`` with the form's ``fields``; never raises for the operator's or the cluster's errors."""
        action = getattr(self, "do_" + name.replace("-", "_"), None)
        if action is None:
            return {"ok": False, "message": "no action %s" % name}
        try:
            return action(fields)
        except (ActionError, ReassignmentError) as error:
            return {"ok": False, "message": str(error)}
        except KafkaClientError as error:
            return {"ok": False, "message": "%s: %s" % (type(error).__name__, error)}

    def do_create_topic(self, fields):
        topic = _text(fields, "topic")
        new = NewTopic(
            topic,
            _number(fields, "partitions", -1),
            _number(fields, "replication_factor", -1),
            configs=parse_configs(fields.get("configs")),
        )
        with self._admin() as admin:
            results = admin.create_topics([new])
        return _outcome(results, "Created topic %s." % topic)

    def do_add_partitions(self, fields):
        topic = _text(fields, "topic")
        count = _number(fields, "partitions", minimum=1)
        with self._admin() as admin:
            results = admin.create_partitions({topic: (count, None)})
        return _outcome(results, "Topic %s now has %d partitions." % (topic, count))

    def do_preferred_election(self, fields):
        """For the named partitions, a topic's partitions, or (neither) every partition, as kafka-leader-election
        --election-type preferred; a partition already led by its preferred replica is not an error."""
        with self._admin() as admin:
            partitions = parse_partitions(fields.get("partitions"))
            if not partitions and fields.get("topic"):
                topic = _text(fields, "topic")
                partitions = [(topic, p) for p in sorted(admin.describe_topics([topic])[topic].partitions)]
            results = admin.elect_leaders(PREFERRED_ELECTION, partitions or None)
        elected = sorted(tp for tp, (error, _) in results.items() if error == Errors.NONE)
        noop = {tp for tp, (error, _) in results.items() if error == Errors.ELECTION_NOT_NEEDED}
        outcome = _outcome(
            {"%s-%d" % tp: r for tp, r in results.items() if tp not in noop},
            "Successfully completed preferred replica election for partitions %s"
            % (", ".join("%s-%d" % tp for tp in elected) or "(none needed one)"),
        )
        outcome["elected"] = ["%s-%d" % tp for tp in elected]
        return outcome

    def do_alter_topic_config(self, fields):
        return self._configs(["--entity-type", "topics", "--entity-name", _text(fields, "topic")], fields)

    def do_alter_broker_config(self, fields):
        """A broker's dynamic configs (``broker`` an id), or the cluster-wide default (``broker`` empty)."""
        broker = str(fields.get("broker") or "").strip()
        if broker and not broker.isdigit():
            raise ActionError("broker must be a broker id, or empty for the cluster-wide default")
        entity = ["--entity-name", broker] if broker else ["--entity-default"]
        return self._configs(["--entity-type", "brokers"] + entity, fields)

    def _configs(self, entity, fields):
        """kafka-configs --alter itself (its checks, its admin calls, its messages), with the form's --add-config
        (k1=v1,k2=[v1,v2]) and --delete-config (k1,k2)."""
        additions = str(fields.get("set") or "").strip()
        deletions = str(fields.get("delete") or "").strip()
        if not additions and not deletions:
            raise ActionError("nothing to set or delete")
        argv = ["--bootstrap-server", self.bootstrap, "--alter"] + entity
        argv += ["--add-config", additions] if additions else []
        argv += ["--delete-config", deletions] if deletions else []
        argv += ["--command-config", str(self.command_config)] if self.command_config else []
        out, err = io.StringIO(), io.StringIO()
        try:
            code = configs_tool.run(
                configs_tool.build_parser().parse_args(argv), out, err, admin_factory=self._admin_factory
            )
        except UsageError as error:
            return {"ok": False, "message": str(error)}
        lines = [
            line
            for line in (out.getvalue() + err.getvalue()).splitlines()
            if line.strip() and not line.startswith("Error while executing config command with args")
        ]
        return {"ok": code == 0, "message": "\n".join(lines)}

    def do_generate_reassignment(self, fields):
        topics = [t.strip() for t in _text(fields, "topics").split(",") if t.strip()]
        brokers = _broker_list(_text(fields, "brokers"))
        backend = self._backend_factory(self.bootstrap, self.command_config)
        try:
            current, proposed = propose_reassignment(
                backend, topics, brokers, rack_aware=not fields.get("disable_rack_aware")
            )
        finally:
            backend.close()
        return {
            "ok": True,
            "message": "Proposed partition reassignment configuration",
            "current": format_reassignment_json(current),
            "proposed": format_reassignment_json(proposed),
        }

    def do_execute_reassignment(self, fields):
        try:
            plan = json.loads(_text(fields, "plan"))
            entries = [((p["topic"], int(p["partition"])), [int(r) for r in p["replicas"]]) for p in plan["partitions"]]
        except (ValueError, KeyError, TypeError) as error:
            raise ActionError("the plan is not Kafka's reassignment JSON: %s" % error) from None
        if not entries:
            raise ActionError("the plan names no partition")
        backend = self._backend_factory(self.bootstrap, self.command_config)
        try:
            proposed, current = validated_proposal(backend, entries)
            additional = bool(fields.get("additional"))
            if not additional and backend.ongoing():
                raise ReassignmentError(EXISTING_MESSAGE)
            backend.start(proposed, additional, 10000)
        finally:
            backend.close()
        return {
            "ok": True,
            "rollback": format_reassignment_json({tp: current[tp] for tp in proposed}),
            "message": "Successfully started partition reassignment%s for %s"
            % ("" if len(proposed) == 1 else "s", ",".join("%s-%d" % tp for tp in sorted(proposed))),
        }


def _broker_list(text):
    try:
        brokers = [int(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise ActionError("brokers must be ids like 0,1,2, not %r" % text) from None
    if len(set(brokers)) != len(brokers):
        raise ActionError("the broker list names a broker twice")
    return brokers
