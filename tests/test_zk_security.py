"""ZooKeeper security decisions without a ZooKeeper: Kafka's default ACL per path, the JAAS `Client` login from
KAFKA_OPTS, the broker's zookeeper.set.acl check, which ACLs the kazoo client hands ZooKeeper (parents and
transactions included), the launcher's SASL setup and the migration tool's refusals."""

import argparse
import sys

import pytest
from kazoo.security import ACL, Id, Permissions

from kafka_zk.security.zk_login import (
    ZkSecurityError,
    broker_zk_security,
    system_properties,
    tool_zk_security,
    zk_sasl_options,
    zk_security_sys_config_string,
)
from kafka_zk.server.config.kafka_config import KafkaConfig
from kafka_zk.tools import zk_security_migration
from kafka_zk.tools.command_line import run_tool
from kafka_zk.zk.acl_client import SecuredKazooClient, kazoo_acls
from kafka_zk.zk.acls import (
    CREATOR_ALL,
    SECURE_ROOT_PATHS,
    WORLD_ALL,
    WORLD_READ,
    ZkSecurity,
    default_acls,
    is_sensitive_path,
)
from zookeeper import launcher
from zookeeper.launcher import SASL_AUTH_PROVIDER, ZooKeeperServer, server_jaas

CLIENT_JAAS = """
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="kafka"
  password="kafka-secret";
};
KafkaServer { org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b"; };
"""


@pytest.fixture
def jaas_env(tmp_path):
    path = tmp_path / "kafka_jaas.conf"
    path.write_text(CLIENT_JAAS)
    return {"KAFKA_OPTS": "-Xmx1g -Djava.security.auth.login.config=%s" % path}


# -- the ACL of each path ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/brokers/topics/events",
        "/brokers/ids/0",
        "/controller",
        "/config/topics/t",
        "/config/changes/config_change_0000000001",
        "/admin/delete_topics/t",
        "/cluster/id",
        "/kafka-acl/Topic/t",
        "/config/clients/c",
        "/",
    ],
)
def test_secure_paths_give_the_creator_all_and_the_world_read(path):
    assert default_acls(True, path) == (CREATOR_ALL, WORLD_READ)


@pytest.mark.parametrize(
    "path",
    [
        "/config/users",
        "/config/users/alice",
        "/config/brokers",
        "/config/brokers/0",
        "/config/brokers/<default>",
        "/delegation_token/tokens",
        "/delegation_token/tokens/x",
    ],
)
def test_sensitive_paths_give_the_world_nothing(path):
    assert is_sensitive_path(path)
    assert default_acls(True, path) == (CREATOR_ALL,)


def test_the_old_consumer_root_stays_open_and_unsecure_is_open_everywhere():
    assert default_acls(True, "/consumers") == (WORLD_ALL,)
    assert default_acls(True, "/consumers/g/offsets") == (CREATOR_ALL, WORLD_READ)
    assert default_acls(False, "/config/users/alice") == (WORLD_ALL,)
    assert not is_sensitive_path("/config/topics/users") and not is_sensitive_path(None)


def test_the_secure_roots_are_kafkas():
    assert {
        "/admin",
        "/brokers",
        "/cluster",
        "/config",
        "/controller",
        "/controller_epoch",
        "/isr_change_notification",
        "/latest_producer_id_block",
        "/log_dir_event_notification",
        "/delegation_token",
        "/kafka-acl",
        "/kafka-acl-changes",
        "/kafka-acl-extended-changes",
    } <= set(SECURE_ROOT_PATHS)


def test_kazoo_acls_are_zookeepers_ids():
    assert kazoo_acls((CREATOR_ALL, WORLD_READ)) == [
        ACL(Permissions.ALL, Id("auth", "")),
        ACL(Permissions.READ, Id("world", "anyone")),
    ]


# -- the login from KAFKA_OPTS -------------------------------------------------------------------------------------


def test_the_client_section_gives_digest_md5(jaas_env):
    assert zk_sasl_options(jaas_env) == {"mechanism": "DIGEST-MD5", "username": "kafka", "password": "kafka-secret"}
    assert tool_zk_security(jaas_env) == ZkSecurity(zk_sasl_options(jaas_env), secure_acls=True)


def test_no_jaas_file_or_no_client_section_means_no_sasl(tmp_path):
    assert zk_sasl_options({}) is None
    assert tool_zk_security({}) == ZkSecurity()
    other = tmp_path / "other.conf"
    other.write_text("KafkaServer { x required; };")
    assert zk_sasl_options({"KAFKA_OPTS": "-Djava.security.auth.login.config=%s" % other}) is None


def test_another_section_name_and_sasl_switched_off(jaas_env, tmp_path):
    renamed = tmp_path / "renamed.conf"
    renamed.write_text(CLIENT_JAAS.replace("Client {", "ZkLogin {"))
    opts = "-Djava.security.auth.login.config=%s -Dzookeeper.sasl.clientconfig=ZkLogin" % renamed
    assert zk_sasl_options({"KAFKA_OPTS": opts})["username"] == "kafka"
    off = dict(jaas_env, KAFKA_OPTS=jaas_env["KAFKA_OPTS"] + " -Dzookeeper.sasl.client=false")
    with pytest.raises(ZkSecurityError, match="Exception while determining if ZooKeeper is secure"):
        zk_sasl_options(off)


def test_an_unreadable_jaas_file_fails_as_kafka():
    with pytest.raises(ZkSecurityError, match="Exception while loading Zookeeper JAAS login context"):
        zk_sasl_options({"KAFKA_OPTS": "-Djava.security.auth.login.config=/nonexistent/jaas.conf"})


def test_system_properties_and_the_config_string(jaas_env):
    assert system_properties({"KAFKA_OPTS": "-Xmx1g -Da=b -Dc=d=e"}) == {"a": "b", "c": "d=e"}
    assert zk_security_sys_config_string({}) == (
        "[java.security.auth.login.config=null, zookeeper.sasl.client=default:true, "
        "zookeeper.sasl.clientconfig=default:Client]"
    )


def test_the_broker_refuses_set_acl_without_a_jaas_client_section(jaas_env):
    with pytest.raises(ZkSecurityError) as refused:
        broker_zk_security(True, {})
    assert str(refused.value).startswith("zookeeper.set.acl is true, but ZooKeeper client TLS configuration")
    assert "the verification of the JAAS login file failed [java.security.auth.login.config=null" in str(refused.value)
    assert broker_zk_security(False, {}) == ZkSecurity()
    assert broker_zk_security(False, jaas_env) == ZkSecurity(zk_sasl_options(jaas_env), secure_acls=False)
    assert broker_zk_security(True, jaas_env).secure_acls


def test_zookeeper_set_acl_is_a_broker_config_defaulting_to_false():
    assert KafkaConfig({"zookeeper.connect": "zk:2181"})["zookeeper.set.acl"] is False
    assert KafkaConfig({"zookeeper.connect": "zk:2181", "zookeeper.set.acl": "true"})["zookeeper.set.acl"] is True


# -- what the kazoo client sends ------------------------------------------------------------------------------------


class RecordingKazoo(SecuredKazooClient):
    """Records the ACL each create would send instead of sending it."""

    def __init__(self, security):
        super().__init__("127.0.0.1:1", security)
        self.sent = []

    def _create_async_inner(self, path, value, acl, flags, trailing=False, include_data=False):
        self.sent.append((path, list(acl)))
        result = self.handler.async_result()
        result.set(path)
        return result


def test_creates_get_each_paths_acl_and_explicit_acls_win():
    client = RecordingKazoo(ZkSecurity(secure_acls=True))
    client.create_async("/config/users/alice", b"{}").get()
    client.create_async("/brokers/topics/t", b"{}").get()
    client.create_async("/brokers/topics/u", b"{}", acl=kazoo_acls((WORLD_ALL,))).get()
    assert client.sent == [
        ("/config/users/alice", kazoo_acls((CREATOR_ALL,))),
        ("/brokers/topics/t", kazoo_acls((CREATOR_ALL, WORLD_READ))),
        ("/brokers/topics/u", kazoo_acls((WORLD_ALL,))),
    ]


def test_transactions_use_the_path_acls():
    client = SecuredKazooClient("127.0.0.1:1", ZkSecurity(secure_acls=True))
    transaction = client.transaction()
    transaction.create("/config/brokers/0", b"{}")
    transaction.create("/controller", b"{}", ephemeral=True)
    assert [list(op.acl) for op in transaction.operations] == [
        kazoo_acls((CREATOR_ALL,)),
        kazoo_acls((CREATOR_ALL, WORLD_READ)),
    ]


def test_an_unsecured_client_creates_open_znodes_and_does_not_log_in():
    client = RecordingKazoo(ZkSecurity())
    client.create_async("/config/users/alice", b"{}").get()
    assert client.sent == [("/config/users/alice", kazoo_acls((WORLD_ALL,)))]
    assert client._connection.sasl_options is None


def test_sasl_options_reach_kazoo_as_a_copy():
    options = {"mechanism": "DIGEST-MD5", "username": "kafka", "password": "s"}
    client = SecuredKazooClient("127.0.0.1:1", ZkSecurity(sasl_options=options))
    assert client._connection.sasl_options == options and client._connection.sasl_options is not options


# -- the launcher's SASL ZooKeeper ----------------------------------------------------------------------------------


def test_the_launcher_writes_a_server_jaas_and_the_sasl_provider(tmp_path):
    server = ZooKeeperServer(tmp_path, port=2999, sasl_users={"kafka": 'se"cret'})
    command = server.command()
    assert "-Djava.security.auth.login.config=%s" % server.jaas_file in command
    assert "authProvider.1=%s" % SASL_AUTH_PROVIDER in server.cfg_file.read_text()
    assert server.jaas_file.read_text() == server_jaas({"kafka": 'se"cret'})
    assert 'user_kafka="se\\"cret";' in server.jaas_file.read_text()


def test_a_launcher_without_sasl_users_has_no_jaas(tmp_path):
    server = ZooKeeperServer(tmp_path, port=2999)
    assert not any("login.config" in word for word in server.command())
    assert "authProvider" not in server.cfg_file.read_text()


# -- the migration tool's refusals ----------------------------------------------------------------------------------


def run_migration(argv, environ, capsys):
    parser = zk_security_migration.build_parser()
    code = run_tool(
        parser,
        lambda args, out, err: zk_security_migration.run(args, out, err, environ=environ),
        argv,
        sys.stdout,
        sys.stderr,
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_migration_without_a_jaas_file_is_refused(capsys):
    code, out, err = run_migration(["--zookeeper.acl=secure", "--zookeeper.connect=127.0.0.1:1"], {}, capsys)
    assert code == 1
    assert err.startswith("ERROR: No JAAS configuration file has been specified and no TLS client certificate")
    assert "java.lang.IllegalArgumentException: Incorrect configuration" in err


def test_migration_with_a_jaas_file_without_client_section_is_refused(tmp_path, capsys):
    path = tmp_path / "server_only.conf"
    path.write_text("KafkaServer { x required; };")
    environ = {"KAFKA_OPTS": "-Djava.security.auth.login.config=%s" % path}
    code, out, err = run_migration(["--zookeeper.acl=secure"], environ, capsys)
    assert code == 1
    assert out == "ERROR: Security isn't enabled, most likely the file isn't set properly: %s\n" % path


def test_migration_needs_secure_or_unsecure(jaas_env, capsys):
    code, out, err = run_migration(["--zookeeper.acl=maybe"], jaas_env, capsys)
    assert code == 1
    assert "ZooKeeper Migration Tool Help" in err
    code, out, err = run_migration([], jaas_env, capsys)
    assert code == 1 and "--zookeeper.acl" in err


def test_the_launcher_command_line_takes_sasl_users_and_kafka_opts(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_OPTS", "-Djava.security.auth.login.config=/etc/kafka/zk_jaas.conf")
    args = argparse.Namespace(
        data_dir=str(tmp_path), port=2999, host="127.0.0.1", config=None, sasl_user=["kafka=secret", "admin=a=b"]
    )
    server = launcher._server_from_args(args)
    assert server.sasl_users == {"kafka": "secret", "admin": "a=b"}
    assert "-Djava.security.auth.login.config=/etc/kafka/zk_jaas.conf" in server.command()
    shell = launcher.zkcli_command("127.0.0.1:2999", launcher.kafka_opts())
    assert "-Djava.security.auth.login.config=/etc/kafka/zk_jaas.conf" in shell
