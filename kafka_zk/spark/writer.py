"""The kafka_zk sink: Arrow batches of a DataFrame produced by an idempotent confluent-kafka producer (acks=all)."""

from dataclasses import dataclass

from pyspark.sql.datasource import DataSourceArrowWriter, DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.types import ArrayType, BinaryType, IntegerType, StringType, StructType

from kafka_zk.security.client_properties import librdkafka_client_settings
from kafka_zk.spark.options import KafkaZkOptionError


class KafkaZkSinkError(RuntimeError):
    """Records could not be written (the error the broker or the client gave, for the first failed record)."""


@dataclass
class SinkCommitMessage(WriterCommitMessage):
    records: int


def _header_type_ok(data_type):
    if not isinstance(data_type, ArrayType) or not isinstance(data_type.elementType, StructType):
        return False
    fields = {f.name: f.dataType for f in data_type.elementType.fields}
    return (
        set(fields) == {"key", "value"}
        and isinstance(fields["key"], StringType)
        and isinstance(fields["value"], (BinaryType, StringType))
    )


def check_sink_schema(schema, topic_option):
    """Spark's Kafka sink rules for the DataFrame's columns; KafkaZkOptionError says what is wrong."""
    columns = {f.name.lower(): f.dataType for f in schema.fields}
    value = columns.get("value")
    if value is None:
        raise KafkaZkOptionError("Required attribute 'value' not found")
    if not isinstance(value, (StringType, BinaryType)):
        raise KafkaZkOptionError("value attribute type must be a string or binary, not %s" % value.simpleString())
    key = columns.get("key")
    if key is not None and not isinstance(key, (StringType, BinaryType)):
        raise KafkaZkOptionError("key attribute type must be a string or binary, not %s" % key.simpleString())
    topic = columns.get("topic")
    if topic_option is None and topic is None:
        raise KafkaZkOptionError(
            "topic option required when no 'topic' attribute is present. Use the topic option for setting a topic."
        )
    if topic is not None and not isinstance(topic, StringType):
        raise KafkaZkOptionError("topic attribute type must be a string, not %s" % topic.simpleString())
    partition = columns.get("partition")
    if partition is not None and not isinstance(partition, IntegerType):
        raise KafkaZkOptionError("partition attribute type must be an int, not %s" % partition.simpleString())
    headers = columns.get("headers")
    if headers is not None and not _header_type_ok(headers):
        raise KafkaZkOptionError(
            "headers attribute type must be array<struct<key:string,value:binary>>, not %s" % headers.simpleString()
        )


def producer_config(bootstrap_servers, client_settings):
    config = {"linger.ms": 5, "client.id": "kafka-zk-spark-sink"}
    config.update(librdkafka_client_settings(client_settings))  # kafka.security.protocol, kafka.sasl.*, kafka.ssl.*
    config.update(
        {
            "bootstrap.servers": bootstrap_servers,
            "enable.idempotence": True,
            "acks": "all",
            "delivery.report.only.error": True,
        }
    )
    return config


def check_producer_settings(opts):
    """Fail on the driver, before any task runs, when a kafka.* setting is unknown to the client or invalid."""
    from confluent_kafka import KafkaException, Producer

    try:
        Producer(producer_config(opts.bootstrap_servers, opts.client_settings)).flush(0)
    except (KafkaException, ValueError, TypeError) as exc:
        raise KafkaZkOptionError("Invalid kafka.* client setting: %s" % exc) from None


def _column(batch, name):
    index = batch.schema.get_field_index(name)
    if index < 0:
        for i, field in enumerate(batch.schema):
            if field.name.lower() == name:
                return batch.column(i)
        return None
    return batch.column(index)


class _ArrowBatchProducer:
    """Produces every row of a task's Arrow batches; raises after the flush if any record failed."""

    def __init__(self, opts, flush_timeout_s=120.0, producer_factory=None):
        self.opts = opts
        self.flush_timeout_s = flush_timeout_s
        self._producer_factory = producer_factory

    def produce_all(self, batches):
        failures = []

        def on_error(error, message):
            if error is not None:
                failures.append("%s (topic %s)" % (error.str(), message.topic()))

        config = producer_config(self.opts.bootstrap_servers, self.opts.client_settings)
        config["on_delivery"] = on_error
        if self._producer_factory is not None:
            producer = self._producer_factory(config)
        else:
            from confluent_kafka import Producer

            producer = Producer(config)
        count = 0
        try:
            for batch in batches:
                count += self._produce_batch(producer, batch, failures)
            remaining = producer.flush(self.flush_timeout_s)
        except BufferError as exc:
            raise KafkaZkSinkError("producer queue full: %s" % exc) from None
        if failures:
            raise KafkaZkSinkError("%d record(s) could not be written; first error: %s" % (len(failures), failures[0]))
        if remaining:
            raise KafkaZkSinkError(
                "%d record(s) were not acknowledged within %.0f s" % (remaining, self.flush_timeout_s)
            )
        return count

    def _produce_batch(self, producer, batch, failures):
        from confluent_kafka import KafkaException

        rows = batch.num_rows
        if not rows:
            return 0
        values = _column(batch, "value").to_pylist()
        key_column = _column(batch, "key")
        keys = key_column.to_pylist() if key_column is not None else None
        topic_column = _column(batch, "topic")
        topics = topic_column.to_pylist() if topic_column is not None else None
        partition_column = _column(batch, "partition")
        partitions = partition_column.to_pylist() if partition_column is not None else None
        header_column = _column(batch, "headers")
        headers = header_column.to_pylist() if header_column is not None else None
        default_topic = self.opts.topic
        produce = producer.produce
        poll = producer.poll
        for i in range(rows):
            topic = topics[i] if topics is not None and topics[i] is not None else default_topic
            if topic is None:
                raise KafkaZkSinkError("Null topic present in the data. Use the topic option for setting a topic.")
            kwargs = {}
            if keys is not None and keys[i] is not None:
                kwargs["key"] = keys[i]
            if partitions is not None and partitions[i] is not None:
                kwargs["partition"] = partitions[i]
            if headers is not None and headers[i]:
                kwargs["headers"] = [(h["key"], h["value"]) for h in headers[i]]
            while True:
                try:
                    produce(topic, values[i], **kwargs)
                    break
                except BufferError:
                    poll(0.05)
                except KafkaException as exc:  # refused at once, e.g. a partition the topic's metadata lacks
                    failures.append("%s (topic %s)" % (exc.args[0].str(), topic))
                    break
            if failures:
                break
        poll(0)
        return rows


class KafkaZkBatchWriter(DataSourceArrowWriter):
    """df.write.format("kafka_zk"): each task produces its rows; a failed record fails the task and the job."""

    def __init__(self, opts):
        self.opts = opts

    def write(self, iterator):
        return SinkCommitMessage(_ArrowBatchProducer(self.opts).produce_all(iterator))

    def commit(self, messages):
        pass

    def abort(self, messages):
        pass


class KafkaZkStreamWriter(DataSourceStreamArrowWriter):
    """writeStream.format("kafka_zk"): every micro-batch produced at least once (retried batches may repeat)."""

    def __init__(self, opts):
        self.opts = opts

    def write(self, iterator):
        return SinkCommitMessage(_ArrowBatchProducer(self.opts).produce_all(iterator))

    def commit(self, messages, batchId):
        pass

    def abort(self, messages, batchId):
        pass
