"""Differential runs against Apache Kafka 2.5.1: a 3-broker Kafka cluster and a 3-broker kafka-zk cluster with the
same settings, started side by side, Kafka's own tool classes and our scripts, and the tally each module prints."""

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from kafka_zk.tools.reference_broker import ReferenceJarsMissing, java_executable, libs_dir
from tests.cluster_support import start_cluster
from zookeeper.class_archive import archive_options

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
# Kafka's tools-log4j.properties: warnings on stderr, stdout left to the tool's own output.
TOOLS_LOG4J = ROOT / "tests" / "java" / "log4j.properties"


def start_pair(folder, zookeeper_server, overrides=None):
    """(Kafka's cluster, ours): three brokers each, each in a chroot of its own, started at the same time."""
    try:
        libs_dir()
    except ReferenceJarsMissing as error:
        pytest.fail(str(error))
    folder = Path(folder)
    with ThreadPoolExecutor(2) as pool:
        kafka = pool.submit(start_cluster, folder / "kafka", zookeeper_server, 3, overrides, kafka_brokers=3)
        ours = pool.submit(start_cluster, folder / "ours", zookeeper_server, 3, overrides)
        pair = []
        try:
            pair = [kafka.result(), ours.result()]
        finally:
            if len(pair) < 2:
                for future in (kafka, ours):
                    if future.exception() is None:
                        future.result().kill()
    return tuple(pair)


def cluster_pair(overrides=None):
    """A module-scoped fixture of (Kafka's cluster, ours), stopped after the module."""

    @pytest.fixture(scope="module")
    def pair(request, tmp_path_factory, zookeeper_server, broker_processes):
        folder = tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
        kafka, ours = start_pair(folder, zookeeper_server, overrides)
        yield kafka, ours
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda cluster: cluster.stop(), (kafka, ours)))

    return pair


def run_kafka_class(class_name, args, timeout=120, stdin=None):
    """(exit code, stdout, stderr) of one of Kafka 2.5.1's main classes, as kafka-run-class.sh runs it."""
    java, classpath = java_executable(), "%s/*" % libs_dir()
    command = [
        java,
        *archive_options(java, [classpath]),
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Dlog4j.configuration=file:%s" % TOOLS_LOG4J,
        "-cp",
        classpath,
        class_name,
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, input=stdin)
    return done.returncode, done.stdout, done.stderr


def run_our_script(script, args, timeout=120, stdin=None):
    """(exit code, stdout, stderr) of one of our scripts/ (kafka-topics.sh, ...), run by the test's Python."""
    environment = dict(os.environ, PYTHON=sys.executable)
    done = subprocess.run(
        ["bash", str(SCRIPTS / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
        env=environment,
        cwd=ROOT,
    )
    return done.returncode, done.stdout, done.stderr


class Tally:
    """What one module compared and the differences it found, printed at the end of the module. ``known``:
    {regular expression over a difference's name: its reason}, the differences tests/reference/known_differences.md
    lists; the others are ``unexplained``."""

    def __init__(self, what, known=None):
        self.what = what
        self.known = dict(known or {})
        self.compared = 0
        self.differences = []

    def compare(self, name, kafka, ours):
        """Count one comparison; a difference is remembered (and returned) as a line naming both sides."""
        self.compared += 1
        if kafka != ours:
            line = "%s: Kafka %r, ours %r" % (name, kafka, ours)
            self.differences.append(line)
            return line
        return None

    def reason(self, line):
        name = line.split(": Kafka ", 1)[0]
        return next((reason for pattern, reason in self.known.items() if re.search(pattern, name)), None)

    @property
    def unexplained(self):
        return [line for line in self.differences if self.reason(line) is None]

    def report(self):
        text = "%s compared: %d, differences: %d (%d listed in known_differences.md)" % (
            self.what,
            self.compared,
            len(self.differences),
            len(self.differences) - len(self.unexplained),
        )
        lines = [
            "  [%s] %s" % ("known: " + self.reason(line) if self.reason(line) else "NEW", line)
            for line in self.differences
        ]
        return "\n".join([text] + lines)


@contextmanager
def zookeeper_client(connect):
    """A started kazoo client on ``connect`` (a cluster's chroot), stopped and closed afterwards."""
    client = KazooClient(hosts=connect)
    client.start(15)
    try:
        yield client
    finally:
        client.stop()
        client.close()
