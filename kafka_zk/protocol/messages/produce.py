"""Produce (key 0), versions 0-8: append record batches to partitions."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 0
NAME = "Produce"

REQUEST = Schema(
    "ProduceRequest",
    [
        Field("transactional_id", "string", "3+", nullable_versions="3+", default=None),
        Field("acks", "int16"),
        Field("timeout_ms", "int32"),
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
                                Field("records", "records", nullable_versions="0+"),
                            ]
                        ),
                    ),
                ]
            ),
        ),
    ],
    valid_versions="0-8",
)

RESPONSE = Schema(
    "ProduceResponse",
    [
        Field(
            "responses",
            Array(
                [
                    Field("name", "string"),
                    Field(
                        "partitions",
                        Array(
                            [
                                Field("partition_index", "int32"),
                                Field("error_code", "int16"),
                                Field("base_offset", "int64"),
                                Field("log_append_time_ms", "int64", "2+", default=-1),
                                Field("log_start_offset", "int64", "5+", default=-1),
                                Field(
                                    "record_errors",
                                    Array(
                                        [
                                            Field("batch_index", "int32", "8+"),
                                            Field(
                                                "batch_index_error_message",
                                                "string",
                                                "8+",
                                                nullable_versions="8+",
                                                default=None,
                                            ),
                                        ]
                                    ),
                                    "8+",
                                ),
                                Field("error_message", "string", "8+", nullable_versions="8+", default=None),
                            ]
                        ),
                    ),
                ]
            ),
        ),
        Field("throttle_time_ms", "int32", "1+", default=0),
    ],
    valid_versions="0-8",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body | None:
    """Every partition the request named, with the error and no offsets (Kafka's ProduceRequest.getErrorResponse);
    None for acks=0, which is never answered: the connection closes instead."""
    if body["acks"] == 0:
        return None
    return {
        "responses": [
            {
                "name": topic["name"],
                "partitions": [
                    {
                        "partition_index": partition["partition_index"],
                        "error_code": error_code,
                        "base_offset": -1,
                        "log_append_time_ms": -1,
                        "log_start_offset": -1,
                        "record_errors": [],
                        "error_message": None,
                    }
                    for partition in topic["partitions"]
                ],
            }
            for topic in body["topics"]
        ],
        "throttle_time_ms": 0,
    }
