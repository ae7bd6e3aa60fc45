"""ExpireDelegationToken (key 40), versions 0-2 (flexible from 2): expire a token early."""

from kafka_zk.protocol.schema import Body, Field, Schema

API_KEY = 40
NAME = "ExpireDelegationToken"

REQUEST = Schema(
    "ExpireDelegationTokenRequest",
    [
        Field("hmac", "bytes"),
        Field("expiry_time_period_ms", "int64"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "ExpireDelegationTokenResponse",
    [
        Field("error_code", "int16"),
        Field("expiry_timestamp_ms", "int64"),
        Field("throttle_time_ms", "int32"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no expiry."""
    return {"error_code": error_code, "expiry_timestamp_ms": 0, "throttle_time_ms": 0}
