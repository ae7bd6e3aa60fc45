"""Delegation tokens on real brokers with delegation.token.master.key set: on a PLAINTEXT listener the four token
APIs answer DELEGATION_TOKEN_REQUEST_NOT_ALLOWED (through our admin client and kafka-delegation-tokens.sh), and
the brokers keep tokens in step through ZooKeeper: a token written there is loaded from its change notification,
and once expired the controller's scan removes it and announces the removal."""

import subprocess
from pathlib import Path

import pytest

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.zk.client import KafkaZkClient
from kafka_zk.zk.security_znodes import (
    DelegationTokenChangeNotificationSequenceZNode,
    DelegationTokenChangeNotificationZNode,
    DelegationTokensZNode,
    StoredDelegationToken,
)
from tests.cluster_support import module_cluster, wait_for

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
TOKEN_CONFIGS = {"delegation.token.master.key": "s3cr3t", "delegation.token.expiry.check.interval.ms": "300"}


cluster = module_cluster(2, overrides=TOKEN_CONFIGS)


@pytest.fixture
def zk(cluster):
    client = KafkaZkClient(cluster.zk_connect, session_timeout_ms=10000)
    client.start()
    yield client
    client.close()


def test_the_token_apis_refuse_plaintext_connections(cluster):
    refused = Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
    with AdminClient(cluster.bootstrap_servers) as admin:
        for call in (
            lambda: admin.create_delegation_token(["User:bob"]),
            lambda: admin.renew_delegation_token(b"hmac"),
            lambda: admin.expire_delegation_token(b"hmac"),
            lambda: admin.describe_delegation_tokens(),
        ):
            with pytest.raises(KafkaResponseError) as raised:
                call()
            assert raised.value.error == refused


def test_the_tool_prints_kafkas_error_for_a_plaintext_listener(cluster, tmp_path):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=PLAINTEXT\n")
    result = subprocess.run(
        [
            str(SCRIPTS / "kafka-delegation-tokens.sh"),
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--command-config",
            str(config),
            "--create",
            "--max-life-time-period",
            "-1",
        ],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "Calling create token operation with renewers :[] , max-life-time-period :-1",
        "Error while executing delegation token command : org.apache.kafka.common.errors."
        "UnsupportedByAuthenticationException: Delegation Token requests are not allowed on PLAINTEXT/1-way SSL "
        "channels and on delegation token authenticated channels.",
    ]


def test_brokers_create_the_token_paths_and_the_controller_removes_an_expired_token(cluster, zk):
    assert zk.exists(DelegationTokensZNode.PATH) and zk.exists(DelegationTokenChangeNotificationZNode.PATH)
    expired = StoredDelegationToken("expired-token", "User:alice", ("User:bob",), 1000, 3000, 2000)
    zk.set_or_create_delegation_token(expired)
    zk.create_token_change_notification(expired.token_id)  # the brokers load it, then the controller expires it
    wait_for(
        lambda: "expired-token" not in zk.get_delegation_token_ids(),
        timeout=30,
        message="the controller to remove the expired token",
    )

    # the removal is announced for every broker's cache (the notification follows the znode's deletion)
    def announced():
        return [
            DelegationTokenChangeNotificationSequenceZNode.decode(notification.data)
            for notification in zk.get_notifications(DelegationTokenChangeNotificationZNode.PATH)
        ]

    wait_for(lambda: announced() == ["expired-token"] * 2, timeout=30, message="the removal's change notification")


def test_a_token_znode_round_trips_through_zookeeper(zk):
    stored = StoredDelegationToken("live-token", "User:a b", ("User:c",), 1, 2**62, 2**61)
    zk.set_or_create_delegation_token(stored)
    zk.set_or_create_delegation_token(stored._replace(expiry_timestamp=2**60))
    assert zk.get_delegation_tokens(["live-token", "missing"]) == {
        "live-token": stored._replace(expiry_timestamp=2**60),
        "missing": None,
    }
    assert zk.get_data(DelegationTokensZNode.PATH + "/live-token")[0].startswith(b'{"issueTimestamp":1,')
    zk.delete_delegation_token("live-token")
    zk.delete_delegation_token("live-token")
    assert "live-token" not in zk.get_delegation_token_ids()
