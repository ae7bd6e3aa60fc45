"""kafka-zk: an Apache Kafka 2.5 (ZooKeeper mode) compatible broker cluster in Python."""

from kafka_zk import compiled as _compiled

__version__ = "0.1.0"

# before any hot module is imported: their compiled twins, where built from the current sources
_compiled.install()
