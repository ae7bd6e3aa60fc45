"""Shared pytest fixtures (a real ZooKeeper for the session, real broker clusters, the run's SparkSession) and the
tier markers every test gets (tests/tiers.py).

The whole suite runs with strict messages: a response that misses a field or carries a key its schema does not
know fails to encode, in this process and in every broker it starts (they inherit the environment).

The tests' own processes run every module interpreted (the sources, the fallback); the brokers and tools they start
run the hot modules' compiled twins, where built (kafka_zk/compiled.py): the suite runs both ways."""

import os

os.environ["KAFKA_ZK_STRICT_MESSAGES"] = "1"  # before anything imports the codec, and for every subprocess
# The JVMs the suite starts live for a module on two cores: C1 alone and the serial collector, in place of G1 and C2,
# start a Kafka broker in half the time on two thirds of the CPU, and run the Spark tests a fifth quicker. Set through
# each one's own variable: Kafka's brokers, Connect and ZooKeeper (kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS),
# the drivers and executors of the Spark sessions the tests and their jobs start (PYSPARK_SUBMIT_ARGS), a standalone
# Spark cluster's master and workers (SPARK_DAEMON_JAVA_OPTS).
SHORT_LIVED_JVM = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"
os.environ.setdefault("KAFKA_JVM_PERFORMANCE_OPTS", SHORT_LIVED_JVM + " -Djava.awt.headless=true")
os.environ.setdefault(
    "PYSPARK_SUBMIT_ARGS",
    '--driver-java-options "%s" --conf "spark.executor.extraJavaOptions=%s" pyspark-shell' % ((SHORT_LIVED_JVM,) * 2),
)
os.environ.setdefault("SPARK_DAEMON_JAVA_OPTS", SHORT_LIVED_JVM)

from kafka_zk import compiled  # noqa: E402

compiled.uninstall()  # before any hot module is imported here

from kafka_zk.protocol.schema import set_strict_messages  # noqa: E402

set_strict_messages(True)

from tests.strict_handlers import check_handlers_strictly  # noqa: E402

check_handlers_strictly()  # and the handlers tests call in-process, whether or not the test encodes their answers

import pytest  # noqa: E402

from tests.cluster_support import broker_processes, cluster  # noqa: E402,F401
from tests.spark_support import spark_sessions  # noqa: E402,F401
from tests.sync_counting import counted_syncs  # noqa: E402,F401
from tests.tiers import forbid_processes, mark_tiers, order_for_workers, register_tiers  # noqa: E402
from tests.zk_support import zk_connect, zookeeper_server  # noqa: E402,F401


def pytest_configure(config):
    register_tiers(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Before -m selects: every test its tier marker, so a new test cannot go without one; then the longest modules
    first (tests/tiers.py's order_for_workers)."""
    mark_tiers(items)
    order_for_workers(items)


@pytest.fixture(autouse=True)
def pure_tests_start_no_processes(request, monkeypatch):
    """A pure test that starts ZooKeeper or brokers fails, naming the tier it should have."""
    if request.node.get_closest_marker("pure"):
        forbid_processes(monkeypatch)


def pytest_sessionfinish(session, exitstatus):
    """A broker process that broke strict messages only logged it (and closed the connection, which a client may
    retry): fail the run and show the lines, from every server.log under this run's temporary directories."""
    if hasattr(session.config, "workerinput"):
        return  # the controller looks through every worker's directories
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or factory._basetemp is None:
        return
    found = []
    for log_file in factory.getbasetemp().rglob("server.log"):
        with open(log_file, "rb") as handle:
            found += [
                "%s: %s" % (log_file, line.decode("utf-8", "replace").rstrip())
                for line in handle
                if b"StrictMessageError" in line
            ]
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_sep("=", "brokers that broke strict messages")
            for line in found:
                reporter.write_line(line)
        session.exitstatus = 1
