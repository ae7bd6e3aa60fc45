"""kafka-zk: an Apache Kafka 2.5 (ZooKeeper mode) compatible broker cluster in Python."""

__version__ = "0.1.0"
