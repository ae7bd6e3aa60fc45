"""The order a session tries ZooKeeper servers in: shuffled once, then kept (ZooKeeper's StaticHostProvider)."""

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
