"""A local cluster on this machine: real ZooKeeper servers and N broker processes, their configs and pids, on
127.0.0.1 or each on a host of its own (a network namespace, kafka_zk.tools.hosts)."""

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import KafkaClientError
from kafka_zk.tools.broker_process import METADATA_API_KEY, BrokerProcess, ClusterError
from kafka_zk.tools.console_process import ConsoleProcess
from kafka_zk.tools.hosts import CLIENT, DEFAULT_SUBNET, DEFAULT_TAG, HostError, Hosts
from kafka_zk.tools.kerberos_cluster import DEFAULT_KDC_PORT, KerberosCluster
from kafka_zk.tools.reference_broker import HEAP, KAFKA_VERSION, ReferenceBrokerProcess
from kafka_zk.tools.secure_cluster import INTERNAL_PORT_OFFSET, SecureCluster
from zookeeper.launcher import (
    EnsembleMember,
    ZooKeeperEnsemble,
    ZooKeeperError,
    ZooKeeperServer,
    loopback_members,
)

DEFAULT_DATA = "data"
DEFAULT_ZK_PORT = 2181
DEFAULT_BASE_PORT = 9092
DEFAULT_METRICS_PORT = 9404  # the Prometheus JMX exporter's customary port
DEFAULT_CONSOLE_PORT = 9000
# On hosts of their own every server keeps its customary ports.
HOSTS_BROKER_PORT = 9092
QUORUM_PORT, ELECTION_PORT = 2888, 3888
LAYOUT_FILE = "layout.json"
# Kafka 2.5's defaults for its internal topics (KafkaConfig): three replicas, so they need three brokers.
PRODUCTION_INTERNAL_TOPICS = {
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}
SINGLE_REPLICA_INTERNAL_TOPICS = {
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
}
INTERNAL_TOPIC_FACTORS = {
    "__consumer_offsets": "offsets.topic.replication.factor",
    "__transaction_state": "transaction.state.log.replication.factor",
}


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
    def __init__(
        self,
        data_dir=DEFAULT_DATA,
        brokers=3,
        zk_port=DEFAULT_ZK_PORT,
        base_port=DEFAULT_BASE_PORT,
        host="127.0.0.1",
        overrides=None,
        broker_ports=None,
        zk_connect=None,
        racks=None,
        secure=False,
        internal_ports=None,
        metrics_ports=None,
        console_port=None,
        zookeepers=1,
        hosts=None,
        zookeeper_config=None,
        kafka_brokers=0,
        kerberos=False,
        kdc_port=DEFAULT_KDC_PORT,
    ):
        """With zk_connect the cluster uses that ZooKeeper (e.g. a test's chroot) instead of its own; with
        ``racks`` R, broker i sets broker.rack=rack-<i mod R>. ``secure``: see secure_cluster.SecureCluster (its
        inter-broker SSL listeners on ``internal_ports``, by default base port + 100 + i). ``metrics_ports``: each
        broker's Prometheus port (None: no metrics endpoint). ``console_port``: where the web console serves (None:
        no console). ``zookeepers``: how many ZooKeeper servers (1, 3 or 5; more than one make an ensemble).
        ``hosts`` (a kafka_zk.tools.hosts.Hosts): every ZooKeeper server (zk-1..) and broker (broker-0..) on a host
        of its own, each on its customary ports at its own address; the console stays on ``client``.
        ``zookeeper_config``: zoo.cfg settings for its own ZooKeeper servers (e.g. {"tickTime": "500"}).
        ``kafka_brokers`` K: the last K brokers run Apache Kafka 2.5.1 in a JVM (reference_broker), the others kafka-zk;
        one cluster, one ZooKeeper, the same ports and folders. ``kerberos`` (with ``secure``): a KDC of its own on
        ``kdc_port`` and GSSAPI on the client listeners (kerberos_cluster.KerberosCluster)."""
        if not 0 <= kafka_brokers <= brokers:
            raise ClusterError(
                "kafka_brokers must be from 0 to the number of brokers (%d), not %d" % (brokers, kafka_brokers)
            )
        if kafka_brokers and secure:
            raise ClusterError("Apache Kafka brokers in a secure cluster are not supported: start it without --secure")
        if kerberos and (not secure or hosts is not None):
            raise ClusterError("kerberos needs a secure cluster on one host (--secure --kerberos, without --hosts)")
        if secure and zk_connect:
            raise ClusterError("a secure cluster runs its own ZooKeeper, on TLS alone: give it no zk_connect")
        self.data_dir = Path(data_dir).resolve()
        self.host = host
        self.hosts = hosts
        if hosts is not None:
            broker_hosts = [hosts.address("broker-%d" % index) for index in range(brokers)]
            ports = broker_ports or [HOSTS_BROKER_PORT] * brokers
            metrics_ports = metrics_ports and [metrics_ports[0]] * brokers
            internal_ports = internal_ports or [HOSTS_BROKER_PORT + INTERNAL_PORT_OFFSET] * brokers
            prefixes = [hosts.command_prefix("broker-%d" % index) for index in range(brokers)]
        else:
            broker_hosts = [host] * brokers
            ports = broker_ports or [base_port + index for index in range(brokers)]
            prefixes = [()] * brokers
        # The broker certificate is also ZooKeeper's (its TLS client port): it names the ZooKeeper hosts too.
        zookeeper_hosts = [hosts.address("zk-%d" % n) for n in range(1, zookeepers + 1)] if hosts is not None else []
        self.security = (
            SecureCluster(self.data_dir / "secure", host, extra_hosts=broker_hosts + zookeeper_hosts)
            if secure
            else None
        )
        self.zookeeper = None if zk_connect else self._zookeeper(zookeepers, zk_port, zookeeper_config)
        self.zk_connect = zk_connect or self.zookeeper.connect_string
        self.brokers = [
            (ReferenceBrokerProcess if index >= brokers - kafka_brokers else BrokerProcess)(
                index,
                self.data_dir / ("broker-%d" % index),
                ports[index],
                self.zk_connect,
                broker_hosts[index],
                dict(overrides or {}, **rack_of(index, racks)),
                metrics_port=metrics_ports[index] if metrics_ports and index < brokers - kafka_brokers else None,
                command_prefix=prefixes[index],
            )
            for index in range(brokers)
        ]
        if secure:
            internal = internal_ports or [ports[0] + INTERNAL_PORT_OFFSET + index for index in range(brokers)]
            for broker, internal_port in zip(self.brokers, internal):
                self.security.prepare(broker, internal_port)
        self.kerberos = KerberosCluster(self.data_dir / "secure", host, kdc_port) if kerberos else None
        for broker in self.brokers if self.kerberos is not None else ():
            self.kerberos.prepare(broker)
        self.console = None
        if console_port:
            self.console = ConsoleProcess(
                self.data_dir / "console",
                console_port,
                self.zk_connect,
                self.bootstrap_servers,
                [broker.metrics_url for broker in self.brokers],
                host=host,
                command_config=self.security.material.properties_file("admin") if secure else None,
                environment={"KAFKA_OPTS": self.security.kafka_opts} if secure else None,
                zk_tls_config_file=self.security.material.zk_tls_properties if secure else None,
            )

    def _zookeeper(self, count, port, config):
        """The cluster's own ZooKeeper: one server, or an ensemble of ``count`` (each member on a host of its own,
        or on 127.0.0.1 with ports port+i, 2888+i, 3888+i)."""
        tls = self.security.zookeeper_tls() if self.security is not None else None
        folder = self.data_dir / "zookeeper"
        if count == 1:
            host, prefix = (
                (self.hosts.address("zk-1"), self.hosts.command_prefix("zk-1"))
                if self.hosts is not None
                else (self.host, ())
            )
            return ZooKeeperServer(folder, port=port, host=host, tls=tls, extra_config=config, command_prefix=prefix)
        if self.hosts is not None:
            members = [
                EnsembleMember(
                    self.hosts.address("zk-%d" % number),
                    port,
                    QUORUM_PORT,
                    ELECTION_PORT,
                    tuple(self.hosts.command_prefix("zk-%d" % number)),
                )
                for number in range(1, count + 1)
            ]
        else:
            members = loopback_members(count, port, QUORUM_PORT, ELECTION_PORT, self.host)
        return ZooKeeperEnsemble(folder, members, extra_config=config, tls=tls)

    def zookeeper_member(self, number):
        """ZooKeeper server ``number`` (1..) of the cluster's own."""
        servers = list(self.zookeeper_servers().values())
        if not 1 <= number <= len(servers):
            raise ClusterError("no ZooKeeper server %d: this cluster has %d" % (number, len(servers)))
        return servers[number - 1]

    def zookeeper_servers(self):
        """The cluster's own ZooKeeper servers, by host name (zk-1..) or connect string."""
        if self.zookeeper is None:
            return {}
        servers = [self.zookeeper] if isinstance(self.zookeeper, ZooKeeperServer) else self.zookeeper.servers
        return {
            ("zk-%d" % number if self.hosts is not None else server.connect_string): server
            for number, server in enumerate(servers, 1)
        }

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
        if self.hosts is not None:
            names = list(self.zookeeper_servers()) + ["broker-%d" % broker.broker_id for broker in self.brokers]
            for created in self.hosts.create(names):
                say("host %s: %s" % (created.name, created.address))
        if self.zookeeper is not None and not self.zookeeper.is_running():
            say("starting ZooKeeper on %s" % self.zookeeper.connect_string)
            self.zookeeper.start()
            say(
                "ZooKeeper is serving (%s)"
                % ", ".join(
                    "%s pid %d" % (name, server.pid())
                    for name, server in self.zookeeper_servers().items()
                    if server.is_running()
                )
            )
        if self.security is not None:
            for user in self.security.create_users(self.zk_connect):
                say("created SCRAM user %s" % user)
        if self.kerberos is not None:
            if self.kerberos.start():
                say("Kerberos KDC serving on %s:%d" % (self.host, self.kerberos.kdc.port))
            self.kerberos.write_client_properties(self.security.material.properties_file("alice"))
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
        if self.kerberos is not None:
            if self.kerberos.kdc.running:
                say("stopping the Kerberos KDC")
            self.kerberos.stop()
        if self.zookeeper is not None:
            if self.zookeeper.is_running():
                say("stopping ZooKeeper")
            self.zookeeper.stop()
        if self.hosts is not None:
            for removed in self.hosts.destroy():
                say("removed %s" % removed)

    def kill(self):
        if self.console is not None:
            self.console.stop(timeout=1.0)
        for broker in self.brokers:
            broker.kill()
        if self.kerberos is not None:
            self.kerberos.stop()
        if self.zookeeper is not None:
            self.zookeeper.kill()
        if self.hosts is not None:
            self.hosts.destroy()

    def status_lines(self):
        """One line per ZooKeeper server of its own (none on another's) and per broker: where, rack, state; on hosts
        of their own, one line per host first, and the faults in force."""
        lines = []
        if self.hosts is not None:
            existing = {host.name: host for host in self.hosts.existing()}
            runs = {name: "ZooKeeper" for name in self.zookeeper_servers()}
            runs.update({"broker-%d" % broker.broker_id: "broker %d" % broker.broker_id for broker in self.brokers})
            runs[CLIENT] = "clients, tools" + (", the console" if self.console is not None else "")
            for name in [CLIENT] + list(runs)[:-1]:
                host = existing.get(name)
                lines.append("host %-9s %s: %s" % (name, host.address if host else "(absent)", runs[name]))
        for server in self.zookeeper_servers().values():
            state = "running (pid %d)" % server.pid() if server.is_running() else "stopped"
            mode = server.mode() if server.is_running() else None
            lines.append("zookeeper %s: %s%s" % (server.connect_string, state, ", %s" % mode if mode else ""))
        for broker in self.brokers:
            state = "running (pid %d)" % broker.pid() if broker.is_running() else "stopped"
            lines.append("%s: %s" % (_described(broker), state))
        if self.console is not None:
            lines.append(self.console.status_line())
        if self.kerberos is not None:
            lines.append(self.kerberos.status_line())
        if self.hosts is not None:
            lines += ["fault: %s" % fault for fault in self.hosts.faults()]
        return lines


def _described(broker):
    """ "broker 1 127.0.0.1:9093 (kafka-zk)" or "(Apache Kafka 2.5.1)", with ", rack rack-1" when its
    server.properties sets broker.rack."""
    rack = broker.written_properties().get("broker.rack")
    return "broker %d %s (%s%s)" % (broker.broker_id, broker.bootstrap, broker.kind, ", rack %s" % rack if rack else "")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="local-cluster.sh",
        description="Run ZooKeeper and kafka-zk brokers on localhost or on hosts of their own (network namespaces).",
    )
    parser.add_argument(
        "--data",
        default=os.environ.get("KAFKA_ZK_DATA", DEFAULT_DATA),
        help="folder for data and logs (default ./data)",
    )
    parser.add_argument("--brokers", type=int, help="how many brokers (default 3)")
    parser.add_argument(
        "--kafka-brokers",
        type=int,
        help="run the last K of the brokers as Apache Kafka %s's own broker (a JVM, heap %s) on the same "
        "ZooKeeper, ports and folders (default 0; the jars come from tests/reference/pom.xml)"
        % (KAFKA_VERSION, " ".join(HEAP)),
    )
    parser.add_argument(
        "--racks", type=int, help="place broker i in rack rack-<i mod RACKS> (broker.rack); 1 to --brokers"
    )
    parser.add_argument(
        "--zookeepers",
        type=int,
        choices=(1, 3, 5),
        help="how many ZooKeeper servers: 1 (default), or an ensemble of 3 or 5",
    )
    parser.add_argument(
        "--hosts",
        action="store_true",
        default=None,
        help="each ZooKeeper server (zk-1..) and broker (broker-0..) on a host of its own: a network "
        "namespace on one bridge, addresses from %s.0/24; this shell is the host client "
        "(needs root)" % DEFAULT_SUBNET,
    )
    parser.add_argument(
        "--hosts-net",
        metavar="TAG:A.B.C",
        help="with --hosts: the namespaces' name prefix and the /24 they take addresses from "
        "(default %s:%s)" % (DEFAULT_TAG, DEFAULT_SUBNET),
    )
    parser.add_argument("--zk-port", type=int, default=DEFAULT_ZK_PORT, help="ZooKeeper port (default 2181)")
    parser.add_argument(
        "--base-port",
        type=int,
        default=DEFAULT_BASE_PORT,
        help="port of broker 0; broker N listens on base+N (default 9092; with --hosts every broker "
        "listens on 9092 at its own address)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=DEFAULT_METRICS_PORT,
        help="broker N serves its Prometheus metrics on http://127.0.0.1:<port+N>/metrics "
        "(default 9404; with --hosts on each broker's own address)",
    )
    parser.add_argument(
        "--console-port",
        type=int,
        default=DEFAULT_CONSOLE_PORT,
        help="the web console's port: http://127.0.0.1:<port>/ (default 9000; 0: no console)",
    )
    parser.add_argument(
        "--secure",
        action="store_true",
        default=None,
        help="SASL_SSL client listeners (SCRAM and PLAIN), SSL between brokers, ACLs, SCRAM users "
        "admin and alice, ZooKeeper ACLs; certificates and client properties in DATA/secure",
    )
    parser.add_argument(
        "--kerberos",
        action="store_true",
        default=None,
        help="with --secure: a Kerberos KDC of its own (realm KAFKA.LOCAL, port %d) and GSSAPI on the client "
        "listeners; krb5.conf, keytabs and <user>-gssapi.properties in DATA/secure" % DEFAULT_KDC_PORT,
    )
    parser.add_argument("--daemon", action="store_true", help="return once everything is serving")
    parser.add_argument("--one-way", action="store_true", help="net cut A B: drop only A's packets to B")
    parser.add_argument("--keep-clients", action="store_true", help="net isolate A: leave client connected")
    parser.add_argument("--rate", default="1mbit", help="net slow A: the link's rate (tc units; default 1mbit)")
    parser.add_argument(
        "command",
        nargs="*",
        help="start (default) | stop | status | broker ID start|stop|kill | zookeeper N "
        "start|stop|kill | net cut A B | net isolate A | net slow A | net heal [A] | net status",
    )
    return parser


LAYOUT_KEYS = ("brokers", "kafka_brokers", "racks", "zookeepers", "hosts", "hosts_net", "secure", "kerberos")
LAYOUT_DEFAULTS = {
    "brokers": 3,
    "kafka_brokers": 0,
    "racks": None,
    "zookeepers": 1,
    "hosts": False,
    "secure": False,
    "kerberos": False,
    "hosts_net": "%s:%s" % (DEFAULT_TAG, DEFAULT_SUBNET),
}


def parse_args(argv=None):
    """The command line, with what it leaves out taken from the layout the cluster in --data was last started with,
    then from the defaults. A start may not give that cluster another ZooKeeper: its brokers' data belongs to the
    one it has (Kafka refuses a log dir whose meta.properties names another cluster id)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or ["start"]
    layout = read_layout(args.data)
    if command[0] == "start" and layout:
        for key in ZOOKEEPER_SHAPE:
            wanted = getattr(args, key)
            if wanted is not None and wanted != layout.get(key, LAYOUT_DEFAULTS[key]):
                parser.error(
                    "%s holds a cluster started with %s; its brokers' data belongs to that ZooKeeper. Start "
                    "it without --zookeepers/--hosts to run it again, or give another --data"
                    % (args.data, _shape_text(layout))
                )
    for key in LAYOUT_KEYS:
        if getattr(args, key) is None:
            setattr(args, key, layout.get(key, LAYOUT_DEFAULTS[key]))
    if args.brokers < 1:
        parser.error("--brokers must be at least 1, not %d" % args.brokers)
    if not 0 <= args.kafka_brokers <= args.brokers:
        parser.error(
            "--kafka-brokers must be from 0 to the number of brokers (%d), not %d" % (args.brokers, args.kafka_brokers)
        )
    if args.kafka_brokers and args.secure:
        parser.error(
            "--kafka-brokers and --secure do not go together yet: Apache Kafka's brokers get no SASL_SSL setup"
        )
    if args.kerberos and (not args.secure or args.hosts):
        parser.error("--kerberos goes with --secure, on one host (without --hosts)")
    if args.racks is not None and not 1 <= args.racks <= args.brokers:
        parser.error("--racks must be from 1 to the number of brokers (%d), not %d" % (args.brokers, args.racks))
    if command[0] == "net" and not args.hosts:
        parser.error("net works on a cluster started with --hosts")
    if args.hosts and os.geteuid() != 0:
        parser.error("--hosts makes network namespaces and a bridge: run it as root")
    if args.hosts:
        tag, _, subnet = args.hosts_net.partition(":")
        try:
            Hosts(tag, subnet)
        except (HostError, ValueError) as error:
            parser.error("--hosts-net %s: %s" % (args.hosts_net, error))
    return args


ZOOKEEPER_SHAPE = ("zookeepers", "hosts")


def _shape_text(layout):
    zookeepers = layout.get("zookeepers", 1)
    return "%s%s" % (
        "%d ZooKeeper servers" % zookeepers if zookeepers > 1 else "one ZooKeeper server",
        " on hosts of their own (--hosts)" if layout.get("hosts") else " on 127.0.0.1",
    )


def read_layout(data_dir):
    try:
        return json.loads((Path(data_dir) / LAYOUT_FILE).read_text())
    except (OSError, ValueError):
        return {}


def write_layout(args):
    Path(args.data).mkdir(parents=True, exist_ok=True)
    (Path(args.data) / LAYOUT_FILE).write_text(json.dumps({key: getattr(args, key) for key in LAYOUT_KEYS}) + "\n")


def cluster_settings(args):
    """The LocalCluster settings of the cluster a command line describes: brokers, racks, internal topics, its
    ZooKeeper servers and hosts."""
    return {
        "brokers": args.brokers,
        "kafka_brokers": args.kafka_brokers,
        "racks": args.racks,
        "overrides": internal_topic_settings(args.brokers),
        "secure": args.secure,
        "kerberos": bool(args.kerberos),
        "metrics_ports": [args.metrics_port + index for index in range(args.brokers)],
        "console_port": args.console_port or None,
        "zookeepers": args.zookeepers,
        "hosts": Hosts(*args.hosts_net.split(":", 1)) if args.hosts else None,
    }


def main(argv=None):
    args = parse_args(argv)
    cluster = LocalCluster(args.data, zk_port=args.zk_port, base_port=args.base_port, **cluster_settings(args))
    command = args.command or ["start"]
    try:
        if command[0] == "start":
            write_layout(args)
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
            print(
                "broker %d: %s"
                % (broker.broker_id, {"start": "started", "stop": "stopped", "kill": "killed"}[command[2]])
            )
            return 0
        if command[0] == "zookeeper" and len(command) == 3 and command[2] in ("start", "stop", "kill"):
            server = cluster.zookeeper_member(int(command[1]))
            getattr(server, command[2])()
            print(
                "zookeeper %s: %s" % (command[1], {"start": "started", "stop": "stopped", "kill": "killed"}[command[2]])
            )
            return 0
        if command[0] == "net" and len(command) >= 2:
            return _net(cluster.hosts, command[1:], args)
    except (ClusterError, ZooKeeperError, HostError, ValueError) as error:
        print("local-cluster: %s" % error, file=sys.stderr)
        return 1
    build_parser().print_usage(sys.stderr)
    return 2


def _net(hosts, words, args):
    """net cut A B [--one-way] | isolate A [--keep-clients] | slow A [--rate R] | heal [A] | status."""
    verb, names = words[0], words[1:]
    if verb == "status" and not names:
        faults = hosts.faults()
        print("\n".join(faults) if faults else "no fault in force")
        return 0
    if verb == "heal" and len(names) <= 1:
        for name in hosts.expand(names[0]) if names else [None]:
            hosts.heal(name)
        print("healed %s" % (names[0] if names else "every link"))
        return 0
    if verb == "cut" and len(names) == 2:
        for a in hosts.expand(names[0]):
            for b in hosts.expand(names[1]):
                if a != b:
                    hosts.cut(a, b, one_way=args.one_way)
    elif verb == "isolate" and len(names) == 1:
        for name in hosts.expand(names[0]):
            hosts.isolate(name, keep_clients=args.keep_clients)
    elif verb == "slow" and len(names) == 1:
        for name in hosts.expand(names[0]):
            hosts.slow(name, args.rate)
    else:
        raise ValueError(
            "unknown net command %r: net cut A B [--one-way] | net isolate A [--keep-clients] | "
            "net slow A [--rate 1mbit] | net heal [A] | net status" % " ".join(words)
        )
    print("\n".join(hosts.faults()))
    return 0


def _progress(line):
    print(line, flush=True)


def _start(cluster, daemon):
    cluster.start(progress=_progress)
    if cluster.hosts is not None:
        for line in cluster.status_lines():
            if line.startswith("host "):
                print(line)
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
    if cluster.kerberos is not None:
        for line in cluster.kerberos.summary_lines():
            print(line)
    for topic, replicas in thinly_replicated_internal_topics(cluster.brokers[0]).items():
        print(
            "note: %s has %d replica(s) per partition, fewer than server.properties asks for: it was made "
            "before that setting, which shapes only new topics (add replicas with "
            "scripts/kafka-reassign-partitions.sh, or start on an empty --data folder)" % (topic, replicas)
        )
    if cluster.security is not None:
        print(
            "try: scripts/kafka-topics.sh --bootstrap-server %s --command-config %s --list"
            % (cluster.brokers[0].bootstrap, cluster.security.material.properties_file("admin"))
        )
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
