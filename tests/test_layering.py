"""The layer order of docs/architecture.md, held: imports point downward only, the client side never imports the
broker, and the pure cores (codecs, log files, state machines, elections, group and transaction decisions) import
neither twisted nor kazoo, not even through another kafka_zk module."""

import ast
import pathlib

import pytest

PACKAGE_ROOT = pathlib.Path(__file__).resolve().parent.parent / "kafka_zk"

# Lower ranks sit below higher ones; a module may import its own package and any package of a lower rank.
RANKS = {"protocol": 0, "record": 0, "common": 1, "log": 2, "zk": 3, "net": 4, "security": 5, "coordinator": 6,
         "controller": 7, "server": 8, "client": 9, "spark": 10, "tools": 10, "console": 11}
# Beside the order: our client, the Spark source and the console talk to brokers over the wire, never through
# the broker's own code.
FORBIDDEN = {"client": {"server"}, "spark": {"server", "controller", "coordinator"},
             "console": {"server", "controller", "coordinator"}}
REACTOR_LIBRARIES = {"twisted", "kazoo"}
PURE_PACKAGES = {"protocol", "record", "log", "common"}
PURE_MODULES = {
    "kafka_zk.controller.assignment", "kafka_zk.controller.context", "kafka_zk.controller.election",
    "kafka_zk.controller.controller_metrics", "kafka_zk.controller.events",
    "kafka_zk.controller.leadership", "kafka_zk.controller.requests", "kafka_zk.controller.state_machines",
    "kafka_zk.coordinator.group.consumer_protocol", "kafka_zk.coordinator.group.decisions",
    "kafka_zk.coordinator.group.delayed",
    "kafka_zk.coordinator.group.log_records", "kafka_zk.coordinator.group.offsets",
    "kafka_zk.coordinator.group.records", "kafka_zk.coordinator.group.state",
    "kafka_zk.coordinator.transaction.decisions", "kafka_zk.coordinator.transaction.records",
    "kafka_zk.coordinator.transaction.state",
    "kafka_zk.security.acls",
    "kafka_zk.security.authorizer",
    "kafka_zk.security.client_properties",
    "kafka_zk.security.credential_cache",
    "kafka_zk.security.delegation_tokens",
    "kafka_zk.security.jaas",
    "kafka_zk.security.oauthbearer",
    "kafka_zk.security.plain",
    "kafka_zk.security.principal",
    "kafka_zk.security.sasl_client",
    "kafka_zk.security.sasl_config",
    "kafka_zk.security.sasl_errors",
    "kafka_zk.security.sasl_server",
    "kafka_zk.security.scram",
    "kafka_zk.security.ssl_config",
    "kafka_zk.security.ssl_context",
    "kafka_zk.security.ssl_principal",
    "kafka_zk.security.zk_login",
    "kafka_zk.server.apis.authorization",
    "kafka_zk.server.metrics.prometheus",
    "kafka_zk.common.log4j", "kafka_zk.common.state_change_log", "kafka_zk.net.request_log", "kafka_zk.net.file_sender",
    "kafka_zk.server.metrics.broker_topic_stats", "kafka_zk.net.request_metrics",
    "kafka_zk.zk.znodes", "kafka_zk.zk.acls", "kafka_zk.zk.security_znodes", "kafka_zk.zk.notification_sequence",
    "kafka_zk.server.replication.replica_metrics", "kafka_zk.zk.zk_metrics", "kafka_zk.coordinator.coordinator_metrics",
    "kafka_zk.server.replication.turn_batch",
    "kafka_zk.console.views", "kafka_zk.console.metrics_history",
}


def module_name(path, root):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source):
    """Every module name an import statement in source names, function-level imports included."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend("%s.%s" % (node.module, alias.name) for alias in node.names)
    return names


def read_modules(root=PACKAGE_ROOT):
    """{module name: [imported names]} for every module under root."""
    return {module_name(path, root): imports_of(path.read_text()) for path in sorted(root.rglob("*.py"))}


def package_of(name):
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def layer_violations(modules):
    """One line per importer and imported package, for each import that points upward or across a forbidden edge."""
    found = {}
    for name, imported in modules.items():
        source = package_of(name)
        if source not in RANKS:
            continue
        for target_name in sorted(imported, key=len):
            target = package_of(target_name) if target_name.startswith("kafka_zk.") else None
            if target is None or target == source or target not in RANKS:
                continue
            if RANKS[target] > RANKS[source] or target in FORBIDDEN.get(source, ()):
                found.setdefault((name, target), "%s imports %s (%s may not import %s)" % (
                    name, target_name, source, target))
    return sorted(found.values())


def reaches_reactor(modules):
    """{module: the reactor library it reaches, directly or through other kafka_zk modules}."""
    reached = {}

    def visit(name, trail):
        if name in reached:
            return reached[name]
        reached[name] = None  # cycles end here
        for target in modules.get(name, ()):
            top = target.split(".")[0]
            if top in REACTOR_LIBRARIES:
                reached[name] = target
                return target
            if top == "kafka_zk" and target in modules and target not in trail:
                via = visit(target, trail | {name})
                if via is not None:
                    reached[name] = "%s (through %s)" % (via, target)
                    return reached[name]
        return None

    for name in modules:
        visit(name, frozenset())
    return reached


def purity_violations(modules):
    reached = reaches_reactor(modules)
    pure = [name for name in modules if package_of(name) in PURE_PACKAGES or name in PURE_MODULES]
    return sorted("%s imports %s" % (name, reached[name]) for name in pure if reached[name] is not None)


def test_imports_follow_the_layer_order():
    assert layer_violations(read_modules()) == []


def test_pure_cores_reach_neither_twisted_nor_kazoo():
    modules = read_modules()
    assert PURE_MODULES <= set(modules), "a listed pure module no longer exists: %s" % (PURE_MODULES - set(modules))
    assert purity_violations(modules) == []


@pytest.mark.parametrize("importer, imported", [
    ("kafka_zk.controller.channel_manager", "kafka_zk.server.broker_client"),   # the 2.5-era violation issue 19 fixed
    ("kafka_zk.coordinator.group.group_coordinator", "kafka_zk.server.replication.replica_manager"),
    ("kafka_zk.net.socket_server", "kafka_zk.server.kafka_server"),
    ("kafka_zk.client.admin", "kafka_zk.server.metadata_cache"),
    ("kafka_zk.log.log", "kafka_zk.zk.client"),
])
def test_an_upward_or_forbidden_import_is_reported(importer, imported):
    modules = read_modules()
    modules[importer] = modules.get(importer, []) + [imported]
    assert layer_violations(modules) == [
        "%s imports %s (%s may not import %s)" % (importer, imported, package_of(importer), package_of(imported))]


def test_a_pure_core_reaching_twisted_through_a_shell_is_reported():
    modules = read_modules()
    modules["kafka_zk.controller.election"] = modules["kafka_zk.controller.election"] + ["kafka_zk.zk.reactor_client"]
    found = purity_violations(modules)
    assert "kafka_zk.controller.election imports twisted.internet (through kafka_zk.zk.reactor_client)" in found
    assert all("kafka_zk.controller.election" in line for line in found)  # and the pure modules that import it
