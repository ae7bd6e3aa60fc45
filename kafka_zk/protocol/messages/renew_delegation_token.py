"""RenewDelegationToken (key 39), versions 0-2 (flexible from 2): extend a token's expiry."""

from kafka_zk.protocol.schema import Body, Field, Schema

API_KEY = 39
NAME = "RenewDelegationToken"

REQUEST = Schema(
    "RenewDelegationTokenRequest",
    [
        Field("hmac", "bytes"),
        Field("renew_period_ms", "int64"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "RenewDelegationTokenResponse",
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
