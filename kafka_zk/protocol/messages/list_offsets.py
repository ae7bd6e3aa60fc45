"""ListOffsets (key 2), versions 0-5: find offsets by timestamp (earliest -2, latest -1)."""

from kafka_zk.protocol.messages import partition_errors
from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 2
NAME = "ListOffsets"

REQUEST = Schema(
    "ListOffsetsRequest",
    [
        Field("replica_id", "int32"),
        Field("isolation_level", "int8", "2+"),
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
                                Field("current_leader_epoch", "int32", "4+", default=-1),
                                Field("timestamp", "int64"),
                                Field("max_num_offsets", "int32", "0", default=1),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-5",
)

RESPONSE = Schema(
    "ListOffsetsResponse",
    [
        Field("throttle_time_ms", "int32", "2+"),
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
                                Field("old_style_offsets", Array("int64"), "0"),
                                Field("timestamp", "int64", "1+", default=-1),
                                Field("offset", "int64", "1+", default=-1),
                                Field("leader_epoch", "int32", "4+", default=-1),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-5",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named, with the error and unknown offsets."""
    return {
        "throttle_time_ms": 0,
        "topics": partition_errors(
            body["topics"], error_code, old_style_offsets=[], timestamp=-1, offset=-1, leader_epoch=-1
        ),
    }
