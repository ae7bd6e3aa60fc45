"""The console entry points setup.cfg installs, used the way Kafka's scripts are."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ports import free_port

BIN = Path(sys.executable).parent


def run(name, *args):
    return subprocess.run([str(BIN / name), *map(str, args)], capture_output=True, text=True, timeout=90)


@pytest.mark.timeout(120)
def test_zookeeper_entry_points_start_query_and_stop(tmp_path):
    port = free_port()
    properties = tmp_path / "zookeeper.properties"
    properties.write_text(
        "dataDir=%s\nclientPort=%d\nmaxClientCnxns=0\nadmin.enableServer=false\n" % (tmp_path / "zk", port)
    )
    started = run("zookeeper-server-start", "-daemon", properties)
    try:
        assert started.returncode == 0, started.stderr
        created = run("zookeeper-shell", "127.0.0.1:%d" % port, "create", "/probe", '{"version":1}')
        assert created.returncode == 0, created.stderr
        got = run("zookeeper-shell", "127.0.0.1:%d" % port, "get", "/probe")
        assert json.loads([line for line in got.stdout.splitlines() if line.startswith("{")][0]) == {"version": 1}
    finally:
        stopped = run("zookeeper-server-stop", properties)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert run("zookeeper-server-start").returncode == 1  # usage


def test_every_kafka_script_has_an_entry_point():
    for name in (
        "kafka-server-start",
        "kafka-server-stop",
        "kafka-topics",
        "kafka-configs",
        "kafka-console-producer",
        "kafka-console-consumer",
        "kafka-dump-log",
        "zookeeper-server-start",
        "zookeeper-server-stop",
        "zookeeper-shell",
    ):
        assert (BIN / name).exists(), name
        assert (Path(__file__).resolve().parent.parent / "scripts" / (name + ".sh")).exists(), name
    usage = run("kafka-server-start")
    assert usage.returncode != 0 and "server.properties" in usage.stderr
