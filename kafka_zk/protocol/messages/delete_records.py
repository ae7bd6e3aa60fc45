"""DeleteRecords (key 21), versions 0-1: advance partitions' log start offsets."""

from kafka_zk.protocol.schema import Array, Field, Schema

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
