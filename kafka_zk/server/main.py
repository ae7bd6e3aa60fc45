"""Entry point of one broker process: kafka-server-start server.properties [--override k=v ...]."""

import argparse
import functools
import logging
import os
import sys

from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig

PROFILE_VARIABLE = "KAFKA_ZK_PROFILE"
INSTALL_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LOG4J = os.path.join(INSTALL_DIR, "config", "log4j.properties")


def configure_logging(environ=None):
    """Logging as Kafka's kafka-server-start.sh sets it up: the log4j.properties of $KAFKA_LOG4J_OPTS
    (-Dlog4j.configuration=file:...; default config/log4j.properties) with its files in $LOG_DIR (default
    <install>/logs). Without a readable file: everything on stdout in Kafka's line format."""
    from kafka_zk.common import log4j

    environ = os.environ if environ is None else environ
    path, system_properties = log4j.system_properties(environ, os.path.join(INSTALL_DIR, "logs"))
    try:
        with open(path or DEFAULT_LOG4J, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        text = CONSOLE_ONLY
    try:
        log4j.configure(log4j.parse(text, system_properties), sys.stdout, sys.stderr)
    except (log4j.Log4jError, OSError) as error:
        print("kafka-server-start: log4j configuration: %s; logging to stdout" % error, file=sys.stderr)
        log4j.configure(log4j.parse(CONSOLE_ONLY), sys.stdout, sys.stderr)


CONSOLE_ONLY = """log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.zookeeper=WARN
"""


def parse_overrides(values):
    overrides = {}
    for value in values:
        if "=" not in value:
            raise ConfigError("Invalid override %r: expected key=value" % value)
        key, _, item = value.partition("=")
        overrides[key.strip()] = item.strip()
    return overrides


def build_parser():
    parser = argparse.ArgumentParser(
        prog="kafka-server-start", description="Start a kafka-zk broker from a server.properties file."
    )
    parser.add_argument("config", metavar="server.properties", help="the broker configuration file")
    parser.add_argument(
        "--override", action="append", default=[], metavar="key=value", help="override a property from the file"
    )
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    configure_logging()
    try:
        config = KafkaConfig.from_file(args.config, parse_overrides(args.override))
    except (ConfigError, OSError) as error:
        print("kafka-server-start: %s" % error, file=sys.stderr)
        return 1

    from kafka_zk.security.zk_login import ZkSecurityError, broker_zk_security
    from kafka_zk.security.zk_tls import ZK_TLS_CONFIG_NAMES
    from kafka_zk.zk.client import KafkaZkClient

    try:
        zk_security = broker_zk_security(
            config["zookeeper.set.acl"], os.environ, {name: config.get(name) for name in ZK_TLS_CONFIG_NAMES}
        )
    except ZkSecurityError as error:
        logging.getLogger(__name__).error("Fatal error during KafkaServer startup. Prepare to shutdown: %s", error)
        print("kafka-server-start: %s" % error, file=sys.stderr)
        return 1

    from twisted.internet import reactor

    from kafka_zk.server import gc_policy
    from kafka_zk.server.kafka_server import KafkaServer

    gc_policy.install(reactor)

    server = KafkaServer(config, reactor, zk_client_factory=functools.partial(KafkaZkClient, security=zk_security))
    exit_code = [0]

    def failed(failure):
        exit_code[0] = 1
        print("kafka-server-start: broker failed to start: %s" % failure.getErrorMessage(), file=sys.stderr)
        reactor.stop()

    def start():
        server.startService()
        server.started.addCallbacks(lambda _: gc_policy.freeze_startup_objects(), failed)

    reactor.callWhenRunning(start)
    reactor.addSystemEventTrigger("before", "shutdown", server.stopService)
    run_reactor(reactor, config["broker.id"])
    # Everything is written and synced by now (stopService closed the logs and wrote the clean-shutdown
    # markers); tearing down the interpreter's objects for thousands of partitions would take seconds more.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exit_code[0] or server.exit_code)


def run_reactor(reactor, broker_id, environ=None):
    """reactor.run(); with $KAFKA_ZK_PROFILE naming a folder, under cProfile (the reactor thread's CPU time), written
    to <folder>/broker-<id>.prof once the reactor has stopped (a clean stop: SIGTERM). So that a benchmark can
    profile one run of a long-lived broker, SIGUSR2 starts the profile afresh and SIGUSR1 stops gathering."""
    folder = (os.environ if environ is None else environ).get(PROFILE_VARIABLE)
    if not folder:
        reactor.run()
        return
    import cProfile
    import signal
    import time

    profiler = cProfile.Profile(time.thread_time)  # CPU time: waiting in epoll is not the broker's work

    def start_afresh(signum, frame):
        profiler.clear()
        profiler.enable()

    signal.signal(signal.SIGUSR2, start_afresh)
    signal.signal(signal.SIGUSR1, lambda signum, frame: profiler.disable())
    profiler.enable()
    try:
        reactor.run()
    finally:
        profiler.disable()
        os.makedirs(folder, exist_ok=True)
        profiler.dump_stats(os.path.join(folder, "broker-%s.prof" % broker_id))


def build_stop_parser():
    return argparse.ArgumentParser(
        prog="kafka-server-stop",
        description="Stop every kafka-zk broker on this machine with SIGTERM (a clean "
        "shutdown), as Kafka's kafka-server-stop.sh does.",
    )


def stop_main(argv=None):
    """kafka-server-stop: a clean shutdown (SIGTERM) of every kafka-zk broker on this machine."""
    import signal

    build_stop_parser().parse_args(argv)  # takes no arguments: --help and anything else stop here

    from zookeeper.launcher import process_running

    pids = [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and int(entry) != os.getpid() and process_running(int(entry), "kafka_zk.server.main")
    ]
    if not pids:
        print("No kafka server to stop")
        return 1
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    return 0


if __name__ == "__main__":
    sys.exit(main())
