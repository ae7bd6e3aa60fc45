"""Hosts inside this machine: a network namespace per server on one bridge, and the network faults cut between them.

Every host but ``client`` is a network namespace ``<tag>-<name>`` whose ``eth0`` is one end of a veth pair; the
other end (``<tag>v<octet>``) hangs on the bridge ``<tag>-br`` in the root namespace, which is the host ``client``
and holds the subnet's first address. Addresses come from the benchmarking range 198.18.0.0/15, one /24 per tag;
namespaces get no default route, so nothing leaves the machine.

Faults are nftables rules in the namespaces (never in the root namespace): one table ``kafka_zk_net`` per namespace
whose rules carry a comment naming the fault ("cut A B", "cut A -> B"), and tbf queues on both ends of a host's
link for a slow one. What is in force is read back from the kernel, so a later process (``net status``, ``stop``
after the launcher was killed) sees exactly what an earlier one left.
"""

import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass

CLIENT = "client"
TABLE = "kafka_zk_net"
DEFAULT_TAG = "kz"
DEFAULT_SUBNET = "198.18.0"
BENCHMARKING_RANGE = ipaddress.ip_network("198.18.0.0/15")
# The last octet of each kind of host: zk-N at 10+N, broker-N at 20+N, the Spark master at 100, worker N at 100+N.
_OCTETS = (
    (re.compile(r"zk-([1-9])$"), 10),
    (re.compile(r"broker-(\d|[1-7]\d)$"), 20),
    (re.compile(r"spark-worker-([1-9])$"), 100),
)
_FIXED_OCTETS = {CLIENT: 1, "spark-master": 100}
TBF_BURST = "32kbit"
TBF_LATENCY = "400ms"


class HostError(RuntimeError):
    pass


@dataclass(frozen=True)
class Host:
    name: str
    address: str
    namespace: str | None  # None: the root namespace (the host ``client``)
    link: str | None  # the root-side end of its veth pair


def octet_of(name):
    """The last octet of a host's address, from its name."""
    if name in _FIXED_OCTETS:
        return _FIXED_OCTETS[name]
    for pattern, base in _OCTETS:
        match = pattern.match(name)
        if match:
            return base + int(match.group(1))
    raise HostError(
        "no address for a host named %r (client, zk-1..zk-9, broker-0..broker-79, spark-master, "
        "spark-worker-1..9)" % name
    )


def _run(argv, check=True, input_text=None):
    try:
        done = subprocess.run(argv, input=input_text, capture_output=True, text=True)
    except FileNotFoundError:
        raise HostError(
            "%s not found: it comes with Debian's %s package"
            % (argv[0], {"nft": "nftables", "tc": "iproute2", "ip": "iproute2"}.get(argv[0], argv[0]))
        ) from None
    if check and done.returncode != 0:
        raise HostError("%s failed: %s" % (" ".join(argv), (done.stderr or done.stdout).strip()))
    return done


class Hosts:
    """The hosts of one tag: create, list, run in, tear down; and the network faults between them."""

    def __init__(self, tag=DEFAULT_TAG, subnet=DEFAULT_SUBNET, run=_run, tcp_rto_max_ms=None):
        """``tag`` prefixes every namespace and link (at most 6 characters, so link names fit the kernel's 15);
        ``subnet`` is the first three octets of the tag's /24 inside 198.18.0.0/15. ``tcp_rto_max_ms``: the longest
        wait between two TCP retransmissions in the hosts (Linux 6.15 and later; 120 s by default), which bounds how
        long a connection that lived through a cut stays silent once the cut is healed."""
        if not re.fullmatch(r"[a-z][a-z0-9]{0,5}", tag):
            raise HostError("a hosts tag is 1 to 6 lowercase letters and digits, not %r" % tag)
        if not ipaddress.ip_network(subnet + ".0/24").subnet_of(BENCHMARKING_RANGE):
            raise HostError("hosts take addresses from 198.18.0.0/15, not %s.0/24" % subnet)
        self.tag = tag
        self.subnet = subnet
        self._run = run
        self.tcp_rto_max_ms = tcp_rto_max_ms

    @property
    def bridge(self):
        return "%s-br" % self.tag

    def host(self, name):
        octet = octet_of(name)
        if name == CLIENT:
            return Host(CLIENT, self.address(CLIENT), None, None)
        return Host(name, "%s.%d" % (self.subnet, octet), "%s-%s" % (self.tag, name), "%sv%d" % (self.tag, octet))

    def address(self, name):
        return "%s.%d" % (self.subnet, octet_of(name))

    def command_prefix(self, name):
        """What runs a command on host ``name``: nothing for ``client``, ``ip netns exec <namespace>`` otherwise."""
        host = self.host(name)
        return [] if host.namespace is None else ["ip", "netns", "exec", host.namespace]

    # --- the hosts themselves -------------------------------------------------------------------------------------

    def namespaces(self):
        """The namespaces of this tag that exist now, by host name."""
        listed = self._run(["ip", "netns", "list"]).stdout.split("\n")
        prefix = self.tag + "-"
        return sorted(
            line.split()[0][len(prefix) :] for line in listed if line.strip() and line.split()[0].startswith(prefix)
        )

    def existing(self):
        """Every host of this tag that exists now, ``client`` first when the bridge is there."""
        names = self.namespaces()
        return ([self.host(CLIENT)] if self._bridge_exists() else []) + [self.host(name) for name in names]

    def _bridge_exists(self):
        return self._run(["ip", "link", "show", self.bridge], check=False).returncode == 0

    def create(self, names):
        """Create the bridge (with ``client``'s address) and a namespace for each name that has none yet."""
        if not self._bridge_exists():
            self._run(["ip", "link", "add", self.bridge, "type", "bridge"])
            self._run(["ip", "addr", "add", self.address(CLIENT) + "/24", "dev", self.bridge])
            self._run(["ip", "link", "set", self.bridge, "up"])
        present = set(self.namespaces())
        for name in names:
            if name == CLIENT or name in present:
                continue
            host = self.host(name)
            self._run(["ip", "netns", "add", host.namespace])
            self._run(["ip", "link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", host.namespace])
            self._run(["ip", "link", "set", host.link, "master", self.bridge, "up"])
            self._run(["ip", "-n", host.namespace, "addr", "add", host.address + "/24", "dev", "eth0"])
            self._run(["ip", "-n", host.namespace, "link", "set", "eth0", "up"])
            self._run(["ip", "-n", host.namespace, "link", "set", "lo", "up"])
            if self.tcp_rto_max_ms is not None:  # an older kernel has no such setting: its default stays
                self._run(
                    ["ip", "netns", "exec", host.namespace]
                    + ["sysctl", "-q", "-w", "net.ipv4.tcp_rto_max_ms=%d" % self.tcp_rto_max_ms],
                    check=False,
                )
        return [self.host(name) for name in names]

    def pids(self, name):
        host = self.host(name)
        if host.namespace is None:
            return []
        done = self._run(["ip", "netns", "pids", host.namespace], check=False)
        return [int(pid) for pid in done.stdout.split() if pid.isdigit()]

    def destroy(self, grace=5.0):
        """Remove every namespace, veth and the bridge of this tag, ending what still runs inside (SIGTERM, then
        SIGKILL after ``grace`` seconds). Returns what it removed, one description each."""
        removed = []
        names = self.namespaces()
        running = {name: self.pids(name) for name in names}
        for pids in running.values():
            _signal_all(pids, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while any(_alive(pid) for pids in running.values() for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        for name, pids in running.items():
            left = [pid for pid in pids if _alive(pid)]
            _signal_all(left, signal.SIGKILL)
            if pids:
                removed.append("%d process(es) on %s" % (len(pids), name))
        for name in names:
            host = self.host(name)
            self._run(["ip", "netns", "del", host.namespace], check=False)
            removed.append("namespace %s" % host.namespace)
        for link in self._links():
            if self._run(["ip", "link", "del", link], check=False).returncode == 0:
                removed.append("link %s" % link)
        if self._bridge_exists():
            self._run(["ip", "link", "del", self.bridge], check=False)
            removed.append("bridge %s" % self.bridge)
        return removed

    def _links(self):
        """Root-side veth ends of this tag still present (a namespace kept alive by a process keeps its pair)."""
        done = self._run(["ip", "-o", "link", "show"], check=False)
        pattern = re.compile(r"^\d+: (%sv\d+)[@:]" % re.escape(self.tag))
        return [match.group(1) for match in map(pattern.match, done.stdout.splitlines()) if match]

    # --- faults ---------------------------------------------------------------------------------------------------

    def expand(self, word):
        """Host names a word on the command line stands for: ``zk`` every ZooKeeper host, ``brokers`` every
        broker, else the one host (which must exist)."""
        names = self.namespaces()
        if word == "zk":
            chosen = [name for name in names if name.startswith("zk-")]
        elif word == "brokers":
            chosen = [name for name in names if name.startswith("broker-")]
        elif word == CLIENT or word in names:
            chosen = [word]
        else:
            raise HostError("no host %r: the hosts are %s" % (word, ", ".join([CLIENT] + names)))
        if not chosen:
            raise HostError("no host is a %r" % word)
        return chosen

    def cut(self, a, b, one_way=False):
        """Drop every packet between hosts a and b; with ``one_way`` only a's packets to b (b's reach a)."""
        if a == b:
            raise HostError("cannot cut %s from itself" % a)
        if one_way:
            comment = "cut %s -> %s" % (a, b)
            if a != CLIENT:
                self._add_rule(a, "output", "ip daddr %s" % self.address(b), comment)
            else:
                self._add_rule(b, "input", "ip saddr %s" % self.address(a), comment)
            return
        owner, other = (a, b) if a != CLIENT else (b, a)
        comment = "cut %s %s" % (a, b)
        self._add_rule(owner, "output", "ip daddr %s" % self.address(other), comment)
        self._add_rule(owner, "input", "ip saddr %s" % self.address(other), comment)

    def isolate(self, name, keep_clients=False):
        """Cut host ``name`` from every other host (``client`` too, unless ``keep_clients``)."""
        for other in [CLIENT] + self.namespaces():
            if other != name and not (keep_clients and other == CLIENT):
                self.cut(name, other)

    def slow(self, name, rate):
        """A token bucket of ``rate`` (tc's units: 1mbit, 500kbit) on both ends of ``name``'s link."""
        host = self.host(name)
        if host.namespace is None:
            raise HostError("client has no link of its own to slow; slow the host at the other end")
        tbf = ["root", "tbf", "rate", rate, "burst", TBF_BURST, "latency", TBF_LATENCY]
        self._run(["ip", "netns", "exec", host.namespace, "tc", "qdisc", "replace", "dev", "eth0"] + tbf)
        self._run(["tc", "qdisc", "replace", "dev", host.link] + tbf)

    def heal(self, name=None):
        """Lift every fault (``name`` None), or every one that touches host ``name``."""
        for namespace_host in self.namespaces():
            host = self.host(namespace_host)
            if name is None:
                self._nft(host, ["delete", "table", "inet", TABLE], check=False)
            else:
                for rule in self._rules(host):
                    if name in _hosts_of(rule["comment"]):
                        self._nft(host, ["delete", "rule", "inet", TABLE, rule["chain"], "handle", str(rule["handle"])])
            if name in (None, namespace_host):
                self._run(
                    ["ip", "netns", "exec", host.namespace, "tc", "qdisc", "del", "dev", "eth0", "root"], check=False
                )
                self._run(["tc", "qdisc", "del", "dev", host.link, "root"], check=False)

    def faults(self):
        """Every fault in force, one line each, as the kernel holds them: "cut A B", "cut A -> B",
        "slow A 1Mbit"."""
        lines = []
        for name in self.namespaces():
            host = self.host(name)
            for rule in self._rules(host):
                if rule["comment"] not in lines:
                    lines.append(rule["comment"])
            rate = self._tbf_rate(host)
            if rate:
                lines.append("slow %s %s" % (name, rate))
        return lines

    def _tbf_rate(self, host):
        done = self._run(["ip", "netns", "exec", host.namespace, "tc", "qdisc", "show", "dev", "eth0"], check=False)
        match = re.search(r"qdisc tbf \S+ root .*?rate (\S+)", done.stdout)
        return match.group(1) if match else None

    def _add_rule(self, name, chain, match, comment):
        host = self.host(name)
        self._nft(
            host,
            ["-f", "-"],
            input_text=(
                "table inet %s {\n"
                "  chain input { type filter hook input priority 0; policy accept; }\n"
                "  chain output { type filter hook output priority 0; policy accept; }\n"
                "}\n"
                'add rule inet %s %s %s counter drop comment "%s"\n'
            )
            % (TABLE, TABLE, chain, match, comment),
        )

    def _rules(self, host):
        if shutil.which("nft") is None:  # no rule was ever made here
            return []
        done = self._nft(host, ["-j", "list", "table", "inet", TABLE], check=False)
        if done.returncode != 0:
            return []
        return [
            item["rule"] for item in json.loads(done.stdout)["nftables"] if "rule" in item and "comment" in item["rule"]
        ]

    def _nft(self, host, argv, check=True, input_text=None):
        if shutil.which("nft") is None:
            raise HostError(
                "nft not found: cutting the network needs Debian's nftables package (apt-get install nftables)"
            )
        return self._run(["ip", "netns", "exec", host.namespace, "nft"] + argv, check=check, input_text=input_text)


def _hosts_of(comment):
    return [word for word in comment.split()[1:] if word != "->"]


def _signal_all(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of ours counts as gone
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
