"""DeleteRecords (key 21), versions 0-1: advance partitions' log start offsets."""

from kafka_zk.protocol.messages import partition_errors
from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 21
NAME = "DeleteRecords"

REQUEST = Schema(
    "DeleteRecordsRequest",
    [
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
                                Field("offset", "int64"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
        Field("timeout_ms", "int32"),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "DeleteRecordsResponse",
    [
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
                                Field("low_watermark", "int64"),
                                Field("error_code", "int16"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-1",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named, with the error and an unknown low watermark."""
    return {"throttle_time_ms": 0, "topics": partition_errors(body["topics"], error_code, low_watermark=-1)}
