"""The PySpark sink's producer loop without Spark: a record librdkafka refuses at once fails the task with the
same error as a record refused on delivery."""

import pyarrow as pa
import pytest
from confluent_kafka import KafkaError, KafkaException

from kafka_zk.spark.options import parse_sink_options
from kafka_zk.spark.writer import KafkaZkSinkError, _ArrowBatchProducer


class RefusingProducer:
    """librdkafka's answer for a partition its metadata does not have: produce() raises at once."""

    def __init__(self, config):
        self.produced = 0

    def produce(self, topic, value, **kwargs):
        raise KafkaException(
            KafkaError(KafkaError._UNKNOWN_PARTITION, "Unable to produce message: Local: Unknown partition")
        )

    def poll(self, timeout):
        return 0

    def flush(self, timeout):
        return 0


def test_a_record_refused_at_once_fails_the_task_like_a_failed_delivery():
    opts = parse_sink_options({"kafka.bootstrap.servers": "127.0.0.1:1", "topic": "t"})
    batch = pa.RecordBatch.from_pydict({"value": [b"v1", b"v2"], "partition": [7, 7]})
    with pytest.raises(KafkaZkSinkError, match=r"1 record\(s\) could not be written; first error: .*Unknown partition"):
        _ArrowBatchProducer(opts, producer_factory=RefusingProducer).produce_all([batch])
