"""PySpark data source for kafka-zk topics: ``spark.dataSource.register(KafkaZkDataSource)``; format ``kafka_zk``."""

from kafka_zk.spark.source import KafkaZkDataSource

__all__ = ["KafkaZkDataSource"]
