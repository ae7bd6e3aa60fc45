"""WriteTxnMarkers (key 27), version 0: the transaction coordinator writes commit/abort markers."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 27
NAME = "WriteTxnMarkers"

REQUEST = Schema(
    "WriteTxnMarkersRequest",
    [
        Field(
            "markers",
            Array(
                [
                    Field("producer_id", "int64"),
                    Field("producer_epoch", "int16"),
                    Field("transaction_result", "bool"),  # True commits, False aborts
                    Field(
                        "topics",
                        Array(
                            [
                                Field("name", "string"),
                                Field("partition_indexes", Array("int32")),
                            ]
                        ),
                    ),
                    Field("coordinator_epoch", "int32"),
                ]
            ),
        ),
    ],
    valid_versions="0",
)

RESPONSE = Schema(
    "WriteTxnMarkersResponse",
    [
        Field(
            "markers",
            Array(
                [
                    Field("producer_id", "int64"),
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
                ]
            ),
        ),
    ],
    valid_versions="0",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every partition of every marker the request carried, with the error."""
    return {
        "markers": [
            {
                "producer_id": marker["producer_id"],
                "topics": [
                    {
                        "name": topic["name"],
                        "partitions": [
                            {"partition_index": index, "error_code": error_code} for index in topic["partition_indexes"]
                        ],
                    }
                    for topic in marker["topics"]
                ],
            }
            for marker in body["markers"]
        ]
    }
