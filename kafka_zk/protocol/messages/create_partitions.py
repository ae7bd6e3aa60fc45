"""CreatePartitions (key 37), versions 0-2 (flexible from 2): add partitions to topics."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 37
NAME = "CreatePartitions"

# A null assignments list lets the controller place the new partitions.
REQUEST = Schema(
    "CreatePartitionsRequest",
    [
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field("count", "int32"),
                    Field(
                        "assignments",
                        Array(
                            [
                                Field("broker_ids", Array("int32")),
                            ]
                        ),
                        nullable_versions="0+",
                        default=None,
                    ),
                ]
            ),
        ),
        Field("timeout_ms", "int32"),
        Field("validate_only", "bool"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "CreatePartitionsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("name", "string"),
                    Field("error_code", "int16"),
                    Field("error_message", "string", nullable_versions="0+", default=None),
                ]
            ),
        ),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every topic the request named, with the error and its message."""
    return {
        "throttle_time_ms": 0,
        "results": [
            {"name": topic["name"], "error_code": error_code, "error_message": message} for topic in body["topics"]
        ],
    }
