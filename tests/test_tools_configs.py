"""kafka-configs option handling as Kafka 2.5's ConfigCommand: --add-config syntax, argument checks, entities."""

import io

import pytest

from kafka_zk.tools import configs
from kafka_zk.tools.command_line import run_tool


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(configs.build_parser(), configs.run, list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_add_config_syntax():
    assert configs.parse_add_config("a=1, b = [x,y] ,c=") == {"a": "1", "b": "x,y", "c": ""}
    assert configs.parse_add_config("SCRAM-SHA-256=[iterations=8192,password=p=q]") == {
        "SCRAM-SHA-256": "iterations=8192,password=p=q"
    }
    for bad in ("a", "a=1=2", "a=1,b"):
        with pytest.raises(configs.CommandFailure, match="all configs to be added must be in the format"):
            configs.parse_add_config(bad)


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--zookeeper", "z:1", "--entity-type", "topics"],
            "Command must include exactly one action: --describe, --alter",
        ),
        (
            ["--zookeeper", "z:1", "--bootstrap-server", "b:1", "--entity-type", "topics", "--describe"],
            "Only one of --bootstrap-server or --zookeeper must be specified",
        ),
        (["--zookeeper", "z:1", "--describe"], "At least one --entity-type must be specified"),
        (
            ["--zookeeper", "z:1", "--entity-type", "topics", "--entity-type", "brokers", "--describe"],
            "Only 'users' and 'clients' entity types may be specified together",
        ),
        (
            ["--zookeeper", "z:1", "--entity-type", "topics", "--alter", "--add-config", "a=1"],
            "--entity-name must be specified with --alter of Buffer(topics)",
        ),
        (
            ["--zookeeper", "z:1", "--entity-type", "users", "--entity-name", "u", "--alter"],
            "At least one of --add-config or --delete-config must be specified with --alter",
        ),
        (
            ["--zookeeper", "z:1", "--entity-type", "brokers", "--describe", "--all"],
            "--bootstrap-server must be specified for --all",
        ),
        (
            ["--bootstrap-server", "b:1", "--entity-type", "clients", "--describe"],
            'Missing required argument "[zookeeper]"',
        ),
        (
            ["--zookeeper", "z:1", "--entity-type", "topics", "--describe", "--add-config", "a=1"],
            'Option "[describe]" can\'t be used with option "[add-config, delete-config]"',
        ),
    ],
)
def test_bad_arguments_exit_1_with_kafkas_message(argv, message):
    code, out, err = run(*argv)
    assert code == 1 and out == ""
    assert err.splitlines()[0] == message


def test_quota_entities_are_ordered_user_first_and_sanitized():
    args = configs.build_parser().parse_args(
        [
            "--zookeeper",
            "z",
            "--alter",
            "--entity-type",
            "clients",
            "--entity-name",
            "c 1",
            "--entity-type",
            "users",
            "--entity-default",
            "--add-config",
            "producer_byte_rate=1",
        ]
    )
    entity = configs.parse_entity(args)
    assert entity.full_name == "<default>/clients/c%201"
    assert str(entity) == "default user-principal, client-id 'c 1'"
    broker = configs.parse_entity(
        configs.build_parser().parse_args(
            ["--zookeeper", "z", "--describe", "--entity-type", "brokers", "--entity-default"]
        )
    )
    assert (broker.full_name, str(broker)) == ("<default>", "default brokers")
