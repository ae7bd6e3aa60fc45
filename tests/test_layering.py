"""The layer order of docs/architecture.md, held: imports point downward only, between packages and between the
parts of server/, and never in a circle; the client side never imports the broker; znode paths are written only in
zk/; and the pure cores (codecs, log files, state machines, elections, group and transaction decisions) import
neither twisted nor kazoo, not even through another kafka_zk module."""

import ast
import functools
import inspect
import pathlib

import pytest

from kafka_zk.zk import security_znodes, znodes

PACKAGE_ROOT = pathlib.Path(__file__).resolve().parent.parent / "kafka_zk"

# Lower ranks sit below higher ones; a module may import its own package and any package of a lower rank.
RANKS = {
    "protocol": 0,
    "record": 0,
    "common": 1,
    "log": 2,
    "zk": 3,
    "net": 4,
    "security": 5,
    "coordinator": 6,
    "controller": 7,
    "server": 8,
    "client": 9,
    "spark": 10,
    "tools": 10,
    "console": 11,
}
# The same rule one level down, for a package whose parts are ranked (sub-packages and the package's own modules,
# named without the package): in server/, the configs lowest, then metrics, quotas, replication, the broker's own
# parts, the API handlers, the broker's assembly and its listeners, and the entry point on top. Every part of a
# package listed here has a rank.
PART_RANKS = {
    "server": {
        "config": 0,
        "metrics": 1,
        "quota": 2,
        "replication": 3,
        "admin_manager": 4,
        "controlled_shutdown": 4,
        "delegation_token_manager": 4,
        "gc_policy": 4,
        "log_cleaner_service": 4,
        "log_dir_failure_handler": 4,
        "metadata_cache": 4,
        "sasl_setup": 4,
        "services": 4,
        "apis": 5,
        "kafka_server": 6,
        "listeners": 6,
        "main": 7,
    }
}
# Beside the order: our client, the Spark source and the console talk to brokers over the wire, never through
# the broker's own code.
FORBIDDEN = {
    "client": {"server"},
    "spark": {"server", "controller", "coordinator"},
    "console": {"server", "controller", "coordinator"},
}
REACTOR_LIBRARIES = {"twisted", "kazoo"}
PURE_PACKAGES = {"protocol", "record", "log", "common"}
PURE_MODULES = {
    "kafka_zk.controller.assignment",
    "kafka_zk.controller.context",
    "kafka_zk.controller.election",
    "kafka_zk.controller.controller_metrics",
    "kafka_zk.controller.events",
    "kafka_zk.controller.leadership",
    "kafka_zk.controller.requests",
    "kafka_zk.controller.state_machines",
    "kafka_zk.coordinator.group.consumer_protocol",
    "kafka_zk.coordinator.group.decisions",
    "kafka_zk.coordinator.group.delayed",
    "kafka_zk.coordinator.group.log_records",
    "kafka_zk.coordinator.group.offsets",
    "kafka_zk.coordinator.group.records",
    "kafka_zk.coordinator.group.state",
    "kafka_zk.coordinator.transaction.decisions",
    "kafka_zk.coordinator.transaction.records",
    "kafka_zk.coordinator.transaction.state",
    "kafka_zk.security.zk_tls",
    "kafka_zk.security.acls",
    "kafka_zk.security.authorizer",
    "kafka_zk.security.client_properties",
    "kafka_zk.security.credential_cache",
    "kafka_zk.security.delegation_tokens",
    "kafka_zk.security.gssapi_mechanism",
    "kafka_zk.security.jaas",
    "kafka_zk.security.kerberos_names",
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
    "kafka_zk.common.log4j",
    "kafka_zk.common.state_change_log",
    "kafka_zk.net.request_log",
    "kafka_zk.net.file_sender",
    "kafka_zk.server.metrics.broker_topic_stats",
    "kafka_zk.net.request_metrics",
    "kafka_zk.zk.znodes",
    "kafka_zk.zk.acls",
    "kafka_zk.zk.security_znodes",
    "kafka_zk.zk.notification_sequence",
    "kafka_zk.server.replication.replica_metrics",
    "kafka_zk.zk.zk_metrics",
    "kafka_zk.coordinator.coordinator_metrics",
    "kafka_zk.server.replication.turn_batch",
    "kafka_zk.server.replication.replica_selector",
    "kafka_zk.console.views",
    "kafka_zk.console.metrics_history",
}


def module_name(path, root):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree):
    """The nodes under ``if TYPE_CHECKING:``: imports for annotations, which never run."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            for child in node.body:
                skipped.update(id(inner) for inner in ast.walk(child))
    return skipped


def imports_of(source):
    """Every module name an import statement in source names, function-level imports included, the imports only
    annotations need (under ``if TYPE_CHECKING:``) left out."""
    names = []
    tree = ast.parse(source)
    skipped = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend("%s.%s" % (node.module, alias.name) for alias in node.names)
    return names


@functools.lru_cache(maxsize=None)
def _parsed_modules(root):
    return {module_name(path, root): tuple(imports_of(path.read_text())) for path in sorted(root.rglob("*.py"))}


def read_modules(root=PACKAGE_ROOT):
    """{module name: [imported names]} for every module under root (parsed once; each call answers a new copy)."""
    return {name: list(imported) for name, imported in _parsed_modules(root).items()}


def package_of(name):
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def part_of(name):
    """The ranked part of a package listed in PART_RANKS a module belongs to ("server.config"), or None."""
    parts = name.split(".")
    return "%s.%s" % (parts[1], parts[2]) if len(parts) > 2 and parts[1] in PART_RANKS else None


def part_rank(part):
    package, _, rest = part.partition(".")
    return PART_RANKS[package].get(rest)


def layer_violations(modules):
    """One line per importer and imported package (or part of a package), for each import that points upward or
    across a forbidden edge."""
    found = {}
    for name, imported in modules.items():
        source = package_of(name)
        if source not in RANKS:
            continue
        for target_name in sorted(imported, key=len):
            target = package_of(target_name) if target_name.startswith("kafka_zk.") else None
            if target is None or target not in RANKS:
                continue
            if target == source:
                source_part, target_part = part_of(name), part_of(target_name)
                if None in (source_part, target_part) or source_part == target_part:
                    continue
                low, high = part_rank(source_part), part_rank(target_part)
                if low is not None and high is not None and high > low:
                    found.setdefault(
                        (name, target_part),
                        "%s imports %s (%s may not import %s)" % (name, target_name, source_part, target_part),
                    )
            elif RANKS[target] > RANKS[source] or target in FORBIDDEN.get(source, ()):
                found.setdefault(
                    (name, target), "%s imports %s (%s may not import %s)" % (name, target_name, source, target)
                )
    return sorted(found.values())


def unranked_parts(modules):
    """The parts of the packages in PART_RANKS that have no rank there."""
    return sorted({part for part in map(part_of, modules) if part is not None and part_rank(part) is None})


def import_cycles(modules):
    """Each set of kafka_zk modules that import one another in a circle, directly or through other modules, as a
    sorted list; function-level imports count too."""
    graph = {
        name: {target for target in imported if target in modules and target != name}
        for name, imported in modules.items()
    }

    def reachable(start):
        seen, todo = set(), [start]
        while todo:
            for target in graph[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        return seen

    reach = {name: reachable(name) for name in graph}
    circles = {
        tuple(sorted(other for other in reach[name] if name in reach[other])) for name in graph if name in reach[name]
    }
    return sorted(map(list, circles))


def znode_roots():
    """The first component of every znode path the znode classes of zk/ name ("/brokers", "/kafka-acl-changes")."""
    roots = set()
    for module in (znodes, security_znodes):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                roots.update(
                    "/" + value.split("/")[1]
                    for value in vars(cls).values()
                    if isinstance(value, str) and value.startswith("/")
                )
    return roots


def raw_znode_paths(source, roots):
    """Each string literal of source (an f-string's literal parts included, docstrings left out) that is a znode
    path or starts one, as "line N: 'text'"."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    found = sorted(
        (node.lineno, node.col_offset, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and any(node.value == root or node.value.startswith(root + "/") for root in roots)
    )
    return ["line %d: %r" % (line, text) for line, _, text in found]


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


def test_every_part_of_a_package_ranked_by_parts_has_a_rank():
    assert unranked_parts(read_modules()) == []


def test_no_modules_import_one_another_in_a_circle():
    assert import_cycles(read_modules()) == []


def test_znode_paths_are_written_only_in_zk():
    roots = znode_roots()
    assert {
        "/brokers",
        "/controller",
        "/controller_epoch",
        "/admin",
        "/config",
        "/kafka-acl",
        "/delegation_token",
    } <= roots
    found = [
        "%s %s" % (path.relative_to(PACKAGE_ROOT.parent), line)
        for path in sorted(PACKAGE_ROOT.rglob("*.py"))
        if path.relative_to(PACKAGE_ROOT).parts[0] != "zk"
        for line in raw_znode_paths(path.read_text(), roots)
    ]
    assert found == []


def test_pure_cores_reach_neither_twisted_nor_kazoo():
    modules = read_modules()
    assert PURE_MODULES <= set(modules), "a listed pure module no longer exists: %s" % (PURE_MODULES - set(modules))
    assert purity_violations(modules) == []


@pytest.mark.parametrize(
    "importer, imported",
    [
        (
            "kafka_zk.controller.channel_manager",
            "kafka_zk.server.broker_client",
        ),  # the 2.5-era violation issue 19 fixed
        ("kafka_zk.coordinator.group.group_coordinator", "kafka_zk.server.replication.replica_manager"),
        ("kafka_zk.net.socket_server", "kafka_zk.server.kafka_server"),
        ("kafka_zk.client.admin", "kafka_zk.server.metadata_cache"),
        ("kafka_zk.log.log", "kafka_zk.zk.client"),
    ],
)
def test_an_upward_or_forbidden_import_is_reported(importer, imported):
    modules = read_modules()
    modules[importer] = modules.get(importer, []) + [imported]
    assert layer_violations(modules) == [
        "%s imports %s (%s may not import %s)" % (importer, imported, package_of(importer), package_of(imported))
    ]


@pytest.mark.parametrize(
    "importer, imported, source, target",
    [
        (
            "kafka_zk.server.config.kafka_config",
            "kafka_zk.server.replication.replica_selector",  # issue 31's
            "server.config",
            "server.replication",
        ),
        (
            "kafka_zk.server.replication.replica_manager",
            "kafka_zk.server.apis.fetch",
            "server.replication",
            "server.apis",
        ),
        ("kafka_zk.server.apis.produce", "kafka_zk.server.kafka_server", "server.apis", "server.kafka_server"),
        ("kafka_zk.server.metadata_cache", "kafka_zk.server.main", "server.metadata_cache", "server.main"),
    ],
)
def test_an_upward_import_between_the_parts_of_server_is_reported(importer, imported, source, target):
    modules = read_modules()
    modules[importer] = modules[importer] + [imported]
    assert layer_violations(modules) == ["%s imports %s (%s may not import %s)" % (importer, imported, source, target)]


def test_a_part_of_server_without_a_rank_is_reported():
    modules = read_modules()
    modules["kafka_zk.server.newcomer.thing"] = []
    modules["kafka_zk.server.stray"] = []
    assert unranked_parts(modules) == ["server.newcomer", "server.stray"]


def test_a_circle_of_imports_is_reported():
    modules = read_modules()
    modules["kafka_zk.coordinator.group.offsets"] = modules["kafka_zk.coordinator.group.offsets"] + [
        "kafka_zk.coordinator.group.state"
    ]  # issue 31's circle
    modules["kafka_zk.log.segment"] = modules["kafka_zk.log.segment"] + ["kafka_zk.log.log"]  # through others
    found = import_cycles(modules)
    assert ["kafka_zk.coordinator.group.offsets", "kafka_zk.coordinator.group.state"] in found
    assert len(found) == 2 and {"kafka_zk.log.log", "kafka_zk.log.segment"} <= set(found[1])


PLANTED = '''"""A module that names /brokers/ids in its docstring, which is allowed."""

BROKERS = "/brokers/ids"


def watch(zk, user):
    """Docstrings may say /config/users."""
    zk.get_children(f"/config/users/{user}/clients")
    zk.exists("/controller_epoch")
    zk.exists("/kafka-acl-changes/acl_changes_")
    return "/api/brokers", "/controllers", "brokers/ids", "topics/t"
'''


def test_a_raw_znode_path_outside_zk_is_reported():
    assert raw_znode_paths(PLANTED, znode_roots()) == [
        "line 3: '/brokers/ids'",
        "line 8: '/config/users/'",
        "line 9: '/controller_epoch'",
        "line 10: '/kafka-acl-changes/acl_changes_'",
    ]


def test_a_pure_core_reaching_twisted_through_a_shell_is_reported():
    modules = read_modules()
    modules["kafka_zk.controller.election"] = modules["kafka_zk.controller.election"] + ["kafka_zk.zk.reactor_client"]
    found = purity_violations(modules)
    assert "kafka_zk.controller.election imports twisted.internet (through kafka_zk.zk.reactor_client)" in found
    assert all("kafka_zk.controller.election" in line for line in found)  # and the pure modules that import it


def test_imports_only_annotations_need_are_not_dependencies():
    source = (
        "from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n    from kafka_zk.server import x\n"
        "if typing.TYPE_CHECKING:\n    import kafka_zk.controller\nimport kafka_zk.log\n"
    )
    assert imports_of(source) == ["typing", "typing.TYPE_CHECKING", "typing", "kafka_zk.log"]
