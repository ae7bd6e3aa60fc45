"""scripts/local-cluster.sh as an operator uses it: --daemon, status, broker stop/kill/start, stop."""

import os
import subprocess
from pathlib import Path

import pytest

from tests.zk_support import free_port

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(ROOT / "scripts" / "local-cluster.sh")


def run(data, zk_port, base_port, *args):
    command = [SCRIPT, "--data", str(data), "--zk-port", str(zk_port), "--base-port", str(base_port), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def consecutive_free_ports(count):
    for _ in range(50):
        base = free_port()
        if base + count < 65535 and all(_free(base + offset) for offset in range(count)):
            return base
    raise AssertionError("no run of free ports")


def _free(port):
    import socket
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.timeout(240)
def test_daemon_status_broker_commands_and_stop(tmp_path):
    data = tmp_path / "data"
    zk_port = free_port()
    base = consecutive_free_ports(3)
    started = run(data, zk_port, base, "--daemon")
    try:
        assert started.returncode == 0, started.stderr
        assert "bootstrap servers: 127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d" % (base, base + 1, base + 2) \
            in started.stdout
        status = run(data, zk_port, base, "status")
        assert status.returncode == 0
        assert status.stdout.count("running") == 4, status.stdout
        for action in ("stop", "start", "kill", "start"):
            result = run(data, zk_port, base, "broker", "1", action)
            assert result.returncode == 0, result.stderr
        status = run(data, zk_port, base, "status")
        assert "broker 1 127.0.0.1:%d: running" % (base + 1) in status.stdout
        log = (data / "broker-1" / "server.log").read_text()
        assert "shut down completed" in log  # the clean stop
        assert (data / "broker-1" / "logs" / "meta.properties").exists()
    finally:
        stopped = run(data, zk_port, base, "stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    status = run(data, zk_port, base, "status")
    assert "running" not in status.stdout
    for broker in range(3):
        assert (data / ("broker-%d" % broker) / "logs" / ".kafka_cleanshutdown").exists()
    assert not any(p.endswith(".pid") for p in os.listdir(data / "broker-0"))
