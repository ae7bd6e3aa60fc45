"""Executor side of the kafka_zk source: one partition's offset range fetched by confluent-kafka into Arrow batches."""

import logging
import time

import pyarrow as pa
import pyarrow.compute as pc

from kafka_zk.security.client_properties import librdkafka_client_settings
from kafka_zk.spark.schema import arrow_read_schema

log = logging.getLogger(__name__)

# Records per Arrow batch handed to Spark (Spark's own default arrow batch size is 10,000 rows).
RECORDS_PER_BATCH = 10000


class KafkaZkDataLossError(RuntimeError):
    """Records the query needs are gone (retention, truncation) and failOnDataLoss is true."""


def consumer_config(bootstrap_servers, client_settings):
    config = {
        "group.id": "kafka-zk-spark-reader",  # required by the client; never joined: partitions are assigned
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "enable.partition.eof": True,
        "auto.offset.reset": "error",
        "client.id": "kafka-zk-spark-executor",
        # A task's consumer may start from metadata that does not list a partition just added to the topic
        # (a broker not yet told of it); librdkafka would then wait for its periodic refresh, 5 min by default.
        "topic.metadata.refresh.interval.ms": 5000,
    }
    config.update(librdkafka_client_settings(client_settings))  # kafka.security.protocol, kafka.sasl.*, kafka.ssl.*
    config["bootstrap.servers"] = bootstrap_servers
    return config


def check_consumer_settings(bootstrap_servers, client_settings):
    """Fail on the driver, before any task runs, when a kafka.* setting is unknown to the client or invalid."""
    from confluent_kafka import Consumer, KafkaException

    try:
        Consumer(consumer_config(bootstrap_servers, client_settings)).close()
    except (KafkaException, ValueError, TypeError) as exc:
        from kafka_zk.spark.options import KafkaZkOptionError

        raise KafkaZkOptionError("Invalid kafka.* client setting: %s" % exc) from None


def data_loss_message(topic, partition, wanted, available):
    return (
        "Some data may have been lost because they are not available in Kafka any more: offsets %d..%d of %s-%d "
        "are gone (the log now starts at %d). If you want your streaming query to continue when data is lost, "
        "set the source option failOnDataLoss to false." % (wanted, available - 1, topic, partition, available)
    )


def records_to_batch(messages, topic, partition, include_headers, schema):
    """An Arrow RecordBatch with Spark's Kafka schema from a non-empty list of confluent-kafka Messages.

    Columns are gathered with map() over the Message methods (no per-record Python frames), then handed to
    Arrow in one call each; topic and partition are constant columns."""
    from confluent_kafka import Message

    count = len(messages)
    types, millis = zip(*map(Message.timestamp, messages))
    columns = [
        pa.array(list(map(Message.key, messages)), pa.binary()),
        pa.array(list(map(Message.value, messages)), pa.binary()),
        pa.repeat(pa.scalar(topic, pa.string()), count),
        pa.repeat(pa.scalar(partition, pa.int32()), count),
        pa.array(list(map(Message.offset, messages)), pa.int64()),
        pc.multiply(pa.array(millis, pa.int64()), 1000).cast(pa.timestamp("us", tz="UTC")),
        # librdkafka: 1 CreateTime, 2 LogAppendTime (0 not available); Spark: 0 CreateTime, 1 LogAppendTime.
        pc.subtract(pa.array(types, pa.int32()), 1),
    ]
    if include_headers:
        headers = [
            [{"key": k, "value": v} for k, v in pairs] if pairs else None for pairs in map(Message.headers, messages)
        ]
        columns.append(pa.array(headers, schema.field("headers").type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


class OffsetRangeFetcher:
    """Reads [start, end) of one partition; ``fail_on_data_loss`` decides what happens when part of it is gone."""

    def __init__(
        self,
        bootstrap_servers,
        client_settings,
        topic,
        partition,
        start,
        end,
        include_headers,
        fail_on_data_loss,
        poll_timeout_ms,
        clock=time.monotonic,
        consumer_factory=None,
    ):
        self.topic = topic
        self.partition = partition
        self.start = start
        self.end = end
        self.include_headers = include_headers
        self.fail_on_data_loss = fail_on_data_loss
        self.poll_timeout_s = poll_timeout_ms / 1000.0
        self._config = consumer_config(bootstrap_servers, client_settings)
        self._clock = clock
        self._consumer_factory = consumer_factory
        self.schema = arrow_read_schema(include_headers)

    def _new_consumer(self):
        if self._consumer_factory is not None:
            return self._consumer_factory(self._config)
        from confluent_kafka import Consumer

        return Consumer(self._config)

    def batches(self):
        """Yields Arrow RecordBatches covering every record of [start, end) once, in offset order."""
        if self.start >= self.end:
            return
        from confluent_kafka import KafkaError, TopicPartition

        consumer = self._new_consumer()
        try:
            position = self.start
            consumer.assign([TopicPartition(self.topic, self.partition, position)])
            last_progress = self._clock()
            while position < self.end:
                # Asking for no more than the range still holds lets the last call return as soon as it is read.
                wanted = max(1, min(RECORDS_PER_BATCH, self.end - position))
                messages = consumer.consume(num_messages=wanted, timeout=1.0)
                records = []
                eof_at = None
                out_of_range = False
                for message in messages:
                    error = message.error()
                    if error is None:
                        records.append(message)
                        continue
                    code = error.code()
                    if code == KafkaError._PARTITION_EOF:
                        eof_at = message.offset()
                    elif code in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE):
                        out_of_range = True
                        break
                    elif error.fatal():
                        raise RuntimeError(
                            "Kafka client error reading %s-%d: %s" % (self.topic, self.partition, error.str())
                        )
                    else:
                        log.warning("transient error reading %s-%d: %s", self.topic, self.partition, error.str())
                if records and (records[-1].offset() >= self.end or records[0].offset() < position):
                    records = [m for m in records if position <= m.offset() < self.end]
                if records:
                    position = records[-1].offset() + 1
                    last_progress = self._clock()
                    yield records_to_batch(records, self.topic, self.partition, self.include_headers, self.schema)
                if eof_at is not None and eof_at >= self.end:
                    return  # the rest of the range holds no data records (control batches, compacted away)
                if out_of_range:
                    position = self._out_of_range(consumer, position)
                    if position >= self.end:
                        return
                    consumer.assign([TopicPartition(self.topic, self.partition, position)])
                    last_progress = self._clock()
                if position < self.end and self._clock() - last_progress > self.poll_timeout_s:
                    raise TimeoutError(
                        "No records of %s-%d after offset %d arrived within %.0f s; the range ends at "
                        "%d (kafkaConsumer.pollTimeoutMs)"
                        % (self.topic, self.partition, position, self.poll_timeout_s, self.end)
                    )
        finally:
            consumer.close()

    def _out_of_range(self, consumer, position):
        """Where to go on after the broker said ``position`` is out of range (the log start moved past it)."""
        from confluent_kafka import TopicPartition

        low, high = consumer.get_watermark_offsets(
            TopicPartition(self.topic, self.partition), timeout=self.poll_timeout_s, cached=False
        )
        if position < low:
            if self.fail_on_data_loss:
                raise KafkaZkDataLossError(data_loss_message(self.topic, self.partition, position, low))
            log.warning(data_loss_message(self.topic, self.partition, position, low))
            return low
        if position > high:
            message = "Offset %d of %s-%d is past the end of the log (%d): the partition was truncated or recreated" % (
                position,
                self.topic,
                self.partition,
                high,
            )
            if self.fail_on_data_loss:
                raise KafkaZkDataLossError(message + "; set failOnDataLoss to false to go on")
            log.warning(message)
            return self.end
        return position
