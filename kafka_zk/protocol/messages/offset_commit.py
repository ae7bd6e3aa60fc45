"""OffsetCommit (key 8), versions 0-8 (flexible from 8): store a consumer group's offsets."""

from kafka_zk.protocol.messages import partition_errors
from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 8
NAME = "OffsetCommit"

REQUEST = Schema(
    "OffsetCommitRequest",
    [
        Field("group_id", "string"),
        Field("generation_id", "int32", "1+", default=-1),
        Field("member_id", "string", "1+"),
        Field("group_instance_id", "string", "7+", nullable_versions="7+", default=None),
        Field("retention_time_ms", "int64", "2-4", default=-1),
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
                                Field("committed_offset", "int64"),
                                Field("committed_leader_epoch", "int32", "6+", default=-1),
                                Field("commit_timestamp", "int64", "1", default=-1),
                                Field("committed_metadata", "string", nullable_versions="0+"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-8",
    flexible_versions="8+",
)

RESPONSE = Schema(
    "OffsetCommitResponse",
    [
        Field("throttle_time_ms", "int32", "3+"),
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
    valid_versions="0-8",
    flexible_versions="8+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named, with the error."""
    return {"throttle_time_ms": 0, "topics": partition_errors(body["topics"], error_code)}
