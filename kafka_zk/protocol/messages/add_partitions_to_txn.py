"""AddPartitionsToTxn (key 24), versions 0-1: register partitions with an open transaction."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 24
NAME = "AddPartitionsToTxn"

REQUEST = Schema(
    "AddPartitionsToTxnRequest",
    [
        Field("transactional_id", "string"),
        Field("producer_id", "int64"),
        Field("producer_epoch", "int16"),
        Field(
            "topics",
            Array(
                [
                    Field("name", "string"),
                    Field("partitions", Array("int32")),
                ]
            ),
        ),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "AddPartitionsToTxnResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field(
            "results",
            Array(
                [
                    Field("name", "string"),
                    Field(
                        "results",
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
    valid_versions="0-1",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition the request named, with the error."""
    return {
        "throttle_time_ms": 0,
        "results": [
            {
                "name": topic["name"],
                "results": [{"partition_index": index, "error_code": error_code} for index in topic["partitions"]],
            }
            for topic in body["topics"]
        ],
    }
