"""OffsetForLeaderEpoch (key 23), versions 0-3: the end offset of a leader epoch (truncation)."""

from kafka_zk.protocol.messages import partition_errors
from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 23
NAME = "OffsetForLeaderEpoch"

# replica_id -2 marks a debugging consumer, allowed to see past the high watermark.
REQUEST = Schema(
    "OffsetForLeaderEpochRequest",
    [
        Field("replica_id", "int32", "3+", default=-2),
        Field(
            "topics",
            Array(
                [
                    Field("topic", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition", "int32"),
                                Field("current_leader_epoch", "int32", "2+", default=-1),
                                Field("leader_epoch", "int32"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-3",
)

RESPONSE = Schema(
    "OffsetForLeaderEpochResponse",
    [
        Field("throttle_time_ms", "int32", "2+"),
        Field(
            "topics",
            Array(
                [
                    Field("topic", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("error_code", "int16"),
                                Field("partition", "int32"),
                                Field("leader_epoch", "int32", "1+", default=-1),
                                Field("end_offset", "int64", default=-1),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-3",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named, with the error and an unknown epoch and offset."""
    return {
        "throttle_time_ms": 0,
        "topics": partition_errors(body["topics"], error_code, "topic", "partition", leader_epoch=-1, end_offset=-1),
    }
