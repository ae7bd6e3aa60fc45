"""The test tiers as pytest markers: each collected test gets exactly one, from what it uses."""

import inspect

import pytest

from kafka_zk.tools.local_cluster import LocalCluster
from zookeeper.launcher import ZooKeeperEnsemble, ZooKeeperServer

# Cheapest first; `scripts/test.sh -m pure` runs the first alone.
TIERS = {
    "pure": "no process, no ZooKeeper: codecs, state machines, log files, handlers in memory",
    "zookeeper": "a real ZooKeeper, no brokers",
    "cluster": "real broker processes (the tests/test_real_* modules, the broker_processes fixture)",
    "browser": "a real browser (Playwright driving Chromium) against a real cluster",
    "java": "Kafka's own Java clients against a real cluster",
}

# Fixtures that start processes: a pure test uses none of them.
PROCESS_FIXTURES = frozenset({"zookeeper_server", "broker_processes", "spark_sessions"})

# What pytest_collection_modifyitems saw, before -m deselected any: (node id, tier markers, fixture names).
collected = []


def _imports_from(module, package):
    """Whether ``module`` holds a name (a module, class or function) that comes from ``package``."""
    for value in vars(module).values():
        origin = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        if isinstance(origin, str) and (origin == package or origin.startswith(package + ".")):
            return True
    return False


def tier_of(item):
    """The tier a test belongs to by what it uses: its own marker when it has one, else its module's imports, its
    module's name and the fixtures it needs (through other fixtures too)."""
    marked = [name for name in TIERS if item.get_closest_marker(name)]
    if marked:
        return marked[0]
    module = item.module
    fixtures = set(item.fixturenames)
    if _imports_from(module, "playwright"):
        return "browser"
    if _imports_from(module, "tests.java_clients"):
        return "java"
    if module.__name__.rpartition(".")[2].startswith("test_real_") or "broker_processes" in fixtures:
        return "cluster"
    if "zookeeper_server" in fixtures:
        return "zookeeper"
    return "pure"


def tier_markers(item):
    return [marker.name for marker in item.iter_markers() if marker.name in TIERS]


def register_tiers(config):
    for name, description in TIERS.items():
        config.addinivalue_line("markers", "%s: %s" % (name, description))


def mark_tiers(items):
    """Give every test its tier marker and record what each test ended up with."""
    collected.clear()
    for item in items:
        if not tier_markers(item):
            item.add_marker(getattr(pytest.mark, tier_of(item)))
        collected.append((item.nodeid, tier_markers(item), frozenset(item.fixturenames)))


# Modules of several minutes of real clusters, in the order the workers take them (see order_for_workers). The two
# drills go first, side by side: their bounds are formulas of 6 s ZooKeeper sessions, and beside the JVM brokers of
# the mixed-cluster modules a drill's broker could miss its session (drill e failed so, once in three runs).
LONGEST_MODULES = (
    "test_real_drills_zookeeper",
    "test_real_drills_brokers",
    "test_real_mixed_clusters",
    "test_real_spark_streaming",
    "test_real_transactions_failover",
    "test_real_migration_drill",
)
# The order tiers start in: those that start processes before the quick ones that fill in at the end.
TIER_ORDER = ("java", "browser", "cluster", "zookeeper", "pure")


def order_for_workers(items):
    """Reorder the tests, whole modules at a time, so the workers (--dist loadfile, in collection order) take the
    longest modules first, then every module that starts processes, and the pure ones last: no long module is
    handed out at the end to keep one worker busy while the other idles."""
    position = {}
    for index, item in enumerate(items):
        name = item.module.__name__.rpartition(".")[2]
        tiers = [TIER_ORDER.index(marker) for marker in tier_markers(item)]
        first, heaviest = position.get(name, (index, len(TIER_ORDER)))
        position[name] = (first, min([heaviest, *tiers]))

    def key(item):
        name = item.module.__name__.rpartition(".")[2]
        first, heaviest = position[name]
        longest = LONGEST_MODULES.index(name) if name in LONGEST_MODULES else len(LONGEST_MODULES)
        return (longest, heaviest, first)

    items.sort(key=key)


class PureTestStartedAProcess(AssertionError):
    """A test marked pure started ZooKeeper or brokers: give it the tier it needs."""


def _refuse(what):
    def start(*args, **kwargs):
        raise PureTestStartedAProcess("a pure test starts no %s: mark it with its tier (tests/tiers.py)" % what)

    return start


def forbid_processes(monkeypatch):
    """Make starting a ZooKeeper or a local cluster fail for the rest of the test."""
    monkeypatch.setattr(ZooKeeperServer, "start", _refuse("ZooKeeper"))
    monkeypatch.setattr(ZooKeeperEnsemble, "start", _refuse("ZooKeeper ensemble"))
    monkeypatch.setattr(LocalCluster, "start", _refuse("broker cluster"))
