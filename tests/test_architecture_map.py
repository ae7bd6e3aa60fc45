"""docs/architecture.md cannot drift: every path it names exists, every `path::Name` and `Class.method` it names is
defined there, and its table of Kafka classes still covers the broker's main classes."""

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "architecture.md"
TABLE_HEADING = "## Where each Kafka class lives"

# The Kafka 2.5 classes a newcomer looks for first: each must have a row of the table.
MAIN_KAFKA_CLASSES = [
    "KafkaServer",
    "KafkaConfig",
    "KafkaController",
    "ControllerChannelManager",
    "ControllerEventManager",
    "ControllerContext",
    "PartitionStateMachine",
    "ReplicaStateMachine",
    "TopicDeletionManager",
    "KafkaZkClient",
    "ZooKeeperClient",
    "ZkNodeChangeNotificationListener",
    "ReplicaManager",
    "Partition",
    "ReplicaFetcherThread",
    "ReplicaFetcherManager",
    "Log",
    "LogSegment",
    "LogManager",
    "LogCleaner",
    "LeaderEpochFileCache",
    "GroupCoordinator",
    "GroupMetadataManager",
    "TransactionCoordinator",
    "TransactionStateManager",
    "TransactionMarkerChannelManager",
    "SocketServer",
    "KafkaApis",
    "KafkaRequestHandler",
    "FetchSession",
    "DelayedProduce",
    "DelayedFetch",
    "DelayedOperationPurgatory",
    "AclAuthorizer",
    "DynamicConfigManager",
    "ClientQuotaManager",
    "ReplicationQuotaManager",
    "MetadataCache",
    "AdminZkClient",
    "LogDirFailureChannel",
]

PATH = re.compile(r"^(?:kafka_zk|zookeeper|tests|scripts|docs|bench|spark_jobs)(?:/[\w.-]+)*/?(?:::[\w.]+)?$")
CLASS_ATTRIBUTE = re.compile(r"^[A-Z][A-Za-z0-9]*\.[a-z_][a-z0-9_]*$")  # ReplicaManager.fetch_messages
CLASS_NAME = re.compile(r"^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$")  # ProduceWaiters


def map_text():
    return MAP.read_text()


def code_tokens(text):
    return re.findall(r"`([^`\n]+)`", text)


def table_rows(text):
    """[(Kafka class cell, our cells)] of the table under TABLE_HEADING."""
    rows = []
    section = text.split(TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] == "Kafka 2.5 class":
            continue
        rows.append((cells[0], " | ".join(cells[1:])))
    return rows


@functools.lru_cache(maxsize=None)
def module_tree(path):
    return ast.parse((ROOT / path).read_text())


def top_level_names(tree):
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def class_defines(tree, class_name, attribute):
    """The class (or a base class of the same module) defines ``attribute`` in its body."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    seen = set()
    while class_name in classes and class_name not in seen:
        seen.add(class_name)
        node = classes[class_name]
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.name == attribute:
                return True
            if isinstance(item, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == attribute for target in item.targets
            ):
                return True
        bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
        class_name = bases[0] if bases else None
    return False


def resolves(path, name):
    tree = module_tree(path)
    head, _, attribute = name.partition(".")
    if head not in top_level_names(tree):
        return False
    return not attribute or class_defines(tree, head, attribute)


@functools.lru_cache(maxsize=None)
def classes_of_the_package():
    """{class name: [module paths that define it]} for kafka_zk and zookeeper."""
    found = {}
    for package in ("kafka_zk", "zookeeper"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            for node in module_tree(relative).body:
                if isinstance(node, ast.ClassDef):
                    found.setdefault(node.name, []).append(relative)
    return found


def problems_of(token):
    """Why ``token`` (a code span of the map) names nothing that exists; None when it does or names no code."""
    if PATH.match(token):
        path, _, name = token.partition("::")
        if not (ROOT / path).exists():
            return "no such path: %s" % path
        if name and not (path.endswith(".py") and resolves(path, name)):
            return "%s does not define %s" % (path, name)
        return None
    if CLASS_ATTRIBUTE.match(token):
        class_name, attribute = token.split(".")
        modules = classes_of_the_package().get(class_name, [])
        if not any(class_defines(module_tree(path), class_name, attribute) for path in modules):
            return "no class %s with %s" % (class_name, attribute)
        return None
    if CLASS_NAME.match(token) and token not in classes_of_the_package():
        return "no class %s" % token
    return None


def test_every_path_and_name_the_map_gives_exists():
    text = map_text()
    table = text.split(TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    outside = text.replace(table, "")
    tokens = code_tokens(outside) + [token for _, ours in table_rows(text) for token in code_tokens(ours)]
    assert len(tokens) > 200
    assert [problem for problem in map(problems_of, tokens) if problem] == []


def test_every_row_of_the_table_points_at_code():
    for kafka, ours in table_rows(map_text()):
        assert any(PATH.match(token) and "::" in token for token in code_tokens(ours)) or any(
            PATH.match(token) and token.endswith(".py") for token in code_tokens(ours)
        ), kafka


def test_the_table_covers_the_main_kafka_classes():
    named = set()
    for kafka, _ in table_rows(map_text()):
        for token in code_tokens(kafka):
            for part in re.split(r",\s*", token):
                named.update(re.findall(r"[A-Za-z][\w]*", part))
    assert [name for name in MAIN_KAFKA_CLASSES if name not in named] == []


def test_the_map_states_the_layer_order_the_layering_test_holds():
    from tests.test_layering import RANKS

    text = map_text()
    for package, rank in RANKS.items():
        assert re.search(r"^\s*%d\s+kafka_zk/%s/" % (rank, package), text, re.MULTILINE), package


def test_a_missing_name_is_reported():
    assert problems_of("kafka_zk/log/log.py::Log.append") is None
    assert problems_of("kafka_zk/server/replication/delayed.py::DelayedProduce.on_expiration") is None  # inherited
    assert problems_of("kafka_zk/log/log.py::Log.appendix") == "kafka_zk/log/log.py does not define Log.appendix"
    assert problems_of("kafka_zk/log/nothing.py") == "no such path: kafka_zk/log/nothing.py"
    assert problems_of("ReplicaManager.no_such_method") == "no class ReplicaManager with no_such_method"
    assert problems_of("NoSuchManager") == "no class NoSuchManager"
    assert problems_of("min.insync.replicas") is None
