"""OffsetDelete (key 47), version 0: delete a group's committed offsets for some partitions."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 47
NAME = "OffsetDelete"

REQUEST = Schema(
    "OffsetDeleteRequest",
    [
        Field("group_id", "string"),
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
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0",
)

RESPONSE = Schema(
    "OffsetDeleteResponse",
    [
        Field("error_code", "int16"),
        Field("throttle_time_ms", "int32"),
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
                                Field("error_code", "int16"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no topics."""
    return {"error_code": error_code, "throttle_time_ms": 0, "topics": []}
