"""TxnOffsetCommit (key 28), versions 0-3 (flexible from 3): offsets committed inside a transaction."""

from kafka_zk.protocol.messages import partition_errors
from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 28
NAME = "TxnOffsetCommit"

REQUEST = Schema(
    "TxnOffsetCommitRequest",
    [
        Field("transactional_id", "string"),
        Field("group_id", "string"),
        Field("producer_id", "int64"),
        Field("producer_epoch", "int16"),
        Field("generation_id", "int32", "3+", default=-1),
        Field("member_id", "string", "3+", default=""),
        Field("group_instance_id", "string", "3+", nullable_versions="3+", default=None),
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
                                Field("committed_leader_epoch", "int32", "2+", default=-1),
                                Field("committed_metadata", "string", nullable_versions="0+"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)

RESPONSE = Schema(
    "TxnOffsetCommitResponse",
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
                                Field("error_code", "int16"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named, with the error."""
    return {"throttle_time_ms": 0, "topics": partition_errors(body["topics"], error_code)}
