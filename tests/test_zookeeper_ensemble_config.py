"""The launcher's ensemble settings without a JVM: zoo.cfg lines, myid, member layout, command line, CLI."""

import pytest

from zookeeper import launcher
from zookeeper.launcher import (
    EnsembleMember,
    ZooKeeperEnsemble,
    ZooKeeperError,
    ZooKeeperServer,
    loopback_members,
    render_zoo_cfg,
)

PEERS = {1: ("10.0.0.1", 2888, 3888), 2: ("10.0.0.2", 2888, 3888), 3: ("10.0.0.3", 2888, 3888)}


def cfg_lines(text):
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_standalone_zoo_cfg_has_no_ensemble_lines_and_no_myid(tmp_path):
    server = ZooKeeperServer(tmp_path / "zk", port=2181)
    text = server.write_config().read_text()
    assert text == render_zoo_cfg(str(tmp_path / "zk"), 2181, "127.0.0.1", {})
    assert not any(line.startswith("server.") for line in text.splitlines())
    assert not server.myid_file.exists() and not server.in_ensemble


def test_member_zoo_cfg_lists_every_peer_and_myid_names_the_member(tmp_path):
    server = ZooKeeperServer(
        tmp_path / "zk-2", port=2182, host="10.0.0.2", extra_config={"tickTime": "500"}, server_id=2, peers=PEERS
    )
    lines = cfg_lines(server.write_config().read_text())
    assert [line for line in lines if line.startswith("server.")] == [
        "server.1=10.0.0.1:2888:3888",
        "server.2=10.0.0.2:2888:3888",
        "server.3=10.0.0.3:2888:3888",
    ]
    assert "tickTime=500" in lines and "tickTime=2000" not in lines
    assert "clientPort=2182" in lines and "clientPortAddress=10.0.0.2" in lines
    assert (tmp_path / "zk-2" / "myid").read_text() == "2\n"


def test_extra_config_can_replace_a_peer_line():
    text = render_zoo_cfg("/d", 2181, "h", {"server.1": "0.0.0.0:2888:3888"}, PEERS)
    assert cfg_lines(text).count("server.1=0.0.0.0:2888:3888") == 1
    assert "server.1=10.0.0.1:2888:3888" not in text


def test_member_must_be_among_its_peers(tmp_path):
    with pytest.raises(ZooKeeperError):
        ZooKeeperServer(tmp_path, server_id=4, peers=PEERS)


def test_command_prefix_comes_before_java(tmp_path, monkeypatch):
    monkeypatch.setattr(launcher, "find_zookeeper_classpath", lambda: ["/jars/zookeeper.jar"])
    monkeypatch.setattr(launcher, "_java", lambda: "/usr/bin/java")
    server = ZooKeeperServer(tmp_path, server_id=1, peers=PEERS, command_prefix=["ip", "netns", "exec", "kz-zk-1"])
    command = server.command()
    assert command[:5] == ["ip", "netns", "exec", "kz-zk-1", "/usr/bin/java"]
    assert command[-2:] == [launcher.SERVER_MAIN, str(tmp_path / "zoo.cfg")]
    assert ZooKeeperServer(tmp_path / "alone").command()[0] == "/usr/bin/java"


def test_ensemble_lays_out_members_in_numbered_folders(tmp_path):
    members = [
        EnsembleMember("10.0.0.1", 2181, 2888, 3888, ("ip", "netns", "exec", "kz-zk-1")),
        ("10.0.0.2", 2181, 2888, 3888),
        ("10.0.0.3", 2181, 2888, 3888),
    ]
    ensemble = ZooKeeperEnsemble(tmp_path, members, extra_config={"tickTime": "500"}, sasl_users={"kafka": "pw"})
    assert ensemble.connect_string == "10.0.0.1:2181,10.0.0.2:2181,10.0.0.3:2181"
    assert [server.data_dir for server in ensemble.servers] == [tmp_path / "zk-1", tmp_path / "zk-2", tmp_path / "zk-3"]
    third = ensemble.member(3)
    assert third.server_id == 3 and third.peers == PEERS and third.command_prefix == []
    assert ensemble.member(1).command_prefix == ["ip", "netns", "exec", "kz-zk-1"]
    assert third.sasl_users == {"kafka": "pw"} and third.extra_config["authProvider.1"] == launcher.SASL_AUTH_PROVIDER
    third.write_config()
    assert third.jaas_file.exists() and (tmp_path / "zk-3" / "myid").read_text() == "3\n"
    with pytest.raises(ZooKeeperError):
        ensemble.member(4)


def test_loopback_members_take_consecutive_ports():
    assert loopback_members(3, 2181, 2888, 3888) == [
        EnsembleMember("127.0.0.1", 2181, 2888, 3888),
        EnsembleMember("127.0.0.1", 2182, 2889, 3889),
        EnsembleMember("127.0.0.1", 2183, 2890, 3890),
    ]


def test_cli_status_of_a_stopped_ensemble(tmp_path, capsys):
    code = launcher.main(["status", "--data-dir", str(tmp_path), "--port", "12181", "--ensemble", "3"])
    assert code == 1
    assert capsys.readouterr().out.splitlines() == [
        "member 1 127.0.0.1:12181: stopped",
        "member 2 127.0.0.1:12182: stopped",
        "member 3 127.0.0.1:12183: stopped",
    ]
