"""scripts/local-cluster.sh --secure --kerberos, through LocalCluster: a KDC of its own beside the secure cluster's
ZooKeeper and broker, GSSAPI on the SASL_SSL listener from data/secure's krb5.conf, keytabs and
<user>-gssapi.properties, and a stop that leaves no KDC running."""

import pytest

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.common.properties import read_properties
from kafka_zk.tools.kerberos_cluster import KerberosCluster
from kafka_zk.tools.local_cluster import LocalCluster
from tests.ports import free_port


@pytest.mark.timeout(180)
def test_a_secure_kerberos_cluster_serves_gssapi_and_stops_its_kdc(tmp_path, monkeypatch, broker_processes):
    kdc_port = free_port()
    settings = dict(
        brokers=1,
        zk_port=free_port(),
        broker_ports=[free_port()],
        internal_ports=[free_port()],
        overrides={"offsets.topic.replication.factor": "1", "transaction.state.log.replication.factor": "1"},
        secure=True,
        kerberos=True,
        kdc_port=kdc_port,
    )
    cluster = LocalCluster(tmp_path / "data", **settings)
    try:
        cluster.start(timeout=90)
        secure = tmp_path / "data" / "secure"
        assert {"krb5.conf", "alice.keytab", "admin.keytab", "alice-gssapi.properties"} <= {
            path.name for path in secure.iterdir()
        }
        # our tools find the realm as Kafka's do: the JVM flag in KAFKA_OPTS
        monkeypatch.setenv("KAFKA_OPTS", "-Djava.security.krb5.conf=%s" % (secure / "krb5.conf"))
        monkeypatch.setenv("KRB5CCNAME", "FILE:%s" % (tmp_path / "cc"))
        properties = read_properties(str(secure / "admin-gssapi.properties"))
        assert properties["sasl.mechanism"] == "GSSAPI" and properties["security.protocol"] == "SASL_SSL"
        broker = cluster.brokers[0]
        connection = BrokerConnection(broker.host, broker.port, timeout=10, security=properties)
        try:
            assert [b["node_id"] for b in connection.request(3, {"topics": []}, version=1)["brokers"]] == [0]
        finally:
            connection.close()
        # a later command (e.g. `stop` after --daemon) finds the KDC by its pid file
        assert KerberosCluster(secure, kdc_port=kdc_port).kdc.running
        assert any(line.startswith("kerberos KDC KAFKA.LOCAL") and "running" in line for line in cluster.status_lines())
        # `stop` is another process: its LocalCluster finds the KDC by its pid file too
        LocalCluster(tmp_path / "data", **settings).stop()
        assert not KerberosCluster(secure, kdc_port=kdc_port).kdc.running
    finally:
        cluster.kill()
