"""Kafka Connect's JVM processes as Kafka's scripts start them: a distributed worker (connect-distributed.sh, Connect
2.5.1 from build/kafka-2.5.1/libs) and a dedicated MirrorMaker 2 (connect-mirror-maker.sh, from
build/kafka-mirror-maker-2.7.2/libs), each in a folder of its own with a capped heap and its log4j file there.

The jars come from tests/reference/pom.xml and tests/reference/mirror-maker/pom.xml (scripts/_venv.sh's
ensure_kafka_reference). By hand, with brokers running:

    .venv/bin/python -m kafka_zk.tools.connect_worker distributed path/to/connect-distributed.properties
    .venv/bin/python -m kafka_zk.tools.connect_worker mirror-maker path/to/mm2.properties

runs the process in the foreground, its connect.log in $LOG_DIR (by default logs/ in the repository).
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from kafka_zk.tools.broker_process import ClusterError, tails_of
from kafka_zk.tools.reference_broker import JVM_OPTIONS, LIBS, ROOT, java_executable
from zookeeper.class_archive import archive_options
from zookeeper.launcher import jvm_performance_opts, live_pid, process_running, wait_for_exit

MIRROR_MAKER_VERSION = "2.7.2"
MIRROR_MAKER_LIBS = ROOT / "build" / ("kafka-mirror-maker-%s" % MIRROR_MAKER_VERSION) / "libs"
CONNECT_DISTRIBUTED_MAIN = "org.apache.kafka.connect.cli.ConnectDistributed"
MIRROR_MAKER_MAIN = "org.apache.kafka.connect.mirror.MirrorMaker"
# Kafka's scripts give Connect -Xms256M -Xmx2G; two workers and a MirrorMaker share this machine with brokers.
HEAP = ("-Xmx256m", "-Xms64m")
LOG4J_FILE = "connect.log"


class ConnectJarsMissing(ClusterError):
    """The folder of jars has no Connect runtime: ensure_kafka_reference has not run."""


def jars_dir(libs, marker_jar):
    """``libs`` if it holds ``marker_jar``, else ConnectJarsMissing."""
    libs = Path(libs)
    if not (libs / marker_jar).is_file():
        raise ConnectJarsMissing(
            "%s is not in %s: run scripts/test.sh, or `source scripts/_venv.sh; ensure_kafka_reference`"
            % (marker_jar, libs)
        )
    return libs


def log4j_properties():
    """Kafka's config/connect-log4j.properties in shape: INFO to stdout and to connect.log in kafka.logs.dir, the
    chatty ZooKeeper and reflections loggers quieter."""
    return "\n".join(
        [
            "log4j.rootLogger=INFO, stdout, connectAppender",
            "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
            "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c:%L)%n",
            "log4j.appender.connectAppender=org.apache.log4j.DailyRollingFileAppender",
            "log4j.appender.connectAppender.DatePattern='.'yyyy-MM-dd-HH",
            "log4j.appender.connectAppender.File=${kafka.logs.dir}/%s" % LOG4J_FILE,
            "log4j.appender.connectAppender.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.connectAppender.layout.ConversionPattern=[%d] %p %m (%c:%L)%n",
            "log4j.logger.org.apache.zookeeper=ERROR",
            "log4j.logger.org.reflections=ERROR",
        ]
    )


def write_properties(path, properties):
    path.write_text("".join("%s=%s\n" % item for item in properties.items()))
    return path


def jvm_command(main, config_path, logs_dir, libs, heap=HEAP):
    """The java command line running ``main`` on ``config_path`` as kafka-run-class.sh would, its log4j file in
    ``logs_dir``."""
    java, classpath = java_executable(), "%s/*" % libs
    return [
        java,
        *heap,
        *jvm_performance_opts(JVM_OPTIONS),
        *archive_options(java, [classpath]),
        "-Dkafka.logs.dir=%s" % logs_dir,
        "-Dlog4j.configuration=file:%s" % (Path(logs_dir) / "connect-log4j.properties"),
        "-cp",
        classpath,
        main,
        str(config_path),
    ]


class ConnectJvmProcess:
    """One of Connect's JVMs in its own folder (its properties file, connect-log4j.properties, connect.log,
    console.out for stdout and stderr, a pid file): start, stop (SIGTERM, a clean shutdown), kill (SIGKILL)."""

    main = CONNECT_DISTRIBUTED_MAIN
    config_name = "connect-distributed.properties"
    marker_jar = "connect-runtime-2.5.1.jar"
    started_mark = "Kafka Connect started"

    def __init__(self, folder, properties, libs=LIBS, heap=HEAP):
        self.folder = Path(folder).resolve()
        self.properties = dict(properties)
        self.libs = Path(libs)
        self.heap = tuple(heap)
        self._process = None

    @property
    def config_path(self):
        return self.folder / self.config_name

    @property
    def log_file(self):
        return self.folder / LOG4J_FILE

    @property
    def console_file(self):
        return self.folder / "console.out"

    @property
    def pid_file(self):
        return self.folder / "connect.pid"

    def command(self):
        return jvm_command(self.main, self.config_path, self.folder, jars_dir(self.libs, self.marker_jar), self.heap)

    def pid(self):
        return live_pid(self._process, self.pid_file, lambda pid: process_running(pid, self.main))

    def is_running(self):
        return self.pid() is not None

    def start(self, timeout=90.0):
        """Write the config and log4j files, start the JVM and wait for its started line in connect.log."""
        if self.is_running():
            raise ClusterError("%s is already running (pid %d)" % (self.folder.name, self.pid()))
        self.folder.mkdir(parents=True, exist_ok=True)
        write_properties(self.config_path, self.properties)
        (self.folder / "connect-log4j.properties").write_text(log4j_properties() + "\n")
        offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        with open(self.console_file, "ab") as console:
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=str(self.folder),
                env={**os.environ, "LOG_DIR": str(self.folder)},
            )
        self.pid_file.write_text("%d\n" % self._process.pid)
        self.wait_started(offset, timeout)
        return self

    def wait_started(self, log_offset, timeout):
        deadline = time.monotonic() + timeout
        while True:
            if self.started_mark.encode() in self._log_bytes(log_offset):
                return
            if not self.is_running():
                raise ClusterError("%s exited during startup:\n%s" % (self.folder.name, self.log_tail()))
            if time.monotonic() > deadline:
                raise ClusterError("%s not started after %.0fs:\n%s" % (self.folder.name, timeout, self.log_tail()))
            time.sleep(0.1)

    def _log_bytes(self, offset):
        try:
            with open(self.log_file, "rb") as handle:
                handle.seek(offset)
                return handle.read()
        except FileNotFoundError:
            return b""

    def stop(self, timeout=60.0):
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            if not wait_for_exit(pid, timeout, self._process, self.main):
                os.kill(pid, signal.SIGKILL)
                wait_for_exit(pid, 10, self._process, self.main)
        self._forget()

    def kill(self):
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            wait_for_exit(pid, 10, self._process, self.main)
        self._forget()

    def _forget(self):
        self._process = None
        self.pid_file.unlink(missing_ok=True)

    def log_tail(self, lines=40):
        return tails_of((self.log_file, self.console_file), lines)


class ConnectWorkerProcess(ConnectJvmProcess):
    """A Kafka Connect 2.5.1 distributed worker (connect-distributed.sh), driven through its REST API on
    ``rest.port`` of its properties."""

    @property
    def rest_url(self):
        host = self.properties.get("rest.host.name", "127.0.0.1")
        return "http://%s:%s" % (host, self.properties["rest.port"])

    @property
    def worker_id(self):
        """How the REST API's statuses name this worker: its advertised host and port."""
        host = self.properties.get("rest.advertised.host.name", self.properties.get("rest.host.name", "127.0.0.1"))
        return "%s:%s" % (host, self.properties.get("rest.advertised.port", self.properties["rest.port"]))

    def rest(self, method, path, body=None, timeout=30.0):
        """(HTTP status, decoded JSON body or None) of one REST call; the status of an HTTP error, not an error."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.rest_url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        return status, (json.loads(text) if text else None)


class MirrorMakerProcess(ConnectJvmProcess):
    """A dedicated MirrorMaker 2 (connect-mirror-maker.sh) on an mm2.properties."""

    main = MIRROR_MAKER_MAIN
    config_name = "mm2.properties"
    marker_jar = "connect-mirror-%s.jar" % MIRROR_MAKER_VERSION
    started_mark = "Kafka MirrorMaker started"

    def __init__(self, folder, properties, libs=MIRROR_MAKER_LIBS, heap=HEAP):
        super().__init__(folder, properties, libs, heap)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m kafka_zk.tools.connect_worker",
        description="Run a Kafka Connect distributed worker (as connect-distributed.sh) or a dedicated MirrorMaker 2 "
        "(as connect-mirror-maker.sh) in the foreground, heap %s." % " ".join(HEAP),
    )
    parser.add_argument("kind", choices=("distributed", "mirror-maker"))
    parser.add_argument("config", help="connect-distributed.properties or mm2.properties")
    parser.add_argument("--logs-dir", default=os.environ.get("LOG_DIR", str(ROOT / "logs")))
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    logs_dir = Path(args.logs_dir).resolve()
    logs_dir.mkdir(parents=True, exist_ok=True)
    (logs_dir / "connect-log4j.properties").write_text(log4j_properties() + "\n")
    kind = ConnectWorkerProcess if args.kind == "distributed" else MirrorMakerProcess
    try:
        libs = jars_dir(LIBS if kind is ConnectWorkerProcess else MIRROR_MAKER_LIBS, kind.marker_jar)
    except ConnectJarsMissing as error:
        print(error, file=sys.stderr)
        return 1
    command = jvm_command(kind.main, Path(args.config).resolve(), logs_dir, libs)
    os.execvp(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
