"""Fetch (key 1), versions 0-11: read records from partitions (consumers and followers)."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 1
NAME = "Fetch"

REQUEST = Schema(
    "FetchRequest",
    [
        Field("replica_id", "int32"),
        Field("max_wait_ms", "int32"),
        Field("min_bytes", "int32"),
        Field("max_bytes", "int32", "3+", default=0x7FFFFFFF),
        Field("isolation_level", "int8", "4+", default=0),
        Field("session_id", "int32", "7+", default=0),
        Field("session_epoch", "int32", "7+", default=-1),
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
                                Field("current_leader_epoch", "int32", "9+", default=-1),
                                Field("fetch_offset", "int64"),
                                Field("log_start_offset", "int64", "5+", default=-1),
                                Field("partition_max_bytes", "int32"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
        Field(
            "forgotten_topics_data",
            Array(
                [
                    Field("topic", "string", "7+"),
                    Field("partitions", Array("int32"), "7+"),
                ]
            ),
            "7+",
        ),
        Field("rack_id", "string", "11+", default=""),
    ],
    valid_versions="0-11",
)

RESPONSE = Schema(
    "FetchResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field("error_code", "int16", "7+"),
        Field("session_id", "int32", "7+", default=0),
        Field(
            "responses",
            Array(
                [
                    Field("topic", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("error_code", "int16"),
                                Field("high_watermark", "int64"),
                                Field("last_stable_offset", "int64", "4+", default=-1),
                                Field("log_start_offset", "int64", "5+", default=-1),
                                Field(
                                    "aborted_transactions",
                                    Array(
                                        [
                                            Field("producer_id", "int64", "4+"),
                                            Field("first_offset", "int64", "4+"),
                                        ]
                                    ),
                                    "4+",
                                    nullable_versions="4+",
                                ),
                                Field("preferred_read_replica", "int32", "11+", default=-1),
                                Field("records", "records", nullable_versions="0+"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-11",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named with the error and no data; the top-level error and the session id too."""
    return {
        "throttle_time_ms": 0,
        "error_code": error_code,
        "session_id": body.get("session_id", 0),
        "responses": [
            {
                "topic": topic["topic"],
                "partitions": [
                    {
                        "partition_index": partition["partition"],
                        "error_code": error_code,
                        "high_watermark": -1,
                        "last_stable_offset": -1,
                        "log_start_offset": -1,
                        "aborted_transactions": None,
                        "preferred_read_replica": -1,
                        "records": b"",
                    }
                    for partition in topic["partitions"]
                ],
            }
            for topic in body["topics"]
        ],
    }
