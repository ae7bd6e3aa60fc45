"""A local cluster on this machine: one real ZooKeeper and N broker processes, their configs and pids."""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.tools.console_process import ConsoleProcess
from kafka_zk.tools.secure_cluster import INTERNAL_PORT_OFFSET, SecureCluster
from zookeeper.launcher import ZooKeeperError, ZooKeeperServer, live_pid, process_running, wait_for_exit

DEFAULT_DATA = "data"
DEFAULT_ZK_PORT = 2181
DEFAULT_BASE_PORT = 9092
DEFAULT_METRICS_PORT = 9404  # the Prometheus JMX exporter's customary port
DEFAULT_CONSOLE_PORT = 9000
STARTED_MARK = "] started (kafka_zk.server.kafka_server)"
BROKER_MAIN = "kafka_zk.server.main"
METADATA_API_KEY = 3
# Kafka 2.5's defaults for its internal topics (KafkaConfig): three replicas, so they need three brokers.
PRODUCTION_INTERNAL_TOPICS = {"offsets.topic.replication.factor": "3",
                              "transaction.state.log.replication.factor": "3",
                              "transaction.state.log.min.isr": "2"}
SINGLE_REPLICA_INTERNAL_TOPICS = {"offsets.topic.replication.factor": "1",
                                  "transaction.state.log.replication.factor": "1",
                                  "transaction.state.log.min.isr": "1"}
INTERNAL_TOPIC_FACTORS = {"__consumer_offsets": "offsets.topic.replication.factor",
                          "__transaction_state": "transaction.state.log.replication.factor"}


class ClusterError(RuntimeError):
    pass


class BrokerProcess:
    """One broker process with its own folder: server.properties, logs/, server.log and broker.pid."""

    def __init__(self, broker_id, folder, port, zk_connect, host="127.0.0.1", overrides=None, metrics_port=None):
        """``metrics_port``: where the broker serves its Prometheus metrics (None: not served)."""
        self.broker_id = broker_id
        self.metrics_port = metrics_port
        self.folder = Path(folder).resolve()
        self.port = port
        self.host = host
        self.zk_connect = zk_connect
        self.overrides = dict(overrides or {})
        self.client_properties = {}  # what a client needs to talk to this broker (security.protocol, sasl.*, ...)
        self.environment = {}  # added to the broker process's environment (e.g. KAFKA_OPTS naming a JAAS file)
        self._process = None

    @property
    def config_path(self):
        return self.folder / "server.properties"

    @property
    def log_file(self):
        return self.folder / "server.log"

    def log_path(self, name):
        """One of the broker's log4j files (its LOG_DIR is its folder): "controller.log", "state-change.log",
        "log-cleaner.log", "kafka-request.log", "kafka-authorizer.log" (server.log: ``log_file``)."""
        return self.folder / name

    @property
    def pid_file(self):
        return self.folder / "broker.pid"

    @property
    def log_dir(self):
        return self.folder / "logs"

    @property
    def bootstrap(self):
        return "%s:%d" % (self.host, self.port)

    @property
    def metrics_url(self):
        return None if self.metrics_port is None else "http://%s:%d/metrics" % (self.host, self.metrics_port)

    def properties(self):
        props = {
            "broker.id": str(self.broker_id),
            "listeners": "PLAINTEXT://%s:%d" % (self.host, self.port),
            "log.dirs": str(self.log_dir),
            "zookeeper.connect": self.zk_connect,
            "num.partitions": "1",
            "default.replication.factor": "1",
            "offsets.topic.replication.factor": "1",
            "group.initial.rebalance.delay.ms": "0",
        }
        if self.metrics_port is not None:
            props["metrics.prometheus.listener"] = "http://%s:%d" % (self.host, self.metrics_port)
        # "{folder}" in an override stands for this broker's folder (e.g. log.dirs={folder}/a,{folder}/b).
        # "{port}": this broker's port (e.g. listeners=SASL_PLAINTEXT://127.0.0.1:{port}).
        props.update({key: str(value).replace("{folder}", str(self.folder)).replace("{port}", str(self.port))
                      for key, value in self.overrides.items()})
        return props

    def written_properties(self):
        """The properties of this broker's server.properties as last written (what it runs or last ran with)."""
        try:
            text = self.config_path.read_text()
        except OSError:
            return {}
        pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
        return {key.strip(): value.strip() for key, value in pairs}

    @property
    def log_dirs(self):
        """Every directory of this broker's log.dirs, as Paths."""
        return [Path(d.strip()) for d in self.properties()["log.dirs"].split(",") if d.strip()]

    def write_config(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        lines = ["# generated by kafka-zk local-cluster for broker %d" % self.broker_id]
        lines += ["%s=%s" % item for item in self.properties().items()]
        self.config_path.write_text("\n".join(lines) + "\n")

    def command(self):
        return [sys.executable, "-m", BROKER_MAIN, str(self.config_path)]

    def pid(self):
        return live_pid(self._process, self.pid_file, lambda pid: process_running(pid, BROKER_MAIN))

    def is_running(self):
        return self.pid() is not None

    def start(self, wait=True, timeout=60.0):
        if self.is_running():
            raise ClusterError("broker %d is already running (pid %d)" % (self.broker_id, self.pid()))
        self.write_config()
        offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        with open(self.log_file, "ab") as log:
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                cwd=str(self.folder), env={**os.environ, "LOG_DIR": str(self.folder), **self.environment})
        self.pid_file.write_text("%d\n" % self._process.pid)
        if wait:
            self.wait_started(offset, timeout)
            self.wait_serving([self.broker_id], timeout)
        return self

    def wait_started(self, log_offset=0, timeout=60.0):
        deadline = time.monotonic() + timeout
        while True:
            with open(self.log_file, "rb") as handle:
                handle.seek(log_offset)
                if STARTED_MARK.encode() in handle.read():
                    return
            if not self.is_running():
                raise ClusterError("broker %d exited during startup; log tail:\n%s"
                                   % (self.broker_id, self.log_tail()))
            if time.monotonic() > deadline:
                raise ClusterError("broker %d not started after %.0fs; log tail:\n%s"
                                   % (self.broker_id, timeout, self.log_tail()))
            time.sleep(0.05)

    def wait_serving(self, broker_ids, timeout=60.0):
        """Wait until this broker's metadata (from the controller) lists every broker in broker_ids."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                connection = BrokerConnection(self.host, self.port, timeout=5, security=self.client_properties)
                try:
                    response = connection.request(METADATA_API_KEY, {"topics": []}, version=1)
                finally:
                    connection.close()
                if set(broker_ids) <= {broker["node_id"] for broker in response["brokers"]}:
                    return
            except KafkaClientError:
                pass
            if not self.is_running():
                raise ClusterError("broker %d exited; log tail:\n%s" % (self.broker_id, self.log_tail()))
            if time.monotonic() > deadline:
                raise ClusterError("broker %d does not see brokers %s after %.0fs"
                                   % (self.broker_id, sorted(broker_ids), timeout))
            time.sleep(0.05)

    def signal(self, signum):
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signum)
        return pid

    def stop(self, timeout=60.0, already_signalled=False):
        """Clean shutdown (SIGTERM), waiting for the process to exit; SIGKILL after timeout."""
        pid = self.pid() if already_signalled else self.signal(signal.SIGTERM)
        if pid is not None and not self._wait_exit(pid, timeout):
            os.kill(pid, signal.SIGKILL)
            self._wait_exit(pid, 10)
        self._forget()

    def kill(self):
        pid = self.signal(signal.SIGKILL)
        if pid is not None:
            self._wait_exit(pid, 10)
        self._forget()

    def _wait_exit(self, pid, timeout):
        return wait_for_exit(pid, timeout, self._process, BROKER_MAIN)

    def _forget(self):
        self._process = None
        self.pid_file.unlink(missing_ok=True)

    def log_tail(self, lines=40):
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def internal_topic_settings(brokers):
    """Kafka's production settings for __consumer_offsets and __transaction_state on a cluster of three brokers
    or more; one replica each on a smaller one, where three cannot be placed."""
    return dict(PRODUCTION_INTERNAL_TOPICS if brokers >= 3 else SINGLE_REPLICA_INTERNAL_TOPICS)


def thinly_replicated_internal_topics(broker):
    """{internal topic: replicas} for each internal topic that this broker's metadata shows with fewer replicas
    than its config asks for: created before the setting, e.g. by an older cluster in the same data dir."""
    try:
        connection = BrokerConnection(broker.host, broker.port, timeout=5, security=broker.client_properties)
        try:
            response = connection.request(METADATA_API_KEY, {"topics": None}, version=1)
        finally:
            connection.close()
    except KafkaClientError:
        return {}
    wanted = broker.properties()
    thin = {}
    for topic in response["topics"]:
        setting = INTERNAL_TOPIC_FACTORS.get(topic["name"])
        if setting is None or not topic["partitions"]:
            continue
        replicas = min(len(partition["replica_nodes"]) for partition in topic["partitions"])
        if replicas < int(wanted.get(setting, PRODUCTION_INTERNAL_TOPICS[setting])):
            thin[topic["name"]] = replicas
    return thin


def rack_of(broker_id, racks):
    """{"broker.rack": "rack-<id mod racks>"}, or nothing without racks."""
    return {"broker.rack": "rack-%d" % (broker_id % racks)} if racks else {}


class LocalCluster:
    def __init__(self, data_dir=DEFAULT_DATA, brokers=3, zk_port=DEFAULT_ZK_PORT, base_port=DEFAULT_BASE_PORT,
                 host="127.0.0.1", overrides=None, broker_ports=None, zk_connect=None, racks=None, secure=False,
                 internal_ports=None, metrics_ports=None, console_port=None):
        """With zk_connect the cluster uses that ZooKeeper (e.g. a test's chroot) instead of its own; with
        ``racks`` R, broker i sets broker.rack=rack-<i mod R>. ``secure``: see secure_cluster.SecureCluster (its
        inter-broker SSL listeners on ``internal_ports``, by default base port + 100 + i). ``metrics_ports``: each
        broker's Prometheus port (None: no metrics endpoint). ``console_port``: where the web console serves (None:
        no console)."""
        self.data_dir = Path(data_dir).resolve()
        self.host = host
        self.security = SecureCluster(self.data_dir / "secure", host) if secure else None
        self.zookeeper = (None if zk_connect else
                          ZooKeeperServer(self.data_dir / "zookeeper", port=zk_port, host=host,
                                          sasl_users=self.security.zookeeper_users() if secure else None))
        self.zk_connect = zk_connect or self.zookeeper.connect_string
        ports = broker_ports or [base_port + index for index in range(brokers)]
        self.brokers = [BrokerProcess(index, self.data_dir / ("broker-%d" % index), ports[index],
                                      self.zk_connect, host, dict(overrides or {}, **rack_of(index, racks)),
                                      metrics_port=metrics_ports[index] if metrics_ports else None)
                        for index in range(brokers)]
        if secure:
            internal = internal_ports or [ports[0] + INTERNAL_PORT_OFFSET + index for index in range(brokers)]
            for broker, internal_port in zip(self.brokers, internal):
                self.security.prepare(broker, internal_port)
        self.console = None
        if console_port:
            self.console = ConsoleProcess(
                self.data_dir / "console", console_port, self.zk_connect, self.bootstrap_servers,
                [broker.metrics_url for broker in self.brokers], host=host,
                command_config=self.security.material.properties_file("admin") if secure else None,
                environment={"KAFKA_OPTS": self.security.kafka_opts} if secure else None)

    @property
    def bootstrap_servers(self):
        return ",".join(broker.bootstrap for broker in self.brokers)

    def broker(self, broker_id):
        for broker in self.brokers:
            if broker.broker_id == broker_id:
                return broker
        raise ClusterError("no broker %d in this cluster" % broker_id)

    def start(self, timeout=60.0, progress=None):
        """Start what is not running and wait until every broker serves metadata; ``progress(line)`` hears
        each step."""
        say = progress or (lambda line: None)
        if self.zookeeper is not None and not self.zookeeper.is_running():
            say("starting ZooKeeper on %s" % self.zookeeper.connect_string)
            self.zookeeper.start()
            say("ZooKeeper is serving (pid %d)" % self.zookeeper.pid())
        if self.security is not None:
            for user in self.security.create_users(self.zk_connect):
                say("created SCRAM user %s" % user)
        offsets = {}
        for broker in self.brokers:
            if not broker.is_running():
                offsets[broker.broker_id] = broker.log_file.stat().st_size if broker.log_file.exists() else 0
                say("starting broker %d on %s" % (broker.broker_id, broker.bootstrap))
                broker.start(wait=False)
        for broker in self.brokers:
            if broker.broker_id in offsets:
                broker.wait_started(offsets[broker.broker_id], timeout)
                say("broker %d started (pid %d)" % (broker.broker_id, broker.pid()))
        ids = [broker.broker_id for broker in self.brokers]
        for broker in self.brokers:
            broker.wait_serving(ids, timeout)
        say("every broker serves metadata of brokers %s" % ",".join(map(str, ids)))
        if self.console is not None and not self.console.is_running():
            try:  # the cluster serves without its console (e.g. when the console's port is taken)
                self.console.start()
                say("console serving on %s (pid %d)" % (self.console.url, self.console.pid()))
            except RuntimeError as error:
                say("warning: %s" % error)
        return self

    def stop(self, progress=None):
        say = progress or (lambda line: None)
        if self.console is not None and self.console.is_running():
            say("stopping the console")
            self.console.stop()
        for broker in self.brokers:
            if broker.is_running():
                say("stopping broker %d (controlled shutdown)" % broker.broker_id)
            broker.signal(signal.SIGTERM)
        for broker in self.brokers:
            broker.stop(already_signalled=True)
        if self.zookeeper is not None:
            if self.zookeeper.is_running():
                say("stopping ZooKeeper")
            self.zookeeper.stop()

    def kill(self):
        if self.console is not None:
            self.console.stop(timeout=1.0)
        for broker in self.brokers:
            broker.kill()
        if self.zookeeper is not None:
            self.zookeeper.kill()

    def status_lines(self):
        """One line for its own ZooKeeper (none on another's) and one per broker: address, rack, state."""
        lines = []
        if self.zookeeper is not None:
            lines.append("zookeeper %s: %s" % (self.zookeeper.connect_string,
                                               "running (pid %d)" % self.zookeeper.pid()
                                               if self.zookeeper.is_running() else "stopped"))
        for broker in self.brokers:
            state = "running (pid %d)" % broker.pid() if broker.is_running() else "stopped"
            lines.append("%s: %s" % (_described(broker), state))
        if self.console is not None:
            lines.append(self.console.status_line())
        return lines


def _described(broker):
    """"broker 1 127.0.0.1:9093", plus ", rack rack-1" when its server.properties sets broker.rack."""
    rack = broker.written_properties().get("broker.rack")
    return "broker %d %s%s" % (broker.broker_id, broker.bootstrap, ", rack %s" % rack if rack else "")


def build_parser():
    parser = argparse.ArgumentParser(prog="local-cluster.sh",
                                     description="Run ZooKeeper and kafka-zk brokers on localhost.")
    parser.add_argument("--data", default=os.environ.get("KAFKA_ZK_DATA", DEFAULT_DATA),
                        help="folder for data and logs (default ./data)")
    parser.add_argument("--brokers", type=int, default=3, help="how many brokers (default 3)")
    parser.add_argument("--racks", type=int,
                        help="place broker i in rack rack-<i mod RACKS> (broker.rack); 1 to --brokers")
    parser.add_argument("--zk-port", type=int, default=DEFAULT_ZK_PORT, help="ZooKeeper port (default 2181)")
    parser.add_argument("--base-port", type=int, default=DEFAULT_BASE_PORT,
                        help="port of broker 0; broker N listens on base+N (default 9092)")
    parser.add_argument("--metrics-port", type=int, default=DEFAULT_METRICS_PORT,
                        help="broker N serves its Prometheus metrics on http://127.0.0.1:<port+N>/metrics "
                             "(default 9404)")
    parser.add_argument("--console-port", type=int, default=DEFAULT_CONSOLE_PORT,
                        help="the web console's port: http://127.0.0.1:<port>/ (default 9000; 0: no console)")
    parser.add_argument("--secure", action="store_true",
                        help="SASL_SSL client listeners (SCRAM and PLAIN), SSL between brokers, ACLs, SCRAM users "
                             "admin and alice, ZooKeeper ACLs; certificates and client properties in DATA/secure")
    parser.add_argument("--daemon", action="store_true", help="return once everything is serving")
    parser.add_argument("command", nargs="*", help="start (default) | stop | status | broker ID start|stop|kill")
    return parser


def parse_args(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.brokers < 1:
        parser.error("--brokers must be at least 1, not %d" % args.brokers)
    if args.racks is not None and not 1 <= args.racks <= args.brokers:
        parser.error("--racks must be from 1 to the number of brokers (%d), not %d" % (args.brokers, args.racks))
    return args


def cluster_settings(args):
    """The LocalCluster settings of the cluster a command line describes: brokers, racks, internal topics."""
    return {"brokers": args.brokers, "racks": args.racks, "overrides": internal_topic_settings(args.brokers),
            "secure": args.secure,
            "metrics_ports": [args.metrics_port + index for index in range(args.brokers)],
            "console_port": args.console_port or None}


def main(argv=None):
    args = parse_args(argv)
    cluster = LocalCluster(args.data, zk_port=args.zk_port, base_port=args.base_port, **cluster_settings(args))
    command = args.command or ["start"]
    try:
        if command[0] == "start":
            return _start(cluster, args.daemon)
        if command[0] == "stop":
            cluster.stop(progress=_progress)
            print("stopped")
            return 0
        if command[0] == "status":
            print("\n".join(cluster.status_lines()))
            return 0 if cluster.zookeeper.is_running() else 3
        if command[0] == "broker" and len(command) == 3 and command[2] in ("start", "stop", "kill"):
            broker = cluster.broker(int(command[1]))
            getattr(broker, command[2])()
            print("broker %d: %s" % (broker.broker_id, {"start": "started", "stop": "stopped",
                                                        "kill": "killed"}[command[2]]))
            return 0
    except (ClusterError, ZooKeeperError, ValueError) as error:
        print("local-cluster: %s" % error, file=sys.stderr)
        return 1
    build_parser().print_usage(sys.stderr)
    return 2


def _progress(line):
    print(line, flush=True)


def _start(cluster, daemon):
    cluster.start(progress=_progress)
    print("ZooKeeper: %s" % cluster.zookeeper.connect_string)
    for broker in cluster.brokers:
        print("%s (log %s)" % (_described(broker), broker.log_file))
    print("bootstrap servers: %s" % cluster.bootstrap_servers)
    for broker in cluster.brokers:
        if broker.metrics_url:
            print("broker %d metrics: %s" % (broker.broker_id, broker.metrics_url))
    if cluster.console is not None and cluster.console.is_running():
        print("console: %s" % cluster.console.url)
    if cluster.security is not None:
        for line in cluster.security.summary_lines():
            print(line)
    for topic, replicas in thinly_replicated_internal_topics(cluster.brokers[0]).items():
        print("note: %s has %d replica(s) per partition, fewer than server.properties asks for: it was made "
              "before that setting, which shapes only new topics (add replicas with "
              "scripts/kafka-reassign-partitions.sh, or start on an empty --data folder)" % (topic, replicas))
    if cluster.security is not None:
        print("try: scripts/kafka-topics.sh --bootstrap-server %s --command-config %s --list"
              % (cluster.brokers[0].bootstrap, cluster.security.material.properties_file("admin")))
    else:
        print("try: scripts/kafka-topics.sh --bootstrap-server %s --list" % cluster.brokers[0].bootstrap)
    if daemon:
        return 0
    print("serving in the foreground; Ctrl-C stops everything")
    stopping = []

    def request_stop(signum, frame):
        stopping.append(signum)

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    while not stopping:
        signal.pause()
    print("stopping...")
    cluster.stop(progress=_progress)
    print("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
