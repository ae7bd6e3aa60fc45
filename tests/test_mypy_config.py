"""The type check the test command runs first: setup.cfg's [mypy] section is strict and covers the pure cores (the
codecs, the on-disk log, the controller's state machines and decisions, the coordinators' state machines, decisions
and records), and scripts/test.sh runs it before pytest. mypy itself runs in scripts/test.sh, not here."""

import configparser
import pathlib

from tests.test_layering import PURE_MODULES

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Whole packages checked strictly.
STRICT_PACKAGES = {"kafka_zk/record", "kafka_zk/log", "kafka_zk/protocol"}


def mypy_section():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config["mypy"]


def checked_paths():
    return {path.strip() for path in mypy_section()["files"].replace("\n", ",").split(",") if path.strip()}


def module_path(name):
    return name.replace(".", "/") + ".py"


def test_mypy_is_strict():
    assert mypy_section().getboolean("strict")


def test_every_checked_path_exists():
    missing = sorted(path for path in checked_paths() if not (ROOT / path).exists())
    assert missing == []


def test_the_codec_log_and_protocol_packages_are_checked():
    assert STRICT_PACKAGES <= checked_paths()


def test_every_pure_controller_and_coordinator_module_but_the_metrics_is_checked():
    """A new pure state machine or decision module of the controller or the coordinators joins the check."""
    decisions = {
        name
        for name in PURE_MODULES
        if name.startswith(("kafka_zk.controller.", "kafka_zk.coordinator.")) and not name.endswith("_metrics")
    }
    assert decisions
    assert sorted(module_path(name) for name in decisions if module_path(name) not in checked_paths()) == []


def test_the_test_command_runs_mypy_before_pytest_and_installs_it():
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert "-m mypy --config-file setup.cfg" in script
    assert script.index("-m mypy") < script.index("-m pytest")
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert any(line.strip().startswith("mypy") for line in config["options.extras_require"]["test"].splitlines())
