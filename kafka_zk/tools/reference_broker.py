"""Apache Kafka 2.5.1's own broker in a JVM, from the jars under build/kafka-2.5.1/libs: the reference our brokers are
measured against, launched as Kafka's kafka-server-start.sh would and handled like a local-cluster broker.

The jars come from tests/reference/pom.xml (scripts/_venv.sh's ensure_kafka_reference). By hand, with a ZooKeeper
running and a server.properties of Kafka's kind:

    .venv/bin/python -m kafka_zk.tools.reference_broker path/to/server.properties

runs the broker in the foreground (Ctrl-C: controlled shutdown), its log4j files in $LOG_DIR (by default logs/ in
the repository, as Kafka's scripts keep them in logs/ of the installation).
"""

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from kafka_zk.tools.broker_process import BrokerProcess, ClusterError
from kafka_zk.zk.client import KafkaZkClient
from zookeeper.class_archive import archive_options
from zookeeper.launcher import jvm_performance_opts

ROOT = Path(__file__).resolve().parents[2]
KAFKA_VERSION = "2.5.1"
LIBS = ROOT / "build" / ("kafka-%s" % KAFKA_VERSION) / "libs"
KAFKA_MAIN = "kafka.Kafka"
KAFKA_STARTED_MARK = "] started (kafka.server.KafkaServer)"
HEAP = ("-Xmx384m", "-Xms64m")
# What kafka-run-class.sh gives a broker besides its heap, unless KAFKA_JVM_PERFORMANCE_OPTS says otherwise: G1 with
# short pauses, headless.
JVM_OPTIONS = (
    "-server",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-Djava.awt.headless=true",
)
# The broker's log4j files, in the folder that kafka.logs.dir names: one file per logger Kafka's own
# config/log4j.properties separates out, each rolled hourly.
LOG_FILES = {
    "kafkaAppender": ("server.log", None),
    "stateChangeAppender": ("state-change.log", ("state.change.logger", "TRACE")),
    "requestAppender": ("kafka-request.log", ("kafka.request.logger", "WARN")),
    "cleanerAppender": ("log-cleaner.log", ("kafka.log.LogCleaner", "INFO")),
    "controllerAppender": ("controller.log", ("kafka.controller", "TRACE")),
    "authorizerAppender": ("kafka-authorizer.log", ("kafka.authorizer.logger", "INFO")),
}
QUIETER_LOGGERS = {"org.apache.zookeeper": "INFO", "kafka": "INFO", "org.apache.kafka": "INFO"}


class ReferenceJarsMissing(ClusterError):
    """build/kafka-2.5.1/libs has no Kafka broker jar: ensure_kafka_reference has not run."""


def libs_dir(libs=LIBS):
    """The folder of Kafka 2.5.1's jars; ReferenceJarsMissing when the broker's jar is not there."""
    libs = Path(libs)
    if not (libs / ("kafka_2.12-%s.jar" % KAFKA_VERSION)).is_file():
        raise ReferenceJarsMissing(
            "Apache Kafka %s's jars are not in %s: run scripts/test.sh, or `source "
            "scripts/_venv.sh; ensure_kafka_reference`" % (KAFKA_VERSION, libs)
        )
    return libs


def java_executable():
    """JAVA_HOME's java, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java") or "java"


def log4j_properties():
    """A log4j 1.2 configuration laid out as Kafka's distribution lays out its broker's logs: INFO to stdout and
    server.log, the controller, state changes, requests, the cleaner and the authorizer each to a file of its own."""
    lines = [
        "log4j.rootLogger=INFO, stdout, kafkaAppender",
        "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
        "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
        "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n",
    ]
    for appender, (file_name, _) in LOG_FILES.items():
        prefix = "log4j.appender.%s" % appender
        lines += [
            "%s=org.apache.log4j.DailyRollingFileAppender" % prefix,
            "%s.DatePattern='.'yyyy-MM-dd-HH" % prefix,
            "%s.File=${kafka.logs.dir}/%s" % (prefix, file_name),
            "%s.layout=org.apache.log4j.PatternLayout" % prefix,
            "%s.layout.ConversionPattern=[%%d] %%p %%m (%%c)%%n" % prefix,
        ]
    lines += ["log4j.logger.%s=%s" % item for item in QUIETER_LOGGERS.items()]
    for appender, (_, logger) in LOG_FILES.items():
        if logger is not None:
            name, level = logger
            lines += ["log4j.logger.%s=%s, %s" % (name, level, appender), "log4j.additivity.%s=false" % name]
    return "\n".join(lines) + "\n"


def write_log4j_properties(folder):
    """log4j.properties in ``folder``; its path."""
    path = Path(folder) / "log4j.properties"
    path.write_text(log4j_properties())
    return path


def broker_command(config_path, logs_dir, libs=LIBS, heap=HEAP, jvm_options=()):
    """The java command line that runs Kafka's broker on ``config_path``, its log4j files in ``logs_dir``;
    ``jvm_options``: more options for its JVM."""
    log4j = Path(logs_dir) / "log4j.properties"
    java, classpath = java_executable(), "%s/*" % libs_dir(libs)
    return [
        java,
        *heap,
        *jvm_performance_opts(JVM_OPTIONS),
        *archive_options(java, [classpath], jvm_options),
        *jvm_options,
        "-Dkafka.logs.dir=%s" % logs_dir,
        "-Dlog4j.configuration=file:%s" % log4j,
        "-cp",
        classpath,
        KAFKA_MAIN,
        str(config_path),
    ]


class ReferenceBrokerProcess(BrokerProcess):
    """Apache Kafka 2.5.1's broker in a JVM with its own folder (server.properties, logs/, log4j.properties, the
    log4j files, kafkaServer.out for stdout and stderr, broker.pid): start, wait_serving, stop (SIGTERM: Kafka's
    controlled shutdown), kill (SIGKILL), as a local-cluster broker."""

    main_marker = KAFKA_MAIN
    started_mark = KAFKA_STARTED_MARK
    kind = "Apache Kafka %s" % KAFKA_VERSION

    def __init__(self, *args, libs=LIBS, heap=HEAP, jvm_options=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.libs = Path(libs)
        self.heap = tuple(heap)
        self.jvm_options = tuple(jvm_options)

    def start(self, wait=True, timeout=60.0):
        """Start the JVM once no earlier incarnation's ZooKeeper session still holds /brokers/ids/<id>: Kafka's broker
        fails its startup on that znode (ours waits for the session to expire), so after a kill -9 this waits as an
        operator would."""
        client = KafkaZkClient(self.zk_connect)
        client.start(timeout)
        try:
            deadline = time.monotonic() + timeout
            while client.get_broker(self.broker_id) is not None:
                if time.monotonic() > deadline:
                    raise ClusterError(
                        "broker %d is still registered in ZooKeeper after %.0fs: is another broker %d running?"
                        % (self.broker_id, timeout, self.broker_id)
                    )
                time.sleep(0.1)
        finally:
            client.close()
        return super().start(wait, timeout)

    @property
    def console_file(self):
        """The JVM's stdout and stderr (log4j writes server.log itself), as kafka-server-start.sh -daemon keeps it."""
        return self.folder / "kafkaServer.out"

    def properties(self):
        props = super().properties()
        props.pop("metrics.prometheus.listener", None)  # ours: Kafka serves its metrics over JMX
        return props

    def write_config(self):
        super().write_config()
        write_log4j_properties(self.folder)

    def command(self):
        return self.command_prefix + broker_command(
            self.config_path, self.folder, self.libs, self.heap, self.jvm_options
        )


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m kafka_zk.tools.reference_broker",
        description="Run Apache Kafka %s's broker (a JVM, heap %s) on a server.properties in the foreground, as "
        "kafka-server-start.sh does; its jars come from build/kafka-%s/libs (scripts/_venv.sh's "
        "ensure_kafka_reference)." % (KAFKA_VERSION, " ".join(HEAP), KAFKA_VERSION),
    )
    parser.add_argument("config", help="the broker's server.properties")
    parser.add_argument(
        "--logs-dir",
        default=os.environ.get("LOG_DIR", str(ROOT / "logs")),
        help="where server.log, controller.log, state-change.log, ... go (default: $LOG_DIR, else "
        "logs/ in the repository)",
    )
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    config = Path(args.config).resolve()
    logs_dir = Path(args.logs_dir).resolve()
    logs_dir.mkdir(parents=True, exist_ok=True)
    write_log4j_properties(logs_dir)
    try:
        command = broker_command(config, logs_dir)
    except ReferenceJarsMissing as error:
        print(error, file=sys.stderr)
        return 1
    os.execvp(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
