"""kafka-delete-records' offset JSON parsing and kafka-log-dirs' JSON, against Kafka 2.5's messages and format."""

import pytest

from kafka_zk.client.admin import LogDirInfo, ReplicaInfo
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_line import ToolFailure
from kafka_zk.tools.delete_records import parse_offset_json
from kafka_zk.tools.log_dirs import format_as_json


def test_parses_kafka_format_in_file_order():
    text = '{"partitions":[{"topic":"t","partition":1,"offset":-1},{"topic":"t","partition":0,"offset":3}]}'
    assert parse_offset_json(text) == [("t", 1, -1), ("t", 0, 3)]


@pytest.mark.parametrize(
    "text, java_class, message",
    [
        ("", "kafka.admin.AdminOperationException", "The input string is not a valid JSON"),
        ("[1]", "kafka.admin.AdminOperationException", "The input string is not a valid JSON"),
        (
            '{"version": 2, "partitions": []}',
            "kafka.admin.AdminOperationException",
            "Not supported version field value 2",
        ),
        ('{"version": 1}', "kafka.admin.AdminOperationException", "Missing partitions field"),
        (
            '{"partitions": [{"topic": "t", "offset": 1}]}',
            "com.fasterxml.jackson.databind.JsonMappingException",
            "No such field exists: `partition`",
        ),
        (
            '{"partitions": [{"topic": 5, "partition": 0, "offset": 1}]}',
            "com.fasterxml.jackson.databind.JsonMappingException",
            "Expected `String` value, received 5",
        ),
    ],
)
def test_bad_files_fail_like_kafka(text, java_class, message):
    with pytest.raises(ToolFailure) as failure:
        parse_offset_json(text)
    assert (failure.value.java_class, failure.value.message) == (java_class, message)


def test_log_dirs_json_is_compact_and_ordered_like_kafka():
    infos = {
        0: {
            "/d/a": LogDirInfo(Errors.NONE, {("t", 0): ReplicaInfo(10, 0, False), ("u", 0): ReplicaInfo(1, 0, False)}),
            "/d/b": LogDirInfo(Errors.KAFKA_STORAGE_ERROR, {}),
        }
    }
    assert format_as_json(infos, {"t"}) == (
        '{"version":1,"brokers":[{"broker":0,"logDirs":[{"logDir":"/d/a","error":null,"partitions":'
        '[{"partition":"t-0","size":10,"offsetLag":0,"isFuture":false}]},{"logDir":"/d/b",'
        '"error":"org.apache.kafka.common.errors.KafkaStorageException","partitions":[]}]}]}'
    )
