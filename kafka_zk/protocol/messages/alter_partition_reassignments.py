"""AlterPartitionReassignments (key 45), version 0 (flexible): start or cancel reassignments."""

from kafka_zk.protocol.schema import Array, Field, Schema

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
