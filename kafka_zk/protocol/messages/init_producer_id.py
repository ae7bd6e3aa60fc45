"""InitProducerId (key 22), versions 0-3 (flexible from 2): get a producer id and epoch."""

from kafka_zk.protocol.schema import Body, Field, Schema

API_KEY = 22
NAME = "InitProducerId"

REQUEST = Schema(
    "InitProducerIdRequest",
    [
        Field("transactional_id", "string", nullable_versions="0+"),
        Field("transaction_timeout_ms", "int32"),
        Field("producer_id", "int64", "3+", default=-1),
        Field("producer_epoch", "int16", "3+", default=-1),
    ],
    valid_versions="0-3",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "InitProducerIdResponse",
    [
        Field("throttle_time_ms", "int32"),
        Field("error_code", "int16"),
        Field("producer_id", "int64", default=-1),
        Field("producer_epoch", "int16"),
    ],
    valid_versions="0-3",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no producer id."""
    return {"throttle_time_ms": 0, "error_code": error_code, "producer_id": -1, "producer_epoch": -1}
