"""The kafka_zk source and sink on a real Spark cluster: a standalone master and two executor JVMs
(`local-cluster[2,1,1024]`), so reads and writes run in the executors' Python workers, not in the driver."""

import os

import pytest
from pyspark.sql import functions as F

from tests.cluster_support import wait_for
from tests.spark_support import consume_all, create_topic, make_spark_session, produce, stop_shared_spark_session


@pytest.fixture(scope="module")
def cluster_spark():
    stop_shared_spark_session()  # one SparkContext per process: the local one goes; the next module starts it anew
    session = make_spark_session("kafka-zk-cluster-tests", master="local-cluster[2,1,1024]")
    yield session
    session.stop()


def test_read_and_write_run_on_executors(cluster_spark, cluster):
    spark = cluster_spark
    bootstrap = cluster.bootstrap_servers
    # The executor JVMs register with the driver a while after the session starts (the driver counts as one).
    wait_for(
        lambda: spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1 == 2,
        timeout=120,
        message="two executors registered",
    )
    create_topic(bootstrap, "on-cluster", 4)
    delivered = produce(bootstrap, "on-cluster", [(b"k%d" % (i % 10), b"v%d" % i, None) for i in range(20000)])
    df = (
        spark.read.format("kafka_zk")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "on-cluster")
        .load()
    )
    # Which processes read: each task reports its Python worker's pid; none is the driver's.
    pids = df.rdd.mapPartitions(lambda rows: [os.getpid()]).collect()
    assert os.getpid() not in pids and len(pids) == 4
    stats = df.agg(F.count("*").alias("n"), F.countDistinct("partition", "offset").alias("d")).first()
    assert stats.n == stats.d == len(delivered)

    create_topic(bootstrap, "from-cluster", 2)
    df.select("key", "value").write.format("kafka_zk").mode("append").option(
        "kafka.bootstrap.servers", bootstrap
    ).option("topic", "from-cluster").save()
    written = consume_all(bootstrap, "from-cluster", 2)
    assert sorted(v for _, v, _ in written.values()) == sorted(v for _, v, _ in delivered.values())
