"""The README's first command on a machine that has never run anything here: a copy of the repository
with no .venv, no test extras and no ZooKeeper installed by anyone but the command itself."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_zk.client.admin import AdminClient
from tests.ports import free_port, free_ports

ROOT = Path(__file__).resolve().parent.parent


def fresh_copy(destination):
    """The repository's tracked files as they are in this work tree (a clone's content), nothing else."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def newcomer_environment(path=None):
    """This process's environment without any trace of the test venv or a ZooKeeper pointed to by hand."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "ZOOKEEPER_HOME", "PYSPARK_PYTHON")
    }
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = path or os.pathsep.join(
        entry for entry in env.get("PATH", "").split(os.pathsep) if entry and entry != venv_bin
    )
    return env


def zookeeper_installed_elsewhere():
    return os.path.isdir("/usr/share/zookeeper") or os.path.exists("/usr/share/java/zookeeper.jar")


@pytest.mark.timeout(1200)
def test_cluster_command_sets_up_a_fresh_copy_by_itself(tmp_path):
    repo = fresh_copy(tmp_path / "kafka-zk")
    data = tmp_path / "data"
    zk_port, base = free_port(), free_ports(3)
    command = [
        str(repo / "scripts" / "local-cluster.sh"),
        "--data",
        str(data),
        "--zk-port",
        str(zk_port),
        "--base-port",
        str(base),
    ]
    env = newcomer_environment()
    started = subprocess.run(command + ["--daemon"], cwd=repo, env=env, capture_output=True, text=True, timeout=1100)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        if not zookeeper_installed_elsewhere():
            assert "installing the project's [zookeeper] extra" in started.stderr
            assert "ZooKeeper is installed" in started.stderr
        lines = started.stdout.splitlines()
        assert "starting ZooKeeper on 127.0.0.1:%d" % zk_port in lines
        for broker in range(3):
            assert "starting broker %d on 127.0.0.1:%d" % (broker, base + broker) in lines
            assert any(line.startswith("broker %d started (pid " % broker) for line in lines)
        assert "every broker serves metadata of brokers 0,1,2" in lines

        venv_python = repo / ".venv" / "bin" / "python"
        test_extra = subprocess.run([str(venv_python), "-c", "import pytest"], capture_output=True)
        assert test_extra.returncode != 0, "the cluster command must not need the test extras"

        bootstrap = "127.0.0.1:%d" % base
        if shutil.which("kcat"):
            listed = subprocess.run(
                ["kcat", "-b", bootstrap, "-L", "-m", "10"], capture_output=True, text=True, timeout=60
            )
            assert listed.returncode == 0, listed.stderr
            assert " 3 brokers:" in listed.stdout
            for broker in range(3):
                assert "broker %d at 127.0.0.1:%d" % (broker, base + broker) in listed.stdout
        with AdminClient(bootstrap) as admin:
            brokers, controller, _ = admin.describe_cluster()
        assert sorted(brokers) == [0, 1, 2] and controller in brokers
    finally:
        stopped = subprocess.run(command + ["stop"], cwd=repo, env=env, capture_output=True, text=True, timeout=180)
    assert stopped.returncode == 0, stopped.stderr
    assert "stopping broker 0 (controlled shutdown)" in stopped.stdout
    assert stopped.stdout.rstrip().endswith("stopped")


def test_cluster_command_without_java_says_so_in_one_line(tmp_path):
    repo = fresh_copy(tmp_path / "kafka-zk")
    java = shutil.which("java")
    bin_without_java = tmp_path / "bin"
    bin_without_java.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            source = os.path.join(directory, name)
            target = bin_without_java / name
            if name != "java" and not target.exists() and os.access(source, os.X_OK):
                target.symlink_to(source)
    env = newcomer_environment(path=str(bin_without_java))
    env.pop("JAVA_HOME", None)
    assert java is None or shutil.which("java", path=env["PATH"]) is None
    result = subprocess.run(
        [str(repo / "scripts" / "local-cluster.sh"), "--daemon"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("local-cluster.sh: java not found: ZooKeeper needs a Java runtime")
    assert not (repo / ".venv").exists(), "nothing is installed before Java is known to be there"
