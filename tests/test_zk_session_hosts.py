"""The order a session tries ZooKeeper servers in: shuffled once, then kept (ZooKeeper's StaticHostProvider)."""

from kazoo.handlers.threading import SequentialThreadingHandler

from kafka_zk.zk.session import ZkSession, shuffled_once


def test_hosts_are_shuffled_once_and_the_chroot_kept():
    assert shuffled_once("a:1,b:2,c:3/kafka", shuffle=list.reverse) == "c:3,b:2,a:1/kafka"
    assert shuffled_once("a:1", shuffle=list.reverse) == "a:1"
    assert sorted(shuffled_once("a:1,b:2,c:3").split(",")) == ["a:1", "b:2", "c:3"]


def test_kazoo_keeps_the_order_for_the_sessions_life():
    session = ZkSession("a:1,b:2,c:3/kafka")
    client = session.kazoo
    assert client.randomize_hosts is False
    assert sorted(client.hosts) == [("a", 1), ("b", 2), ("c", 3)] and client.chroot == "/kafka"


def test_a_connection_to_one_server_lasts_the_session_over_the_servers(monkeypatch):
    """As ZooKeeper's ClientCnxn: 6 s over 3 servers, 2 s a server, so one that drops every packet leaves time to
    reach the others before the session expires (kazoo alone would wait the whole 6 s on it)."""
    asked = []
    monkeypatch.setattr(
        SequentialThreadingHandler, "create_connection", lambda handler, *args, **kwargs: asked.append(kwargs)
    )
    session = ZkSession("a:1,b:2,c:3/kafka", session_timeout_ms=6000)
    session.kazoo.handler.create_connection(address=("a", 1), timeout=6.0)
    alone = ZkSession("a:1", session_timeout_ms=6000)
    alone.kazoo.handler.create_connection(address=("a", 1), timeout=6.0)
    assert [kwargs["timeout"] for kwargs in asked] == [2.0, 6.0]
