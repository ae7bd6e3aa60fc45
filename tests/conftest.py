"""Shared pytest fixtures (a real ZooKeeper for the session, real broker clusters, the run's SparkSession) and the
tier markers every test gets (tests/tiers.py)."""

import pytest

from tests.cluster_support import broker_processes, cluster  # noqa: F401
from tests.spark_support import spark_sessions  # noqa: F401
from tests.sync_counting import counted_syncs  # noqa: F401
from tests.tiers import forbid_processes, mark_tiers, register_tiers
from tests.zk_support import zk_connect, zookeeper_server  # noqa: F401


def pytest_configure(config):
    register_tiers(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Before -m selects: every test its tier marker, so a new test cannot go without one."""
    mark_tiers(items)


@pytest.fixture(autouse=True)
def pure_tests_start_no_processes(request, monkeypatch):
    """A pure test that starts ZooKeeper or brokers fails, naming the tier it should have."""
    if request.node.get_closest_marker("pure"):
        forbid_processes(monkeypatch)
