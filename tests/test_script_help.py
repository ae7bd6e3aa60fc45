"""Every script answers -h/--help at once with its CLI's own argparse help, before any .venv exists: it creates no
.venv, calls neither pip nor apt-get nor java, and starts or stops nothing."""

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(path.name for path in (ROOT / "scripts").glob("*.sh") if not path.name.startswith("_"))
BASE_PYTHON = os.path.realpath(getattr(sys, "_base_executable", sys.executable))

# script -> the parser its help must print (MODULE[:FUNCTION], as kafka_zk.tools.usage takes it); test.sh wraps pytest
# and has its own few lines.
PARSERS = {
    "kafka-server-start.sh": "kafka_zk.server.main",
    "kafka-server-stop.sh": "kafka_zk.server.main:build_stop_parser",
    "local-cluster.sh": "kafka_zk.tools.local_cluster",
    "zookeeper-server-start.sh": "zookeeper.launcher:server_start_parser",
    "zookeeper-server-stop.sh": "zookeeper.launcher:server_stop_parser",
    "zookeeper-shell.sh": "zookeeper.launcher:shell_parser",
    "kafka-zk-console.sh": "kafka_zk.console.main",
}
FORBIDDEN = ["pip", "pip3", "apt-get", "java", "nft", "curl", "wget", "kcat"]


def tool_parser_spec(script):
    """A thin tool wrapper names its module in its `run_tool MODULE "$@"` line."""
    for line in (ROOT / "scripts" / script).read_text().splitlines():
        if line.startswith("run_tool "):
            return line.split()[1]
    return PARSERS.get(script)


@pytest.fixture(scope="module")
def bare_checkout(tmp_path_factory):
    """A checkout without .venv, and a PATH on which python3 has the standard library only (-S) and the installers
    and Java only write down that they were called. The python3 stand-in also refuses to run the broker stopper: a
    help that went wrong would SIGTERM every broker on the machine."""
    base = tmp_path_factory.mktemp("bare")
    checkout = base / "checkout"
    checkout.mkdir()
    shutil.copytree(ROOT / "scripts", checkout / "scripts")
    for package in ("kafka_zk", "zookeeper"):
        (checkout / package).symlink_to(ROOT / package)
    bin_dir = base / "bin"
    bin_dir.mkdir()
    calls = base / "calls.log"
    for name in FORBIDDEN:
        shim = bin_dir / name
        shim.write_text('#!/bin/sh\necho "%s $*" >> "%s"\nexit 1\n' % (name, calls))
        shim.chmod(0o755)
    python = bin_dir / "python3"
    python.write_text(
        '#!/bin/sh\ncase " $* " in\n  *" -m pip "*|*" -m venv "*|*"stop_main"*)\n'
        '    echo "python3 $*" >> "%s"; exit 1 ;;\nesac\nexec "%s" -S "$@"\n' % (calls, BASE_PYTHON)
    )
    python.chmod(0o755)
    env = {"PATH": "%s:/usr/bin:/bin" % bin_dir, "HOME": str(base), "COLUMNS": "100", "LANG": "C.UTF-8"}
    return checkout, env, calls


def run_help(bare_checkout, script, args):
    """The script's result and the CPU seconds it took (what "at once" bounds: its wall time moves with the machine's
    load, which failed the bound beside the real-cluster tests)."""
    checkout, env, calls = bare_checkout
    started = _children_cpu()
    result = subprocess.run(
        [str(checkout / "scripts" / script), *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    return result, _children_cpu() - started


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def expected_help(spec, argv, monkeypatch):
    """The help text the CLI's own parser gives (in this process, where every package is installed)."""
    from kafka_zk.tools.usage import parser_of

    monkeypatch.setenv("COLUMNS", "100")
    return parser_of(spec, argv).format_help()


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_answers_at_once_without_a_venv(bare_checkout, script, monkeypatch):
    checkout, _, calls = bare_checkout
    result, cpu_seconds = run_help(bare_checkout, script, ["--help"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: "), result.stdout + result.stderr
    assert cpu_seconds < 3.0
    assert not (checkout / ".venv").exists()
    assert not calls.exists(), calls.read_text()
    spec = tool_parser_spec(script)
    if spec is not None:
        assert result.stdout == expected_help(spec, [], monkeypatch)
    else:
        assert script == "test.sh"


@pytest.mark.parametrize(
    "script, args, spec, spec_args",
    [
        ("kafka-topics.sh", ["--bootstrap-server", "127.0.0.1:9092", "--create", "-h"], "kafka_zk.tools.topics", []),
        ("local-cluster.sh", ["broker", "1", "stop", "--help"], "kafka_zk.tools.local_cluster", []),
        ("local-cluster.sh", ["--hosts", "--daemon", "-h"], "kafka_zk.tools.local_cluster", []),
        ("kafka-server-start.sh", ["-daemon", "config/server.properties", "--help"], "kafka_zk.server.main", []),
        (
            "kafka-run-class.sh",
            ["kafka.tools.GetOffsetShell", "--help"],
            "kafka_zk.tools.run_class",
            ["kafka.tools.GetOffsetShell"],
        ),
        ("kafka-run-class.sh", ["kafka.admin.TopicCommand", "--list", "-h"], "kafka_zk.tools.topics", []),
        ("zookeeper-shell.sh", ["127.0.0.1:2181", "--help"], "zookeeper.launcher:shell_parser", []),
    ],
)
def test_help_anywhere_in_the_arguments(bare_checkout, script, args, spec, spec_args, monkeypatch):
    checkout, _, calls = bare_checkout
    result, cpu_seconds = run_help(bare_checkout, script, args)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == expected_help(spec, spec_args, monkeypatch)
    assert cpu_seconds < 3.0
    assert not (checkout / ".venv").exists()
    assert not calls.exists(), calls.read_text()


def test_run_class_help_names_the_class_it_runs(monkeypatch):
    text = expected_help("kafka_zk.tools.run_class", ["kafka.tools.GetOffsetShell"], monkeypatch)
    assert text.startswith("usage: kafka-run-class.sh kafka.tools.GetOffsetShell")
    assert "kafka.admin.TopicCommand" in expected_help("kafka_zk.tools.run_class", [], monkeypatch)


def test_the_broker_stopper_stops_nothing_when_asked_for_help(monkeypatch, capsys):
    from kafka_zk.server import main

    monkeypatch.setattr(os, "kill", lambda pid, signal: pytest.fail("kafka-server-stop --help signalled %d" % pid))
    with pytest.raises(SystemExit) as exited:
        main.stop_main(["--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("usage: kafka-server-stop")
