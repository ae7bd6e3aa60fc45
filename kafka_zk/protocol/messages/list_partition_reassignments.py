"""ListPartitionReassignments (key 46), version 0 (flexible): reassignments in progress."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 46
NAME = "ListPartitionReassignments"

# A null topic list asks for every ongoing reassignment.
REQUEST = Schema(
    "ListPartitionReassignmentsRequest",
    [
        Field("timeout_ms", "int32", default=60000),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field("partition_indexes", Array("int32")),
                ]
            ),
            nullable_versions="0+",
            default=None,
        ),
    ],
    valid_versions="0",
    flexible_versions="0+",
)

RESPONSE = Schema(
    "ListPartitionReassignmentsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16"),
        Field("error_message", "string", nullable_versions="0+"),
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
                                Field("replicas", Array("int32")),
                                Field("adding_replicas", Array("int32")),
                                Field("removing_replicas", Array("int32")),
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
    """The error with its message, and every partition named with no replicas."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "error_message": message,
        "topics": [
            {
                "name": topic["name"],
                "partitions": [
                    {"partition_index": index, "replicas": [], "adding_replicas": [], "removing_replicas": []}
                    for index in topic["partition_indexes"]
                ],
            }
            for topic in body["topics"] or []
        ],
    }
