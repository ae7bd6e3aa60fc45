"""One module per Kafka API key, each defining API_KEY, NAME, REQUEST and RESPONSE schemas."""

from typing import Any

from kafka_zk.protocol.schema import Body


def partition_errors(
    topics: list[Body], error_code: int, topic_key: str = "name", partition_key: str = "partition_index", **fields: Any
) -> list[Body]:
    """Each partition of each topic a request named, answered with ``error_code`` and ``fields``: the shape most
    per-partition error responses share."""
    return [
        {
            topic_key: topic[topic_key],
            "partitions": [
                {partition_key: partition[partition_key], "error_code": error_code, **fields}
                for partition in topic["partitions"]
            ],
        }
        for topic in topics
    ]
