"""ControlledShutdown (key 7), versions 0-3 (flexible from 3): a broker asks to move its leaders away.

v0 requests travel with request header v0, which has no client id.
"""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 7
NAME = "ControlledShutdown"

REQUEST = Schema(
    "ControlledShutdownRequest",
    [
        Field("broker_id", "int32"),
        Field("broker_epoch", "int64", "2+", default=-1),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)

RESPONSE = Schema(
    "ControlledShutdownResponse",
    [
        Field("error_code", "int16"),
        Field(
            "remaining_partitions",
            Array(
                [
                    Field("topic_name", "string"),
                    Field("partition_index", "int32"),
                ]
            ),
        ),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no remaining partitions."""
    return {"error_code": error_code, "remaining_partitions": []}
