"""AddOffsetsToTxn (key 25), versions 0-1: add a group's offsets topic to a transaction."""

from kafka_zk.protocol.schema import Body, Field, Schema

API_KEY = 25
NAME = "AddOffsetsToTxn"

REQUEST = Schema(
    "AddOffsetsToTxnRequest",
    [
        Field("transactional_id", "string"),
        Field("producer_id", "int64"),
        Field("producer_epoch", "int16"),
        Field("group_id", "string"),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "AddOffsetsToTxnResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16"),
    ],
    valid_versions="0-1",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error alone."""
    return {"throttle_time_ms": 0, "error_code": error_code}
