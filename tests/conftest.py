"""Shared pytest fixtures: a real ZooKeeper for the session, and real broker clusters."""

from tests.cluster_support import cluster  # noqa: F401
from tests.sync_counting import counted_syncs  # noqa: F401
from tests.zk_support import zk_connect, zookeeper_server  # noqa: F401
