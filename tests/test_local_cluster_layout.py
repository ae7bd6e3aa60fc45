"""local-cluster.sh remembers the layout of its last start in DATA/layout.json: later commands take the flags they
leave out from it, and a start may not move the cluster's brokers to another ZooKeeper."""

import json

import pytest

from kafka_zk.tools.local_cluster import parse_args, write_layout


def test_later_commands_take_the_flags_they_leave_out_from_the_last_start(tmp_path):
    write_layout(parse_args(["--data", str(tmp_path), "--brokers", "4", "--racks", "2", "--zookeepers", "3"]))
    assert json.loads((tmp_path / "layout.json").read_text())["zookeepers"] == 3
    for command in (["status"], ["broker", "1", "start"], []):
        args = parse_args(["--data", str(tmp_path), *command])
        assert (args.brokers, args.racks, args.zookeepers, args.hosts) == (4, 2, 3, False)
    assert parse_args(["--data", str(tmp_path), "--brokers", "5"]).brokers == 5


def test_a_start_may_not_give_the_cluster_another_zookeeper(tmp_path, capsys):
    write_layout(parse_args(["--data", str(tmp_path), "--zookeepers", "3"]))
    with pytest.raises(SystemExit) as exited:
        parse_args(["--data", str(tmp_path), "--zookeepers", "1"])
    assert exited.value.code == 2
    assert "holds a cluster started with 3 ZooKeeper servers on 127.0.0.1" in capsys.readouterr().err


def test_without_a_layout_the_defaults_hold(tmp_path):
    args = parse_args(["--data", str(tmp_path)])
    assert (args.brokers, args.racks, args.zookeepers, args.hosts, args.secure) == (3, None, 1, False, False)
