"""StopReplica (key 5), versions 0-2 (flexible from 2): stop (and maybe delete) replicas.

v0 lists partitions flat (``ungrouped_partitions``); v1+ group them under ``topics``.
"""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 5
NAME = "StopReplica"

REQUEST = Schema(
    "StopReplicaRequest",
    [
        Field("controller_id", "int32"),
        Field("controller_epoch", "int32"),
        Field("broker_epoch", "int64", "1+", default=-1),
        Field("delete_partitions", "bool"),
        Field(
            "ungrouped_partitions",
            Array(
                [
                    Field("topic_name", "string", "0"),
                    Field("partition_index", "int32", "0"),
                ]
            ),
            "0",
        ),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string", "1+"),
                    Field("partition_indexes", Array("int32"), "1+"),
                ]
            ),
            "1+",
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "StopReplicaResponse",
    [
        Field("error_code", "int16"),
        Field(
            "partition_errors",
            Array(
                [
                    Field("topic_name", "string"),
                    Field("partition_index", "int32"),
                    Field("error_code", "int16"),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error, and again for every partition the request named."""
    if version >= 1:
        partitions = [(topic["name"], index) for topic in body["topics"] for index in topic["partition_indexes"]]
    else:
        partitions = [
            (partition["topic_name"], partition["partition_index"]) for partition in body["ungrouped_partitions"]
        ]
    return {
        "error_code": error_code,
        "partition_errors": [
            {"topic_name": name, "partition_index": index, "error_code": error_code} for name, index in partitions
        ],
    }
