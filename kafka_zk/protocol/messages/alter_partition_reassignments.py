"""AlterPartitionReassignments (key 45), version 0 (flexible): start or cancel reassignments."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 45
NAME = "AlterPartitionReassignments"

# Null replicas cancels a partition's pending reassignment.
REQUEST = Schema(
    "AlterPartitionReassignmentsRequest",
    [
        Field("timeout_ms", "int32", default=60000),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("replicas", Array("int32"), nullable_versions="0+", default=None),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0",
    flexible_versions="0+",
)

RESPONSE = Schema(
    "AlterPartitionReassignmentsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16"),
        Field("error_message", "string", nullable_versions="0+"),
        Field(
            "responses",
            Array(
                [
                    Field("name", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("error_code", "int16"),
                                Field("error_message", "string", nullable_versions="0+"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0",
    flexible_versions="0+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error with its message, and again for every partition named."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "error_message": message,
        "responses": [
            {
                "name": topic["name"],
                "partitions": [
                    {
                        "partition_index": partition["partition_index"],
                        "error_code": error_code,
                        "error_message": message,
                    }
                    for partition in topic["partitions"]
                ],
            }
            for topic in body["topics"]
        ],
    }
