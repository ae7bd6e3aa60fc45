"""scripts/local-cluster.sh --hosts, as a newcomer runs it: a ZooKeeper ensemble and brokers on hosts of their own,
tools and clients from the host `client`, the `net` commands, and a `stop` that removes every namespace, link, rule
and process, also after the launcher itself was killed -9; --hosts with --secure and --racks."""

import os
import signal
import subprocess
from pathlib import Path

import pytest
from confluent_kafka import Producer

from tests.hosts_support import fresh_hosts

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(ROOT / "scripts" / "local-cluster.sh")
FAST = ["--console-port", "0"]


def run(*args, check=True, timeout=180):
    result = subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def tool(name, *args):
    result = subprocess.run(
        [str(ROOT / "scripts" / name), *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def left_behind(hosts):
    """Namespaces, links and processes of this tag still on the machine."""
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    return (
        hosts.namespaces(),
        [line.split(":")[1].strip() for line in links.splitlines() if line.split(":")[1].strip().startswith(hosts.tag)],
    )


@pytest.fixture
def hosts_net():
    hosts = fresh_hosts()
    yield hosts
    hosts.destroy()


def test_an_ensemble_and_brokers_on_hosts_of_their_own_with_the_net_commands(tmp_path, hosts_net):
    net = "%s:%s" % (hosts_net.tag, hosts_net.subnet)
    data = ["--data", str(tmp_path)]
    started = run(*data, "--hosts", "--hosts-net", net, "--zookeepers", "3", *FAST, "--daemon")
    try:
        subnet = hosts_net.subnet
        for line in [
            "host zk-2      %s.12: ZooKeeper" % subnet,
            "host broker-1  %s.21: broker 1" % subnet,
            "bootstrap servers: %s.20:9092,%s.21:9092,%s.22:9092" % (subnet, subnet, subnet),
            "ZooKeeper: %s.11:2181,%s.12:2181,%s.13:2181" % (subnet, subnet, subnet),
        ]:
            assert line in started.stdout, started.stdout
        bootstrap = "%s.20:9092,%s.21:9092,%s.22:9092" % (subnet, subnet, subnet)
        zookeeper = "%s.11:2181,%s.12:2181,%s.13:2181" % (subnet, subnet, subnet)
        # Later commands need no flags: the layout of the start is remembered.
        status = run(*data, "status").stdout
        assert "host client    %s.1: clients, tools" % subnet in status
        assert sum(" leader" in line for line in status.splitlines()) == 1, status
        assert status.count("follower") == 2 and status.count("running (pid") == 6, status
        # Tools on the host client, through the bootstrap and through the ensemble.
        tool(
            "kafka-topics.sh",
            "--bootstrap-server",
            bootstrap,
            "--create",
            "--topic",
            "across",
            "--partitions",
            "3",
            "--replication-factor",
            "3",
        )
        described = tool("kafka-topics.sh", "--zookeeper", zookeeper, "--describe", "--topic", "across")
        assert described.count("Isr: ") == 3, described
        producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
        producer.produce("across", b"from client")
        assert producer.flush(30) == 0

        isolated = run(*data, "net", "isolate", "broker-1", "--keep-clients").stdout.splitlines()
        assert sorted(isolated) == [
            "cut broker-1 broker-0",
            "cut broker-1 broker-2",
            "cut broker-1 zk-1",
            "cut broker-1 zk-2",
            "cut broker-1 zk-3",
        ]
        run(*data, "net", "cut", "broker-0", "zk", "--one-way")
        run(*data, "net", "slow", "broker-2", "--rate", "2mbit")
        in_force = run(*data, "net", "status").stdout.splitlines()
        assert "cut broker-0 -> zk-3" in in_force and "slow broker-2 2Mbit" in in_force and len(in_force) == 9
        assert "fault: slow broker-2 2Mbit" in run(*data, "status").stdout
        run(*data, "net", "heal", "broker-1")
        assert len(run(*data, "net", "status").stdout.splitlines()) == 4
        run(*data, "net", "heal")
        assert run(*data, "net", "status").stdout.strip() == "no fault in force"
        refused = run(*data, "net", "cut", "broker-9", "zk-1", check=False)
        assert refused.returncode == 1 and "no host 'broker-9'" in refused.stderr
        run(*data, "zookeeper", "2", "stop")
        assert "zookeeper %s.12:2181: stopped" % subnet in run(*data, "status").stdout
        run(*data, "zookeeper", "2", "start")
    finally:
        stopped = run(*data, "stop", check=False)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert "removed namespace %s-zk-3" % hosts_net.tag in stopped.stdout
    assert left_behind(hosts_net) == ([], [])


def test_stop_after_the_launcher_was_killed_removes_everything(tmp_path, hosts_net):
    net = "%s:%s" % (hosts_net.tag, hosts_net.subnet)
    data = ["--data", str(tmp_path)]
    launcher = subprocess.Popen(
        [SCRIPT, *data, "--hosts", "--hosts-net", net, "--brokers", "1", *FAST],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        seen = []
        for line in launcher.stdout:
            seen.append(line)
            if "serving in the foreground" in line:
                break
        assert any("serving in the foreground" in line for line in seen), "".join(seen)
        run(*data, "net", "isolate", "broker-0")
        os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait(10)
        assert hosts_net.namespaces() == ["broker-0", "zk-1"]  # the launcher's death left them all
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
    stopped = run(*data, "stop")
    assert "removed bridge %s-br" % hosts_net.tag in stopped.stdout, stopped.stdout
    assert left_behind(hosts_net) == ([], [])
    assert subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True).returncode == 1


def test_hosts_with_secure_listeners_and_racks(tmp_path, hosts_net):
    net = "%s:%s" % (hosts_net.tag, hosts_net.subnet)
    data = ["--data", str(tmp_path)]
    started = run(*data, "--hosts", "--hosts-net", net, "--brokers", "2", "--racks", "2", "--secure", *FAST, "--daemon")
    try:
        assert "broker 1 %s.21:9092 (kafka-zk, rack rack-1)" % hosts_net.subnet in started.stdout, started.stdout
        admin = str(tmp_path / "secure" / "admin.properties")
        bootstrap = "%s.21:9092" % hosts_net.subnet
        tool(
            "kafka-topics.sh",
            "--bootstrap-server",
            bootstrap,
            "--command-config",
            admin,
            "--create",
            "--topic",
            "secured",
            "--partitions",
            "2",
            "--replication-factor",
            "2",
        )
        listed = tool("kafka-topics.sh", "--bootstrap-server", bootstrap, "--command-config", admin, "--list")
        assert "secured" in listed.split()
        # The broker certificate names every broker's own address, so clients verify the host they dialled.
        names = (tmp_path / "secure" / "certificate-hosts.txt").read_text().split()
        assert {"%s.20" % hosts_net.subnet, "%s.21" % hosts_net.subnet} <= set(names)
    finally:
        run(*data, "stop", check=False)
    assert left_behind(hosts_net) == ([], [])


def test_hosts_needs_a_tag_and_subnet_of_the_benchmarking_range(tmp_path):
    refused = run("--data", str(tmp_path), "--hosts", "--hosts-net", "kz:10.1.2", "--daemon", check=False)
    assert refused.returncode == 2 and "198.18.0.0/15" in refused.stderr
    refused = run("--data", str(tmp_path), "net", "status", check=False)
    assert refused.returncode == 2 and "net works on a cluster started with --hosts" in refused.stderr
