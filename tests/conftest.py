"""Shared pytest fixtures: a real ZooKeeper for the session, real broker clusters, the run's SparkSession."""

from tests.cluster_support import cluster  # noqa: F401
from tests.spark_support import spark_sessions  # noqa: F401
from tests.sync_counting import counted_syncs  # noqa: F401
from tests.zk_support import zk_connect, zookeeper_server  # noqa: F401
