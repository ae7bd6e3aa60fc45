"""DescribeLogDirs (key 35), versions 0-1: log dirs of a broker and the replica sizes in them."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 35
NAME = "DescribeLogDirs"

# A null topic list asks about every partition.
REQUEST = Schema(
    "DescribeLogDirsRequest",
    [
        Field(
            "topics",
            Array(
                [
                    Field("topic", "string"),
                    Field("partition_index", Array("int32")),
                ]
            ),
            nullable_versions="0+",
        ),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "DescribeLogDirsResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("error_code", "int16"),
                    Field("log_dir", "string"),
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
                                            Field("partition_size", "int64"),
                                            Field("offset_lag", "int64"),
                                            Field("is_future_key", "bool"),
                                        ]
                                    ),
                                ),
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
    """No directories: the response has no field for an error."""
    return {"throttle_time_ms": 0, "results": []}
