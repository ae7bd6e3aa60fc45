"""Hosts in network namespaces on a bridge, and the faults cut between them, on real sockets: cut both ways and one
way, isolate with and without clients, a slow link, heal, and a teardown that leaves nothing even with a process
still running inside."""

import json
import socket
import subprocess
import sys
import time

import pytest

from kafka_zk.tools.hosts import CLIENT, HostError, Hosts
from tests.cluster_support import wait_for
from tests.hosts_support import fresh_hosts

PORT = 7070
ECHO_SERVER = (
    "import socket\n"
    "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "s.bind(('0.0.0.0', %d)); s.listen(16)\n"
    "while True:\n"
    "    c, _ = s.accept(); c.sendall(b'hi'); c.close()\n" % PORT
)
CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    c = socket.create_connection((sys.argv[1], %d), timeout=float(sys.argv[2])); print(c.recv(2).decode())\n"
    "except OSError as e:\n"
    "    print('unreachable')\n" % PORT
)


@pytest.fixture(scope="module")
def hosts():
    hosts = fresh_hosts()
    hosts.create(["zk-1", "broker-0", "broker-1"])
    servers = [
        subprocess.Popen(
            hosts.command_prefix(name) + [sys.executable, "-c", ECHO_SERVER],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name in ("zk-1", "broker-0", "broker-1")
    ]
    try:
        for name in ("zk-1", "broker-0", "broker-1"):
            wait_for(lambda: reaches(hosts, CLIENT, name), 10, message="%s's echo server" % name)
        yield hosts
    finally:
        hosts.destroy()
        for server in servers:
            server.wait(5)


def reaches(hosts, source, target, timeout=0.5):
    """Whether a TCP connection from host ``source`` to ``target`` gets the echo server's greeting."""
    if source == CLIENT:
        try:
            with socket.create_connection((hosts.address(target), PORT), timeout=timeout) as sock:
                return sock.recv(2) == b"hi"
        except OSError:
            return False
    done = subprocess.run(
        hosts.command_prefix(source) + [sys.executable, "-c", CONNECT, hosts.address(target), str(timeout)],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() == "hi"


def test_every_host_has_its_address_and_no_default_route(hosts):
    names = [host.name for host in hosts.existing()]
    assert names == [CLIENT, "broker-0", "broker-1", "zk-1"]
    assert hosts.address("zk-1").endswith(".11") and hosts.address("broker-1").endswith(".21")
    routes = subprocess.run(
        ["ip", "-n", hosts.host("broker-0").namespace, "route"], capture_output=True, text=True
    ).stdout
    assert "default" not in routes and hosts.subnet + ".0/24" in routes
    assert reaches(hosts, "broker-0", "zk-1") and reaches(hosts, "zk-1", "broker-1")


def test_a_cut_drops_both_directions_and_heals(hosts):
    hosts.cut("broker-0", "zk-1")
    try:
        assert hosts.faults() == ["cut broker-0 zk-1"]
        assert not reaches(hosts, "broker-0", "zk-1") and not reaches(hosts, "zk-1", "broker-0")
        assert reaches(hosts, "broker-0", "broker-1") and reaches(hosts, CLIENT, "zk-1")
    finally:
        hosts.heal()
    assert hosts.faults() == []
    assert reaches(hosts, "broker-0", "zk-1") and reaches(hosts, "zk-1", "broker-0")


def test_a_one_way_cut_drops_only_one_direction(hosts):
    hosts.cut("broker-0", "broker-1", one_way=True)
    hosts.cut(CLIENT, "zk-1", one_way=True)
    try:
        assert sorted(hosts.faults()) == ["cut broker-0 -> broker-1", "cut client -> zk-1"]
        # A TCP handshake needs both directions, so neither side connects; but broker-1's SYNs do reach broker-0,
        # whose answers are what the rule drops.
        assert not reaches(hosts, "broker-0", "broker-1")
        before = _dropped(hosts, "broker-0")
        assert not reaches(hosts, "broker-1", "broker-0")
        assert _dropped(hosts, "broker-0") > before
        assert not reaches(hosts, CLIENT, "zk-1")
    finally:
        hosts.heal("broker-1")
        assert hosts.faults() == ["cut client -> zk-1"]
        hosts.heal()
    assert reaches(hosts, "broker-0", "broker-1") and reaches(hosts, CLIENT, "zk-1")


def _dropped(hosts, name):
    """Packets the fault rules in host ``name``'s namespace have dropped so far."""
    done = subprocess.run(
        hosts.command_prefix(name) + ["nft", "-j", "list", "table", "inet", "kafka_zk_net"],
        capture_output=True,
        text=True,
        check=True,
    )
    return sum(
        expression["counter"]["packets"]
        for item in json.loads(done.stdout)["nftables"]
        if "rule" in item
        for expression in item["rule"]["expr"]
        if "counter" in expression
    )


def test_isolate_with_and_without_clients(hosts):
    hosts.isolate("broker-1", keep_clients=True)
    try:
        assert reaches(hosts, CLIENT, "broker-1")
        assert not reaches(hosts, "broker-0", "broker-1") and not reaches(hosts, "broker-1", "zk-1")
        hosts.heal("broker-1")
        hosts.isolate("broker-1")
        assert sorted(hosts.faults()) == ["cut broker-1 broker-0", "cut broker-1 client", "cut broker-1 zk-1"]
        assert not reaches(hosts, CLIENT, "broker-1") and reaches(hosts, CLIENT, "broker-0")
    finally:
        hosts.heal()
    assert reaches(hosts, CLIENT, "broker-1") and reaches(hosts, "broker-1", "zk-1")


def test_a_slow_link_is_listed_and_lifted(hosts):
    hosts.slow("broker-0", "1mbit")
    try:
        assert hosts.faults() == ["slow broker-0 1Mbit"]
        assert reaches(hosts, CLIENT, "broker-0", timeout=2)
        with pytest.raises(HostError, match="client has no link"):
            hosts.slow(CLIENT, "1mbit")
    finally:
        hosts.heal("broker-0")
    assert hosts.faults() == []


def test_unknown_hosts_and_bad_tags_are_refused(hosts):
    with pytest.raises(HostError, match="no host 'broker-7'"):
        hosts.expand("broker-7")
    assert hosts.expand("brokers") == ["broker-0", "broker-1"] and hosts.expand("zk") == ["zk-1"]
    with pytest.raises(HostError, match="1 to 6 lowercase"):
        Hosts(tag="Bad-Tag")
    with pytest.raises(HostError, match="198.18.0.0/15"):
        Hosts(tag="x", subnet="10.0.0")


def test_destroy_ends_what_runs_inside_and_leaves_nothing():
    hosts = fresh_hosts()
    hosts.create(["broker-3"])
    sleeper = subprocess.Popen(hosts.command_prefix("broker-3") + ["sleep", "600"])
    hosts.cut("broker-3", CLIENT)
    wait_for(lambda: hosts.pids("broker-3"), 5, message="the sleeper inside broker-3")
    started = time.monotonic()
    removed = hosts.destroy(grace=2.0)
    assert sleeper.wait(5) is not None and time.monotonic() - started < 5
    assert "namespace %s-broker-3" % hosts.tag in removed and "bridge %s-br" % hosts.tag in removed
    assert hosts.existing() == []
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    assert hosts.tag + "v" not in links and hosts.bridge not in links
    assert hosts.destroy() == []
