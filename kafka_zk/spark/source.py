"""KafkaZkDataSource: the `kafka_zk` format of PySpark, Spark's Kafka source and sink contract over kafka-zk."""

from pyspark.sql.datasource import DataSource

from kafka_zk.spark.fetch import check_consumer_settings
from kafka_zk.spark.options import (
    SINK_OPTIONS,
    SOURCE_OPTIONS,
    check_known_options,
    parse_bool,
    parse_sink_options,
    parse_source_options,
)
from kafka_zk.spark.reader import KafkaZkBatchReader, KafkaZkStreamReader
from kafka_zk.spark.schema import read_schema
from kafka_zk.spark.writer import KafkaZkBatchWriter, KafkaZkStreamWriter, check_producer_settings, check_sink_schema


class KafkaZkDataSource(DataSource):
    """Register with ``spark.dataSource.register(KafkaZkDataSource)``, then use ``format("kafka_zk")``."""

    @classmethod
    def name(cls):
        return "kafka_zk"

    def schema(self):
        check_known_options(self.options, SOURCE_OPTIONS | SINK_OPTIONS, "source")
        return read_schema(parse_bool(self.options, "includeheaders", False))

    def _source(self, streaming):
        opts = parse_source_options(self.options, streaming)
        check_consumer_settings(opts.bootstrap_servers, opts.client_settings)
        return opts

    def reader(self, schema):
        return KafkaZkBatchReader(self._source(streaming=False))

    def streamReader(self, schema):
        return KafkaZkStreamReader(self._source(streaming=True))

    def _sink(self, schema):
        opts = parse_sink_options(self.options)
        check_sink_schema(schema, opts.topic)
        check_producer_settings(opts)
        return opts

    def writer(self, schema, overwrite):
        return KafkaZkBatchWriter(self._sink(schema))

    def streamWriter(self, schema, overwrite):
        return KafkaZkStreamWriter(self._sink(schema))
